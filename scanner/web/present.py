"""How things read on the station's pages: Korean labels, local times, masked IDs."""
from __future__ import annotations

import re

from scanner.event.audit_report import mask_id
from scanner.report.times import local_time
from scanner.rules.codes import CODE_KO, PENALTY_KO
from scanner.web.hangul import one_syllable_apart
from scanner.vocab import MODE_KO, READER_KO, SECTION_KO
from scanner.web.views import STATUS_KO


def penalty_ko(code: str | None) -> str:
    if not code:
        return "무효"
    return PENALTY_KO.get(code, code)


_CROP = re.compile(r";?\s*crop \S+")
_PATH = re.compile(r"(?<![\w/])/(?:[\w.\-]+/)+([\w.\-]+)")


def clean(text: str | None) -> str:
    """A reader's message without server paths (crop files, stored originals)."""
    return _PATH.sub(r"\1", _CROP.sub("", text or ""))


def filters(tz: str) -> dict:
    """Jinja filters of the station's templates."""
    return {"ktime": lambda iso: local_time(iso, tz), "mask": mask_id, "penalty": penalty_ko,
            "status_ko": lambda s: STATUS_KO.get(s, s), "section_ko": lambda s: SECTION_KO.get(s, s or "시트"),
            "mode_ko": lambda m: MODE_KO.get(m, m), "reader_ko": lambda r: READER_KO.get(r, r), "clean": clean, "code_ko": lambda c: CODE_KO.get(c, c),
            "one_syllable_apart": one_syllable_apart}
