"""`ReferenceLayerRepository`: compact per-topic reference documents."""

from __future__ import annotations

from collections.abc import Sequence

from graph.cypher import Q
from graph.db import GraphDB
from graph.models import ReferenceLayer
from graph.records import (
    example_turn_from_record,
    reference_layer_from_record,
    reference_layer_to_row,
)
from graph.rows import ExampleTurn

_LIST = Q("reference_layer.list")
_UPSERT = Q("reference_layer.upsert_many")
_TOPIC_TURNS = Q("reference_layer.topic_turns")
_CONTEXT_TURNS = Q("reference_layer.context_turns")


class ReferenceLayerRepository:
    """Reads and writes `ReferenceLayer` nodes (linked `DESCRIBES` to their topic)."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def list_layers(self, project: str, now_ms: int) -> list[ReferenceLayer]:
        """Live layers of `project`."""
        rows = await self._db.read(_LIST, project=project, now=now_ms)
        return [reference_layer_from_record(r["node"]) for r in rows]

    async def upsert_many(self, layers: Sequence[ReferenceLayer]) -> None:
        """Create or replace layers (one per project and topic)."""
        if layers:
            await self._db.write(_UPSERT, rows=[reference_layer_to_row(x) for x in layers])

    async def topic_turns(
        self, topic_ids: Sequence[str], project: str, now_ms: int, limit: int
    ) -> list[ExampleTurn]:
        """Up to `limit` newest user and assistant turns of `project` mentioning each topic."""
        out: list[ExampleTurn] = []
        ids = list(topic_ids)
        for i in range(0, len(ids), 100):
            rows = await self._db.read(
                _TOPIC_TURNS, ids=ids[i : i + 100], project=project, now=now_ms, limit=limit
            )
            out += [example_turn_from_record(r) for r in rows]
        return out

    async def context_turns(
        self, pairs: Sequence[tuple[str, str]], project: str, now_ms: int
    ) -> list[ExampleTurn]:
        """Turns of `project` next to these (topic id, turn id) mentions, per topic."""
        out: list[ExampleTurn] = []
        rows = [{"topic_id": t, "turn_id": x} for t, x in pairs]
        for i in range(0, len(rows), 500):
            got = await self._db.read(
                _CONTEXT_TURNS, rows=rows[i : i + 500], project=project, now=now_ms
            )
            out += [example_turn_from_record(r) for r in got]
        return sorted(out, key=lambda x: (x.topic_id, x.at_ms, x.id))
