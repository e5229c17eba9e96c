"""What a worker process does: read and check one stored original (no event writes here).

Workers are separate processes so OCR uses every core; each loads the card database once
(`init_worker`). The result goes back to the server process, which alone writes the event.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

from card_db.cdb import CardDbSpec
from card_db.models import LimitList
from scanner.errors import DecksheetError
from scanner.inputs.options import ReadOptions

_STATE: dict = {}


@dataclass
class ReadOutcome:
    """A worker's answer for one job."""

    deck_json: dict | None = None
    legal: bool = False
    infractions: list[dict] = field(default_factory=list)
    error: str | None = None
    """One line for the judge when the file could not be read as a decklist."""
    seconds: float = 0.0


def init_worker(card_db: CardDbSpec, limits: LimitList) -> None:
    from scanner.read import single_core_worker

    single_core_worker()  # one OCR thread per worker: the pool has a worker per core
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = 40_000_000
    warnings.simplefilter("error", Image.DecompressionBombWarning)
    from card_db.cdb import load_card_db

    _STATE["db"] = load_card_db(card_db)  # the spec: extra locales and aliases too
    _STATE["limits"] = limits


def read_original(path: str, file_name: str | None, crops_dir: str) -> ReadOutcome:
    """Read, resolve and check one original; errors become `error`, never an exception."""
    import time

    from scanner.model import SECTIONS
    from scanner.read import load_decklist
    from scanner.rules.check import check_decklist

    started = time.perf_counter()
    db, limits = _STATE["db"], _STATE["limits"]
    try:
        deck = load_decklist(path, db, ReadOptions(crops_dir=Path(crops_dir)))
    except DecksheetError as exc:
        return ReadOutcome(error=_ko(str(exc), path, file_name), seconds=time.perf_counter() - started)
    except MemoryError:
        return ReadOutcome(error="파일이 너무 커서 읽을 수 없습니다")
    except Exception as exc:  # noqa: BLE001 - a reader bug must fail the job, not the worker
        return ReadOutcome(error=f"읽는 중 오류: {type(exc).__name__}",
                           seconds=time.perf_counter() - started)
    if not any(e.card_id is not None for s in SECTIONS for e in deck.sections[s]):
        return ReadOutcome(error="카드로 읽힌 줄이 하나도 없습니다: 덱 시트가 아닌 것 같습니다 "
                                 "(등록하지 않음)", seconds=time.perf_counter() - started)
    deck.source_path = file_name
    check = check_decklist(deck, limits, db)
    return ReadOutcome(deck_json=deck.to_json(), legal=check.legal,
                       infractions=[i.to_json() for i in check.infractions],
                       seconds=time.perf_counter() - started)


def _ko(message: str, path: str, file_name: str | None) -> str:
    """The reader's one-liner, prefixed in Korean; the store's path becomes the file's name."""
    name = file_name or "파일"
    return f"시트를 읽을 수 없습니다: {message.replace(path, name).replace(Path(path).stem, name)}"
