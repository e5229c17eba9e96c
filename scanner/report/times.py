"""Times as judges in Korea read them: the date and the time in the event's zone (KST by
default), never UTC — a report read at 08:30 in Seoul must not show the previous day."""
from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

KOREA = "Asia/Seoul"


def local_time(iso: str | None, tz: str = KOREA) -> str:
    """`2026-07-12T01:02:03+00:00` → `2026-07-12 10:02` in `tz`; a time with no zone is taken
    as this machine's; a text that is not a time is shown as it is."""
    if not iso:
        return ""
    try:
        t = dt.datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if t.tzinfo is None:
        t = t.astimezone()
    return t.astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M")


def local_label(tz: str = KOREA) -> str:
    """The zone's short name as shown beside times (KST)."""
    return dt.datetime.now(ZoneInfo(tz)).strftime("%Z")
