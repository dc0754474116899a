"""Facts: subject–predicate–object statements with scoped bi-temporal invalidation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.timeutil import now_ms
from graph.cypher import Q
from graph.models import Fact
from graph.records import Row, fact_from_record, fact_to_row
from graph.repositories.knowledge import DerivedRepository

_UPSERT = Q("fact.upsert_many")
_SET_EMB = Q("fact.set_embeddings")
_GET_MANY = Q("fact.get_many")
_LINK_SOURCES = Q("fact.link_sources")
_LIVE_BY_KEYS = Q("fact.live_by_keys")
_CONTRADICTED_BY = Q("fact.contradicted_by")
_LINK_CONTRADICTS = Q("fact.link_contradicts")
_SUPERSEDE = Q("fact.supersede")
_LINK_SUPERSEDES = Q("fact.link_supersedes")
_RETRACT = Q("fact.retract_many")
_LIST_ACTIVE = Q("fact.list_active")
_LIST_BY_PROJECT = Q("fact.list_by_project")
_SOURCES = Q("fact.sources")
_STANDING = Q("fact.standing_preferences")


@dataclass(frozen=True)
class Supersession:
    """`new_id` supersedes `old_id`; the old fact stops holding at `valid_to` (epoch ms)."""

    old_id: str
    new_id: str
    valid_to: int


class FactRepository(DerivedRepository[Fact]):
    """Reads and writes `Fact` nodes, their provenance and their supersession links."""

    upsert_query = _UPSERT
    embeddings_query = _SET_EMB
    get_many_query = _GET_MANY
    link_sources_query = _LINK_SOURCES
    sources_query = _SOURCES

    def _row(self, m: Fact) -> Row:
        return fact_to_row(m)

    def _model(self, props: Mapping[str, Any]) -> Fact:
        return fact_from_record(props)

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

    async def retract(self, ids: Sequence[str], *, now: int) -> list[str]:
        """Retract facts found wrong (`expired_at` = now, valid time untouched); those retracted."""
        if not ids:
            return []
        out = await self._db.write(_RETRACT, ids=list(ids), now=now)
        return [r["id"] for r in out]

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

    async def standing_preferences(self, projects: Sequence[str], *, now: int) -> list[Fact]:
        """Facts of kind `preference` of `projects` (`*` = all) holding at `now`, by id."""
        rows = await self._db.read(_STANDING, projects=list(projects), now=now)
        return [fact_from_record(r["props"]) for r in rows]

    async def list_by_project(self, project: str) -> list[Fact]:
        """Every fact record of `project`, closed ones included, oldest first."""
        rows = await self._db.read(_LIST_BY_PROJECT, project=project)
        return [fact_from_record(r["props"]) for r in rows]
