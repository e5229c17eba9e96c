"""The Konami ID's box rules among a db-ko header's column rules (`header.id_rules`)."""
from scanner.ocr.header import ID_DIGITS, id_rules

# The column rules of a real db-ko header (photo-corrected-01 of make_photos seed 3535): the
# label rule (363, doubled at 375), the eleven ID box rules 48 px apart, and 455 — a stroke of
# the name row above that falls between the second and third box.
XS = [86, 363, 375, 423, 455, 471, 517, 565, 613, 661, 709, 757, 805, 852, 863]


def test_a_stray_rule_between_two_boxes_is_passed_over():
    assert id_rules(XS) == [375, 423, 471, 517, 565, 613, 661, 709, 757, 805, 852]


def test_clean_rules_give_the_eleven_and_no_more():
    xs = [86, 363] + [375 + 48 * k for k in range(ID_DIGITS + 1)] + [866]
    assert id_rules(xs) == [375 + 48 * k for k in range(ID_DIGITS + 1)]


def test_a_missing_rule_breaks_the_run():
    # a box whose rule was not found: no run of eleven (the ID is not read, never guessed)
    xs = [375 + 48 * k for k in range(ID_DIGITS + 1) if k != 5]
    assert len(id_rules(xs)) < ID_DIGITS + 1
