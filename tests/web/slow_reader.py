"""A station reader whose verification of a PDF's pages takes `DELAY_S` longer (the text reading
is shown meanwhile): the station's own `read_original`, run in its reader process with
`scanner.agreement.verify_readings` slowed there (a patch in the test's process would not reach it)."""
from __future__ import annotations

import time

from scanner.web.reader import ReadOutcome, read_original

DELAY_S = 3.0


def read_slowly(path: str, file_name: str | None, crops_dir: str,
                preview: str | None = None) -> ReadOutcome:
    import scanner.agreement as agreement

    real = agreement.verify_readings
    if not getattr(real, "slowed", False):
        def slow(*args, **kwargs):
            time.sleep(DELAY_S)
            return real(*args, **kwargs)
        slow.slowed = True  # type: ignore[attr-defined]
        agreement.verify_readings = slow
    return read_original(path, file_name, crops_dir, preview)
