"""`SessionRepository`: sessions, their (Session)-[:HAS_TURN]->(Turn) edges and the NEXT chain."""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from core.timeutil import end_to_ms, to_ms
from graph.cypher import Q
from graph.models import Session, Turn
from graph.records import Row, session_from_record, session_to_row
from graph.repositories.base import TemporalRepository, chunks, window

_UPSERT = Q("session.upsert_many")
_GET_MANY = Q("session.get_many")
_LIST = Q("session.list")
_CLOSE = Q("session.close")
_SUPERSEDE = Q("session.supersede")
_LINK_TURNS = Q("session.link_turns")
_TURN_IDS_AT = Q("session.turn_ids_at")
_TURN_LINKS = Q("session.turn_links")
_EXTRACTED_THROUGH = Q("session.extracted_through")
_SET_EXTRACTED_THROUGH = Q("session.set_extracted_through")


_ENRICHMENT = ("summary", "intent", "outcome", "quality", "complexity")
"""Written by extraction only; an upsert without them leaves the stored values."""


class SessionRepository(TemporalRepository[Session]):
    """Reads and writes `Session` nodes."""

    kind = "session"
    upsert_query = _UPSERT
    get_many_query = _GET_MANY
    close_query = _CLOSE
    supersede_query = _SUPERSEDE

    def _row(self, m: Session) -> Row:
        row = session_to_row(m)
        for k in _ENRICHMENT:  # ingest rewrites a session without them: keep what extraction set
            if row.get(k) is None:
                row.pop(k, None)
        return row

    def _model(self, r: Mapping[str, Any]) -> Session:
        return session_from_record(r)

    async def extracted_through(self, ids: Sequence[str]) -> dict[str, int]:
        """The extraction watermark per session: the highest ordinal extracted (-1: none)."""
        rows = await self.db.read(_EXTRACTED_THROUGH, ids=list(ids))
        out = dict.fromkeys(ids, -1)
        for r in rows:
            if r["extracted_through"] is not None:
                out[str(r["id"])] = int(r["extracted_through"])
        return out

    async def set_extracted_through(self, marks: Sequence[tuple[str, int]]) -> None:
        """Record that the sessions' knowledge is written up to these ordinals."""
        if marks:
            rows = [{"id": i, "extracted_through": int(o)} for i, o in marks]
            await self.db.write(_SET_EXTRACTED_THROUGH, rows=rows)

    async def list(
        self,
        *,
        projects: Sequence[str] | None = None,
        after: str = "",
        limit: int = 100,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> list[Session]:
        """Sessions of `projects` (None: all) ordered by id, after the id `after`."""
        a, k = window(as_of, known_at)
        rows = await self.db.read(
            _LIST,
            projects=None if projects is None else list(projects),
            after=after,
            limit=limit,
            as_of=a,
            known_at=k,
        )
        return [self._model(r["node"]) for r in rows]

    async def turn_links(
        self,
        session_id: str,
        *,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> builtins.list[tuple[str, str | None]]:
        """`(turn id, NEXT turn id or None)` along the session's HAS_TURN edges, in order."""
        a, k = window(as_of, known_at)
        rows = await self.db.read(_TURN_LINKS, session_id=session_id, as_of=a, known_at=k)
        return [(r["id"], r["next_id"]) for r in rows]

    async def link_turns(self, turns: Sequence[Turn]) -> int:
        """Write `(Session)-[:HAS_TURN]->(Turn)` and the `(Turn)-[:NEXT]->(Turn)` chain.

        The predecessor of a turn is the turn of the same session with the previous ordinal: taken
        from `turns` when it is there, else looked up among stored turns (so a session can be
        linked batch by batch). Sessions and turns must be upserted first. Returns the number of
        NEXT edges written.
        """
        if not turns:
            return 0
        by_key = {(t.session_id, t.ordinal): t.id for t in turns}
        missing = sorted(
            {(t.session_id, t.ordinal - 1) for t in turns if t.ordinal > 0} - set(by_key)
        )
        if missing:
            found = await self.db.read(
                _TURN_IDS_AT, rows=[{"session_id": s, "ordinal": o} for s, o in missing]
            )
            for r in found:
                by_key.setdefault((r["session_id"], int(r["ordinal"])), r["id"])
        rows = [
            {
                "id": t.id,
                "session_id": t.session_id,
                "prev_id": by_key.get((t.session_id, t.ordinal - 1)),
                "valid_from": to_ms(t.valid_from),
                "valid_to": end_to_ms(t.valid_to),
                "recorded_at": to_ms(t.recorded_at),
                "expired_at": end_to_ms(t.expired_at),
            }
            for t in turns
        ]
        linked = 0
        for batch in chunks(rows, self.batch_size):
            res = await self.db.write(_LINK_TURNS, rows=list(batch))
            linked += int(res[0]["count"]) if res else 0
        return linked
