"""A written line is accepted without review only on conclusive evidence (issue 35,
`scanner/ocr/evidence.py`): its reads agree, its count is sure, and its column's total adds up."""
from __future__ import annotations

from fakes import row_read

from scanner.model import SheetRead
from scanner.ocr.evidence import accept_on_evidence
from scanner.ocr.names import NameMatch
from scanner.ocr.totals import cross_check_totals


def _written(row: int, count: int, *, score: float = 0.78, margin: float = 0.25, agree: int = 3,
             odds: float = 0.99, card: int = 100):
    """A line written by hand as the hand reader leaves it: three reads, fused `score`, its
    count's own odds, flagged 'handwritten' (and 'uncertain-name': a written name's fused
    likeness is below the bar set for print)."""
    from scanner.ocr.hand_names import name_certainty
    m = NameMatch(card + row, f"card {row}", score, margin)
    rest = (1.0 - odds) / 2
    return row_read("spell", row, count, conf=odds, match=m, handwritten=True,
                    flags=["uncertain-name", "handwritten"], name_certainty=name_certainty(m, agree, 3),
                    name_agree=agree, name_reads=3,
                    count_odds={v: (odds if v == count else rest) for v in (1, 2, 3)})


def _column(total: int | None, **kw):
    rows = [_written(1, 3, **kw), _written(2, 2), _written(3, 1)]
    sheet = SheetRead(reader="ocr")
    sheet.column_totals["spell"] = total
    verdicts = cross_check_totals(rows, sheet, hand_filled=True)
    return rows, sheet, accept_on_evidence(rows, verdicts, sheet)


def test_a_written_line_with_conclusive_evidence_is_not_flagged():
    rows, sheet, n = _column(6)  # 3 + 2 + 1: the column's written total agrees
    assert n == 3
    assert all(r.flags == [] and r.handwritten for r in rows)
    assert "3 of 3 reads" in rows[0].accepted and "spell total agrees" in rows[0].accepted
    assert any("accepted on evidence" in note for note in sheet.notes)


def test_the_same_read_with_a_column_total_that_disagrees_stays_flagged():
    rows, _, n = _column(7)  # the lines make 6
    assert n == 0
    assert all("handwritten" in r.flags and "column-total-mismatch" in r.flags for r in rows)


def test_with_no_total_to_read_only_a_surer_count_stands():
    rows, _, n = _column(None, odds=0.985)  # enough with a total that agrees, not alone
    assert n == 2 and "handwritten" in rows[0].flags
    rows, _, n = _column(None, odds=0.995)
    assert n == 3 and "spell total not written" in rows[0].accepted


def test_a_written_total_that_does_not_read_as_the_sum_is_doubt_not_absence():
    rows = [_written(1, 3, odds=0.995), _written(2, 2, odds=0.995), _written(3, 1, odds=0.995)]
    sheet = SheetRead(reader="ocr")
    verdicts = cross_check_totals(rows, sheet, hand_filled=True)
    assert accept_on_evidence(rows, verdicts, sheet, written={"spell"}) == 0
    assert "spell total unchecked" in rows[0].name_detail
    assert accept_on_evidence(rows, verdicts, sheet, written={"main"}) == 0  # the main total's box
    assert accept_on_evidence(rows, verdicts, sheet, written={"extra"}) == 3  # another column's


def test_with_no_column_total_a_main_total_that_disagrees_keeps_the_main_lines():
    rows = [_written(1, 3), _written(2, 2), _written(3, 1)]
    sheet = SheetRead(reader="ocr")
    sheet.printed_totals["main"] = 7  # the main lines make 6
    verdicts = cross_check_totals(rows, sheet, hand_filled=True)
    assert accept_on_evidence(rows, verdicts, sheet) == 0
    sheet.printed_totals["main"] = 6
    assert accept_on_evidence(rows, verdicts, sheet) == 3


def test_the_same_read_with_weaker_evidence_stays_flagged():
    # the first line alone falls short each time; the others (same column, total agreeing) pass
    for weaker in ({"odds": 0.9},                # count not sure by its own reading
                   {"agree": 1},                 # one read of three names the card
                   {"score": 0.55},              # fused likeness too low, however far it leads
                   {"margin": 0.02},             # the next card is as close: certainty falls
                   {"margin": 0.08}):            # certainty holds, but a namesake is close behind
                                                 # (`스쿱 슈터` read as `스톰 슈터`: fused 0.78, lead 0.08)
        rows, _, n = _column(6, **weaker)
        assert n == 2, weaker
        assert "handwritten" in rows[0].flags and not rows[0].accepted, weaker
        assert rows[1].flags == [] and rows[2].flags == []


def test_any_other_flag_keeps_a_written_line_for_the_judge():
    for flag in ("possible-strike", "ambiguous-name", "merged-rows"):
        rows = [_written(1, 3), _written(2, 2), _written(3, 1)]
        rows[0].flags.append(flag)
        sheet = SheetRead(reader="ocr")
        sheet.column_totals["spell"] = 6
        accept_on_evidence(rows, cross_check_totals(rows, sheet, hand_filled=True), sheet)
        assert flag in rows[0].flags and "handwritten" in rows[0].flags, flag


def test_a_card_on_two_lines_is_accepted_on_neither():
    rows = [_written(1, 3), _written(2, 2), _written(3, 1)]
    rows[2].match = rows[0].match  # the same card read on rows 1 and 3
    sheet = SheetRead(reader="ocr")
    sheet.column_totals["spell"] = 6
    assert accept_on_evidence(rows, cross_check_totals(rows, sheet, hand_filled=True), sheet) == 1
    assert rows[1].flags == [] and "handwritten" in rows[0].flags and "handwritten" in rows[2].flags
    assert "card on another line" in rows[0].name_detail


def test_a_rival_with_letters_the_card_lacks_keeps_the_line():
    """`VS 록스` written, read `혹스 | 옥스 | 6 독스` (a `kor` read drops letters written by hand):
    바록스 fused 0.70, lead 0.12, with VS 록스 close behind, is not conclusive; a rival as close
    with no letters the card lacks, or one with letters far behind, leaves the line accepted."""
    for rival, behind, accepted in (("VS 록스", 0.12, False), ("록스 박스", 0.12, True), ("VS 록스", 0.3, True)):
        rows = [_written(1, 3, score=0.70, margin=behind), _written(2, 2), _written(3, 1)]
        m = rows[0].match
        m.name = "바록스"
        m.candidates = [(m.card_id, "바록스", 0.70), (999, rival, 0.70 - behind)]
        sheet = SheetRead(reader="ocr")
        sheet.column_totals["spell"] = 6
        n = accept_on_evidence(rows, cross_check_totals(rows, sheet, hand_filled=True), sheet)
        assert n == (3 if accepted else 2), (rival, behind)
        assert ("handwritten" not in rows[0].flags) == accepted, (rival, behind)
        if not accepted:
            assert "rival VS 록스" in rows[0].name_detail


def test_a_column_with_a_pen_correction_accepts_nothing():
    # a struck row: the total may be from before the correction, it confirms no new line
    rows = [_written(1, 3), _written(2, 2), row_read("spell", 3, 1, struck_row=True)]
    sheet = SheetRead(reader="ocr")
    sheet.column_totals["spell"] = 6
    assert accept_on_evidence(rows, {"spell": "confirmed"}, sheet) == 0
    assert all("handwritten" in r.flags for r in rows[:2])


def test_an_accepted_line_keeps_its_certainty_in_the_output():
    from scanner.inputs.options import ReadOptions
    from scanner.ocr.lines import to_read_line
    rows, _, _ = _column(6)
    line = to_read_line(rows[0], grid=None, page=None, options=ReadOptions(), label="t")
    assert line.flags == [] and line.certainty is not None and line.certainty >= 0.98
