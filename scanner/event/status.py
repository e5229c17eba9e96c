"""A player's status in the event: one function that the dashboard, `GET /api/players` and
the audit all ask, so they never disagree (issue 26, part 7).

The status is of the player's current version — the newest one not withdrawn — as the judges
confirmed it (the list stored at registration with their review decisions applied), checked
under the event's regulation. No current version (none, or every one withdrawn) is
`not-registered`.
"""
from __future__ import annotations

from collections.abc import Iterable

from scanner.rules.codes import REVIEW_CODES

NOT_REGISTERED, NEEDS_REVIEW, ILLEGAL, LEGAL = "not-registered", "needs-review", "illegal", "legal"
STATUSES = (NOT_REGISTERED, NEEDS_REVIEW, ILLEGAL, LEGAL)


def list_status(codes: Iterable[str] | None, needs_review: int = 0) -> str:
    """The status of a current version from its check's infraction codes and how many of its
    lines (and sheet-level items) still need a judge; `codes=None`: no current version.
    Any breach is `illegal`; else anything a judge must still look at is `needs-review`."""
    if codes is None:
        return NOT_REGISTERED
    found = {c for c in codes if c}
    if found - REVIEW_CODES:
        return ILLEGAL
    return NEEDS_REVIEW if found or needs_review else LEGAL
