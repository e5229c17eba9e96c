"""The player's Konami ID (one digit a box) and name written by hand on Konami's form, the form
photographed (tests/camera.py): read with a confidence, always as a review item, never a wrong
one presented as sure (a wrong ID unflagged registers the sheet to another player)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from needs import require

pytest.importorskip("tesserocr")

REPO = Path(__file__).resolve().parent.parent
SEED = 3641
"""A seed no one tuned the header reader on."""
FACES = ("EunjinNakseo", "BMKirang", "UnPilgia", "Eunjin")
"""Faces the reader was never tuned on (`kde_paper.HELD_OUT_FACES`, `HELD_OUT_LATER`)."""
SURE = 0.5
"""A written ID read right comes at least this sure; one read wrong, below it."""


def _samples():
    sys.path.insert(0, str(REPO / "samples"))
    if "make_photos" not in sys.modules:
        spec = importlib.util.spec_from_file_location("make_photos", REPO / "samples" / "make_photos.py")
        sys.modules["make_photos"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["make_photos"])
    import kde_paper
    return sys.modules["make_photos"], kde_paper


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
