"""ygopro `lflist.conf`: forbidden/limited lists, list choice, and the event's extra bans."""
from __future__ import annotations

import datetime as dt
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from card_db.models import LimitList
from card_db.errors import RegulationError
from card_db.paths import data_dir, package_data

log = logging.getLogger("decksheet.card_db")

ENV_LFLIST = "DECKSHEET_LFLIST"

EXTRA_BANS: dict[int, str] = {
    80161395: "신비의 중화냄비",
    53046408: "비상 식량",
    34002992: "레인보우 라이프",
    57585212: "자폭 스위치",
    73988674: "삼위일택",
}
"""The rules' 「추가 금지 카드」 (2.A): forbidden at every event on top of the Limit Regulation."""

_LINE = re.compile(r"^\s*([0-9]+)\s+(-?[0-9]+)(?:\s|$)")
# `2026.7`, `2026.07 OCG`, `2013.3.1`, YGOMobile's `2020.04.OCG` / `2020.04.KCG`, `2026.5 TCG`.
_LIST_NAME = re.compile(r"^([0-9]{4})\.([0-9]{1,2})(?:\.([0-9]{1,2}))?(?:[ ._-]*([A-Za-z][\w ]*))?$")
MAX_PASSCODE = 2**32 - 1


@dataclass(frozen=True)
class ListKey:
    """What a list name means: the day it took effect and its kind (OCG, TCG, KCG, ...)."""

    start: dt.date
    kind: str
    """Upper-case kind; a bare date (`2026.7`) is an OCG list."""


def list_key(name: str) -> ListKey | None:
    """`2026.7`, `2026.07 OCG`, `2020.04.OCG` → (2026-07-01, OCG); `2026.5 TCG` → (…, TCG);
    names without a date (`N/A`, `OCG Korea`) → None."""
    m = _LIST_NAME.match(name.strip())
    if not m:
        return None
    try:
        start = dt.date(int(m[1]), int(m[2]), int(m[3] or 1))
    except ValueError:
        return None
    return ListKey(start, " ".join((m[4] or "OCG").upper().split()))


def list_start_date(name: str) -> dt.date | None:
    """The first day of an OCG list (`2026.7`, `2020.04.OCG`); other kinds and names → None."""
    key = list_key(name)
    return key.start if key is not None and key.kind == "OCG" else None


@dataclass
class LimitFile:
    """All lists of one lflist.conf, in file order."""

    path: Path | None
    lists: dict[str, dict[int, int]]
    warnings: list[str] = field(default_factory=list)
    """Lines skipped as unreadable (ygopro skips them too), one message each."""

    def warning_lines(self, limit: int = 5) -> list[str]:
        """The skipped lines to show a user: the first few by line, then how many more."""
        more = len(self.warnings) - limit
        tail = f"{self.path or 'lflist'}: {more} more unreadable line(s) skipped"
        return self.warnings[:limit] + ([tail] if more > 0 else [])

    def names(self) -> list[str]:
        return list(self.lists)

    def ocg_lists(self) -> list[tuple[dt.date, str]]:
        """OCG lists (names like `2026.7`) with the date they took effect, oldest first."""
        out = []
        for name in self.lists:
            d = list_start_date(name)
            if d is not None:
                out.append((d, name))
        return sorted(out)

    def _no_ocg(self) -> RegulationError:
        shown = ", ".join(self.names()[:8]) + (", …" if len(self.lists) > 8 else "")
        return RegulationError("regulation.no-ocg-list", where=self.path or "lflist",
                               count=len(self.lists), lists=shown)

    def newest_ocg(self) -> str:
        lists = self.ocg_lists()
        if not lists:
            raise self._no_ocg()
        return lists[-1][1]

    def in_force_on(self, date: dt.date) -> str:
        """The OCG list in force on `date`: the newest one that started on or before it."""
        if not self.ocg_lists():
            raise self._no_ocg()
        chosen = [name for start, name in self.ocg_lists() if start <= date]
        if not chosen:
            raise RegulationError("regulation.none-in-force", where=self.path, date=date.isoformat())
        return chosen[-1]

    def find(self, name: str) -> str:
        """The list called `name`: its exact name, else the one list of the same date and kind
        (`2026.7` ≡ `2026.07` ≡ `2026.07 OCG`). Ambiguous or missing → RegulationError."""
        if name in self.lists:
            return name
        want = list_key(name)
        same = [n for n in self.lists if want is not None and list_key(n) == want]
        if not same:
            same = [n for n in self.lists if n.strip().casefold() == name.strip().casefold()]
        if len(same) == 1:
            return same[0]
        if same:
            raise RegulationError("regulation.ambiguous-name", name=repr(name),
                                  where=self.path or "lflist", lists=same)
        near = ", ".join(n for _, n in self.ocg_lists()[-5:]) or ", ".join(self.names()[:8])
        raise RegulationError("regulation.no-such-list-ocg" if self.ocg_lists()
                              else "regulation.no-such-list", name=repr(name), where=self.path,
                              lists=near)


def parse_lflist(text: str, path: Path | None = None) -> LimitFile:
    """Lists of an lflist.conf. Unreadable lines are skipped with a warning, as ygopro does."""
    lists: dict[str, dict[int, int]] = {}
    current: dict[int, int] | None = None
    where = path or "lflist"
    warnings: list[str] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("!"):
            name = line[1:].strip()
            current = lists.setdefault(name, {})
            continue
        if line.startswith("$"):  # ygopro whitelist markers and the like
            continue
        m = _LINE.match(line)
        if not m or int(m[1]) > MAX_PASSCODE:
            warnings.append(f"{where} line {lineno}: skipped unreadable line {line[:60]!r}")
            continue
        if current is None:
            warnings.append(f"{where} line {lineno}: skipped card line before any !LIST")
            continue
        current[int(m[1])] = max(0, min(3, int(m[2])))
    if not lists:
        raise RegulationError("regulation.no-lists", where=where)
    for msg in warnings:  # the caller shows `warnings` to the user; the log keeps them all
        log.info(msg)
    return LimitFile(path=path, lists=lists, warnings=warnings)


def load_lflist(path: str | os.PathLike) -> LimitFile:
    p = Path(path)
    if p.is_dir():
        raise RegulationError("regulation.is-folder", file=p)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise RegulationError("regulation.unreadable", file=p, reason=exc.strerror) from None
    if b"\x00" in data[:4096]:
        raise RegulationError("regulation.binary", file=p)
    return parse_lflist(data.decode("utf-8-sig", errors="replace"), p)


def choose_list(
    lf: LimitFile,
    name: str | None = None,
    date: dt.date | None = None,
    *,
    extra_bans: bool = True,
    original_id: Callable[[int], int | None] | None = None,
) -> LimitList:
    """One list by name, else the one in force on `date`, else the newest OCG list.

    `original_id` maps alternate-artwork passcodes to originals (from the card database), so
    `LimitList` lookups by original passcode are right whichever printing the file names.
    """
    if name:
        chosen = lf.find(name)
    elif date is not None:
        chosen = lf.in_force_on(date)
    else:
        chosen = lf.newest_ocg()
    limits: dict[int, int] = {}
    for cid, n in lf.lists[chosen].items():
        oid = (original_id(cid) if original_id else None) or cid
        limits[oid] = min(n, limits.get(oid, 3))
    bans = frozenset(EXTRA_BANS) if extra_bans else frozenset()
    for cid in bans:
        limits[cid] = 0
    return LimitList(name=chosen, limits=limits, extra_bans=bans)


def resolve_lflist_path(path: str | os.PathLike | None) -> Path | None:
    """--lflist, then $DECKSHEET_LFLIST, then a fetched file, then the demo list."""

    if path:
        return Path(path)
    env = os.environ.get(ENV_LFLIST)
    if env:
        return Path(env)
    fetched = data_dir() / "lflist.conf"
    if fetched.is_file():
        return fetched
    demo = package_data("demo-lflist.conf")
    return demo if demo.is_file() else None
