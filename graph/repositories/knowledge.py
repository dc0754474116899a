"""Behaviour shared by the extracted-knowledge repositories (topics, lessons, corrections, facts).

A subclass names its queries as class attributes (module-level `Q("<aggregate>.<method>")`
constants, so the registry test sees them) and implements `_row` / `_model`; this base turns them
into `upsert_many`, `get_many` and the similarity-search round trip; `DerivedRepository` adds
`link_sources` and `sources` for labels derived from turns.
Unlike `TemporalRepository`, reads here take `now` in epoch ms and rows carry the node as `props`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

from core.timeutil import now_ms
from graph.cypher import QueryRef
from graph.db import GraphDB
from graph.records import Row, embedding_rows
from graph.repositories.base import last_per_key, model_id

M = TypeVar("M")


class KnowledgeRepository(Generic[M]):
    """Reads and writes one knowledge label: upsert with embeddings, lookups and provenance.

    Subclasses set `upsert_query`, `embeddings_query` and `get_many_query` and implement
    `_row` / `_model`.
    """

    upsert_query: ClassVar[QueryRef]
    embeddings_query: ClassVar[QueryRef]
    get_many_query: ClassVar[QueryRef]

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    # -- mapping hooks --------------------------------------------------------------------------

    def _row(self, m: M) -> Row:
        raise NotImplementedError

    def _model(self, props: Mapping[str, Any]) -> M:
        raise NotImplementedError

    # -- shared operations ----------------------------------------------------------------------

    async def upsert_many(self, items: Sequence[M]) -> None:
        """MERGE items by id (properties replaced), then write their embeddings."""
        if not items:
            return
        items = last_per_key(items, model_id)  # one row per node: see `last_per_key`
        await self._db.write(self.upsert_query, rows=[self._row(x) for x in items])
        emb = embedding_rows(items)
        if emb:
            await self._db.write(self.embeddings_query, rows=emb)

    async def set_embeddings(self, items: Iterable[tuple[str, Sequence[float]]]) -> None:
        """Write `(id, vector)` pairs onto stored items (unknown ids are skipped)."""
        rows = [{"id": i, "embedding": [float(x) for x in v]} for i, v in items]
        if rows:
            await self._db.write(self.embeddings_query, rows=rows)

    async def get_many(self, ids: Sequence[str]) -> list[M | None]:
        """Items in the order of `ids` (None for unknown ids)."""
        rows = await self._db.read(self.get_many_query, ids=list(ids))
        by_id = {r["props"]["id"]: self._model(r["props"]) for r in rows}
        return [by_id.get(i) for i in ids]

    async def _similar(
        self, query: QueryRef, vector: Sequence[float], *, now: int | None, **params: Any
    ) -> list[tuple[M, float]]:
        """Run a `search_similar`-style query: `(model, similarity)` pairs, best first."""
        rows = await self._db.read(
            query,
            vector=[float(x) for x in vector],
            **params,
            now=now if now is not None else now_ms(),
        )
        return [(self._model(r["props"]), float(r["similarity"])) for r in rows]


class DerivedRepository(KnowledgeRepository[M]):
    """A knowledge label derived from turns: adds `DERIVED_FROM` provenance.

    Subclasses also set `link_sources_query` and `sources_query`.
    """

    link_sources_query: ClassVar[QueryRef]
    sources_query: ClassVar[QueryRef]

    async def link_sources(self, pairs: Sequence[tuple[str, str]]) -> None:
        """`(item)-[:DERIVED_FROM]->(Turn)` for each `(item_id, turn_id)`."""
        if pairs:
            rows = [{"id": x, "turn_id": t} for x, t in pairs]
            await self._db.write(self.link_sources_query, rows=rows, now=now_ms())

    async def sources(self, item_id: str) -> list[str]:
        """Ids of the turns an item was derived from, in conversation order."""
        rows = await self._db.read(self.sources_query, id=item_id)
        return [r["turn_id"] for r in rows]
