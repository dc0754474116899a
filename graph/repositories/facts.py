"""Facts: subject–predicate–object statements with scoped bi-temporal invalidation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph.cypher import Q
from graph.db import GraphDB
from graph.models import Fact
from graph.records import embedding_rows, fact_from_record, fact_to_row
from graph.timeutil import now_ms

_UPSERT = Q("fact.upsert_many")
_SET_EMB = Q("fact.set_embeddings")
_GET_MANY = Q("fact.get_many")
_LINK_SOURCES = Q("fact.link_sources")
_LIVE_BY_KEYS = Q("fact.live_by_keys")
_CONTRADICTED_BY = Q("fact.contradicted_by")
_LINK_CONTRADICTS = Q("fact.link_contradicts")
_SUPERSEDE = Q("fact.supersede")
_LINK_SUPERSEDES = Q("fact.link_supersedes")
_LIST_ACTIVE = Q("fact.list_active")
_LIST_BY_PROJECT = Q("fact.list_by_project")
_SOURCES = Q("fact.sources")


@dataclass(frozen=True)
class Supersession:
    """`new_id` supersedes `old_id`; the old fact stops holding at `valid_to` (epoch ms)."""

    old_id: str
    new_id: str
    valid_to: int


class FactRepository:
    """Reads and writes `Fact` nodes, their provenance and their supersession links."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def upsert_many(self, facts: Sequence[Fact]) -> None:
        """MERGE facts by id (properties replaced), then write their embeddings."""
        if not facts:
            return
        await self._db.write(_UPSERT, rows=[fact_to_row(f) for f in facts])
        emb = embedding_rows(facts)
        if emb:
            await self._db.write(_SET_EMB, rows=emb)

    async def get_many(self, ids: Sequence[str]) -> list[Fact | None]:
        """Facts in the order of `ids` (None for unknown ids)."""
        rows = await self._db.read(_GET_MANY, ids=list(ids))
        by_id = {r["props"]["id"]: fact_from_record(r["props"]) for r in rows}
        return [by_id.get(i) for i in ids]

    async def link_sources(self, pairs: Sequence[tuple[str, str]]) -> None:
        """`(Fact)-[:DERIVED_FROM]->(Turn)` for each `(fact_id, turn_id)`."""
        if pairs:
            rows = [{"id": f, "turn_id": t} for f, t in pairs]
            await self._db.write(_LINK_SOURCES, rows=rows, now=now_ms())

    async def live_by_keys(
        self, project: str, keys: Sequence[tuple[str, str]], *, now: int | None = None
    ) -> list[Fact]:
        """Current facts of `project` whose `(subject, predicate)` is one of `keys`."""
        if not keys:
            return []
        uniq = sorted(set(keys))
        rows = await self._db.read(
            _LIVE_BY_KEYS,
            project=project,
            keys=[{"subject": s, "predicate": p} for s, p in uniq],
            now=now if now is not None else now_ms(),
        )
        return [fact_from_record(r["props"]) for r in rows]

    async def contradicted_by(
        self, ids: Sequence[str], *, now: int | None = None
    ) -> list[tuple[str, Fact]]:
        """`(new_id, fact)` for current facts that one of `ids` explicitly CONTRADICTS."""
        if not ids:
            return []
        rows = await self._db.read(
            _CONTRADICTED_BY, ids=list(ids), now=now if now is not None else now_ms()
        )
        return [(r["new_id"], fact_from_record(r["props"])) for r in rows]

    async def link_contradicts(self, pairs: Sequence[tuple[str, str]]) -> None:
        """`(a)-[:CONTRADICTS]->(b)` for each `(a, b)`."""
        if pairs:
            rows = [{"source_id": a, "target_id": b} for a, b in pairs]
            await self._db.write(_LINK_CONTRADICTS, rows=rows, now=now_ms())

    async def supersede(self, items: Sequence[Supersession], *, now: int) -> list[str]:
        """Close each old fact (valid_to, expired_at = now); link `(new)-[:SUPERSEDES]->(old)`."""
        if not items:
            return []
        rows = [{"old_id": s.old_id, "new_id": s.new_id, "valid_to": s.valid_to} for s in items]
        out = await self._db.write(_SUPERSEDE, rows=rows, now=now)
        return [r["old_id"] for r in out]

    async def link_supersedes(self, items: Sequence[Supersession]) -> None:
        """Only link `(new)-[:SUPERSEDES]->(old)`, closing nothing (a fact learned late)."""
        if items:
            rows = [{"old_id": s.old_id, "new_id": s.new_id, "valid_to": s.valid_to} for s in items]
            await self._db.write(_LINK_SUPERSEDES, rows=rows, now=now_ms())

    async def list_active(
        self, project: str, *, as_of: int | None = None, known_at: int | None = None
    ) -> list[Fact]:
        """Facts of `project` true at `as_of` as recorded at `known_at` (both default to now)."""
        now = now_ms()
        rows = await self._db.read(
            _LIST_ACTIVE,
            project=project,
            as_of=as_of if as_of is not None else now,
            known_at=known_at if known_at is not None else now,
        )
        return [fact_from_record(r["props"]) for r in rows]

    async def list_by_project(self, project: str) -> list[Fact]:
        """Every fact record of `project`, closed ones included, oldest first."""
        rows = await self._db.read(_LIST_BY_PROJECT, project=project)
        return [fact_from_record(r["props"]) for r in rows]

    async def sources(self, fact_id: str) -> list[str]:
        """Ids of the turns a fact was derived from, in conversation order."""
        rows = await self._db.read(_SOURCES, id=fact_id)
        return [r["turn_id"] for r in rows]
