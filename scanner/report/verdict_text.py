"""Human views of `check` and `compare` results (Korean for the judge, codes in English).

The JSON views are `CheckResult.to_json` / `CompareResult.to_json`.
"""
from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from scanner.report.review_reasons import reason_ko
from scanner.model import SECTIONS, Decklist, Infraction
from scanner.rules.codes import PENALTY_KO

if TYPE_CHECKING:  # only for annotations: no import cycle at run time
    from scanner.rules.check import CheckResult
    from scanner.rules.compare import CompareResult

SECTION_KO = {"main": "메인 덱", "extra": "엑스트라 덱", "side": "사이드 덱", None: "-"}

def _cols(text: str) -> int:
    """Terminal columns of a text: Hangul and other wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _cols(text))


def _infraction_lines(infractions: list[Infraction] | list[dict]) -> list[str]:
    """One block per infraction (an `Infraction` or its contract JSON)."""
    out = []
    for n, inf in enumerate(infractions, 1):
        i = inf if isinstance(inf, dict) else inf.to_json()
        cards = ", ".join(map(str, i.get("card_ids") or [])) or "-"
        section = SECTION_KO.get(i.get("section"), i.get("section"))
        out.append(f" {n:>2}. [{i['code']}] {section} · 카드 {cards}")
        if i.get("message"):
            out.append(f"     {i['message']}")
        out.append(f"     벌칙: {PENALTY_KO.get(i['penalty'], i['penalty'])} ({i['penalty']})")
        out.append(f"     조치: {i['remedy']}")
        if i.get("rule"):
            out.append(f"     규정: {i['rule']}")
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


def format_registration(data: dict) -> str:
    """`register`: the verdict in Korean, what to review and every infraction (from its JSON)."""
    verdict = "적합 (legal)" if data["legal"] else f"부적합 (NOT legal): 위반 {len(data['infractions'])}건"
    totals = data.get("totals") or {}
    out = [f"== 등록: {data['player']} {data.get('name') or ''} v{data['version']} "
           f"[{data.get('reader') or '-'}] 리미트 레귤레이션 {data.get('list') or '-'}",
           "   " + "   ".join(f"{SECTION_KO[s]} {totals[s]}장" for s in SECTIONS if s in totals),
           f"-- 판정: {verdict}"]
    review = data.get("review") or []
    if review:
        out.append(f"-- 확인 필요: {len(review)}건 → 'decksheet review --player {data['player']}'"
                   " 로 시트를 보고 확정하세요")
        for r in review:
            where = SECTION_KO.get(r.get("section"), "시트")
            line = f" {r['line']}번째 줄" if r.get("line") else ""
            out.append(f"   ! {where}{line}: {reason_ko(r['reason'])}"
                       + (f" — {r['detail']}" if r.get("detail") else ""))
    out += _infraction_lines(data["infractions"])
    return "\n".join(out)


def format_deck_check(data: dict) -> str:
    """`deckcheck`: match or not, the differences table and the infractions (from its JSON)."""
    mode = "듀얼 사이 (between-games)" if data["mode"] == "between-games" else "매치 개시 (start-of-match)"
    out = [f"== 덱 체크: {data['round']}라운드, 선수 {data['player']} "
           f"(등록 v{data.get('registered_version', '?')})   모드: {mode}",
           f"-- 판정: {'일치 (MATCH)' if data['match'] else '불일치 (MISMATCH)'}"]
    diffs = data.get("differences") or []
    if diffs:
        names = [d.get("name") or "?" for d in diffs]
        width = max(_cols(n) for n in names)
        out.append(f"   {_pad('구역', 11)} {_pad('카드', width)}   패스코드  등록  확인  차이")
        for d, name in zip(diffs, names):
            cid = f"{d['card_id']:>9}" if d.get("card_id") is not None else "        ?"
            out.append(f"   {_pad(SECTION_KO[d['section']], 11)} {_pad(name, width)}  {cid}  "
                       f"{d['registered']:>4}  {d['observed']:>4}  {d['observed'] - d['registered']:+4d}")
    else:
        out.append("   차이 없음 (no differences)")
    out += _infraction_lines(data.get("infractions") or [])
    if data.get("infractions"):
        out.append("   기록됨: 위반과 벌칙이 이벤트 파일에 저장되었습니다 (audit 보고서에 나옵니다).")
    return "\n".join(out)
