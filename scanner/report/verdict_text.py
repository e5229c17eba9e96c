"""Human views of `check` and `compare` results (Korean for the judge, codes in English).

The JSON views are `CheckResult.to_json` / `CompareResult.to_json`.
"""
from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from scanner.report.times import local_label, local_time
from scanner.model import SECTIONS, Decklist, Infraction
from scanner.rules.codes import CHECK_IN_NOTE, PENALTY_KO, REVIEW_CODES, penalty_label
from scanner.vocab import MODE_KO, SECTION_KO, reason_ko

if TYPE_CHECKING:  # only for annotations: no import cycle at run time
    from scanner.rules.check import CheckResult
    from scanner.rules.compare import CompareResult


def _cols(text: str) -> int:
    """Terminal columns of a text: Hangul and other wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _cols(text))


def _infraction_lines(infractions: list[Infraction] | list[dict], penalty_lines: bool = True,
                      check_in: bool = False) -> list[str]:
    """One block per infraction (an `Infraction` or its contract JSON). `penalty_lines=False`
    lists findings under one penalty given elsewhere (a deck check: one act, one penalty);
    `check_in=True` labels each penalty as what applies if found during the event."""
    out = []
    for n, inf in enumerate(infractions, 1):
        i = inf if isinstance(inf, dict) else inf.to_json()
        cards = ", ".join(map(str, i.get("card_ids") or [])) or "-"
        section = "-" if i.get("section") is None else SECTION_KO.get(i["section"], i["section"])
        pos = i.get("position") or ""
        where = pos if pos.startswith(str(section)) else (f"{section} · {pos}" if pos else section)
        out.append(f" {n:>2}. [{i['code']}] {where} · 카드 {cards}")
        if i.get("message"):
            out.append(f"     {i['message']}")
        review_item = i["code"] in REVIEW_CODES or i["penalty"] == "NONE"
        if review_item:
            out.append("     벌칙: 없음 — 저지 확인 필요 (확인 항목)")
        elif penalty_lines:
            label = penalty_label(i["penalty"], i.get("penalty_quoted", True))
            head = "대회 중 발견 시 벌칙" if check_in else "벌칙"
            out.append(f"     {head}: {label} ({i['penalty']})")
            if i.get("penalty_note"):
                out.append(f"     ※ {i['penalty_note']}")
        out.append(f"     {'지금 고칠 점' if check_in and not review_item else '조치'}: {i['remedy']}")
        if i.get("rule"):
            out.append(f"     규정: {i['rule']}")
    return out


def _penalty_lines(penalty: dict | None) -> list[str]:
    """The one penalty of a deck check, and when it applies."""
    if not penalty:
        return []
    label = penalty_label(penalty["penalty"], penalty.get("quoted", True))
    out = [f"-- 적용할 벌칙: {label} ({penalty['penalty']}) — {penalty.get('applies_label', '')}",
           f"   근거가 된 위반 {len(penalty['findings'])}건: {', '.join(penalty['findings'])} "
           f"(한 행위에는 가장 무거운 벌칙 하나)",
           f"   적용 시점: {penalty.get('timing_rule', '')}"]
    return out


def format_check(result: "CheckResult", deck: Decklist) -> str:
    """Verdict, section sizes and one block per infraction."""
    totals = deck.totals()
    head = result.verdict + ("" if result.legal else f": {len(result.infractions)}건")
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
           f"-- 판정: {result.verdict}"]
    if result.needs_review:
        out.append(f"   확인 필요한 줄 {result.needs_review}개: 확인 전에는 일치/불일치를 정하지 않습니다")
    if result.differences:
        width = max(_cols(d.name) for d in result.differences)
        out.append(f"   {_pad('구역', 11)} {_pad('카드', width)}   패스코드  등록  확인  차이")
        for d in result.differences:
            cid = f"{d.card_id:>9}" if d.card_id is not None else "        ?"
            out.append(f"   {_pad(SECTION_KO[d.section], 11)} {_pad(d.name, width)}  {cid}  "
                       f"{d.registered:>4}  {d.observed:>4}  {d.observed - d.registered:+4d}")
    else:
        out.append("   차이 없음")
    penalty = result.penalty.to_json() if result.penalty else None
    out += _penalty_lines(penalty)
    out += _infraction_lines(result.infractions, penalty_lines=False)
    return "\n".join(out)


def format_registration(data: dict) -> str:
    """`register`: the verdict, what to review and what to fix before the event (from its JSON).
    At check-in nothing is a penalty: each penalty line says it applies if found during the
    event."""
    verdict = data.get("verdict") or ("적합" if data["legal"] else "부적합")
    breaches = [i for i in data["infractions"] if i["code"] not in REVIEW_CODES]
    if breaches:
        verdict += f": 고칠 점 {len(breaches)}건"
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
            where = r.get("position") or SECTION_KO.get(r.get("section"), "시트")
            if not r.get("position") and r.get("line"):
                where += f" {r['line']}번째 줄"
            out.append(f"   ! {where}: {reason_ko(r['reason'])}"
                       + (f" — {r['detail']}" if r.get("detail") else ""))
    if breaches:
        out.append(f"-- {CHECK_IN_NOTE}")
    out += _infraction_lines(data["infractions"], check_in=True)
    return "\n".join(out)


def format_deck_check(data: dict) -> str:
    """`deckcheck`: the verdict, the differences, the one penalty, and whether it was recorded."""
    mode = "듀얼 사이 (between-games)" if data["mode"] == "between-games" else "매치 개시 (start-of-match)"
    out = [f"== 덱 체크: {data['round']}라운드, 선수 {data['player']} "
           f"(등록 v{data.get('registered_version', '?')})   모드: {mode}",
           f"-- 판정: {data.get('verdict') or ('일치' if data['match'] else '불일치')}"]
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
        out.append("   차이 없음")
    out += _penalty_lines(data.get("penalty"))
    out += _infraction_lines(data.get("infractions") or [], penalty_lines=False)
    confirm = data.get("to_confirm") or []
    if confirm:
        out.append(f"-- 확인할 줄 {len(confirm)}개:")
        for c in confirm:
            who = "등록 리스트" if c.get("list") == "registered" else "확인한 덱"
            cands = ", ".join(f"{x['name']} [{x['card_id']}]" for x in c.get("candidates") or [])
            now = f"{c.get('name')} ×{c.get('count')}" if c.get("card_id") is not None else "카드 없음"
            out.append(f"   ? {who} {c.get('position') or c.get('section') or '시트'}: 읽은 내용 "
                       f"{c.get('read')!r} → {now}; {', '.join(map(reason_ko, c.get('reasons') or []))}"
                       + (f" (후보: {cands})" if cands else ""))
    if data.get("recorded"):
        what = ("위반과 벌칙이 이벤트 파일에 저장되었습니다 (audit 보고서와 event status에 나옵니다)"
                if data.get("penalty") else "덱 체크가 이벤트 파일에 저장되었습니다")
        out.append(f"   기록됨: {what}" + (f" — 저지 {data['judge']}" if data.get("judge") else ""))
    else:
        out.append(f"   기록 안 됨: {data.get('not_recorded') or '-'}")
    return "\n".join(out)


def format_status(data: dict) -> str:
    """`event status`: one player's current list, verdict, versions, deck checks, infractions."""
    out = [f"== 선수 {data['player']} {data.get('name') or ''}"]
    if data.get("version") is None:
        out.append("-- 등록된 리스트 없음")
        return "\n".join(out)
    deck = data.get("list") or {}
    totals = deck.get("totals") or {}
    out.append(f"-- 현재 리스트: v{data['version']}   "
               + "   ".join(f"{SECTION_KO[s]} {totals.get(s, 0)}장" for s in SECTIONS))
    sheet = data.get("sheet") or {}
    if sheet.get("kind") == "other-id":
        out.append(f"-- 시트의 코나미 ID {sheet.get('sheet_id')}: 이 선수의 ID가 아님 — "
                   + (f"저지 {sheet.get('judge')}가 이 선수의 시트로 확인 ({sheet.get('time')})"
                      if sheet.get("confirmed") else "저지의 결정 전 (이 선수의 시트인지 확인 필요)"))
    elif sheet.get("confirmed"):
        out.append(f"-- 선수 확인: 저지 {sheet.get('judge')} ({sheet.get('time')})")
    out.append(f"-- 판정: {data['verdict']}"
               + (f" (확인 필요한 줄 {data['needs_review']}개 → 'decksheet review --player "
                  f"{data['player']}')" if data.get("needs_review") else ""))
    for s in SECTIONS:
        items = (deck.get("sections") or {}).get(s) or []
        if not items:
            continue
        out.append(f"   [{SECTION_KO[s]}]")
        for n, e in enumerate(items, 1):
            mark = "?" if e.get("needs_review") else " "
            where = e.get("position") or f"{n}"
            out.append(f"   {mark} {where:>8}  {e.get('count')} × {e.get('name') or e.get('read')}"
                       f"  [{e.get('card_id') if e.get('card_id') is not None else '-'}]")
    now = [i for i in data.get("infractions_now") or [] if i.get("code") not in REVIEW_CODES]
    if now:
        out.append("-- 리스트의 문제:")
        out += _infraction_lines(now, check_in=True)
    out.append(f"-- 등록 버전 {len(data.get('versions') or [])}개:")
    for v in data.get("versions") or []:
        out.append(f"   v{v['version']} {v['time']} {v.get('file') or '-'} [{v['reader']}]"
                   + (f" 저지 {v['judge']}" if v.get("judge") else "")
                   + (_withdrawn_text(v["withdrawn"]) if v.get("withdrawn") else ""))
    checks = data.get("deck_checks") or []
    out.append(f"-- 덱 체크 {len(checks)}건:" if checks else "-- 덱 체크 없음")
    for c in checks:
        pen = c.get("penalty") or {}
        void = c.get("voided")
        out.append(f"   #{c['id']} {c['round']}라운드 {MODE_KO.get(c['mode'], c['mode'])}: "
                   f"{c['verdict']}"
                   + (f" — {PENALTY_KO.get(pen.get('penalty'), pen.get('penalty'))}"
                      if pen else "")
                   + (f" ({pen.get('applies_label')})" if pen.get("applies_label") else "")
                   + (" (저지 확인)" if c.get("confirmed") else "")
                   + f" — 저지 {c.get('judge') or '-'} {c['time']}"
                   + (f" — 무효: {void['reason']} (저지 {void['judge']}, {void['time']})"
                      if void else ""))
    infs = data.get("infractions") or []
    out.append(f"-- 기록된 위반 {len(infs)}건:" if infs else "-- 기록된 위반 없음")
    status_ko = {"active": "유효", "voided": "무효", "amended": "변경"}
    for i in infs:
        line = (f"   #{i['id']} {i['round']}라운드 [{i['code']}] "
                f"{PENALTY_KO.get(i['penalty'], i['penalty'])} — {status_ko[i['status']]}")
        for a in i.get("amendments") or []:
            what = "무효" if a["action"] == "void" else f"→ {PENALTY_KO.get(a['new_penalty'], a['new_penalty'])}"
            line += f"; {what}: {a['reason']} (저지 {a['judge']}, {a['time']})"
        out.append(line)
        if len(i.get("findings") or []) > 1:
            out.append(f"      근거 위반: {', '.join(f['code'] for f in i['findings'])}")
    return "\n".join(out)


def _withdrawn_text(w: dict) -> str:
    """` — 철회됨 (사유, 저지, KST 시각)` for a withdrawn version."""
    return (f" — 철회됨 (사유: {w.get('reason')}, 저지 {w.get('judge')}, "
            f"{local_time(w.get('time'))} {local_label()})")
