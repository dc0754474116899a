"""`BacklogRepository`: work written now and finished later (the embedding backlog).

Turns written without a vector carry `embed_pending` and the text to embed; `Backlog` nodes hold
deferred steps (a session's queued extraction, due topic weights and project snapshots)
with deterministic ids and an `order_key`, so a drain interrupted anywhere resumes in the order one
uninterrupted drain follows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph.cypher import Q
from graph.db import GraphDB

__all__ = ["BacklogItem", "BacklogRepository"]

_PENDING = Q("turn.pending")
_PENDING_COUNT = Q("turn.pending_count")
_PUT = Q("backlog.put")
_LIST = Q("backlog.list")
_DELETE = Q("backlog.delete")
_COUNTS = Q("backlog.counts")


@dataclass(frozen=True)
class BacklogItem:
    """One deferred step."""

    id: str
    kind: str
    """`extract` (a session's queued extraction), `topic_weights` or `snapshot`."""
    order_key: str
    project: str = ""
    session_id: str = ""
    payload: str = ""
    """JSON the step needs (an extraction's turn ids)."""
    turns: int = 0
    """Turns the step covers (an extraction's), for the status."""


class BacklogRepository:
    """Reads and writes the embedding backlog."""

    def __init__(self, db: GraphDB) -> None:
        self.db = db

    async def pending_turns(self, limit: int) -> list[tuple[str, str]]:
        """Up to `limit` turns without a vector, as (id, text to embed)."""
        rows = await self.db.read(_PENDING, limit=limit)
        return [(str(r["id"]), str(r["text"] or "")) for r in rows]

    async def pending_turn_count(self) -> int:
        """How many turns wait for a vector."""
        rows = await self.db.read(_PENDING_COUNT)
        return int(rows[0]["count"]) if rows else 0

    async def status(self) -> dict[str, int]:
        """What is pending, zeros included.

        `turns`: turns without a vector; `extract`: sessions whose extraction is queued;
        `extract_turns`: the turns those cover; then items per other kind (`topic_weights`,
        `snapshot`).
        """
        out = {"turns": await self.pending_turn_count(), "extract": 0, "extract_turns": 0}
        for r in await self.db.read(_COUNTS):
            out[str(r["kind"])] = int(r["count"])
            if r["kind"] == "extract":
                out["extract_turns"] = int(r["turns"] or 0)
        return out

    async def put(self, items: Sequence[BacklogItem]) -> None:
        """Write items (idempotent on id)."""
        if items:
            rows = [
                {
                    "id": i.id,
                    "kind": i.kind,
                    "order_key": i.order_key,
                    "project": i.project,
                    "session_id": i.session_id,
                    "payload": i.payload,
                    "turns": i.turns,
                }
                for i in items
            ]
            await self.db.write(_PUT, rows=rows)

    async def list(self, kind: str, limit: int = 100) -> list[BacklogItem]:
        """Items of one kind, in processing order."""
        rows = await self.db.read(_LIST, kind=kind, limit=limit)
        return [
            BacklogItem(
                id=str(r["id"]),
                kind=str(r["kind"]),
                order_key=str(r["order_key"] or ""),
                project=str(r["project"] or ""),
                session_id=str(r["session_id"] or ""),
                payload=str(r["payload"] or ""),
                turns=int(r["turns"] or 0),
            )
            for r in rows
        ]

    async def delete(self, ids: Sequence[str]) -> None:
        """Remove applied items."""
        if ids:
            await self.db.write(_DELETE, ids=list(ids))
