"""The event record: one SQLite file per event, plus the original sheets beside it.

`EVENT.db` holds players, registrations (every version), review decisions, deck checks,
infractions issued and an append-only audit log; `EVENT.db.files/<sha256>` holds each original
file exactly as handed in.

Safety rules (two judges at two laptops on one shared file, or a process killed mid-write):
- WAL journal, a busy timeout, and every write in one `BEGIN IMMEDIATE` transaction, so writers
  queue instead of failing and a reader never sees half a registration;
- an original file is written to a temporary name, flushed and renamed into place *before* the
  row naming it commits, so a committed row always has its file;
- registrations, decisions, deck checks, infractions and the log are append-only (triggers).
"""
from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import re
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from scanner.errors import EventError
from scanner.event.migrations import MIGRATIONS, applied, migrate

ENV_EVENT = "DECKSHEET_EVENT"
BUSY_TIMEOUT_MS = 60_000
_KONAMI_ID = re.compile(r"^\d{1,20}$")


def now_iso() -> str:
    """Local time with its UTC offset, to the second (what a judge reads in the record)."""
    return dt.datetime.now().astimezone().isoformat(timespec="seconds")


def normalise_konami_id(raw: str) -> str:
    """`0123-456-789`, ` 0123456789 ` → `0123456789`; anything but digits is refused."""
    kid = re.sub(r"[\s\-]", "", str(raw or ""))
    if not _KONAMI_ID.match(kid):
        raise EventError(f"not a Konami card game ID: {raw!r} (digits only, e.g. 0123456789)")
    return kid


@dataclass
class EventInfo:
    """The event's header row."""

    path: Path
    name: str
    date: dt.date
    list_name: str | None
    """The limit list named at `event init --list`; None = the list in force on `date`."""
    created_at: str


@dataclass
class Registration:
    """One version of one player's registered decklist, as stored."""

    id: int
    konami_id: str
    player_name: str | None
    version: int
    file_sha256: str
    file_name: str | None
    reader: str
    decklist_json: dict
    """`Decklist.to_json()` as read at registration (review decisions are separate rows)."""
    legal: bool
    needs_review: int
    infractions: list[dict]
    list_name: str | None
    judge: str | None
    created_at: str


@dataclass
class ReviewDecision:
    """A judge's answer to one flagged line (or a sheet-level flag when `line` is None)."""

    registration_id: int
    section: str | None
    line: int | None
    """1-based position in the section, as in the contract `review` items."""
    read: str
    """What the line read when decided: a decision only applies to the same reading."""
    action: str
    """keep (the line is right as read), choose (card_id/count given), skip (still unsure)."""
    card_id: int | None = None
    count: int | None = None
    judge: str | None = None
    created_at: str = ""


@dataclass
class DeckCheck:
    id: int
    konami_id: str
    round: int
    registration_id: int
    mode: str
    match: bool
    observed_sha256: str | None
    observed_json: dict
    result_json: dict
    judge: str | None
    created_at: str


@dataclass
class IssuedInfraction:
    """An infraction a judge issued (at a deck check), with its penalty and remedy."""

    id: int
    konami_id: str
    code: str
    penalty: str
    remedy: str
    rule: str | None
    message: str | None
    round: int | None
    judge: str | None
    deck_check_id: int | None
    created_at: str

    def to_json(self) -> dict:
        return {"player": self.konami_id, "code": self.code, "penalty": self.penalty,
                "remedy": self.remedy, "rule": self.rule, "message": self.message,
                "round": self.round, "judge": self.judge, "time": self.created_at}


@dataclass
class NewInfraction:
    """What `add_deck_check` needs of an infraction (from `Infraction` or its JSON)."""

    code: str
    penalty: str
    remedy: str
    rule: str | None = None
    message: str | None = None

    @classmethod
    def of(cls, obj: Any) -> "NewInfraction":
        d = obj if isinstance(obj, dict) else obj.to_json()
        return cls(code=str(d.get("code")), penalty=str(d.get("penalty") or ""),
                   remedy=str(d.get("remedy") or ""), rule=d.get("rule"), message=d.get("message"))


@dataclass
class EventStore:
    """An open event file. Use `EventStore.create` / `EventStore.open`; close with `close()`."""

    path: Path
    con: sqlite3.Connection = field(repr=False)

    # ------------------------------------------------------------------ opening

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        # isolation_level=None: we issue BEGIN IMMEDIATE ourselves (the sqlite3 module's
        # implicit deferred BEGIN would let two writers deadlock on upgrade).
        con = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        con.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        con.execute("PRAGMA journal_mode = WAL")
        con.execute("PRAGMA synchronous = FULL")
        con.execute("PRAGMA foreign_keys = ON")
        return con

    @classmethod
    def create(cls, path: str | os.PathLike, name: str, date: dt.date,
               list_name: str | None = None) -> "EventStore":
        """Make a new event file; refuses to touch an existing file."""
        p = Path(path)
        if p.exists():
            raise EventError(f"{p} already exists; an event is never re-initialised "
                             f"(pick another path)")
        if not p.parent.is_dir():
            raise EventError(f"folder {p.parent} does not exist")
        if not name.strip():
            raise EventError("the event needs a name (--name)")
        try:
            con = cls._connect(p)
        except sqlite3.Error as exc:
            raise EventError(f"cannot create event file {p}: {exc}") from None
        store = cls(path=p, con=con)
        with store.transaction():
            migrate(con, now_iso())
            con.execute("INSERT INTO event (id, name, date, list_name, created_at) "
                        "VALUES (1, ?, ?, ?, ?)", (name.strip(), date.isoformat(), list_name,
                                                   now_iso()))
            store._log("event-init", {"name": name.strip(), "date": date.isoformat(),
                                      "list": list_name})
        store.files_dir.mkdir(exist_ok=True)
        return store

    @classmethod
    def open(cls, path: str | os.PathLike | None) -> "EventStore":
        """Open an existing event (path, else $DECKSHEET_EVENT); migrates an older schema."""
        if not path:
            path = os.environ.get(ENV_EVENT)
        if not path:
            raise EventError(f"no event: give --event PATH or set {ENV_EVENT} "
                             f"(create one with 'decksheet event init PATH')")
        p = Path(path)
        if p.is_dir():
            raise EventError(f"{p} is a folder, not an event file")
        if not p.is_file():
            raise EventError(f"no event file at {p} (create it with 'decksheet event init {p}')")
        try:
            with open(p, "rb") as f:
                if f.read(16) != b"SQLite format 3\x00":
                    raise EventError(f"{p} is not a decksheet event file (not SQLite)")
            con = cls._connect(p)
            store = cls(path=p, con=con)
            if "0001-initial" not in applied(con):
                con.close()
                raise EventError(f"{p} is not a decksheet event file (no event tables)")
            if {m.name for m in MIGRATIONS} - set(applied(con)):
                with store.transaction():
                    ran = migrate(con, now_iso())
                    if ran:
                        store._log("migrate", {"steps": ran})
        except sqlite3.DatabaseError as exc:
            raise EventError(f"{p} is not a usable event file: {exc}") from None
        store.files_dir.mkdir(exist_ok=True)
        return store

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> "EventStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def files_dir(self) -> Path:
        return Path(str(self.path) + ".files")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it commits, or none of it."""
        self.con.execute("BEGIN IMMEDIATE")
        try:
            yield self.con
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        self.con.execute("COMMIT")

    def _log(self, action: str, detail: dict, actor: str | None = None) -> None:
        self.con.execute("INSERT INTO audit_log (at, actor, action, detail) VALUES (?, ?, ?, ?)",
                         (now_iso(), actor, action, json.dumps(detail, ensure_ascii=False)))

    def log(self, action: str, detail: dict, actor: str | None = None) -> None:
        with self.transaction():
            self._log(action, detail, actor)

    # ------------------------------------------------------------------ reading

    def event(self) -> EventInfo:
        row = self.con.execute("SELECT name, date, list_name, created_at FROM event").fetchone()
        if row is None:
            raise EventError(f"{self.path} has no event header (was 'event init' interrupted?)")
        return EventInfo(path=self.path, name=row[0], date=dt.date.fromisoformat(row[1]),
                         list_name=row[2], created_at=row[3])

    def file_path(self, sha256: str) -> Path:
        return self.files_dir / sha256

    def player_name(self, konami_id: str) -> str | None:
        row = self.con.execute("SELECT name FROM players WHERE konami_id = ?",
                               (konami_id,)).fetchone()
        return row[0] if row else None

    def has_player(self, konami_id: str) -> bool:
        return self.con.execute("SELECT 1 FROM players WHERE konami_id = ?",
                                (konami_id,)).fetchone() is not None

    _REG_COLS = ("r.id, r.konami_id, p.name, r.version, r.file_sha256, r.file_name, r.reader, "
                 "r.decklist_json, r.legal, r.needs_review, r.infractions_json, r.list_name, "
                 "r.judge, r.created_at")

    @staticmethod
    def _registration(row: tuple) -> Registration:
        return Registration(id=row[0], konami_id=row[1], player_name=row[2], version=row[3],
                            file_sha256=row[4], file_name=row[5], reader=row[6],
                            decklist_json=json.loads(row[7]), legal=bool(row[8]),
                            needs_review=int(row[9]), infractions=json.loads(row[10]),
                            list_name=row[11], judge=row[12], created_at=row[13])

    def latest_registration(self, konami_id: str) -> Registration | None:
        row = self.con.execute(
            f"SELECT {self._REG_COLS} FROM registrations r JOIN players p USING (konami_id) "
            "WHERE r.konami_id = ? ORDER BY r.version DESC LIMIT 1", (konami_id,)).fetchone()
        return self._registration(row) if row else None

    def registration(self, konami_id: str, version: int) -> Registration | None:
        row = self.con.execute(
            f"SELECT {self._REG_COLS} FROM registrations r JOIN players p USING (konami_id) "
            "WHERE r.konami_id = ? AND r.version = ?", (konami_id, version)).fetchone()
        return self._registration(row) if row else None

    def registrations(self, latest_only: bool = False) -> list[Registration]:
        """Every stored version (or only each player's newest), by player then version."""
        where = ("WHERE r.version = (SELECT MAX(version) FROM registrations x "
                 "WHERE x.konami_id = r.konami_id)") if latest_only else ""
        rows = self.con.execute(
            f"SELECT {self._REG_COLS} FROM registrations r JOIN players p USING (konami_id) "
            f"{where} ORDER BY r.konami_id, r.version").fetchall()
        return [self._registration(r) for r in rows]

    def decisions(self, registration_id: int) -> list[ReviewDecision]:
        """Review decisions of one registration, oldest first (a later one wins)."""
        rows = self.con.execute(
            "SELECT registration_id, section, line, read, action, card_id, count, judge, "
            "created_at FROM review_decisions WHERE registration_id = ? ORDER BY id",
            (registration_id,)).fetchall()
        return [ReviewDecision(*r) for r in rows]

    def deck_checks(self, konami_id: str | None = None) -> list[DeckCheck]:
        sql = ("SELECT id, konami_id, round, registration_id, mode, match, observed_sha256, "
               "observed_json, result_json, judge, created_at FROM deck_checks")
        args: tuple = ()
        if konami_id:
            sql += " WHERE konami_id = ?"
            args = (konami_id,)
        rows = self.con.execute(sql + " ORDER BY round, id", args).fetchall()
        return [DeckCheck(id=r[0], konami_id=r[1], round=r[2], registration_id=r[3], mode=r[4],
                          match=bool(r[5]), observed_sha256=r[6], observed_json=json.loads(r[7]),
                          result_json=json.loads(r[8]), judge=r[9], created_at=r[10])
                for r in rows]

    def infractions(self) -> list[IssuedInfraction]:
        rows = self.con.execute(
            "SELECT id, konami_id, code, penalty, remedy, rule, message, round, judge, "
            "deck_check_id, created_at FROM infractions ORDER BY id").fetchall()
        return [IssuedInfraction(*r) for r in rows]

    def audit_log(self) -> list[tuple[str, str | None, str, dict]]:
        return [(r[0], r[1], r[2], json.loads(r[3])) for r in self.con.execute(
            "SELECT at, actor, action, detail FROM audit_log ORDER BY id")]

    # ------------------------------------------------------------------ writing

    def store_file(self, data: bytes) -> str:
        """Keep an original file under its sha256 (atomic: temp name, fsync, rename)."""
        digest = hashlib.sha256(data).hexdigest()
        target = self.file_path(digest)
        if target.is_file() and target.stat().st_size == len(data):
            return digest
        self.files_dir.mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".incoming-", dir=self.files_dir)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)  # same bytes from any writer: the race is harmless
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        _fsync_dir(self.files_dir)
        return digest

    def add_registration(self, konami_id: str, player_name: str | None, decklist_json: dict,
                         file_sha256: str, file_name: str | None, legal: bool,
                         infractions: list[dict], list_name: str | None,
                         judge: str | None = None) -> Registration:
        """Store a new version of the player's list (the file must be stored already)."""
        if not self.file_path(file_sha256).is_file():
            raise EventError(f"original file {file_sha256[:12]}… is not in {self.files_dir}")
        needs_review = int(_needs_review(decklist_json))
        with self.transaction() as con:
            self._upsert_player(konami_id, player_name, judge)
            (last,) = con.execute("SELECT COALESCE(MAX(version), 0) FROM registrations "
                                  "WHERE konami_id = ?", (konami_id,)).fetchone()
            version = int(last) + 1
            con.execute(
                "INSERT INTO registrations (konami_id, version, file_sha256, file_name, reader, "
                "decklist_json, legal, needs_review, infractions_json, list_name, judge, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (konami_id, version, file_sha256, file_name,
                 (decklist_json.get("source") or {}).get("reader") or "?",
                 json.dumps(decklist_json, ensure_ascii=False), int(legal), needs_review,
                 json.dumps(infractions, ensure_ascii=False), list_name, judge, now_iso()))
            self._log("register", {"player": konami_id, "version": version,
                                   "sha256": file_sha256, "file": file_name, "legal": legal,
                                   "needs_review": needs_review}, judge)
        reg = self.registration(konami_id, version)
        assert reg is not None
        return reg

    def _upsert_player(self, konami_id: str, name: str | None, judge: str | None) -> None:
        row = self.con.execute("SELECT name FROM players WHERE konami_id = ?",
                               (konami_id,)).fetchone()
        if row is None:
            self.con.execute("INSERT INTO players (konami_id, name, created_at) VALUES (?, ?, ?)",
                             (konami_id, name, now_iso()))
        elif name and name != row[0]:
            # The log keeps the old name: the player row is the one mutable record.
            self.con.execute("UPDATE players SET name = ? WHERE konami_id = ?", (name, konami_id))
            self._log("player-renamed", {"player": konami_id, "old": row[0], "new": name}, judge)

    def add_decisions(self, decisions: list[ReviewDecision], judge: str | None = None) -> int:
        """Append review decisions (all in one transaction). Returns how many."""
        if not decisions:
            return 0
        with self.transaction() as con:
            for d in decisions:
                con.execute(
                    "INSERT INTO review_decisions (registration_id, section, line, read, action, "
                    "card_id, count, judge, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (d.registration_id, d.section, d.line, d.read, d.action, d.card_id, d.count,
                     d.judge or judge, now_iso()))
            self._log("review", {"registrations": sorted({d.registration_id for d in decisions}),
                                 "decisions": len(decisions),
                                 "actions": [d.action for d in decisions]}, judge)
        return len(decisions)

    def add_deck_check(self, konami_id: str, round_no: int, registration_id: int, mode: str,
                       match: bool, observed_sha256: str | None, observed_json: dict,
                       result_json: dict, infractions: list[NewInfraction],
                       judge: str | None = None) -> tuple[DeckCheck, list[IssuedInfraction]]:
        """Record a deck check and the infractions it issued, in one transaction."""
        at = now_iso()
        with self.transaction() as con:
            cur = con.execute(
                "INSERT INTO deck_checks (konami_id, round, registration_id, mode, match, "
                "observed_sha256, observed_json, result_json, judge, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (konami_id, round_no, registration_id, mode, int(match), observed_sha256,
                 json.dumps(observed_json, ensure_ascii=False),
                 json.dumps(result_json, ensure_ascii=False), judge, at))
            check_id = int(cur.lastrowid)
            for inf in infractions:
                con.execute(
                    "INSERT INTO infractions (konami_id, code, penalty, remedy, rule, message, "
                    "round, judge, deck_check_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (konami_id, inf.code, inf.penalty, inf.remedy, inf.rule, inf.message,
                     round_no, judge, check_id, at))
            self._log("deckcheck", {"player": konami_id, "round": round_no, "match": match,
                                    "registration_id": registration_id,
                                    "infractions": [i.code for i in infractions]}, judge)
        check = next(c for c in self.deck_checks(konami_id) if c.id == check_id)
        issued = [i for i in self.infractions() if i.deck_check_id == check_id]
        return check, issued

    def integrity(self) -> list[str]:
        """Problems with the store: SQLite's own check plus rows whose file is missing/changed."""
        problems = [r[0] for r in self.con.execute("PRAGMA integrity_check") if r[0] != "ok"]
        problems += [f"foreign key: {r}" for r in self.con.execute("PRAGMA foreign_key_check")]
        for (sha,) in self.con.execute("SELECT DISTINCT file_sha256 FROM registrations"):
            p = self.file_path(sha)
            if not p.is_file():
                problems.append(f"original file missing: {sha}")
        return problems


def verify_file(path: Path, sha256: str) -> bool:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest() == sha256


def _needs_review(decklist_json: dict) -> int:
    """Same count as `Decklist.needs_review`, from the JSON form."""
    sections = decklist_json.get("sections") or {}
    lines = sum(1 for items in sections.values() for e in items if e.get("needs_review"))
    sheet = sum(1 for r in decklist_json.get("review") or []
                if r.get("line") is None and r.get("card_id") is None)
    return lines + sheet


def _fsync_dir(path: Path) -> None:
    """Make a rename durable (POSIX); harmless where directories cannot be opened."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
