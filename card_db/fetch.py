"""Download the current Korean cards.cdb and lflist.conf into the user's data directory."""
from __future__ import annotations

import hashlib
import re
import sqlite3
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from card_db.lflist import parse_lflist
from card_db.paths import replace_durably
from card_db.errors import CardDatabaseError, FetchError

# The canonical public sources (see the card data README): mycard's Korean locale database and
# the ygopro repository's list file.
CDB_URL_TEMPLATE = ("https://raw.githubusercontent.com/mycard/ygopro-database/master/"
                    "locales/{locale}/cards.cdb")
DEFAULT_CDB_URL = CDB_URL_TEMPLATE.format(locale="ko-KR")
DEFAULT_LOCALES = ("ko-KR", "en-US")
"""Korean names to show; the English database adds English names to the search and carries
alternate-art rows the Korean one may lack."""
_LOCALE = re.compile(r"[a-z]{2,3}(?:-[A-Za-z]{2,4})?")
DEFAULT_LFLIST_URL = "https://raw.githubusercontent.com/Fluorohydride/ygopro/master/lflist.conf"


@dataclass
class Fetched:
    path: Path
    sha256: str
    size: int


Progress = Callable[[int, int | None], None]
"""progress(bytes_so_far, total_or_None)."""


def download(url: str, dest: Path, progress: Progress | None = None,
             expect_sha256: str | None = None, timeout: float = 60.0) -> Fetched:
    """Download to a temporary file, verify, then move into place (never a half file)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".part")
    h = hashlib.sha256()
    size = 0
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp, open(tmp, "wb") as out:
            total = resp.headers.get("Content-Length")
            total_n = int(total) if total and total.isdigit() else None
            while chunk := resp.read(1 << 16):
                out.write(chunk)
                h.update(chunk)
                size += len(chunk)
                if progress:
                    progress(size, total_n)
        if total_n is not None and size != total_n:
            raise FetchError("fetch.cut-short", url=url, size=size, total=total_n)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        tmp.unlink(missing_ok=True)
        reason = getattr(exc, "reason", None) or exc
        raise FetchError("fetch.cannot-download", url=url, reason=reason) from None
    except FetchError:
        tmp.unlink(missing_ok=True)
        raise
    digest = h.hexdigest()
    if expect_sha256 and digest.lower() != expect_sha256.lower():
        tmp.unlink(missing_ok=True)
        raise FetchError("fetch.sha256-mismatch", url=url, digest=digest, expected=expect_sha256)
    return Fetched(path=tmp, sha256=digest, size=size)


def verify_cdb(path: Path) -> int:
    """Integrity check of a cards.cdb: SQLite, ygopro schema, cards with names. Returns rows."""
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            if con.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
                raise CardDatabaseError("carddb.integrity-failed", file=path)
            n = con.execute("SELECT count(*) FROM datas d JOIN texts t ON t.id = d.id "
                            "WHERE t.name <> ''").fetchone()[0]
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        raise CardDatabaseError("fetch.not-a-cdb", detail=exc) from None
    if n == 0:
        raise CardDatabaseError("fetch.cdb-no-cards")
    return n


def verify_lflist(path: Path) -> int:
    """Integrity check of an lflist.conf: text with at least one !LIST block. Returns lists."""
    data = path.read_bytes()
    if b"\x00" in data[:4096]:
        raise FetchError("fetch.lflist-binary")
    return len(parse_lflist(data.decode("utf-8-sig", errors="replace"), path).lists)


def install(fetched: Fetched, dest: Path) -> None:
    replace_durably(fetched.path, dest)


@dataclass
class Source:
    """One file to fetch: where from, what to call it, how to check it."""

    name: str
    """File name in the data directory: cards.cdb or lflist.conf."""
    url: str
    sha256: str | None = None
    verify: Callable[[Path], int] | None = None
    """Integrity check; returns how many cards/lists the file holds."""


def locale_file(locale: str, primary: bool) -> str:
    """The name a fetched locale database gets: the first is `cards.cdb`, others
    `cards.LOCALE.cdb` (which `load_card_db` picks up beside it)."""
    return "cards.cdb" if primary else f"cards.{locale}.cdb"


def default_sources(cdb_url: str | None = None, lflist_url: str | None = None,
                    cdb_sha256: str | None = None, lflist_sha256: str | None = None,
                    locales: tuple[str, ...] | list[str] = ("ko-KR",),
                    url_template: str = CDB_URL_TEMPLATE) -> list[Source]:
    """cards.cdb of each locale (the first one gives the names shown; `cdb_url` replaces its
    URL) and lflist.conf."""
    locales = list(dict.fromkeys(locales)) or ["ko-KR"]
    for loc in locales:
        if not _LOCALE.fullmatch(loc):
            raise FetchError("fetch.bad-locale", locale=repr(loc))
    if "{locale}" not in url_template:
        raise FetchError("fetch.template-no-locale")
    out = [Source(locale_file(loc, i == 0),
                  (cdb_url if i == 0 and cdb_url else url_template.format(locale=loc)),
                  cdb_sha256 if i == 0 else None, verify_cdb)
           for i, loc in enumerate(locales)]
    return out + [Source("lflist.conf", lflist_url or DEFAULT_LFLIST_URL, lflist_sha256,
                         verify_lflist)]


def fetch_all(sources: list[Source], dest: Path,
              progress_for: Callable[[str], Progress | None] = lambda name: None
              ) -> list[tuple[Source, Fetched, int]]:
    """Download and verify every source, then install them all. Nothing is installed unless
    every file arrived whole and passed its check (the old files stay as they were)."""
    done: list[tuple[Source, Fetched, int]] = []
    try:
        for src in sources:
            fetched = download(src.url, dest / src.name, progress_for(src.name), src.sha256)
            done.append((src, fetched, 0))
            n = src.verify(fetched.path) if src.verify else 0
            done[-1] = (src, fetched, n)
    except BaseException:
        for _, fetched, _ in done:
            fetched.path.unlink(missing_ok=True)
        raise
    for src, fetched, _ in done:
        install(fetched, dest / src.name)
        fetched.path = dest / src.name
    names = {src.name for src, _, _ in done}
    if "cards.cdb" in names:
        # Locale databases of an earlier fetch that this one did not ask for would still be
        # loaded beside cards.cdb: remove them.
        for old in dest.glob("cards.*.cdb"):
            if old.name not in names:
                old.unlink(missing_ok=True)
    return done
