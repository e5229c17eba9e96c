"""ygopro `lflist.conf`: forbidden/limited lists, list choice, and the event's extra bans."""
from __future__ import annotations

import datetime as dt
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from card_db.models import LimitList
from card_db.errors import RegulationError
from card_db.paths import data_dir, package_data

ENV_LFLIST = "DECKSHEET_LFLIST"
ENV_LIST = "DECKSHEET_LIST"

EXTRA_BANS: dict[int, str] = {
    80161395: "신비의 중화냄비",
    53046408: "비상 식량",
    34002992: "레인보우 라이프",
    57585212: "자폭 스위치",
    73988674: "삼위일택",
}
"""The rules' 「추가 금지 카드」 (2.A): forbidden at every event on top of the Limit Regulation."""

_LINE = re.compile(r"^\s*(\d+)\s+(-?\d+)")
# `2026.7`, `2013.3.1`, and YGOMobile's `2020.04.OCG`; `… TCG`, `….KCG` are not OCG lists.
_DATE_NAME = re.compile(r"^(\d{4})\.(\d{1,2})(?:\.(\d{1,2}))?(?:[ .]?OCG)?$", re.I)


@dataclass
class LimitFile:
    """All lists of one lflist.conf, in file order."""

    path: Path | None
    lists: dict[str, dict[int, int]]

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

    def newest_ocg(self) -> str:
        lists = self.ocg_lists()
        if not lists:
            raise RegulationError(f"no OCG list (named like 2026.7) in {self.path}")
        return lists[-1][1]

    def in_force_on(self, date: dt.date) -> str:
        """The OCG list in force on `date`: the newest one that started on or before it."""
        chosen = [name for start, name in self.ocg_lists() if start <= date]
        if not chosen:
            raise RegulationError(f"no OCG list in {self.path} was in force on {date.isoformat()}")
        return chosen[-1]


def list_start_date(name: str) -> dt.date | None:
    """`2026.7` / `2020.04.OCG` → the first day of that month; TCG, KCG and other lists → None."""
    m = _DATE_NAME.match(name.strip())
    if not m:
        return None
    year, month, day = int(m[1]), int(m[2]), int(m[3] or 1)
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def parse_lflist(text: str, path: Path | None = None) -> LimitFile:
    lists: dict[str, dict[int, int]] = {}
    current: dict[int, int] | None = None
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
        if not m:
            raise RegulationError(f"{path or 'lflist'} line {lineno}: cannot read {raw.strip()[:60]!r}")
        if current is None:
            raise RegulationError(f"{path or 'lflist'} line {lineno}: card line before any !LIST")
        current[int(m[1])] = max(0, min(3, int(m[2])))
    if not lists:
        raise RegulationError(f"no list (!NAME) found in {path or 'lflist'}")
    return LimitFile(path=path, lists=lists)


def load_lflist(path: str | os.PathLike) -> LimitFile:
    p = Path(path)
    if p.is_dir():
        raise RegulationError(f"{p} is a folder; give the lflist.conf file inside it")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise RegulationError(f"cannot read limit list file {p}: {exc.strerror}") from None
    if b"\x00" in data[:4096]:
        raise RegulationError(f"{p} is not a limit list file (binary data)")
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
        if name not in lf.lists:
            near = ", ".join(n for _, n in lf.ocg_lists()[-5:])
            raise RegulationError(f"no list named {name!r} in {lf.path} (newest OCG lists: {near})")
        chosen = name
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
