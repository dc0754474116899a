"""`TopicBriefRepository`: versioned topic summaries with key takeaways."""

from __future__ import annotations

from collections.abc import Sequence

from graph.cypher import Q
from graph.db import GraphDB
from graph.models import TopicBrief
from graph.records import topic_brief_from_record, topic_brief_to_row

_CURRENT = Q("topic_brief.current")
_UPSERT = Q("topic_brief.upsert_many")
_SUPERSEDE = Q("topic_brief.supersede")


class TopicBriefRepository:
    """Reads and writes `TopicBrief` nodes (`SUMMARISES` their topic, `SUPERSEDES` the previous)."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def current(self, project: str, now_ms: int) -> list[TopicBrief]:
        """Open briefs of `project`, by topic then version."""
        rows = await self._db.read(_CURRENT, project=project, now=now_ms)
        return [topic_brief_from_record(r["node"]) for r in rows]

    async def upsert_many(self, briefs: Sequence[TopicBrief]) -> None:
        """Write brief versions (idempotent by id), each linked to its topic."""
        if briefs:
            await self._db.write(_UPSERT, rows=[topic_brief_to_row(b) for b in briefs])

    async def supersede(self, ends: Sequence[tuple[str, str, int]], now_ms: int) -> None:
        """End each `(old_id, new_id, at_ms)`: the old brief stops holding at `at_ms`."""
        if ends:
            rows = [{"old_id": o, "new_id": n, "valid_to": at} for o, n, at in ends]
            await self._db.write(_SUPERSEDE, rows=rows, now=now_ms)
