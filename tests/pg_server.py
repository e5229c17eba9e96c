"""A throw-away PostgreSQL server for the tests: `initdb` + `pg_ctl start` in a temp folder on a
free loopback port, with Debian's binaries (`pg_config --bindir`, else /usr/lib/postgresql/*/bin).

initdb refuses to run as root, so as root the cluster is made and run by an unprivileged user
(`postgres` when it exists, else `nobody`) in a folder owned by that user.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


def pg_bindir() -> Path | None:
    cands = []
    if shutil.which("pg_config"):
        try:
            out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True,
                                 timeout=10).stdout.strip()
            cands.append(Path(out))
        except (OSError, subprocess.SubprocessError):
            pass
    cands += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    return next((c for c in cands if (c / "initdb").is_file() and (c / "pg_ctl").is_file()), None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PgServer:
    root: Path
    port: int
    bindir: Path
    run_as: str | None
    superuser: str = "decksheet"

    def url(self, db: str = "postgres", user: str | None = None, event: str | None = None) -> str:
        base = f"postgresql://{user or self.superuser}@127.0.0.1:{self.port}/{db}"
        return base + (f"?event={event}" if event else "")

    def _cmd(self, args: list[str]) -> list[str]:
        return (["runuser", "-u", self.run_as, "--"] if self.run_as else []) + args

    def run(self, args: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
        return subprocess.run(self._cmd(args), capture_output=True, text=True, timeout=timeout,
                              cwd=self.root)

    @classmethod
    def start(cls) -> "PgServer":
        bindir = pg_bindir()
        if bindir is None:
            raise RuntimeError("no PostgreSQL server binaries (Debian package 'postgresql')")
        run_as = None
        if os.geteuid() == 0:
            run_as = next((u for u in ("postgres", "nobody") if _user_exists(u)), None)
            if run_as is None or not shutil.which("runuser"):
                raise RuntimeError("running as root without a 'postgres'/'nobody' user and runuser")
        root = Path(tempfile.mkdtemp(prefix="decksheet-pg-"))
        os.chmod(root, 0o755)
        if run_as:
            pw = pwd.getpwnam(run_as)
            os.chown(root, pw.pw_uid, pw.pw_gid)
        server = cls(root=root, port=_free_port(), bindir=bindir, run_as=run_as)
        data = root / "data"
        r = server.run([str(bindir / "initdb"), "-D", str(data), "-U", server.superuser,
                        "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"])
        if r.returncode:
            raise RuntimeError(f"initdb failed: {r.stderr.strip()[-500:]}")
        opts = (f"-p {server.port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
                f"-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        r = server.run([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"),
                        "-o", opts, "-w", "-t", "60", "start"])
        if r.returncode:
            log = (root / "log").read_text(errors="replace")[-800:] if (root / "log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {r.stderr.strip()[-300:]} {log}")
        return server

    def createdb(self, name: str) -> str:
        import psycopg
        with psycopg.connect(self.url(), autocommit=True) as con:
            con.execute(f'CREATE DATABASE "{name}"')
        return name

    def stop(self) -> None:
        self.run([str(self.bindir / "pg_ctl"), "-D", str(self.root / "data"), "-m", "immediate",
                  "-w", "stop"], timeout=60)
        shutil.rmtree(self.root, ignore_errors=True)


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def wait_ready(server: PgServer, seconds: float = 30) -> None:
    import psycopg
    end = time.monotonic() + seconds
    while True:
        try:
            psycopg.connect(server.url(), connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > end:
                raise
            time.sleep(0.2)
