"""The player's Konami ID (one digit a box) and name written by hand on Konami's form, the form
photographed (tests/camera.py): read with a confidence, always as a review item, never a wrong
one presented as sure (a wrong ID unflagged registers the sheet to another player)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from needs import require
from sample_makers import kde_paper, make_photos

pytest.importorskip("tesserocr")

REPO = Path(__file__).resolve().parent.parent
SEED = 3641
"""A seed no one tuned the header reader on."""
FACES = ("EunjinNakseo", "BMKirang", "UnPilgia", "Eunjin")
"""Faces the reader was never tuned on (`kde_paper.HELD_OUT_FACES`, `HELD_OUT_LATER`)."""
SURE = 0.5
"""A written ID read right comes at least this sure; one read wrong, below it."""


def _samples():
    return make_photos(), kde_paper()


def _photographed_form(tmp_path: Path, db, pools, i: int, face: str) -> tuple[Path, dict]:
    """A random deck on the form, wholly filled by hand in `face`, printed and photographed."""
    from camera import photograph
    mp, kp = _samples()
    rng = np.random.default_rng([SEED, i])
    sheet = mp.random_sheet(db, pools, rng, i, SEED)
    page, _ = kp.kde_page(sheet.deck, sheet.style.family, sheet.style.size, mp.PHOTO_DPI, rng, tmp_path,
                          kp.KDE_FORM, "all", (face,), True)
    data, _ = photograph(page[:, :, ::-1].copy(), rng)
    path = tmp_path / f"hand-{i}.jpg"
    path.write_bytes(data)
    deck = sheet.deck
    return path, {"name": deck.player_family + deck.player_given, "konami_id": deck.konami_id}


@pytest.mark.slow
def test_a_written_id_and_name_are_read_off_a_photographed_form(tmp_path, real_db):
    mp, kp = _samples()
    require(kp.KDE_FORM.is_file(), f"needs {kp.KDE_FORM} (Konami's blank form in ../shared/forms)")
    for face in FACES:
        require(kp.HAND_FACES[face].letters.is_file(), f"needs the {face} handwriting font")
        assert face not in kp.TUNING_FACES
    from scanner.read import ReadOptions, load_decklist
    pools = mp.card_pools(real_db)
    ids_right = 0
    for i, face in enumerate(FACES):
        path, true = _photographed_form(tmp_path, real_db, pools, i, face)
        out = load_decklist(path, real_db, ReadOptions()).to_json()
        player = out["player"]
        reasons = {r["reason"] for r in out["review"]}
        kid, conf = player["konami_id"], player.get("konami_id_confidence")
        assert kid is not None, (face, player)
        assert "konami-id-unclear" in reasons, (face, player)  # always for the judge to confirm
        assert 0.0 <= conf <= 1.0
        if kid == true["konami_id"]:
            ids_right += 1
            assert conf >= SURE, (face, kid, conf)
        else:
            assert conf < SURE, (face, kid, true["konami_id"], conf)
        if player["name"] is not None:  # a written name: flagged, with its confidence
            assert "player-name-unclear" in reasons, (face, player)
            assert 0.0 <= player["name_confidence"] <= 1.0
            if player["name"] != true["name"]:
                assert player["name_confidence"] < SURE, (face, player, true)
    assert ids_right >= 3, ids_right


def test_a_given_name_read_as_no_name_syllables_is_snapped_and_less_sure():
    from scanner.ocr.header import GIVEN_SYLLABLES, HEADER, _given_name
    # three reads of one hand: 연윤 read 얻옴 twice (no name has 얻 or 옴), once as 연윤
    text, _ = _given_name([("얻옴", 0.6), ("얻옴", 0.6), ("연윤", 0.9)])
    assert len(text) == 2 and all(ch in GIVEN_SYLLABLES for ch in text), text
    got, sure = _given_name([("서연", 0.8), ("서연", 0.8), ("서연", 0.8)])
    assert got == "서연" and sure == pytest.approx(0.8)  # name syllables as read: kept, as sure
    snapped, less = _given_name([("서얻", 0.8), ("서얻", 0.8), ("서얻", 0.8)])
    assert snapped[0] == "서" and snapped[1] in GIVEN_SYLLABLES and snapped != "서얻"
    assert less == pytest.approx(0.8 * HEADER.snapped_surname)


def test_a_hand_leaning_further_than_learnt_is_read_upright():
    import cv2
    from scanner.ocr.header import WRITTEN_ID, deslanted, slant, upright_hand
    upright = np.zeros((40, 12), bool)
    upright[2:38, 4:8] = True  # a 1
    sheared = cv2.warpAffine(np.pad(upright, ((0, 0), (20, 20))).astype(np.float32),
                             np.float32([[1, -0.6, 24], [0, 1, 0]]), (52, 40), flags=cv2.INTER_NEAREST) > 0.5
    assert abs(slant(upright)) < 0.05 and abs(slant(sheared)) > 0.5
    assert abs(slant(deslanted(sheared))) < 0.1
    assert upright_hand([sheared] * 10, WRITTEN_ID) and not upright_hand([upright] * 10, WRITTEN_ID)


def test_a_written_name_rising_over_its_box_is_read_whole():
    from scanner.ocr.grid import Box
    from scanner.ocr.header import written_name_ink
    gray = np.full((200, 400), 255, np.uint8)
    gray[60:62, 20:380] = 0   # the box's top rule
    gray[110:112, 20:380] = 0  # its foot
    gray[56:100, 60:66] = 0   # a stroke rising over the top rule, cut by it
    gray[70:100, 70:90] = 0   # the rest of the syllable
    gray[52:57, 75:85] = 0    # a part of it wholly over the rule, just above it
    gray[5:30, 200:240] = 0   # the field above's writing: not this box's
    gray[130:140, 60:200] = 0  # print under the box
    ink = written_name_ink(gray, Box(20, 60, 380, 112))
    assert ink is not None
    ys, xs = np.nonzero(ink < 128)
    # the syllable from its part over the rule (y 52) to its foot (y 100), nothing else
    assert ys.max() - ys.min() + 1 == 100 - 52, (ys.min(), ys.max())
    assert xs.max() - xs.min() + 1 == 90 - 60, (xs.min(), xs.max())
