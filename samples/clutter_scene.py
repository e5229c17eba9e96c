"""A phone photo of a sheet on a cluttered dark table (the `photo-cluttered` kind of make_photos).

The sheet lies at an angle (rotation up to ±18°, the strong pose of photo-sparse: far edge
10–22 % shorter, one side 4–10 % shorter) on a dark table (dark wood, dark fabric or near-black,
textured, unevenly lit), among 1–4 other papers: another sheet with text or a table grid of its
own, a receipt, a note, a card or a card box. Some are cut by the frame edge, some lie apart,
some touch the sheet (under it) and some lie on its margin (never on its printed part);
sometimes a hand rests on a margin. Every object lies on the same table plane, so one camera
homography maps them all. Everything is drawn from the caller's generator: same rng, same bytes.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

PX_PER_MM = 250 / 25.4
"""The page is rendered at 250 dpi: table-plane units are page pixels."""
TABLES = ("dark-wood", "dark-fabric", "near-black")
OTHERS = ("sheet-text", "sheet-grid", "receipt", "note", "card", "card-box")
SIZES_MM = {"sheet-text": (210, 297), "sheet-grid": (210, 297), "receipt": (80, 0), "note": (148, 105),
            "card": (59, 86), "card-box": (72, 98)}


def smooth_noise(h: int, w: int, cells: int, rng: np.random.Generator) -> np.ndarray:
    """Noise 0–1 varying smoothly over about `cells` cells down the image."""
    small = rng.random((cells, max(2, int(cells * w / h)))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def dark_table(h: int, w: int, kind: str, rng: np.random.Generator) -> np.ndarray:
    """A dark, textured table surface (float32 RGB 0–255)."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "dark-wood":
        base = np.array(rng.choice([[62, 40, 26], [48, 32, 22], [75, 48, 30]]), np.float32)
        warp = smooth_noise(h, w, 6, rng) * 40
        grain = np.sin((xx if rng.random() < 0.5 else yy) / rng.uniform(8, 18) + warp)
        shade = 0.82 + 0.15 * grain + 0.1 * smooth_noise(h, w, 40, rng)
    elif kind == "dark-fabric":
        base = np.array(rng.choice([[35, 38, 55], [40, 40, 42], [30, 45, 35], [55, 28, 30]]), np.float32)
        p = rng.uniform(2.5, 5)
        shade = 0.85 + 0.1 * np.sin(xx / p) * np.sin(yy / p) + 0.1 * smooth_noise(h, w, 14, rng)
    else:  # near-black laminate with a little speckle
        base = np.array(rng.choice([[22, 22, 24], [28, 26, 24], [18, 20, 26]]), np.float32)
        shade = 0.9 + 0.15 * smooth_noise(h, w, 10, rng) + rng.normal(0, 0.04, (h, w)).astype(np.float32)
    return base * shade[..., None]


def _text_lines(img: np.ndarray, rng: np.random.Generator, x0: int, x1: int, y0: int, y1: int,
                pitch: float, ink: float, mono: bool = False) -> None:
    """Rows of word-like grey bars standing for printed text."""
    y = y0 + pitch
    while y < y1:
        x = x0 + (rng.integers(0, 3) * 2 * pitch if rng.random() < 0.2 else 0)
        end = x1 - (rng.uniform(0, 0.5) * (x1 - x0) if rng.random() < 0.3 else 0)
        while x < end:
            wlen = float(rng.uniform(1.5, 6) * pitch * (0.8 if mono else 1))
            if x + wlen > end:
                break
            cv2.rectangle(img, (int(x), int(y - 0.55 * pitch)), (int(x + wlen), int(y)), ink, -1)
            x += wlen + pitch * 0.6
        y += pitch * float(rng.choice([1.0, 1.0, 1.0, 2.0]))


def paper_texture(kind: str, w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """The face of another paper or card (float32 RGB), w × h table-plane pixels."""
    tint = np.array([rng.uniform(0.93, 1.0), rng.uniform(0.92, 1.0), rng.uniform(0.86, 0.99)], np.float32)
    img = np.full((h, w, 3), 250, np.float32)
    grey = img[:, :, 0].copy()
    m = int(0.07 * min(w, h))
    pitch = float(rng.uniform(0.011, 0.02) * h) if kind != "receipt" else float(rng.uniform(28, 40))
    if kind == "sheet-text":
        _text_lines(grey, rng, m, w - m, m, h - m, pitch, 60)
    elif kind == "sheet-grid":  # another deck list or a score table: rules of its own
        cols = int(rng.integers(2, 5))
        top, row_h = int(rng.uniform(0.12, 0.2) * h), float(rng.uniform(0.017, 0.03) * h)
        _text_lines(grey, rng, m, w // 2, m, top - 10, 30, 70)
        cw = (w - 2 * m) / cols
        for c in range(cols):
            cx0, cx1 = int(m + c * cw + 6), int(m + (c + 1) * cw - 6)
            cv2.rectangle(grey, (cx0, top), (cx1, int(h - m)), 40, 3)
            y = top + row_h
            while y < h - m:
                cv2.line(grey, (cx0, int(y)), (cx1, int(y)), 70, 2)
                if rng.random() < 0.6:
                    cv2.rectangle(grey, (cx0 + 12, int(y - 0.7 * row_h)),
                                  (int(cx0 + 12 + rng.uniform(0.2, 0.7) * (cx1 - cx0)), int(y - 0.3 * row_h)), 60, -1)
                y += row_h
    elif kind == "receipt":
        _text_lines(grey, rng, m, w - m, m, h - m, pitch, 70, mono=True)
        for _ in range(int(rng.integers(1, 4))):
            y = int(rng.uniform(0.2, 0.9) * h)
            for x in range(m, w - m, 24):
                cv2.line(grey, (x, y), (x + 12, y), 80, 3)
    elif kind == "note":  # ruled notebook paper, a few handwritten-looking strokes
        y = float(rng.uniform(40, 80))
        step = float(rng.uniform(45, 70))
        while y < h:
            cv2.line(grey, (0, int(y)), (w, int(y)), 200, 2)
            y += step
        for _ in range(int(rng.integers(2, 7))):
            pts = np.cumsum(rng.normal(0, 8, (30, 2)), axis=0) + [rng.uniform(m, w - 4 * m), rng.uniform(m, h - m)]
            pts[:, 0] += np.linspace(0, rng.uniform(100, 400), 30)
            cv2.polylines(grey, [pts.astype(np.int32)], False, 90, 3)
    img = np.repeat(grey[..., None], 3, axis=2)
    if kind in ("card", "card-box"):  # a coloured face with a pale panel
        colour = np.array(rng.choice([[170, 120, 60], [60, 90, 160], [150, 60, 130], [200, 160, 70],
                                      [230, 230, 225]]), np.float32)
        img[:] = colour
        b = int(0.08 * w)
        img[int(0.58 * h):h - b, b:w - b] = (235, 228, 210)
        img[int(0.12 * h):int(0.52 * h), int(1.4 * b):w - int(1.4 * b)] = colour * 0.6
        if kind == "card-box":
            cv2.rectangle(img, (0, 0), (w - 1, int(0.08 * h)), tuple(float(c) * 0.8 for c in colour), -1)
    return img * tint


def _rect(w: float, h: float, angle_deg: float, centre: np.ndarray) -> np.ndarray:
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
    base = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]], np.float32)
    return base @ rot.T + centre.astype(np.float32)


def ink_box(page: np.ndarray) -> tuple[int, int, int, int]:
    """x0, y0, x1, y1 of everything printed on the page (objects on top must stay outside)."""
    ys, xs = np.nonzero(page.min(axis=2) < 200)
    return int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())


def place_other(kind: str, pw: int, ph: int, ink: tuple[int, int, int, int],
                rng: np.random.Generator) -> dict:
    """Where another paper lies on the table plane (the sheet spans 0..pw × 0..ph)."""
    wmm, hmm = SIZES_MM[kind]
    if kind == "receipt":
        hmm = float(rng.uniform(140, 260))
    w, h = wmm * PX_PER_MM, hmm * PX_PER_MM
    if rng.random() < 0.5 and kind not in ("sheet-text", "sheet-grid"):
        w, h = h, w
    side = str(rng.choice(["left", "right", "top", "bottom"]))
    relation = str(rng.choice(["apart", "touching", "on-margin"], p=[0.3, 0.4, 0.3]))
    if kind in ("sheet-text", "sheet-grid") and relation == "on-margin":
        relation = "touching"  # a whole sheet on top would hide the deck sheet's edge for good
    angle = float(rng.uniform(-25, 25) if relation == "apart" else rng.uniform(-12, 12))
    corners = _rect(w, h, angle, np.zeros(2))
    axis = 0 if side in ("left", "right") else 1
    sign = 1 if side in ("right", "bottom") else -1
    edge = (pw if axis == 0 else ph) if sign > 0 else 0
    margin = {"left": ink[0], "right": pw - ink[2], "top": ink[1], "bottom": ph - ink[3]}[side]
    gap = {"apart": float(rng.uniform(0.03, 0.15)) * pw, "touching": -float(rng.uniform(0.005, 0.06)) * pw,
           "on-margin": -float(rng.uniform(0.15, 0.65)) * margin}[relation]
    # The near side of the paper at edge + gap; along the side, anywhere it still meets the sheet.
    near = corners[:, axis].min() if sign > 0 else corners[:, axis].max()
    centre = np.zeros(2, np.float32)
    centre[axis] = edge + sign * gap - near
    span = pw if axis == 1 else ph
    centre[1 - axis] = float(rng.uniform(0.05, 0.95) if relation == "apart" else rng.uniform(0.2, 0.8)) * span
    return {"kind": kind, "relation": relation, "side": side, "angle_deg": round(angle, 2),
            "size_mm": [round(wmm if w < h or kind.startswith("sheet") else hmm, 1),
                        round(hmm if w < h or kind.startswith("sheet") else wmm, 1)],
            "plane_corners": corners + centre, "w": int(w), "h": int(h)}


def _hand(pw: int, ph: int, ink: tuple[int, int, int, int], rng: np.random.Generator) -> dict:
    """A hand resting on a side margin: palm off the sheet, fingertips in the margin."""
    side = str(rng.choice(["left", "right", "bottom"]))
    reach = float(rng.uniform(0.2, 0.7))
    if side == "left":
        tip, direction = np.float32([ink[0] * (1 - reach), rng.uniform(0.3, 0.9) * ph]), np.float32([1, 0])
    elif side == "right":
        tip, direction = np.float32([pw - (pw - ink[2]) * (1 - reach), rng.uniform(0.3, 0.9) * ph]), np.float32([-1, 0])
    else:
        tip, direction = np.float32([rng.uniform(0.2, 0.8) * pw, ph - (ph - ink[3]) * (1 - reach)]), np.float32([0, -1])
    tone = [float(rng.uniform(190, 230)), float(rng.uniform(140, 175)), float(rng.uniform(110, 145))]
    return {"side": side, "tip": tip, "dir": direction, "tone": tone, "reach": round(reach, 3)}


def _draw_hand(canvas: np.ndarray, alpha: np.ndarray, hand: dict, hmat: np.ndarray) -> None:
    """Palm and four fingers as filled shapes on the table plane, mapped into the frame."""
    tip, d = hand["tip"], hand["dir"]
    n = np.float32([-d[1], d[0]])
    finger_len, finger_w = 75 * PX_PER_MM, 17 * PX_PER_MM
    shapes = []
    for i, off in enumerate((-1.5, -0.5, 0.5, 1.5)):
        back = tip - d * (finger_len * (0.85 + 0.15 * (i in (1, 2))) ) + n * off * finger_w * 1.1
        front = tip - d * (0.12 * finger_len * abs(off)) + n * off * finger_w * 1.1
        shapes.append(np.array([back - n * finger_w / 2, front - n * finger_w / 2,
                                front + n * finger_w / 2, back + n * finger_w / 2]))
    palm_c = tip - d * (finger_len + 50 * PX_PER_MM)
    palm = np.array([palm_c + (d * 60 + n * 50) * PX_PER_MM, palm_c + (d * 60 - n * 50) * PX_PER_MM,
                     palm_c + (-d * 120 - n * 45) * PX_PER_MM, palm_c + (-d * 120 + n * 45) * PX_PER_MM])
    shapes.append(palm)
    mask = np.zeros(canvas.shape[:2], np.uint8)
    for s in shapes:
        pts = cv2.perspectiveTransform(s.reshape(-1, 1, 2).astype(np.float32), hmat).reshape(-1, 2)
        cv2.fillPoly(mask, [np.round(pts * 4).astype(np.int32)], 255, lineType=cv2.LINE_AA, shift=2)
    soft = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 2.5)
    shade = 0.75 + 0.25 * cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 25)
    colour = np.array(hand["tone"], np.float32) * shade[..., None]
    canvas[:] = canvas * (1 - soft[..., None]) + colour * soft[..., None]
    alpha[:] = np.maximum(alpha, soft)


def _composite(canvas: np.ndarray, tex: np.ndarray, plane_corners: np.ndarray, hmat: np.ndarray,
               shadow: float = 0.0) -> None:
    """Warp a texture onto its table-plane rectangle through the camera (in place), with a soft
    contact shadow under it."""
    th, tw = tex.shape[:2]
    src = np.float32([[0, 0], [tw, 0], [tw, th], [0, th]])
    frame = cv2.perspectiveTransform(plane_corners.reshape(-1, 1, 2).astype(np.float32), hmat).reshape(4, 2)
    m = cv2.getPerspectiveTransform(src, frame)
    fh, fw = canvas.shape[:2]
    x0, y0 = np.floor(frame.min(axis=0)).astype(int)
    x1, y1 = np.ceil(frame.max(axis=0)).astype(int)
    x0, y0, x1, y1 = max(x0 - 30, 0), max(y0 - 30, 0), min(x1 + 30, fw), min(y1 + 30, fh)
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    ms = shift @ m
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(tex, ms, size, flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.ones((th, tw), np.float32), ms, size, flags=cv2.INTER_LINEAR)
    region = canvas[y0:y1, x0:x1]
    if shadow > 0:
        sh = cv2.GaussianBlur(mask, (0, 0), 6)
        region *= (1 - shadow * np.roll(sh, (4, 3), axis=(0, 1)))[..., None]
    region[:] = region * (1 - mask[..., None]) + warped * mask[..., None]


def cluttered_photo(page: np.ndarray, rng: np.random.Generator, limits: dict) -> tuple[np.ndarray, dict]:
    """The photo (uint8 RGB, before JPEG) and its `distortions` (frame corners of the sheet and
    of every other paper, table, light, hand)."""
    ph, pw = page.shape[:2]
    long_side = int(rng.integers(limits["long_side"][0], limits["long_side"][1] + 1))
    landscape = bool(rng.random() < max(limits["landscape"], 0.3))
    fw, fh = (long_side, int(long_side * 0.75)) if landscape else (int(long_side * 0.75), long_side)
    cover = float(rng.uniform(0.68, 0.85)) if landscape else float(rng.uniform(0.55, 0.75))
    scale = cover * fh / ph
    angle = float(rng.uniform(-18, 18))
    tilt, lean = float(rng.uniform(0.10, 0.22)), float(rng.uniform(0.04, 0.10))
    jitter = float(rng.uniform(0.01, 0.04))
    dw, dh = pw * scale, ph * scale
    lean_side = 1 if rng.random() < 0.5 else -1
    base = np.array([[-dw / 2 * (1 - tilt), -dh / 2 * (1 - lean * (lean_side < 0))],
                     [dw / 2 * (1 - tilt), -dh / 2 * (1 - lean * (lean_side > 0))],
                     [dw / 2, dh / 2], [-dw / 2, dh / 2]], np.float32)
    base += rng.uniform(-jitter, jitter, size=(4, 2)).astype(np.float32) * np.float32([dw, dh])
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
    corners = base @ rot.T
    span = corners.max(axis=0) - corners.min(axis=0)
    corners *= min(1.0, 0.95 * fw / span[0], 0.95 * fh / span[1])
    room = np.maximum(0, (np.float32([fw, fh]) - (corners.max(axis=0) - corners.min(axis=0))) / 2 - 8)
    corners += np.float32([fw / 2, fh / 2]) + rng.uniform(-0.8, 0.8, 2).astype(np.float32) * room
    hmat = cv2.getPerspectiveTransform(np.float32([[0, 0], [pw, 0], [pw, ph], [0, ph]]), corners)

    table = str(rng.choice(TABLES))
    canvas = dark_table(fh, fw, table, rng)
    ink = ink_box(page)
    others = [place_other(str(rng.choice(OTHERS)), pw, ph, ink, rng)
              for _ in range(int(rng.integers(1, 5)))]
    for o in others:
        if o["relation"] != "on-margin":
            _composite(canvas, paper_texture(o["kind"], o["w"], o["h"], rng), o["plane_corners"], hmat, 0.35)
    tint = np.array([rng.uniform(0.93, 0.99), rng.uniform(0.92, 0.98), rng.uniform(0.86, 0.95)], np.float32)
    _composite(canvas, page.astype(np.float32) * tint, np.float32([[0, 0], [pw, 0], [pw, ph], [0, ph]]),
               hmat, 0.3)
    for o in others:
        if o["relation"] == "on-margin":
            _composite(canvas, paper_texture(o["kind"], o["w"], o["h"], rng), o["plane_corners"], hmat, 0.35)
    hand = _hand(pw, ph, ink, rng) if rng.random() < 0.25 else None
    if hand is not None:
        _draw_hand(canvas, np.zeros((fh, fw), np.float32), hand, hmat)

    # Uneven light: a lamp's hot spot and fall-off, a vignette, one shadow band (a phone's or an arm's).
    yy, xx = np.mgrid[0:fh, 0:fw].astype(np.float32)
    lx, ly = float(rng.uniform(0.1, 0.9)) * fw, float(rng.uniform(0.1, 0.9)) * fh
    spread = float(rng.uniform(0.5, 1.0)) * max(fw, fh)
    g0, g1 = float(rng.uniform(0.6, 0.8)), float(rng.uniform(1.0, 1.08))
    light = g0 + (g1 - g0) * np.exp(-((xx - lx) ** 2 + (yy - ly) ** 2) / (2 * spread ** 2))
    vig = float(rng.uniform(0.1, 0.3))
    light *= 1 - vig * (((xx - fw / 2) / (fw / 2)) ** 2 + ((yy - fh / 2) / (fh / 2)) ** 2) / 2
    sa, pos = float(rng.uniform(0, math.pi)), float(rng.uniform(0.15, 0.85))
    width, dark = float(rng.uniform(0.05, 0.2)), float(rng.uniform(0.15, 0.35))
    d = ((xx / fw - 0.5) * math.cos(sa) + (yy / fh - 0.5) * math.sin(sa)) - (pos - 0.5)
    light *= 1 - dark * np.exp(-(d / width) ** 2)
    img = canvas * light[..., None]
    blur = float(rng.uniform(0.3, 1.2))
    img = cv2.GaussianBlur(img, (0, 0), blur)
    noise = float(rng.uniform(2, 6))
    img = np.clip(img + rng.normal(0, noise, img.shape).astype(np.float32), 0, 255).astype(np.uint8)

    def frame_pts(pts: np.ndarray) -> list[list[float]]:
        out = cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float32), hmat).reshape(-1, 2)
        return [[round(float(x), 1), round(float(y), 1)] for x, y in out]

    return img, {
        "scene": "cluttered", "render_dpi": 250, "frame": [fw, fh],
        "page_corners": [[round(float(x), 1), round(float(y), 1)] for x, y in corners],
        "pose": "strong", "rotation_deg": round(angle, 3), "tilt": round(tilt, 4), "lean": round(lean, 4),
        "max_corner_jitter_frac": round(jitter, 4), "background": table,
        "others": [{"kind": o["kind"], "relation": o["relation"], "side": o["side"],
                    "angle_deg": o["angle_deg"], "size_mm": o["size_mm"],
                    "corners": frame_pts(o["plane_corners"]),
                    "cut_by_frame": any(not (0 <= x < fw and 0 <= y < fh)
                                        for x, y in frame_pts(o["plane_corners"]))} for o in others],
        "hand": None if hand is None else {"side": hand["side"], "reach": hand["reach"]},
        "light": {"lamp": [round(lx / fw, 3), round(ly / fh, 3)], "range": [round(g0, 3), round(g1, 3)],
                  "vignette": round(vig, 3),
                  "shadow_band": {"angle_rad": round(sa, 3), "pos": round(pos, 3),
                                  "width": round(width, 3), "darkness": round(dark, 3)}},
        "blur_sigma": round(blur, 3), "noise_sigma": round(noise, 2)}
