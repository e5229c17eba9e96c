"""Human views of a scanned decklist (the JSON view is `Decklist.to_json`)."""
from __future__ import annotations

from scanner.model import SECTIONS, Decklist, position_label
from scanner.vocab import SECTION_KO, reason_ko


def format_scan(deck: Decklist) -> str:
    """A judge's view: sections with counts and names, totals, and what needs review."""
    out: list[str] = []
    src = deck.source_path or "-"
    out.append(f"== {src}  [{deck.reader}]")
    if deck.player_name or deck.konami_id:
        # OCR can misread one syllable of a name with confidence (용지우 → 용기우): say so.
        read_by = "  (OCR로 읽음 — 신분증과 확인)" if deck.reader == "ocr" and deck.player_name else ""
        out.append(f"   선수: {deck.player_name or '?'}   코나미 ID: {deck.konami_id or '?'}{read_by}")
    totals = deck.totals()
    for s in SECTIONS:
        printed = deck.printed_totals.get(s)
        ptxt = "" if printed is None else (f"  (시트 합계 {printed})" if printed != totals[s]
                                           else "  (시트 합계 일치)")
        out.append(f"-- {SECTION_KO[s]}: {totals[s]}장{ptxt}")
        for i, e in enumerate(deck.sections[s], 1):
            mark = "?" if e.needs_review else " "
            cid = f"{e.card_id:>9}" if e.card_id is not None else "        -"
            where = (position_label(s, i, e.column, e.row) + ":") if e.column and e.row else f"{i:>3}."
            line = f" {mark}{where} {e.count} × {e.name or e.read}   [{cid}]"
            if e.needs_review:
                line += f"   ← {', '.join(map(reason_ko, e.reasons))}; 읽은 값 {e.read!r}"
            out.append(line)
    if deck.review:
        out.append(f"-- 저지 확인 필요 (review): {len(deck.review)}건 — 표시된 줄을 시트와 대조해 주십시오")
        for r in deck.review:
            if r.position:
                where = r.position
            elif r.line:
                where = position_label(r.section, r.line)
            else:
                where = SECTION_KO.get(r.section or "", "시트")
            out.append(f"   ! {where}: {reason_ko(r.reason)} — {r.detail}")
    else:
        out.append("-- 확인 필요 없음 (nothing to review)")
    return "\n".join(out)
