"""Topics: subjects discussed across the sessions of one project (each topic has one owner)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.timeutil import now_ms
from graph.cypher import Q
from graph.models import Topic, TopicPhase
from graph.records import Row, topic_from_record, topic_to_row
from graph.repositories.knowledge import KnowledgeRepository

_UPSERT = Q("topic.upsert_many")
_SET_EMB = Q("topic.set_embeddings")
_GET_MANY = Q("topic.get_many")
_SEARCH = Q("topic.search_similar")
_SEARCH_MANY = Q("topic.search_similar_many")
_LINK_MENTIONS = Q("topic.link_mentions")
_RELATE = Q("topic.relate")
_LIST_ALL = Q("topic.list_all")
_SET_WEIGHTS = Q("topic.set_weights")
_RELATED = Q("topic.related")
_MENTIONED_BY = Q("topic.mentioned_by")
# The topic vector index holds every project's topics: search this many times `k`, then filter.
_OVERSAMPLE = 20


class TopicRepository(KnowledgeRepository[Topic]):
    """Reads and writes `Topic` nodes, `MENTIONS` and co-occurrence `RELATED_TO` edges."""

    upsert_query = _UPSERT
    embeddings_query = _SET_EMB
    get_many_query = _GET_MANY

    def _row(self, m: Topic) -> Row:
        return topic_to_row(m)

    def _model(self, props: Mapping[str, Any]) -> Topic:
        return topic_from_record(props)

    async def search_similar(
        self, vector: Sequence[float], project: str, *, k: int = 5, now: int | None = None
    ) -> list[tuple[Topic, float]]:
        """Current topics of `project` nearest to `vector`, with cosine similarity, best first.

        At most `k`, often fewer: the index is searched for the `k` × `_OVERSAMPLE` nearest over
        every project, then filtered to `project`.
        """
        hits = await self._similar(_SEARCH, vector, k=k * _OVERSAMPLE, project=project, now=now)
        return hits[:k]

    async def search_similar_many(
        self,
        vectors: Sequence[Sequence[float]],
        project: str,
        *,
        k: int = 5,
        now: int | None = None,
    ) -> list[list[tuple[Topic, float]]]:
        """`search_similar` for many vectors in one round trip; one result list per vector."""
        out: list[list[tuple[Topic, float]]] = [[] for _ in vectors]
        if not vectors:
            return out
        rows = await self._db.read(
            _SEARCH_MANY,
            rows=[{"i": i, "vector": [float(x) for x in v]} for i, v in enumerate(vectors)],
            k=k * _OVERSAMPLE,
            project=project,
            now=now if now is not None else now_ms(),
        )
        for r in rows:
            hits = out[int(r["i"])]
            if len(hits) < k:
                hits.append((topic_from_record(r["props"]), float(r["similarity"])))
        return out

    async def link_mentions(self, pairs: Sequence[tuple[str, str]]) -> None:
        """`(Turn)-[:MENTIONS]->(Topic)` for each `(turn_id, topic_id)`."""
        if pairs:
            rows = [{"turn_id": t, "topic_id": p} for t, p in pairs]
            await self._db.write(_LINK_MENTIONS, rows=rows, now=now_ms())

    async def relate(self, pairs: Sequence[tuple[str, str]], session_id: str) -> None:
        """Record that each `(a, b)` co-occurred in `session_id` (idempotent per session)."""
        if pairs:
            rows = [{"source_id": a, "target_id": b, "session_id": session_id} for a, b in pairs]
            await self._db.write(_RELATE, rows=rows, now=now_ms())

    async def related(self, topic_id: str) -> list[tuple[str, float]]:
        """`(topic_id, weight)` of topics co-occurring with `topic_id`, strongest first."""
        rows = await self._db.read(_RELATED, id=topic_id)
        return [(r["id"], float(r["weight"])) for r in rows]

    async def list_all(self, *, now: int | None = None) -> list[Topic]:
        """Every current topic (without embeddings)."""
        rows = await self._db.read(_LIST_ALL, now=now if now is not None else now_ms())
        return [topic_from_record(r["props"]) for r in rows]

    async def set_weights(self, items: Sequence[tuple[str, float, TopicPhase]]) -> None:
        """Store recomputed `(id, weight, phase)`."""
        if items:
            rows = [{"id": i, "weight": w, "phase": p} for i, w, p in items]
            await self._db.write(_SET_WEIGHTS, rows=rows)

    async def mentioned_by(self, topic_id: str) -> list[str]:
        """Ids of the turns that mention a topic, in conversation order."""
        rows = await self._db.read(_MENTIONED_BY, id=topic_id)
        return [r["turn_id"] for r in rows]
