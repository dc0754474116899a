"""Corrections: what users corrected, reinforced across sessions until they graduate to rules."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from core.timeutil import now_ms
from graph.cypher import Q
from graph.models import Correction
from graph.records import Row, correction_from_record, correction_to_row
from graph.repositories.knowledge import DerivedRepository

_UPSERT = Q("correction.upsert_many")
_SET_EMB = Q("correction.set_embeddings")
_GET_MANY = Q("correction.get_many")
_LINK_SOURCES = Q("correction.link_sources")
_SEARCH = Q("correction.search_similar")
_LIST = Q("correction.list_by_project")
_CLOSE = Q("correction.close_many")
_LINKS = {
    "DUPLICATE_OF": Q("correction.link_duplicate_of"),
    "RELATED_TO": Q("correction.link_related_to"),
    "SUPERSEDES": Q("correction.link_supersedes"),
    "CONTRADICTS": Q("correction.link_contradicts"),
}
_SOURCES = Q("correction.sources")
_LINKS_OF = Q("correction.links")
_CURRENT_RULES = Q("correction.current_rules")

CorrectionLink = Literal["DUPLICATE_OF", "RELATED_TO", "SUPERSEDES", "CONTRADICTS"]


class CorrectionRepository(DerivedRepository[Correction]):
    """Reads and writes `Correction` nodes, their provenance, links and similarity search."""

    upsert_query = _UPSERT
    embeddings_query = _SET_EMB
    get_many_query = _GET_MANY
    link_sources_query = _LINK_SOURCES
    sources_query = _SOURCES

    def _row(self, m: Correction) -> Row:
        return correction_to_row(m)

    def _model(self, props: Mapping[str, Any]) -> Correction:
        return correction_from_record(props)

    async def search_similar(
        self, project: str, vector: Sequence[float], *, k: int = 10, now: int | None = None
    ) -> list[tuple[Correction, float]]:
        """Current corrections of `project` nearest to `vector`, with cosine similarity."""
        return await self._similar(_SEARCH, vector, k=k, project=project, now=now)

    async def list_by_project(self, project: str, *, now: int | None = None) -> list[Correction]:
        """Current corrections of `project`, oldest first."""
        rows = await self._db.read(_LIST, project=project, now=now if now is not None else now_ms())
        return [correction_from_record(r["props"]) for r in rows]

    async def current_rules(
        self, projects: Sequence[str], statuses: Sequence[str], *, now: int
    ) -> list[Correction]:
        """Open corrections of `projects` (`*` = all) with a status in `statuses` or confirmed.

        The candidates of a project's rules; `knowledge.rules.current_rules` decides and orders.
        """
        rows = await self._db.read(
            _CURRENT_RULES, projects=list(projects), statuses=list(statuses), now=now
        )
        return [correction_from_record(r["props"]) for r in rows]

    async def close_many(self, ids_valid_to: Sequence[tuple[str, int]], *, now: int) -> list[str]:
        """Close corrections (INVALIDATE): `valid_to` as given, `expired_at` = now."""
        if not ids_valid_to:
            return []
        rows = [{"id": i, "valid_to": v} for i, v in ids_valid_to]
        return [r["id"] for r in await self._db.write(_CLOSE, rows=rows, now=now)]

    async def link(self, rel: CorrectionLink, pairs: Sequence[tuple[str, str, float]]) -> None:
        """Create `(a)-[:rel {weight}]->(b)` for each `(a, b, weight)`."""
        if pairs:
            rows = [{"source_id": a, "target_id": b, "weight": w} for a, b, w in pairs]
            await self._db.write(_LINKS[rel], rows=rows, now=now_ms())

    async def links(self, correction_id: str) -> list[tuple[str, str, str]]:
        """`(type, source_id, target_id)` of every link touching a correction."""
        rows = await self._db.read(_LINKS_OF, id=correction_id)
        return [(r["type"], r["source_id"], r["target_id"]) for r in rows]
