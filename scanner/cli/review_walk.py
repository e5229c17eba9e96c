"""The terminal walk of `decksheet review`: one question per flagged line, answers stored as
review decisions (appended; the registration itself is never changed)."""
from __future__ import annotations

import click

from card_db.cdb import CardDatabase
from scanner.event.context import EventContext
from scanner.event.records import Registration, ReviewDecision
from scanner.event.flows import (CHOOSE, KEEP, REMOVE, SKIP, decision_for, effective_decklist,
                                 flagged_items, lines_missing, record_review_decisions, sum_agrees)
from scanner.model import SECTION_KO, Entry, position_label
from scanner.vocab import reason_ko
HELP = ("번호 = 후보 선택 · 카드 이름/패스코드 입력 · k = 읽은 그대로 확정 · "
        "x = 이 줄은 덱에 없음 · s = 건너뛰기 · q = 저장 후 종료")


class _Quit(Exception):
    pass


def _candidates(entry: Entry, db: CardDatabase) -> list[tuple[int, str, float]]:
    if entry.candidates:
        return entry.candidates[:5]
    text = entry.name if entry.card_id is None else entry.read
    return [(c.card.card_id, c.card.name, c.score) for c in db.search(text or entry.read, 5)]


def _lookup(answer: str, db: CardDatabase) -> list[tuple[int, str, float]]:
    if answer.isdigit():
        card = db.get(int(answer))
        return [(card.card_id, card.name, 1.0)] if card else []
    card = db.by_name(answer)
    if card:
        return [(card.card_id, card.name, 1.0)]
    return [(c.card.card_id, c.card.name, c.score) for c in db.search(answer, 5)]


def _ask_line(entry: Entry, db: CardDatabase) -> tuple[str, int | None, int | None]:
    cands = _candidates(entry, db)
    while True:
        for i, (cid, name, score) in enumerate(cands, 1):
            click.echo(f"   {i}. {name} [{cid}] ({score:.2f})")
        answer = click.prompt(f"  {HELP}\n  >", default="s", show_default=True).strip()
        low = answer.lower()
        if low == "q":
            raise _Quit
        if low == "s":
            return SKIP, None, None
        if low == "x":  # struck through, or not a line at all: out of the list
            return REMOVE, None, None
        if low == "k":
            if entry.card_id is None:
                click.echo("  이 줄은 카드가 정해지지 않아 확정할 수 없습니다: 후보나 이름을 입력하세요.")
                continue
            if not 1 <= entry.count <= 3:
                # Keeping "-2" or "7" as read would store an impossible count as confirmed.
                click.echo(f"  읽은 매수 {entry.count}는 확정할 수 없습니다: 후보 번호를 고르고 매수를 입력하세요.")
                continue
            return KEEP, None, None
        if answer.isdigit() and 1 <= int(answer) <= len(cands) and len(answer) <= 2:
            cid, name, _ = cands[int(answer) - 1]
        else:
            found = _lookup(answer, db)
            if len(found) != 1 or found[0][2] < 1.0:
                if not found:
                    click.echo("  그런 카드가 없습니다.")
                cands = found or cands
                continue  # show what was found and ask again
            cid, name, _ = found[0]
        count = click.prompt(f"  「{name}」 매수 (1~3)", type=click.IntRange(1, 3),
                             default=entry.count if 1 <= entry.count <= 3 else None)
        return CHOOSE, cid, count


def walk(ctx: EventContext, reg: Registration) -> int:
    """Ask about every flagged item; store the answers (`ctx.judge`, time, line before → after)
    and show the verdict the list has now. Returns how many items still need review."""
    db, judge = ctx.db, ctx.judge
    deck = effective_decklist(ctx.record, reg, db, keep_removed=True)  # line numbers as read
    items = flagged_items(deck)
    click.echo(f"{reg.konami_id} {reg.player_name or ''} v{reg.version} ({reg.file_name}): "
               f"확인할 항목 {len(items)}개 — 원본 시트를 보면서 답하세요")
    decisions: list[ReviewDecision] = []
    try:
        for k, (section, line, read, flag) in enumerate(items, 1):
            if flag is not None:
                where = flag.position or SECTION_KO.get(section or "", "시트")
                click.echo(f"[{k}/{len(items)}] {where}: {reason_ko(flag.reason)} — {flag.detail}")
                if lines_missing(flag) and section and not sum_agrees(deck, section):
                    # 확인함 would leave that table's cards entered nowhere: enter them.
                    decisions += _enter_lines(deck, reg, flag, db, judge)
                    continue
                answer = click.prompt("  k = 확인함 · s = 건너뛰기 · q = 저장 후 종료",
                                      type=click.Choice(["k", "s", "q"]), default="s")
                if answer == "q":
                    raise _Quit
                if answer == "k" and lines_missing(flag) and not sum_agrees(deck, section):
                    click.echo("  읽지 못한 줄이 있어 확인함으로 닫을 수 없습니다: 시트를 다시 찍어 주십시오.")
                    answer = "s"
                action = KEEP if answer == "k" else SKIP
                decisions.append(decision_for(deck, reg.id, section, None, action, judge=judge,
                                              db=db, reason=flag.reason, detail=flag.detail))
                continue
            assert line is not None and section is not None
            e = deck.sections[section][line - 1]
            where = position_label(section, line, e.column, e.row)
            now = f"{e.name} ×{e.count} [{e.card_id}]" if e.card_id is not None else "(카드 없음)"
            click.echo(f"[{k}/{len(items)}] {where}: 읽은 내용 {e.read!r} → {now}; "
                       f"{', '.join(map(reason_ko, e.reasons))}")
            action, cid, count = _ask_line(e, db)
            decisions.append(decision_for(deck, reg.id, section, line, action, cid, count,
                                          judge=judge, db=db))
    except (_Quit, click.exceptions.Abort, EOFError):
        pass  # quit, Ctrl-C or end of input: keep what was answered so far
    result = record_review_decisions(ctx, reg, decisions)
    remaining = result.needs_review
    click.echo(f"결정 {len(decisions)}건 저장; 아직 확인 필요 {remaining}건"
               + (" (다시 'decksheet review' 로 이어서)" if remaining else " — 확인 완료"))
    if ctx.limits is not None:
        bad = [i for i in result.infractions if i["code"] not in ("UNRESOLVED_LINE", "UNKNOWN_CARD")]
        click.echo(f"판정: {result.verdict}"
                   + (f" — {', '.join(dict.fromkeys(i['code'] for i in bad))}" if bad else ""))
    return remaining


def _enter_lines(deck, reg: Registration, flag, db: CardDatabase, judge: str | None
                 ) -> list[ReviewDecision]:
    """The lines of a table the reader did not read, typed one by one (an empty name ends)."""
    click.echo("  이 표의 줄을 읽지 못했습니다: 시트의 줄을 하나씩 입력하세요 "
               "(빈 줄 = 끝, q = 저장 후 종료; 다시 찍으려면 빈 줄)")
    out: list[ReviewDecision] = []
    while True:
        answer = click.prompt(f"  {len(out) + 1}번째 줄 카드 이름/패스코드", default="",
                              show_default=False).strip()
        if not answer:
            return out
        if answer.lower() == "q":
            raise _Quit
        found = _lookup(answer, db)
        if len(found) != 1 or found[0][2] < 1.0:
            for cid, name, score in found:
                click.echo(f"   {name} [{cid}] ({score:.2f})")
            click.echo("  정확한 이름이나 패스코드를 입력하세요." if found else "  그런 카드가 없습니다.")
            continue
        cid, name, _ = found[0]
        count = click.prompt(f"  「{name}」 매수 (1~3)", type=click.IntRange(1, 3))
        out.append(decision_for(deck, reg.id, flag.section, None, CHOOSE, cid, count,
                                judge=judge, db=db, reason=flag.reason, detail=flag.detail,
                                entry=len(out) + 1))
