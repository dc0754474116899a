"""`ContextQueryRepository`: the record of what agents asked `context` and what they got back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from core.ids import make_id
from core.timeutil import OPEN, from_ms, now_ms, to_ms
from graph.cypher import Q
from graph.db import GraphDB
from graph.kinds import ItemKind
from graph.records import storable_text

_RECORD_MANY = Q("context_query.record_many")
_RECENT = Q("context_query.recent")
_SERVED = Q("context_query.served")
_LINKS = {kind.value: f"{kind.value}_rows" for kind in ItemKind}
"""Item kind -> the `record_many` parameter listing the GOT edges to that kind's nodes."""


@dataclass(frozen=True)
class ContextItemRef:
    """One returned item: its id, kind (`turn`, `lesson`, ...), rank and score."""

    id: str
    kind: str
    rank: int
    score: float


ServedBy = Literal["context", "rules", "session_start"]
"""What served a record's items: a `context` request (its query asked), the `rules` query (GraphQL
and MCP) or the session-start hook (both ask nothing: their query text is empty)."""


@dataclass(frozen=True)
class ContextQueryRecord:
    """One serving to record: who asked what, when, and the items it got back.

    A `context` request, or the rules a `rules` query or the session-start hook served (`source`).
    """

    project: str
    query: str
    items: tuple[ContextItemRef, ...]
    at_ms: int
    principal: str = ""
    request_id: str = ""
    source: ServedBy = "context"

    @property
    def id(self) -> str:
        """The ContextQuery id (deterministic: project, time, request id, query text, source)."""
        extra = () if self.source == "context" else (self.source,)
        return make_id(
            "context_query", self.project, self.at_ms, self.request_id, self.query, *extra
        )


@dataclass(frozen=True)
class Served:
    """How often a knowledge item was served (GOT edges), and when last (epoch ms)."""

    id: str
    last_served_at: int
    served_count: int


@dataclass(frozen=True)
class RecordedQuery:
    """A recorded `context` request."""

    id: str
    query: str
    at: datetime
    item_ids: tuple[str, ...]


class ContextQueryRepository:
    """Writes one `ContextQuery` node per request with `GOT` edges to the items returned."""

    def __init__(self, db: GraphDB) -> None:
        self.db = db

    async def record(
        self,
        *,
        project: str,
        query: str,
        items: Sequence[ContextItemRef],
        principal: str = "",
        at: datetime | None = None,
        request_id: str = "",
        source: ServedBy = "context",
    ) -> str:
        """Store the request and link its items; returns the ContextQuery id."""
        record = ContextQueryRecord(
            project=project,
            query=query,
            items=tuple(items),
            at_ms=now_ms() if at is None else to_ms(at),
            principal=principal,
            request_id=request_id,
            source=source,
        )
        [qid] = await self.record_many([record])
        return qid

    async def record_many(self, records: Sequence[ContextQueryRecord]) -> list[str]:
        """Store many requests in one write; returns their ContextQuery ids."""
        if not records:
            return []
        ids = [r.id for r in records]
        rows = []
        links: dict[str, list[dict[str, object]]] = {param: [] for param in _LINKS.values()}
        for qid, r in zip(ids, records, strict=True):
            rows.append(
                {
                    "id": qid,
                    "project": r.project,
                    "text": storable_text(r.query[:2000]),
                    "at": r.at_ms,
                    "principal": r.principal,
                    "item_ids": [i.id for i in r.items],
                    "source": r.source,
                }
            )
            for i in r.items:
                param = _LINKS.get(i.kind)
                if param is not None:  # another kind names no node: nothing to link
                    links[param].append(
                        {"query": qid, "id": i.id, "rank": i.rank, "score": float(i.score)}
                    )
        await self.db.write(_RECORD_MANY, rows=rows, open=OPEN, **links)
        return ids

    async def served(
        self, project: str | None, ids: Sequence[str], *, now_ms: int
    ) -> dict[str, Served]:
        """When each of `ids` (of `project`, None: any) was last served by `now_ms`, how often.

        Every serving the recorder wrote counts (`context`, `rules`, the session-start hook); an
        item never served is absent.
        """
        if not ids:
            return {}
        rows = await self.db.read(
            _SERVED, project=project, ids=list(dict.fromkeys(ids)), now=now_ms
        )
        return {
            str(r["id"]): Served(str(r["id"]), int(r["last_served_at"]), int(r["served_count"]))
            for r in rows
        }

    async def recent(
        self, project: str, *, since: datetime | None = None, limit: int = 50
    ) -> list[RecordedQuery]:
        """The project's latest requests, newest first."""
        rows = await self.db.read(
            _RECENT, project=project, since=0 if since is None else to_ms(since), limit=limit
        )
        return [
            RecordedQuery(r["id"], r["query"], from_ms(int(r["at"])), tuple(r["item_ids"] or ()))
            for r in rows
        ]
