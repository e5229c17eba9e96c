"""Human views of `check` and `compare` results (Korean for the judge, codes in English).

The JSON views are `CheckResult.to_json` / `CompareResult.to_json`.
"""
from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from scanner.model import SECTIONS, Decklist, Infraction
from scanner.rules import PENALTY_KO

if TYPE_CHECKING:  # only for annotations: no import cycle at run time
    from scanner.check import CheckResult
    from scanner.reconcile import CompareResult

SECTION_KO = {"main": "메인 덱", "extra": "엑스트라 덱", "side": "사이드 덱", None: "-"}


def _cols(text: str) -> int:
    """Terminal columns of a text: Hangul and other wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _cols(text))


def _infraction_lines(infractions: list[Infraction]) -> list[str]:
    out = []
    for n, inf in enumerate(infractions, 1):
        cards = ", ".join(map(str, inf.card_ids)) or "-"
        out.append(f" {n:>2}. [{inf.code}] {SECTION_KO.get(inf.section, inf.section)} · 카드 {cards}")
        out.append(f"     {inf.message}")
        out.append(f"     벌칙: {PENALTY_KO.get(inf.penalty, inf.penalty)} ({inf.penalty})")
        out.append(f"     조치: {inf.remedy}")
        out.append(f"     규정: {inf.rule}")
    return out


def format_check(result: "CheckResult", deck: Decklist) -> str:
    """Verdict, section sizes and one block per infraction."""
    totals = deck.totals()
    head = "적합 (LEGAL)" if result.legal else f"부적합 (NOT LEGAL): {len(result.infractions)}건"
    bans = "추가 금지 카드 적용" if result.extra_bans else "추가 금지 카드 미적용"
    out = [f"== {deck.source_path or '-'}  [{deck.reader}]",
           f"   리미트 레귤레이션 {result.list_name} ({bans})",
           "   " + "   ".join(f"{SECTION_KO[s]} {totals[s]}장" for s in SECTIONS),
           f"-- 판정: {head}"]
    out += _infraction_lines(result.infractions)
    return "\n".join(out)


def format_compare(result: "CompareResult", registered: Decklist, observed: Decklist) -> str:
    """Per-section diff table (card, registered, observed) and the infractions."""
    mode = "듀얼 사이 (between-games)" if result.mode == "between-games" else "매치 개시 (start-of-match)"
    reg_t, obs_t = registered.totals(), observed.totals()
    out = [f"== 등록: {registered.source_path or '-'}   확인: {observed.source_path or '-'}",
           f"   모드: {mode}",
           "   매수 (등록 → 확인): " + "   ".join(
               f"{SECTION_KO[s]} {reg_t[s]} → {obs_t[s]}" for s in SECTIONS),
           f"-- 판정: {'일치 (MATCH)' if result.match else '불일치 (MISMATCH)'}"]
    if result.differences:
        width = max(_cols(d.name) for d in result.differences)
        out.append(f"   {_pad('구역', 11)} {_pad('카드', width)}   패스코드  등록  확인  차이")
        for d in result.differences:
            cid = f"{d.card_id:>9}" if d.card_id is not None else "        ?"
            out.append(f"   {_pad(SECTION_KO[d.section], 11)} {_pad(d.name, width)}  {cid}  "
                       f"{d.registered:>4}  {d.observed:>4}  {d.observed - d.registered:+4d}")
    else:
        out.append("   차이 없음 (no differences)")
    out += _infraction_lines(result.infractions)
    return "\n".join(out)
