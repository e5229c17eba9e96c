"""A season across events: every event in one PostgreSQL database, read per player.

`players()` lists everyone the database knows with their totals; `history(who)` gives one
player's registrations, deck checks and infractions (voids and amendments applied) event by
event, oldest event first — what a head judge asks before upgrading a penalty. Read-only.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import psycopg

from scanner.errors import EventError
from scanner.event.pg_store import EventURL, applied_steps, connect, first_line
from scanner.event.records import clean_name, lookup_konami_id

ACTIVE_PENALTY_SQL = """
    CASE WHEN a.action IS NULL THEN i.penalty WHEN a.action = 'void' THEN NULL
         ELSE COALESCE(a.new_penalty, i.penalty) END"""
"""The penalty that stands: the latest amendment decides (as `IssuedInfraction`)."""


@dataclass
class CircuitPlayer:
    konami_id: str
    name: str | None
    events: int
    registrations: int
    deck_checks: int
    infractions: int
    """Infractions that stand (voided ones are not counted)."""

    def to_json(self) -> dict:
        return {"player": self.konami_id, "name": self.name, "events": self.events,
                "registrations": self.registrations, "deck_checks": self.deck_checks,
                "infractions": self.infractions}


@dataclass
class EventHistory:
    event: str
    name: str
    date: str
    player_name: str | None
    registrations: list[dict] = field(default_factory=list)
    deck_checks: list[dict] = field(default_factory=list)
    infractions: list[dict] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"event": self.event, "name": self.name, "date": self.date,
                "player_name": self.player_name, "registrations": self.registrations,
                "deck_checks": self.deck_checks, "infractions": self.infractions}


@dataclass
class PlayerHistory:
    konami_id: str
    events: list[EventHistory]

    @property
    def penalty_counts(self) -> dict[str, int]:
        """Standing penalties of the season, by penalty."""
        out: dict[str, int] = {}
        for ev in self.events:
            for i in ev.infractions:
                if i["effective_penalty"]:
                    out[i["effective_penalty"]] = out.get(i["effective_penalty"], 0) + 1
        return dict(sorted(out.items()))

    def to_json(self) -> dict:
        return {"player": self.konami_id, "events": [e.to_json() for e in self.events],
                "penalty_counts": self.penalty_counts}


class Circuit:
    """Read-only view of every event in one database (`--event postgresql://…`; ?event= is
    not needed and ignored)."""

    def __init__(self, url: str) -> None:
        parsed = EventURL.parse(url, require_event=False)
        self.location = parsed.shown
        self.con = connect(parsed.conninfo)
        self.con.execute("SET default_transaction_read_only = on")
        if not applied_steps(self.con):
            self.con.close()
            raise EventError("event.no-database-events", location=parsed.shown)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> "Circuit":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _q(self, sql: str, args: tuple = ()) -> list[dict]:
        try:
            return self.con.execute(sql, args).fetchall()
        except psycopg.Error as exc:
            raise EventError("event.database-error", location=self.location,
                             detail=first_line(exc)) from None

    def events(self) -> list[dict]:
        return self._q("SELECT event, name, date FROM events ORDER BY date, event")

    def players(self) -> list[CircuitPlayer]:
        rows = self._q(f"""
            WITH latest_amend AS (
                SELECT DISTINCT ON (event, infraction_id) event, infraction_id, action, new_penalty
                FROM infraction_amendments ORDER BY event, infraction_id, id DESC),
            standing AS (
                SELECT i.konami_id, COUNT(*) AS n FROM infractions i
                LEFT JOIN latest_amend a ON a.event = i.event AND a.infraction_id = i.id
                WHERE {ACTIVE_PENALTY_SQL} IS NOT NULL GROUP BY i.konami_id),
            regs AS (SELECT konami_id, COUNT(*) AS n FROM registrations GROUP BY konami_id),
            checks AS (SELECT konami_id, COUNT(*) AS n FROM deck_checks GROUP BY konami_id),
            named AS (
                SELECT DISTINCT ON (p.konami_id) p.konami_id, p.name FROM players p
                JOIN events e ON e.event = p.event
                ORDER BY p.konami_id, e.date DESC, e.event DESC)
            SELECT p.konami_id, n.name, COUNT(DISTINCT p.event) AS events,
                   COALESCE(MAX(r.n), 0) AS registrations, COALESCE(MAX(c.n), 0) AS checks,
                   COALESCE(MAX(s.n), 0) AS infractions
            FROM players p JOIN named n USING (konami_id)
            LEFT JOIN regs r ON r.konami_id = p.konami_id
            LEFT JOIN checks c ON c.konami_id = p.konami_id
            LEFT JOIN standing s ON s.konami_id = p.konami_id
            GROUP BY p.konami_id, n.name ORDER BY p.konami_id""")
        return [CircuitPlayer(r["konami_id"], r["name"], int(r["events"]),
                              int(r["registrations"]), int(r["checks"]),
                              int(r["infractions"])) for r in rows]

    def find(self, who: str) -> str:
        """A Konami ID, or the one player whose name is `who` (else a clear refusal)."""
        try:
            kid = lookup_konami_id(who)
            if self._q("SELECT 1 FROM players WHERE konami_id = %s LIMIT 1", (kid,)):
                return kid
            raise EventError("circuit.no-player-id", player=kid, location=self.location)
        except EventError:
            if (who or "").strip().isdigit():
                raise
        name = (clean_name(who) or "").lower()
        ids = sorted({r["konami_id"] for r in self._q(
            "SELECT konami_id FROM players WHERE lower(name) = %s", (name,))})
        if len(ids) == 1:
            return ids[0]
        if not ids:
            raise EventError("circuit.no-player-name", who=repr(who), location=self.location)
        raise EventError("circuit.ambiguous-name", count=len(ids), who=repr(who), players=ids[:10])

    def history(self, who: str) -> PlayerHistory:
        kid = self.find(who)
        events = {r["event"]: EventHistory(r["event"], r["name"], r["date"], r["player_name"])
                  for r in self._q(
                      "SELECT e.event, e.name, e.date, p.name AS player_name FROM players p "
                      "JOIN events e ON e.event = p.event WHERE p.konami_id = %s "
                      "ORDER BY e.date, e.event", (kid,))}
        for r in self._q(
                "SELECT event, version, legal, needs_review, file_name, file_sha256, created_at, "
                "judge FROM registrations WHERE konami_id = %s ORDER BY event, version", (kid,)):
            events[r["event"]].registrations.append(
                {"version": r["version"], "legal": bool(r["legal"]),
                 "needs_review": r["needs_review"], "file": r["file_name"],
                 "sha256": r["file_sha256"], "time": r["created_at"], "judge": r["judge"]})
        for r in self._q(
                "SELECT event, id, round, match, confirmed, result_json, judge, created_at "
                "FROM deck_checks WHERE konami_id = %s ORDER BY event, round, id", (kid,)):
            result = json.loads(r["result_json"] or "{}")
            events[r["event"]].deck_checks.append(
                {"id": r["id"], "round": r["round"], "match": bool(r["match"]),
                 "verdict": result.get("verdict") or ("일치" if r["match"] else "불일치"),
                 "confirmed": bool(r["confirmed"]), "judge": r["judge"],
                 "time": r["created_at"]})
        for r in self._q(f"""
                SELECT i.event, i.id, i.code, i.penalty, i.round, i.judge, i.created_at,
                       a.action AS amended, {ACTIVE_PENALTY_SQL} AS effective_penalty
                FROM infractions i LEFT JOIN LATERAL (
                    SELECT action, new_penalty FROM infraction_amendments x
                    WHERE x.event = i.event AND x.infraction_id = i.id
                    ORDER BY x.id DESC LIMIT 1) a ON TRUE
                WHERE i.konami_id = %s ORDER BY i.event, i.id""", (kid,)):
            events[r["event"]].infractions.append(
                {"id": r["id"], "code": r["code"], "penalty": r["penalty"], "round": r["round"],
                 "judge": r["judge"], "time": r["created_at"],
                 "status": {None: "active", "void": "voided"}.get(r["amended"], "amended"),
                 "effective_penalty": r["effective_penalty"]})
        return PlayerHistory(kid, list(events.values()))


@dataclass
class CircuitAudit:
    shared_files: list[dict]
    """The same original file handed in by different players (at different events)."""
    same_lists: list[dict]
    """The same list (cards and counts, every section) registered by different players at
    different events (a player's latest version per event)."""
    penalties: list[dict]
    """Players with a standing penalty this season, most first, counts by penalty."""

    @property
    def findings(self) -> bool:
        return bool(self.shared_files or self.same_lists)

    def to_json(self) -> dict:
        return {"shared_files": self.shared_files, "same_lists": self.same_lists,
                "penalties": self.penalties}


def audit(circuit: Circuit) -> CircuitAudit:
    """Across events: files and lists that pass between players, and penalty counts."""
    from scanner.event.audit import list_signature

    by_file: dict[str, set[tuple[str, str]]] = {}
    by_list: dict[tuple, set[tuple[str, str]]] = {}
    # each player's current version: the newest not withdrawn (a database migrated before
    # withdrawals existed has none)
    has_withdrawals = circuit._q("SELECT to_regclass('registration_withdrawals') AS t")[0]["t"]
    live = ("NOT EXISTS (SELECT 1 FROM registration_withdrawals w WHERE w.event = {t}.event "
            "AND w.registration_id = {t}.id)") if has_withdrawals else "TRUE"
    for r in circuit._q(
            "SELECT r.event, r.konami_id, r.file_sha256, r.decklist_json FROM registrations r "
            f"WHERE {live.format(t='r')} AND r.version = (SELECT MAX(version) FROM "
            "registrations x WHERE x.event = r.event AND x.konami_id = r.konami_id "
            f"AND {live.format(t='x')})"):
        who = (r["event"], r["konami_id"])
        by_file.setdefault(r["file_sha256"], set()).add(who)
        sig = list_signature(json.loads(r["decklist_json"]))
        if sig:
            by_list.setdefault(sig, set()).add(who)

    def crosses(group: set[tuple[str, str]]) -> bool:
        return len({k for _, k in group}) > 1 and len({e for e, _ in group}) > 1

    shared = [{"sha256": sha, "players": [{"event": e, "player": k} for e, k in sorted(g)]}
              for sha, g in sorted(by_file.items()) if crosses(g)]
    same = [{"players": [{"event": e, "player": k} for e, k in g]}
            for g in sorted(sorted(g) for g in by_list.values() if crosses(g))]
    counts: dict[str, dict[str, int]] = {}
    for r in circuit._q(f"""
            SELECT i.konami_id, {ACTIVE_PENALTY_SQL} AS p FROM infractions i
            LEFT JOIN LATERAL (SELECT action, new_penalty FROM infraction_amendments x
                WHERE x.event = i.event AND x.infraction_id = i.id ORDER BY x.id DESC LIMIT 1)
            a ON TRUE"""):
        if r["p"]:
            mine = counts.setdefault(r["konami_id"], {})
            mine[r["p"]] = mine.get(r["p"], 0) + 1
    penalties = sorted(({"player": k, "total": sum(c.values()),
                         "penalties": dict(sorted(c.items()))} for k, c in counts.items()),
                       key=lambda d: (-d["total"], d["player"]))
    return CircuitAudit(shared, same, penalties)
