"""The check-in station (`decksheet serve`): a web app for a judge team on phones and tablets.

`serve(StationConfig(...))` runs it; `build_app` gives the ASGI app (tests). Only its `service`
package calls the event layer.
"""
from scanner.web.config import StationConfig

__all__ = ["StationConfig", "serve"]


def serve(config: StationConfig, db=None) -> None:
    """Run the station until stopped; `db` is a loaded CardDatabase (else loaded from config)."""
    from scanner.web.server import serve as _serve  # late: uvicorn only when serving
    _serve(config, db)
