"""The only caller of Tesseract: in-process through tesserocr (≈10 ms a cell).

OMP_THREAD_LIMIT=1 must be set before libtesseract starts: with OpenMP on 2 cores Tesseract
is ~8× slower (notes/ocr-trials.md §2b).
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import logging  # noqa: E402
import struct  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from scanner.errors import MissingToolError  # noqa: E402

log = logging.getLogger("decksheet.tesseract")

TESSDATA_DIRS = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                 "/usr/share/tessdata", "/usr/local/share/tessdata")


def tessdata_dir() -> str:
    env = os.environ.get("TESSDATA_PREFIX")
    candidates = ([env] if env else []) + list(TESSDATA_DIRS)
    for d in candidates:
        if d and (Path(d) / "kor.traineddata").is_file():
            return str(Path(d)) + "/"
    raise MissingToolError("tool.kor-model-not-found")


LSTM_UNICHARSET = 21
"""Index of the LSTM model's character set among a .traineddata file's components (Tesseract's
`TessdataType`: the file starts with the component count, int32, then one int64 offset each)."""


def model_characters(path: Path) -> frozenset[str]:
    """The characters an LSTM model can write, from its .traineddata file; empty when the file
    holds no LSTM character set (a legacy model) or cannot be parsed."""
    try:
        with path.open("rb") as f:
            (count,) = struct.unpack("<i", f.read(4))
            if not LSTM_UNICHARSET < count <= 64:  # Tesseract 5 files have 24 components
                return frozenset()
            offsets = struct.unpack(f"<{count}q", f.read(8 * count))
            start = offsets[LSTM_UNICHARSET]
            if start < 0:
                return frozenset()
            end = min([o for o in offsets if o > start], default=-1)
            f.seek(start)
            data = f.read(end - start) if end > 0 else f.read()
    except (OSError, struct.error, ValueError):
        return frozenset()
    lines = data.decode("utf-8", "replace").splitlines()[1:]  # line 1: the count
    return frozenset(line.split(" ", 1)[0] for line in lines if line)


@dataclass
class OcrText:
    text: str
    confidence: float
    """Tesseract's mean word confidence, 0..1."""
    words: list[tuple[str, float, tuple[int, int, int, int]]] = field(default_factory=list)
    """(word, confidence 0..1, box x, y, w, h)."""


_ENGINES: dict[tuple[str, str, str], object] = {}
"""Loaded engines, shared by every `Tesseract` of the process: loading a model takes
0.05–0.2 s, a cell read 10 ms, so a batch of sheets must not reload them. One engine per
(model, language, whitelist): the page-segmentation mode is set on it per read (what
`PyTessBaseAPI(psm=…)` does after loading), so `eng` read as a line and as one character is
loaded once. Engines hold no state between reads (each read sets its own image)."""


class Tesseract:
    """One engine per (language, page-segmentation mode), created lazily and reused."""

    def __init__(self) -> None:
        try:
            import tesserocr
        except ImportError:
            raise MissingToolError("tool.no-tesserocr") from None
        self._tesserocr = tesserocr
        self._path = tessdata_dir()
        self._apis = _ENGINES

    def _api(self, lang: str, psm: int, whitelist: str = ""):
        key = (self._path, lang, whitelist)
        api = self._apis.get(key)
        if api is None:
            try:
                api = self._tesserocr.PyTessBaseAPI(path=self._path, lang=lang, psm=psm)
            except RuntimeError as exc:
                raise MissingToolError("tool.cannot-load", lang=lang, detail=exc) from None
            if whitelist:
                api.SetVariable("tessedit_char_whitelist", whitelist)
            self._apis[key] = api
        elif api.GetPageSegMode() != psm:
            api.SetPageSegMode(psm)
        return api

    def characters(self, lang: str = "kor") -> frozenset[str]:
        """What the `lang` model can write at all: a card name holding a syllable outside it
        (꿩, 둠, 섀: 712 of 14k names in `kor`) is never read right, only near."""
        return model_characters(Path(self._path) / f"{lang}.traineddata")

    def read(self, img: np.ndarray, lang: str = "kor", psm: int = 7, whitelist: str = "",
             words: bool = False) -> OcrText:
        """OCR one grayscale image (one line by default)."""
        api = self._api(lang, psm, whitelist)
        # The raw bytes, not a PIL image: tesserocr would encode a PIL image as a BMP for
        # Leptonica to decode (≈0.5 ms a read, the same pixels and the same answers).
        if img.ndim == 2 and img.dtype == np.uint8:
            api.SetImageBytes(img.tobytes(), img.shape[1], img.shape[0], 1, img.shape[1])
        else:
            api.SetImage(Image.fromarray(img))
        text = (api.GetUTF8Text() or "").strip()
        conf = max(0.0, api.MeanTextConf()) / 100.0
        out = OcrText(text=text, confidence=conf)
        if words and text:
            ri = api.GetIterator()
            level = self._tesserocr.RIL.WORD
            for r in self._tesserocr.iterate_level(ri, level):
                w = r.GetUTF8Text(level)
                if not w:
                    continue
                x0, y0, x1, y1 = r.BoundingBox(level)
                out.words.append((w, r.Confidence(level) / 100.0, (x0, y0, x1 - x0, y1 - y0)))
        return out

    def close(self) -> None:
        for api in self._apis.values():
            api.End()
        self._apis.clear()
