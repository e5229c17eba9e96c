"""Put on PYTHONPATH of a station under test: every process of it (the server and its spawned
readers) verifies a PDF's pages `SLOW_VERIFY_S` seconds slower, so a test sees the text reading
shown before the verified one (issue 33). Nothing else changes."""
import os

_DELAY = float(os.environ.get("SLOW_VERIFY_S") or 0)
if _DELAY > 0:
    import time

    import scanner.agreement as _agreement

    _verify = _agreement.verify_readings

    def _slow_verify(*args, **kwargs):
        time.sleep(_DELAY)
        return _verify(*args, **kwargs)

    _agreement.verify_readings = _slow_verify
