"""What an image file claims to be, from its header alone: size, frames, format.

Decoding is what costs memory (a 30000×30000 PNG is 2.7 GB of pixels, and a header may claim
2³² of them), so the pixel and frame limits are checked here, before anything is decoded.
HEIC/HEIF photos (iPhones) are decoded here too, so the OCR pipeline gets a normal image.
"""
from __future__ import annotations

import functools
import io
import warnings
from dataclasses import dataclass

import numpy as np

from scanner.errors import UnreadableInput
from scanner.inputs.limits import MAX_PAGES, check_pages, check_pixels
from scanner.inputs.sniff import is_heif


@dataclass(frozen=True)
class ImageInfo:
    width: int
    height: int
    frames: int
    format: str


@functools.cache
def _pil():
    """Pillow, with the HEIF opener registered once."""
    from PIL import Image
    from pillow_heif import register_heif_opener

    register_heif_opener()
    return Image


def probe_image(data: bytes, label: str, max_frames: int = MAX_PAGES) -> ImageInfo:
    """Header facts of an image, refusing one beyond the pixel or frame limits. Never decodes
    the pixels. A header Pillow cannot parse is refused as not a readable image."""
    Image = _pil()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's DecompressionBombWarning: we decide here
            with Image.open(io.BytesIO(data)) as im:
                width, height = im.size
                fmt = im.format or "image"
                check_pixels(width, height, label)
                frames = int(getattr(im, "n_frames", 1) or 1)
    except UnreadableInput:
        raise
    except Image.DecompressionBombError:
        raise UnreadableInput("input.image-bomb", file=label) from None
    except Exception:  # noqa: BLE001 - any parser failure is an unreadable image
        raise UnreadableInput("input.image-corrupt", file=label) from None
    check_pages(frames, label, "frames", max_frames)
    return ImageInfo(width=width, height=height, frames=frames, format=fmt)


def decode_heif(data: bytes, label: str) -> np.ndarray:
    """A HEIC/HEIF photo as a BGR array (its EXIF orientation applied)."""
    Image = _pil()
    from PIL import ImageOps

    probe_image(data, label)
    try:
        with Image.open(io.BytesIO(data)) as im:
            rgb = np.asarray(ImageOps.exif_transpose(im).convert("RGB"))
    except Exception:  # noqa: BLE001
        raise UnreadableInput("input.image-corrupt", file=label) from None
    return np.ascontiguousarray(rgb[:, :, ::-1])


__all__ = ["ImageInfo", "decode_heif", "is_heif", "probe_image"]
