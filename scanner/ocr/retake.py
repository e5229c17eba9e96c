"""One sheet-level `retake` item when the layout was not found well enough (contract v4).

A photo whose tables were not all found (or were cut off by the frame) is read as far as it
goes, each missing table said so; but what the judge at the desk should do is take the photo
again, and what to change: the whole page in the frame, the phone straight over the sheet, even
light. `layout_retake` says it once for the sheet, with the evidence that tells which: the page's
corners at or past the frame's edge (or no page found), the camera's tilt from the page's
corners, the light across the paper. A scan gets the scanner's version of the same advice.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from scanner.model import ReviewFlag
from scanner.ocr.page import PageImage
from scanner.ocr.perspective import camera_tilt_deg, paper_aspect
from scanner.vocab import Reason

COLUMN_KO = {"monster": "몬스터", "spell": "마법", "trap": "함정", "extra": "엑스트라", "side": "사이드"}


@dataclass(frozen=True)
class RetakeTuning:
    """When the layout is doubtful enough to ask for another photo, and which advice to give."""

    steep_deg: float = 12.0
    """Camera tilt (from the page's corners) past which the advice names the angle: rules are
    rectified at any tilt, but the far rows shrink and blur (cos and depth of field)."""
    frame_edge: float = 0.01
    """A page corner within this share of the frame's size from its edge (or beyond it) means
    part of the page may be out of the picture."""
    shadow_ratio: float = 0.6
    """The paper's darkest tenth over its brightest tenth (text removed) below this: a shadow
    or uneven light across the page."""
    dark_paper: float = 110.0
    """Paper darker than this (grey level of its median) is under-exposed."""


RETAKE = RetakeTuning()


def corners_at_frame(corners: np.ndarray | None, frame: tuple[int, int], tuning: RetakeTuning = RETAKE) -> bool:
    """Whether a page corner lies at or past the frame's edge."""
    if corners is None:
        return False
    h, w = frame
    mx, my = tuning.frame_edge * w, tuning.frame_edge * h
    c = np.asarray(corners, np.float64).reshape(4, 2)
    return bool(((c[:, 0] < mx) | (c[:, 0] > w - 1 - mx) | (c[:, 1] < my) | (c[:, 1] > h - 1 - my)).any())


def light_ratio(color: np.ndarray) -> tuple[float, float]:
    """(darkest tenth / brightest tenth, median) of the paper's brightness across the page,
    print removed (a dilation on a small copy), from the page as warped (not flattened)."""
    gray = cv2.cvtColor(color, cv2.COLOR_BGR2GRAY) if color.ndim == 3 else color
    if gray.size == 0 or min(gray.shape) < 16:
        return 1.0, 255.0
    small = cv2.resize(gray, (max(8, gray.shape[1] // 8), max(8, gray.shape[0] // 8)), interpolation=cv2.INTER_AREA)
    paper = cv2.medianBlur(cv2.dilate(small, np.ones((5, 5), np.uint8)), 5).astype(np.float32)
    lo, mid, hi = np.percentile(paper, [10, 50, 90])
    return float(lo / max(hi, 1.0)), float(mid)


def layout_retake(page: PageImage, unread: list[str], frame: tuple[int, int], is_scan: bool,
                  tuning: RetakeTuning = RETAKE) -> ReviewFlag | None:
    """The sheet's `retake` item when tables were not found or cut off (`unread`: their
    columns), saying what to change; None when the layout was found whole."""
    if not unread:
        return None
    what = ", ".join(COLUMN_KO.get(c, c) for c in unread)
    if is_scan:
        return ReviewFlag(section=None, reason=Reason.RETAKE, detail=(
            f"표를 다 찾지 못함 ({what}) — 시트 전체가 들어가도록 똑바로 놓고 다시 스캔해 주십시오"))
    advice, seen = [], []
    if page.corners is None or corners_at_frame(page.corners, frame, tuning):
        seen.append("시트 가장자리가 사진 밖" if page.corners is not None else "시트 가장자리를 찾지 못함")
        advice.append("시트 전체가 화면에 들어오도록")
    if page.corners is not None:
        aspect, _ = paper_aspect(page.corners, frame)
        tilt = camera_tilt_deg(page.corners, frame, aspect)
        if tilt >= tuning.steep_deg:
            seen.append(f"비스듬히 찍힘 ({tilt:.0f}°)")
            advice.append("휴대폰을 시트 바로 위에서 수평으로 들고")
    ratio, paper = light_ratio(page.color)
    if ratio < tuning.shadow_ratio or paper < tuning.dark_paper:
        seen.append("그림자나 어두운 조명")
        advice.append("그림자 없이 고르게 밝은 곳에서")
    if not advice:  # nothing measured stands out: all three, the usual causes
        advice = ["시트 전체가 화면에 들어오도록", "위에서 똑바로", "그림자 없이 밝은 곳에서"]
    cause = f" ({', '.join(seen)})" if seen else ""
    return ReviewFlag(section=None, reason=Reason.RETAKE, detail=(
        f"표 배치를 충분히 찾지 못함: {what} 표를 읽지 못함{cause} — {' '.join(advice)} 다시 찍어 주십시오"))
