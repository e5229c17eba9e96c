"""The audit as files a head judge opens and shares: `report.html` (readable), `report.csv`
(one row per registration version) and `report.xlsx` (one sheet per table, Korean names and
headers: 등록, 줄, 덱 체크, 위반, 확인 결정). Konami IDs are masked in all three, file names
included; spreadsheet cells are safe against formula injection (`scanner.report.tables`)."""
from __future__ import annotations

import html
from collections import Counter, defaultdict
from pathlib import Path

from scanner.event.audit import AuditResult, RegistrationAudit, generated_at
from card_db.paths import atomic_write
from scanner.event.sheets import (STATUS_KO, decisions_table, deck_checks_table, file_label,
                                  infractions_table, lines_table, masked)
from scanner.model import SECTIONS, position_label
from scanner.report.review_ko import detail_ko
from scanner.vocab import MODE_KO, READER_KO, REASON_KO, SECTION_SHORT_KO
from scanner.report.headers_ko import in_korean
from scanner.report.tables import Table, csv_bytes, mask_id, xlsx_bytes
from scanner.report.times import local_label, local_time
from scanner.rules.codes import CODE_KO, ILLEGAL, LEGAL, PENALTY_KO, REVIEW_CODES

SECTION_KO = {**SECTION_SHORT_KO, None: "시트"}
METAGAME_TOP = 40

_CSS = """
body{font-family:'NanumGothic','Malgun Gothic',sans-serif;margin:2em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #999}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:.25em .5em;
vertical-align:top;font-size:.9em}th{background:#eee}.bad{color:#b00;font-weight:bold}
.ok{color:#070}.warn{color:#a60}.small{font-size:.8em;color:#555}
"""


def _e(value: object) -> str:
    return html.escape("" if value is None else str(value))


def _table(headers: list[str], rows: list[list[str]]) -> str:
    """Cells are already escaped HTML."""
    if not rows:
        return "<p class='ok'>없음</p>"
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _player(r: RegistrationAudit | None, kid: str, names: dict[str, str | None]) -> str:
    name = names.get(kid)
    return f"{_e(mask_id(kid))}" + (f" {_e(name)}" if name else "")


def metagame(result: AuditResult) -> list[tuple[str, int, int, float]]:
    """Most played cards over current lists: (name, decks, copies, copies per deck)."""
    decks: Counter[str] = Counter()
    copies: Counter[str] = Counter()
    for r in result.current:
        seen: dict[str, int] = defaultdict(int)
        for s in SECTIONS:
            for e in r.decklist["sections"][s]:
                if e.get("card_id") is not None:
                    seen[e.get("name") or str(e["card_id"])] += int(e["count"])
        for name, n in seen.items():
            decks[name] += 1
            copies[name] += n
    return [(name, d, copies[name], copies[name] / d) for name, d in decks.most_common(METAGAME_TOP)]


def render_html(result: AuditResult) -> str:
    ev = result.event
    names = {r.konami_id: r.player_name for r in result.registrations}
    current = result.current
    parts = [f"<!doctype html><html lang='ko'><head><meta charset='utf-8'>"
             f"<title>{_e(ev.name)} 감사 보고서</title><style>{_CSS}</style></head><body>",
             f"<h1>{_e(ev.name)} — 덱 기입 시트 감사 보고서</h1>",
             f"<p>대회일 {_e(ev.date.isoformat())} · 리미트 레귤레이션 {_e(result.list_name)} · "
             f"작성 {_e(local_time(generated_at()))} {local_label()}</p>",
             "<ul>"
             f"<li>등록 선수 {len(current)}명 (등록 버전 {len(result.registrations)}개)</li>"
             f"<li class='{'bad' if result.illegal else 'ok'}'>{ILLEGAL} 리스트 {len(result.illegal)}</li>"
             f"<li class='{'warn' if result.needs_review else 'ok'}'>확인 필요 리스트 "
             f"{len(result.needs_review)}</li>"
             f"<li>동일 리스트 그룹 {len(result.duplicates)}</li>"
             f"<li>덱 체크 {len(result.deck_checks)} · 부여된 벌칙 {len(result.infractions_in_force)}"
             f" (무효/변경 {sum(1 for i in result.infractions if i.amendments)})</li>"
             "</ul>",
             "<p class='small'>코나미 카드 게임 ID는 가운데 자리를 가렸습니다.</p>"]

    parts.append(f"<h2>{ILLEGAL} 리스트</h2>")
    rows = []
    for r in current:
        if not r.illegal:
            continue
        infs = [i for i in r.infractions if i["code"] not in REVIEW_CODES]
        rows.append([_player(r, r.konami_id, names), _e(r.version),
                     "<br>".join(f"<b>{_e(_ko(i['code']))}</b> {_e(i['message'])}" for i in infs),
                     "<br>".join(_e(PENALTY_KO.get(i["penalty"], i["penalty"])) for i in infs),
                     "<br>".join(_e(i["remedy"]) for i in infs)])
    parts.append(_table(["선수", "버전", "위반", "벌칙", "처리"], rows))

    parts.append("<h2>확인이 필요한 줄</h2>")
    rows = []
    for r in current:
        for s in SECTIONS:
            for n, e in enumerate(r.decklist["sections"][s], 1):
                if e.get("needs_review"):
                    cands = ", ".join(f"{c.get('name', '')} [{c.get('card_id')}]" for c in e.get("candidates") or [])
                    rows.append([_player(r, r.konami_id, names), _e(SECTION_KO[s]),
                                 _e(position_label(s, n, e.get("column"), e.get("row"))),
                                 _e(e.get("read")), _e(", ".join(_reason(x) for x in
                                                                 e.get("reasons") or [])),
                                 _e(e.get("name")), _e(cands)])
        for f in r.decklist.get("review") or []:
            if f.get("line") is None and f.get("card_id") is None:
                rows.append([_player(r, r.konami_id, names), _e(SECTION_KO.get(f.get("section"))),
                             _e(f.get("position") or ""), "", _e(_reason(f.get("reason"))),
                             _e(detail_ko(f.get("detail"))), ""])
    parts.append(_table(["선수", "구역", "위치", "읽은 내용", "이유", "현재 카드", "후보"], rows))

    parts.append("<h2>동일한 리스트 (다른 선수)</h2>")
    parts.append(_table(["그룹", "선수"], [[_e(i + 1), "<br>".join(_player(None, k, names) for k in g)]
                                          for i, g in enumerate(result.duplicates)]))

    parts.append("<h2>무결성</h2>")
    integ = [[_player(r, r.konami_id, names), _e(r.version),
              "<br>".join(_e(problem_ko(p)) for p in r.problems)]
             for r in result.registrations if r.problems]
    integ += [["(저장소)", "", _e(p)] for p in result.store_problems]
    parts.append(_table(["선수", "버전", "문제"], integ))

    parts.append("<h2>시트의 코나미 ID</h2>")
    parts.append("<p class='small'>선수의 현재 등록 시트에 다른 선수의 코나미 ID가 적혀 있는 경우.</p>")
    parts.append(_table(["선수", "버전", "시트의 ID", "상태"], [
        [_player(None, p.konami_id, names), _e(p.version), _e(mask_id(p.sheet.sheet_id or "")),
         f"<span class='warn'>다른 선수의 ID가 적힌 시트 — 저지 {_e(p.sheet.judge)}가 이 선수의 "
         f"시트로 확인 ({_e(local_time(p.sheet.time))})</span>" if p.sheet.confirmed else
         "<span class='bad'>저지의 결정 전: 이 선수의 시트인지 확인 필요</span>"]
        for p in result.sheet_ids if p.sheet]))

    parts.append("<h2>덱 체크</h2>")
    rows = []
    for c in result.deck_checks:
        diffs = c.result_json.get("differences") or []
        cls = "ok" if c.verdict == "일치" else "bad" if c.verdict == "불일치" else "warn"
        pen = c.result_json.get("penalty") or {}
        verdict = f"<span class='{cls}'>{_e(c.verdict)}</span>"
        if pen:
            verdict += _e(f" · {PENALTY_KO.get(pen.get('penalty'), pen.get('penalty'))}")
            if pen.get("applies") == "next-duel":
                verdict += " · 다음 듀얼에 적용"
        if c.void:
            verdict = (f"<s>{verdict}</s> <span class='bad'>무효</span>"
                       + _e(f" — {c.void.reason} ({c.void.judge}, {local_time(c.void.created_at)})"))
        rows.append([_e(c.round), _player(None, c.konami_id, names),
                     _e(MODE_KO.get(c.mode, c.mode)), verdict,
                     "<br>".join(_e(f"{SECTION_KO.get(d.get('section'), d.get('section'))} "
                                    f"{d.get('name') or d.get('card_id')}: 등록 {d.get('registered')}"
                                    f" → 실제 {d.get('observed')}") for d in diffs[:12]),
                     _e(c.judge), _e(local_time(c.created_at))])
    parts.append(_table(["라운드", "선수", "시점", "결과", "차이", "저지", "시각"], rows))

    parts.append("<h2>부여된 벌칙</h2>")
    by_code: Counter[str] = Counter(i.code for i in result.infractions)
    if by_code:
        parts.append("<p>" + " · ".join(f"{_e(_ko(k))} {v}" for k, v in sorted(by_code.items())) + "</p>")
    rows = []
    for i in result.infractions:
        status = STATUS_KO[i.status]
        if i.amendments:
            a = i.amendments[-1]
            status += _e(f" — {a.reason} ({a.judge}, {local_time(a.created_at)})")
            if a.new_penalty:
                status += _e(f" → {PENALTY_KO.get(a.new_penalty, a.new_penalty)}")
        findings = ", ".join(_ko(f.get("code", "")) for f in i.findings) or _ko(i.code)
        cls = "small" if i.status == "voided" else ""
        rows.append([_e(i.id), _e(i.round), _player(None, i.konami_id, names),
                     f"<span class='{cls}'>{_e(_ko(i.code))}</span>", _e(findings),
                     _e(PENALTY_KO.get(i.penalty, i.penalty)), status, _e(i.remedy), _e(i.judge),
                     _e(local_time(i.created_at))])
    parts.append(_table(["번호", "라운드", "선수", "위반", "근거 위반", "벌칙", "상태", "처리", "저지",
                         "시각"], rows))

    parts.append("<h2>선수별</h2>")
    checks = Counter(c.konami_id for c in result.deck_checks if not c.voided)
    issued = Counter(i.konami_id for i in result.infractions_in_force)
    rows = []
    for r in current:
        t = r.decklist.get("totals") or {}
        cls = "ok" if r.verdict == LEGAL else "bad" if r.verdict == ILLEGAL else "warn"
        verdict = f"<span class='{cls}'>{_e(r.verdict)}</span>"
        rows.append([_player(r, r.konami_id, names), _e(r.version),
                     _e(file_label(r.file_name, masked)), _e(READER_KO.get(r.reader, r.reader)),
                     _e(f"{t.get('main')}/{t.get('extra')}/{t.get('side')}"), verdict,
                     _e(r.needs_review), _e(checks[r.konami_id]), _e(issued[r.konami_id])])
    parts.append(_table(["선수", "버전", "파일", "읽기", "메인/엑스트라/사이드", "판정", "확인 필요",
                         "덱 체크", "벌칙"], rows))

    parts.append("<h2>철회된 등록</h2>")
    parts.append("<p class='small'>철회된 버전은 기록에 남지만 선수의 등록으로 치지 않습니다.</p>")
    parts.append(_table(["선수", "버전", "파일", "상태", "사유", "저지", "시각"], [
        [_player(r, r.konami_id, names), _e(r.version), _e(file_label(r.file_name, masked)),
         "<span class='warn'>철회됨</span>", _e(r.withdrawn.get("reason")),
         _e(r.withdrawn.get("judge")), _e(local_time(r.withdrawn.get("time")))]
        for r in result.withdrawn if r.withdrawn]))

    parts.append("<h2>메타게임: 많이 쓰인 카드</h2>")
    parts.append(_table(["카드", "덱 수", "총 매수", "덱당 평균"],
                        [[_e(n), _e(d), _e(c), _e(f"{a:.2f}")] for n, d, c, a in metagame(result)]))
    parts.append("</body></html>")
    return "\n".join(parts)


REPORT_COLUMNS = ["player", "name", "version", "current", "file", "reader", "main", "extra",
                  "side", "verdict", "legal", "illegal", "codes", "needs_review", "problems",
                  "duplicate_group", "deck_checks", "infractions_issued", "status",
                  "withdrawn", "withdrawn_reason", "withdrawn_by", "withdrawn_at", "sheet",
                  "sheet_id"]


def report_rows(result: AuditResult) -> Table:
    """One row per registration version (Konami IDs and file names masked)."""
    dup_group = {kid: i + 1 for i, g in enumerate(result.duplicates) for kid in g}
    checks = Counter(c.konami_id for c in result.deck_checks)
    issued = Counter(i.konami_id for i in result.infractions_in_force)
    t = Table("registrations", list(REPORT_COLUMNS))
    for r in result.registrations:
        tot = r.decklist.get("totals") or {}
        t.rows.append([
            mask_id(r.konami_id), r.player_name, r.version, r.latest,
            file_label(r.file_name, masked), r.reader, tot.get("main"), tot.get("extra"),
            tot.get("side"), r.verdict, r.legal, r.illegal, " ".join(r.codes), r.needs_review,
            " | ".join(r.problems), dup_group.get(r.konami_id) if r.latest else None,
            checks[r.konami_id] if r.latest else None,
            issued[r.konami_id] if r.latest else None,
            r.status if r.latest else None,
            bool(r.withdrawn), (r.withdrawn or {}).get("reason"),
            (r.withdrawn or {}).get("judge"), local_time((r.withdrawn or {}).get("time")),
            *_sheet_cells(result, r)])
    return t


def _sheet_cells(result: AuditResult, r: RegistrationAudit) -> list:
    """The sheet's identity of a current version (`SheetIdentity.state`) and the ID it carries
    when that is another player's (masked)."""
    rec = result.records.get(r.konami_id)
    sheet = rec.sheet if rec and r.latest else None
    if sheet is None:
        return [None, None]
    return [sheet.state, mask_id(sheet.sheet_id) if sheet.kind == "other-id" and sheet.sheet_id
            else None]


def report_tables(result: AuditResult) -> list[Table]:
    """The workbook's sheets: registrations, lines (current lists), deck checks, infractions,
    review decisions."""
    names = {r.konami_id: r.player_name for r in result.registrations}
    lines = lines_table([(r.konami_id, r.player_name, r.version, r.decklist)
                         for r in result.current], masked)
    return [report_rows(result), lines,
            deck_checks_table(result.deck_checks, names, masked),
            infractions_table(result.infractions, names, masked),
            decisions_table(result.decisions, result.stored, masked)]


def write_report(result: AuditResult, out_dir: Path, korean_csv: bool = False
                 ) -> tuple[Path, Path, Path]:
    """Write report.html, report.csv (English headers: other tools read it) and report.xlsx
    (Korean sheet names and headers: judges open it), each atomically; with `korean_csv`
    also report-ko.csv (report.csv's rows under Korean headers)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    html_path, csv_path, xlsx_path = (out_dir / "report.html", out_dir / "report.csv",
                                      out_dir / "report.xlsx")
    atomic_write(html_path, render_html(result))
    tables = report_tables(result)
    atomic_write(csv_path, csv_bytes(tables[0]))
    atomic_write(xlsx_path, xlsx_bytes([in_korean(t) for t in tables]))
    if korean_csv:
        atomic_write(out_dir / "report-ko.csv", csv_bytes(in_korean(tables[0])))
    return html_path, csv_path, xlsx_path


_PROBLEMS_KO = {
    "original-missing": "보관한 원본 파일이 없음: 저장된 리스트로 확인함",
    "original-changed": "보관한 원본 파일이 바뀜 (sha256이 다름): 저장된 리스트로 확인함",
    "unreadable-now": "원본을 지금 다시 읽을 수 없음: 저장된 리스트로 확인함",
    "reads-differently": "다시 읽으면 등록할 때와 다르게 읽힘 (읽기 프로그램이 바뀜?): 저지가 확인한 "
                         "저장된 리스트로 확인함",
}


def problem_ko(problem: str) -> str:
    """An integrity finding (`code: English detail`) in Korean, without any server path."""
    code = problem.split(":", 1)[0].strip()
    return _PROBLEMS_KO.get(code, detail_ko(problem) or "무결성 문제")


def _reason(reason: str | None) -> str:
    """A review reason as the judge reads it (its Korean label)."""
    return REASON_KO.get(reason or "", "확인 필요")


def _ko(code: str) -> str:
    """A code as the Korean report shows it (its label; a code without one as it is)."""
    return CODE_KO.get(code, code)
