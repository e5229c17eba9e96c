"""Put on PYTHONPATH of a station under test: every process of it (the server and its spawned
readers) reads a photo's rows `SLOW_ROWS_S` seconds later — after the page is located and its
header read — so a test sees, and taps, whose sheet it is while the rows are read (issue 35).
`SLOW_ROWS_FAIL=1`: the read then fails (as a photo whose rows cannot be read). Nothing else."""
import os

_DELAY = float(os.environ.get("SLOW_ROWS_S") or 0)
_FAIL = os.environ.get("SLOW_ROWS_FAIL") == "1"
if _DELAY > 0 or _FAIL:
    import time

    import scanner.ocr.pipeline as _pipeline
    from scanner.errors import UnreadableInput

    _read_rows = _pipeline.read_rows

    def _slow_rows(ctx):
        time.sleep(_DELAY)
        if _FAIL:
            raise UnreadableInput("input.no-grid", file=ctx.label)
        return _read_rows(ctx)

    _pipeline.read_rows = _slow_rows
