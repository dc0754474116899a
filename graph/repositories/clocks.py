"""`ClockRepository`: the graph's turn clock and knowledge clock, read together.

Each clock is one node holding a sequence number and an epoch: the turn clock moves on every turn
and session write (`cypher/turn_index/bump.cypher`), the knowledge clock on every write that may
change knowledge (`cypher/knowledge_clock/bump.cypher`, put into each such write by the registry).
They hold no project's data, so reading them is not scoped. What each turn write changed is read by
project (`RecallRepository.turn_changes`).
"""

from __future__ import annotations

from dataclasses import dataclass

from graph.cypher import Q
from graph.db import GraphDB

_CLOCKS = Q("clock.read")
_PROJECTS = Q("turn_index.projects")
_KNOWLEDGE_TICK = Q("knowledge_clock.tick")


@dataclass(frozen=True)
class TurnClock:
    """The graph's turn clock (`cypher/turn_index/bump.cypher`): it moves on every turn write."""

    epoch: int
    """Set when the clock is made and when turns are deleted (a project purged)."""
    seq: int
    """The sequence number of the last write to a turn or a session."""
    kept_from: int = 0
    """The oldest write whose changes are still logged (older ones were pruned)."""


@dataclass(frozen=True)
class KnowledgeClock:
    """The graph's knowledge clock: it moves on every write that may change a knowledge item."""

    epoch: int
    """Set when the clock node is made (again, after a wipe)."""
    seq: int


@dataclass(frozen=True)
class Clocks:
    """Both clocks as one read saw them; None for a clock no write has made yet."""

    turns: TurnClock | None
    knowledge: KnowledgeClock | None


class ClockRepository:
    """Reads the clocks, and which projects hold turns (to load their indexes early)."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def read(self) -> Clocks:
        """Both clocks now, in one query."""
        rows = await self._db.read(_CLOCKS)
        if not rows:
            return Clocks(None, None)
        r = rows[0]
        turns = (
            None
            if r["epoch"] is None
            else TurnClock(int(r["epoch"]), int(r["seq"] or 0), int(r["kept_from"] or 0))
        )
        knowledge = (
            None
            if r["knowledge_epoch"] is None
            else KnowledgeClock(int(r["knowledge_epoch"]), int(r["knowledge_seq"] or 0))
        )
        return Clocks(turns, knowledge)

    async def start_knowledge_clock(self) -> None:
        """Make the knowledge clock if no write has yet (a graph written before it existed).

        Until it exists nothing is kept in process (`recall.knowledge_cache`); once it does, every
        knowledge write moves it.
        """
        if await self.knowledge_clock() is None:
            await self._db.write(_KNOWLEDGE_TICK)

    async def turn_clock(self) -> TurnClock | None:
        """The turn clock, None before the first turn write of this graph."""
        return (await self.read()).turns

    async def knowledge_clock(self) -> KnowledgeClock | None:
        """The knowledge clock, None until a knowledge write or a serving process makes it."""
        return (await self.read()).knowledge

    async def projects(self) -> list[str]:
        """The projects holding turns, most turns first (never shown to a caller)."""
        rows = await self._db.read(_PROJECTS)
        return [str(r["project"]) for r in rows if r["project"]]
