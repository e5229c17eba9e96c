"""Page finding in photos (scanner/ocr/page.py): pale desks, pages off the frame centre or cut
by the frame edge, and no page at all. Checked against the corners the generator recorded."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from scanner.ocr.page import find_page, image_to_page, load_image, order_corners

PHOTOS = Path(__file__).resolve().parent.parent / "samples" / "photos"


def truth_corners(name: str) -> np.ndarray:
    t = json.loads((PHOTOS / (name.rsplit(".", 1)[0] + ".truth.json")).read_text("utf-8"))
    return order_corners(np.array(t["distortions"]["page_corners"], dtype=np.float32))


def corner_error(found: np.ndarray, truth: np.ndarray, frame: tuple[int, int]) -> float:
    """Largest corner distance as a share of the frame's long side."""
    return float(np.linalg.norm(found - truth, axis=1).max()) / max(frame)


@pytest.mark.parametrize("name", ["photo-01.jpg", "photo-corrected-01.jpg", "photo-02.jpg"])
def test_page_found_in_sample_photos(name):
    """photo-01 and photo-corrected-01 lie on a pale grey desk whose brightness overlaps the
    paper's under the uneven light: no threshold separates them, the page edge does."""
    img = load_image(PHOTOS / name)
    found = find_page(img)
    assert found is not None, name
    assert corner_error(found, truth_corners(name), img.shape[:2]) < 0.015


def page_on_background(corners: np.ndarray, frame_wh: tuple[int, int], grey: int,
                       seed: int = 0) -> np.ndarray:
    """The sample photo's page, warped onto a plain noisy background at the given corners."""
    src = load_image(PHOTOS / "photo-02.jpg")
    m = cv2.getPerspectiveTransform(truth_corners("photo-02.jpg"), corners.astype(np.float32))
    w, h = frame_wh
    page = cv2.warpPerspective(src, m, (w, h))
    mask = cv2.warpPerspective(np.full(src.shape[:2], 255, np.uint8), m, (w, h))
    rng = np.random.default_rng(seed)
    bg = np.clip(grey + rng.normal(0, 6, (h, w, 3)), 0, 255).astype(np.uint8)
    bg = cv2.GaussianBlur(bg, (0, 0), 1.5)
    return np.where(mask[:, :, None] > 127, page, bg)


def test_page_off_the_frame_centre():
    """A landscape frame with the page on its right side: the frame centre is background."""
    corners = np.array([[1300, 80], [2250, 60], [2280, 1420], [1280, 1440]], dtype=np.float32)
    img = page_on_background(corners, (2400, 1500), grey=120)
    found = find_page(img)
    assert found is not None
    assert corner_error(found, corners, img.shape[:2]) < 0.01


def test_page_corner_cut_by_the_frame():
    """A corner outside the frame comes back where the two page edges meet."""
    corners = np.array([[250, 150], [1450, -60], [1560, 1700], [330, 1800]], dtype=np.float32)
    img = page_on_background(corners, (1700, 2000), grey=90, seed=1)
    found = find_page(img)
    assert found is not None
    assert found[1][1] < 0  # the top-right corner lies above the frame
    visible = [0, 2, 3]
    assert corner_error(found[visible], corners[visible], img.shape[:2]) < 0.01
    # Extrapolated from the two edges seen at 800 px: a degree off moves it a little.
    assert corner_error(found[1:2], corners[1:2], img.shape[:2]) < 0.025


def test_page_edge_leaving_the_frame_at_a_shallow_angle():
    """The bottom edge runs out of the frame a few degrees off the frame edge, the bottom-right
    corner below it, the bottom-left just inside: the frame edge is not the page's. Taken for
    it, the warp keystones the page, and the form's right-hand tables slide a row against the
    left ones."""
    corners = np.array([[1203, 291], [2234, 304], [2034, 1750], [1105, 1697]], dtype=np.float32)
    img = page_on_background(corners, (2292, 1719), grey=150, seed=2)
    found = find_page(img)
    assert found is not None
    assert found[:, 1].max() > img.shape[0]  # a bottom corner lies below the frame
    # The frame edge for the page's: 0.015; the visible stretch extended: under 0.01.
    assert corner_error(found, corners, img.shape[:2]) < 0.012


def test_no_page_in_plain_texture():
    """A frame of background only has no page: None (the reader then refuses, never guesses)."""
    rng = np.random.default_rng(3)
    img = cv2.GaussianBlur(np.clip(150 + rng.normal(0, 25, (1200, 1600, 3)), 0, 255).astype(np.uint8),
                           (0, 0), 3)
    assert find_page(img) is None


def test_warped_page_edges_carry_no_background():
    """The band along the warped page's edges is paper, so the edge never passes for a rule."""
    img = load_image(PHOTOS / "photo-01.jpg")
    page = image_to_page(img)
    assert page.corners is not None
    m = 10
    for band in (page.gray[:m], page.gray[-m:], page.gray[:, :m], page.gray[:, -m:]):
        assert float((band < 170).mean()) < 0.01


def test_leaning_columns_are_sheared_upright():
    """Rows level but columns leaning (corners a little off): the page stage stands them up
    (by the rules' rectification, or a shear), so the grid finds every row again."""
    from scanner.ocr.grid import page_to_grid
    from scanner.ocr.page import estimate_skew, shear
    page = image_to_page(load_image(PHOTOS / "photo-02.jpg"))
    leaning = shear(page.color, 1.5)
    assert abs(abs(estimate_skew(page.gray, 3.0, columns=True) - estimate_skew(
        cv2.cvtColor(leaning, cv2.COLOR_BGR2GRAY), 3.0, columns=True)) - 1.5) < 0.2
    fixed = image_to_page(leaning, is_scan=True)
    assert any(n.startswith(("shear", "perspective: rules rectified")) for n in fixed.notes), fixed.notes
    assert abs(estimate_skew(fixed.gray, 3.0, columns=True)) < 0.1, fixed.notes
    grid = page_to_grid(fixed.gray)
    assert [len(grid.by_kind(k).rows) for k in ("monster", "spell", "trap", "extra", "side")] == \
        [20, 20, 20, 15, 15]


def test_small_pale_page_in_a_landscape_frame():
    """A portrait page in a 2000 px landscape frame (~110 dpi), pale print, soft focus: the page
    is found and its grid read whole (each rule is a light grey smear here)."""
    from scanner.ocr.grid import page_to_grid
    corners = np.array([[700, 40], [1629, 59], [1619, 1340], [680, 1321]], dtype=np.float32)
    img = page_on_background(corners, (2000, 1500), grey=170, seed=2).astype(np.float32)
    img = cv2.GaussianBlur(255 - (255 - img) * 0.5, (0, 0), 1.0).clip(0, 255).astype(np.uint8)
    ok, jpg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 65])
    page = image_to_page(cv2.imdecode(jpg, cv2.IMREAD_COLOR))
    assert page.corners is not None
    assert corner_error(page.corners, corners, img.shape[:2]) < 0.01
    grid = page_to_grid(page.gray)
    assert [len(grid.by_kind(k).rows) for k in ("monster", "spell", "trap", "extra", "side")] == \
        [20, 20, 20, 15, 15]


@pytest.fixture(scope="module")
def upright_page():
    return image_to_page(load_image(PHOTOS / "photo-02.jpg"))


@pytest.mark.parametrize("angle", [-3.7, -1.3, 0.45, 2.2, 4.6])
def test_skew_estimated_on_a_rotated_page(upright_page, angle):
    """The skew search (strips of the ink sheared, not the page rotated) finds a known rotation
    within 0.05°: far inside what the grid tolerates (next test)."""
    from scanner.ocr.page import estimate_skew, rotate
    tilted = rotate(upright_page.gray, -angle)
    assert abs(estimate_skew(tilted) - angle) < 0.05
    # The columns of a rotated page lean the other way (`columns`: the search on the page on
    # its side). A few column rules only: a small lean is read less sharply.
    if 1.0 < abs(angle) < 2.5:
        assert abs(estimate_skew(tilted, max_deg=3.0, columns=True) + angle) < 0.1


@pytest.mark.parametrize("residual", [-0.5, 0.3])
def test_grid_whole_with_a_residual_skew(upright_page, residual):
    """The grid tolerates a skew left over by the page stage of at least 0.5° (it breaks near
    1.2°): the skew search's precision (0.01° steps) is not what limits the read."""
    from scanner.ocr.grid import page_to_grid
    from scanner.ocr.page import rotate
    grid = page_to_grid(rotate(upright_page.gray, residual))
    assert [len(grid.by_kind(k).rows) for k in ("monster", "spell", "trap", "extra", "side")] == \
        [20, 20, 20, 15, 15]
