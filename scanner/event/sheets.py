"""The event's tables for spreadsheets (one sheet each in the .xlsx of `export` and `audit`):
registrations, lines, deck checks, infractions, review decisions.

`ident` turns a Konami ID into what the table shows: the ID itself (the organiser's export) or
the masked ID (`audit`'s shared report; file names are masked too).
"""
from __future__ import annotations

from typing import Callable

from scanner.event.records import DeckCheck, IssuedInfraction, Registration, ReviewDecision
from scanner.model import SECTIONS, position_label
from scanner.report.tables import Table, mask_id, mask_ids_in

Ident = Callable[[str], str]

STATUS_KO = {"active": "유효", "voided": "무효", "amended": "변경"}


def identity(x: str) -> str:
    return x


def masked(x: str) -> str:
    return mask_id(x)


def file_label(name: str | None, ident: Ident) -> str:
    return mask_ids_in(name) if ident is masked else (name or "")


def lines_table(lists: list[tuple[str, str | None, int, dict]], ident: Ident) -> Table:
    """(konami_id, name, version, decklist JSON) → one row per line."""
    t = Table("lines", ["player", "name", "version", "section", "line", "position", "card_id",
                        "card_name", "count", "needs_review", "reasons", "read"])
    for kid, name, version, deck in lists:
        for s in SECTIONS:
            for n, e in enumerate((deck.get("sections") or {}).get(s) or [], 1):
                t.rows.append([ident(kid), name, version, s, n,
                               position_label(s, n, e.get("column"), e.get("row")),
                               e.get("card_id"), e.get("name"), e.get("count"),
                               bool(e.get("needs_review")), " ".join(e.get("reasons") or []),
                               e.get("read")])
    return t


def deck_checks_table(checks: list[DeckCheck], names: dict[str, str | None],
                      ident: Ident) -> Table:
    t = Table("deck checks", ["id", "round", "player", "name", "mode", "verdict", "penalty",
                              "applies", "differences", "confirmed", "judge", "time", "voided",
                              "void_reason", "void_judge"])
    for c in checks:
        pen = c.result_json.get("penalty") or {}
        diffs = "; ".join(f"{d.get('section')} {d.get('name') or d.get('card_id')} "
                          f"{d.get('registered')}→{d.get('observed')}"
                          for d in c.result_json.get("differences") or [])
        t.rows.append([c.id, c.round, ident(c.konami_id), names.get(c.konami_id), c.mode,
                       c.verdict, pen.get("penalty"), pen.get("applies"), diffs, c.confirmed,
                       c.judge, c.created_at, c.voided, c.void.reason if c.void else "",
                       c.void.judge if c.void else ""])
    return t


def infractions_table(infractions: list[IssuedInfraction], names: dict[str, str | None],
                      ident: Ident) -> Table:
    t = Table("infractions", ["id", "round", "player", "name", "code", "findings", "penalty",
                              "status", "penalty_now", "void_reason", "voided_by", "remedy",
                              "judge", "time", "deck_check_id"])
    for i in infractions:
        last = i.amendments[-1] if i.amendments else None
        t.rows.append([i.id, i.round, ident(i.konami_id), names.get(i.konami_id), i.code,
                       " ".join(f.get("code", "") for f in i.findings) or i.code, i.penalty,
                       STATUS_KO[i.status], i.effective_penalty or "",
                       last.reason if last else "", last.judge if last else "", i.remedy,
                       i.judge, i.created_at, i.deck_check_id])
    return t


def decisions_table(decisions: list[ReviewDecision], regs: dict[int, Registration],
                    ident: Ident) -> Table:
    t = Table("review decisions", ["player", "version", "section", "line", "read", "action",
                                   "before", "after", "card_id", "count", "judge", "time"])

    def state(d: dict | None) -> str:
        if not d:
            return ""
        if "flag" in d:
            return str(d["flag"])
        return f"{d.get('name') or '?'} ×{d.get('count')} [{d.get('card_id')}]"

    for d in decisions:
        reg = regs.get(d.registration_id)
        t.rows.append([ident(reg.konami_id) if reg else "", reg.version if reg else "",
                       d.section, d.line, d.read, d.action, state(d.before), state(d.after),
                       d.card_id, d.count, d.judge, d.created_at])
    return t
