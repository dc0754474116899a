"""`RemActionRepository`: the journal of applied REM actions and the writes that undo them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graph.cypher import Q
from graph.db import GraphDB
from graph.records import rem_action_from_record, rem_action_to_row
from graph.rows import RemActionRecord

_SNAPSHOT = Q("rem_action.snapshot")
_RESTORE = Q("rem_action.restore")
_UNLINK = Q("rem_action.unlink")
_RECORD = Q("rem_action.record_many")
_LIST_BY_RUN = Q("rem_action.list_by_run")
_MARK_UNDONE = Q("rem_action.mark_undone")


class RemActionRepository:
    """Before-images of knowledge items, the action journal, and undo."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def snapshot(
        self, ids: Sequence[str], now_ms: int, *, current: bool = True
    ) -> dict[str, dict[str, Any]]:
        """Stored properties (no embedding) of the items among `ids`, by id.

        Only current items unless `current` is false.
        """
        if not ids:
            return {}
        rows = await self._db.read(
            _SNAPSHOT, ids=list(dict.fromkeys(ids)), now=now_ms, current=current
        )
        return {
            str(r["id"]): {k: v for k, v in dict(r["props"]).items() if k != "embedding"}
            for r in rows
        }

    async def record(self, actions: Sequence[RemActionRecord]) -> None:
        """Journal applied actions (idempotent by id)."""
        if actions:
            await self._db.write(_RECORD, rows=[rem_action_to_row(a) for a in actions])

    async def of_run(self, run_id: str) -> list[RemActionRecord]:
        """The run's actions not undone yet, latest first."""
        rows = await self._db.read(_LIST_BY_RUN, run_id=run_id)
        return [rem_action_from_record(r["props"]) for r in rows]

    async def restore(
        self, before: Mapping[str, Mapping[str, Any]], after: Mapping[str, Mapping[str, Any]]
    ) -> int:
        """Put items back to `before`; properties only in `after` are removed."""
        rows = []
        for id_, props in before.items():
            dropped = {k: None for k in after.get(id_, {}) if k not in props and k != "embedding"}
            rows.append({"id": id_, "props": {**dropped, **props}})
        if not rows:
            return 0
        return len(await self._db.write(_RESTORE, rows=rows))

    async def unlink(self, edges: Sequence[tuple[str, str, str]], at_ms: int) -> int:
        """Delete edges `(type, source, target)` created at `at_ms`."""
        if not edges:
            return 0
        rows = [{"type": t, "source_id": s, "target_id": d, "at": at_ms} for t, s, d in edges]
        out = await self._db.write(_UNLINK, rows=rows)
        return sum(int(r["n"]) for r in out)

    async def mark_undone(self, ids: Sequence[str], now_ms: int) -> None:
        """Mark journal entries undone."""
        if ids:
            await self._db.write(_MARK_UNDONE, ids=list(ids), now=now_ms)
