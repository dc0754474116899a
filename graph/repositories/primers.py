"""`PrimerRepository`: daily, weekly and monthly rollups and what they are built from."""

from __future__ import annotations

from collections.abc import Sequence

from graph.cypher import Q
from graph.db import GraphDB
from graph.models import Primer, PrimerPeriod
from graph.records import (
    primer_from_record,
    primer_to_row,
    rollup_source_from_record,
    session_turn_from_record,
)
from graph.rows import RollupSource, SessionTurn

_SOURCES = Q("primer.sources")
_LIST = Q("primer.list")
_UPSERT = Q("primer.upsert_many")
_ARCHIVE = Q("primer.archive")
_LATEST = Q("primer.latest")
_BY_KEY = Q("primer.get_by_key")
_TURNS = Q("primer.turns")


class PrimerRepository:
    """Reads rollup sources; reads and writes `Primer` nodes."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def sources(
        self, project: str | None, since_ms: int, until_ms: int, now_ms: int
    ) -> list[RollupSource]:
        """Sessions, lessons, corrections and facts of `project` (None: all) in a time window."""
        rows = await self._db.read(
            _SOURCES, project=project, since=since_ms, until=until_ms, now=now_ms
        )
        return sorted(map(rollup_source_from_record, rows), key=lambda x: (x.at, x.kind, x.id))

    async def turns(self, session_ids: Sequence[str], now_ms: int) -> list[SessionTurn]:
        """User and assistant turns of these sessions, in order."""
        out: list[SessionTurn] = []
        ids = sorted(set(session_ids))
        for i in range(0, len(ids), 200):
            rows = await self._db.read(_TURNS, ids=ids[i : i + 200], now=now_ms)
            out += [session_turn_from_record(r) for r in rows]
        return out

    async def list_primers(self, project: str, period: PrimerPeriod, now_ms: int) -> list[Primer]:
        """Every current primer of one period kind, oldest key first."""
        rows = await self._db.read(_LIST, project=project, period=period, now=now_ms)
        return [primer_from_record(r["node"]) for r in rows]

    async def upsert_many(self, primers: Sequence[Primer]) -> None:
        """Create or replace primers (deterministic ids: one per project, period and key)."""
        for i in range(0, len(primers), 500):
            await self._db.write(_UPSERT, rows=[primer_to_row(p) for p in primers[i : i + 500]])

    async def archive(self, ids: Sequence[str], now_ms: int) -> list[str]:
        """Close primers that were rolled up; returns those that were still open."""
        if not ids:
            return []
        rows = await self._db.write(_ARCHIVE, ids=list(ids), now=now_ms)
        return [r["id"] for r in rows]

    async def latest(self, project: str, period: PrimerPeriod, now_ms: int) -> Primer | None:
        """The primer of `period` with the greatest key, if any."""
        rows = await self._db.read(_LATEST, project=project, period=period, now=now_ms)
        return primer_from_record(rows[0]["node"]) if rows else None

    async def get_by_key(
        self, project: str, period: PrimerPeriod, key: str, now_ms: int
    ) -> Primer | None:
        """The primer of one period key (`2026-11-22`, `2026-W47`, `2026-11`), if built."""
        rows = await self._db.read(
            _BY_KEY, project=project, period=period, period_key=key, now=now_ms
        )
        return primer_from_record(rows[0]["node"]) if rows else None
