"""The reader's shipped data files (the hand-digit network, the digit templates, the name and
card-name syllable drawings, the name- and card-syllable networks): a missing one refuses with a coded error naming the file and what builds it, in
English and Korean — not a bare FileNotFoundError halfway through a read."""
from __future__ import annotations

import re

import pytest

from scanner.errors import MissingToolError
from scanner.ocr import counts, hand_digits, hand_syllables


@pytest.mark.parametrize("load, make", [(hand_digits.load_model, "tools.make_hand_digits"),
                                        (counts.load_templates, "tools.make_digit_templates"),
                                        (hand_syllables.load_model, "tools.make_name_syllables"),
                                        (hand_syllables.load_net, "tools.make_name_net"),
                                        (hand_syllables.load_card_net, "tools.make_card_net"),
                                        (hand_syllables.shipped_drawings, "tools.make_card_syllables")])
def test_a_missing_data_file_is_a_coded_error(tmp_path, load, make):
    missing = tmp_path / "gone.npz"
    with pytest.raises(MissingToolError) as caught:
        load(missing)
    err = caught.value
    assert err.code == "tool.model-missing"
    assert str(missing) in str(err) and f"python -m {make}" in str(err)
    ko = err.render("ko")
    assert str(missing) in ko and make in ko and re.search(r"[가-힣]", ko)


def test_the_shipped_files_load():
    assert hand_digits.load_model().w1.ndim == 2
    assert len(counts.load_templates().labels) > 0
    assert hand_syllables.load_model() is not None
    assert hand_syllables.load_net()[0].w1.ndim == 2
    net, index = hand_syllables.load_card_net()
    assert net.w2.shape[1] == len(index) and set(index) == set(hand_syllables.shipped_drawings())
    assert len(hand_syllables.shipped_drawings()) > 0
