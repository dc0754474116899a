"""`TurnClockRepository`: the graph's turn clock, which every turn and session write moves.

The clock is one node holding a sequence number and an epoch (`cypher/turn_index/`); it holds no
project's data, so reading it is not scoped. What each write changed is read by project
(`RecallRepository.turn_changes`).
"""

from __future__ import annotations

from dataclasses import dataclass

from graph.cypher import Q
from graph.db import GraphDB

_TURN_CLOCK = Q("turn_index.clock")
_PROJECTS = Q("turn_index.projects")


@dataclass(frozen=True)
class TurnClock:
    """The graph's turn clock (`cypher/turn_index/bump.cypher`): it moves on every turn write."""

    epoch: int
    """Set when the clock is made and when turns are deleted (a project purged)."""
    seq: int
    """The sequence number of the last write to a turn or a session."""
    kept_from: int = 0
    """The oldest write whose changes are still logged (older ones were pruned)."""


class TurnClockRepository:
    """Reads the turn clock, and which projects hold turns (to load their indexes early)."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def read(self) -> TurnClock | None:
        """The turn clock, None before the first turn write of this graph."""
        rows = await self._db.read(_TURN_CLOCK)
        if not rows or rows[0]["epoch"] is None:
            return None
        r = rows[0]
        return TurnClock(int(r["epoch"]), int(r["seq"] or 0), int(r["kept_from"] or 0))

    async def projects(self) -> list[str]:
        """The projects holding turns, most turns first (never shown to a caller)."""
        rows = await self._db.read(_PROJECTS)
        return [str(r["project"]) for r in rows if r["project"]]
