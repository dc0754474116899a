"""Reads behind the HTML report (`remgraph rem report --html`): aggregates, scoped by project."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph.cypher import Q
from graph.db import GraphDB

_TOPIC_MENTIONS = Q("report.topic_mentions_by_day")
_CORRECTION_STATUSES = Q("report.correction_statuses")
_TURNS_PER_DAY = Q("report.turns_per_day")

DAY_MS = 86_400_000


@dataclass(frozen=True)
class TopicDay:
    """Mentions of one topic on one day (days since the epoch, UTC) in one project."""

    topic_id: str
    title: str
    project: str
    day: int
    mentions: int
    sessions: tuple[str, ...]


@dataclass(frozen=True)
class StatusCount:
    """How many open corrections have a status (and are confirmed or not)."""

    status: str
    confirmed: bool
    count: int


@dataclass(frozen=True)
class IngestDay:
    """Turns recorded (ingested) on one day, and the sessions they belong to."""

    day: int
    turns: int
    sessions: int


class ReportRepository:
    """Aggregates for the report; `projects` is a scope (`*` = all)."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def topic_mentions_by_day(self, projects: Sequence[str], now: int) -> list[TopicDay]:
        rows = await self._db.read(_TOPIC_MENTIONS, projects=list(projects), now=now, day_ms=DAY_MS)
        return [
            TopicDay(
                topic_id=r["topic_id"],
                title=r["title"] or r["topic_id"],
                project=r["project"],
                day=int(r["day"]),
                mentions=int(r["mentions"]),
                sessions=tuple(sorted(s for s in r["sessions"] if s)),
            )
            for r in rows
        ]

    async def correction_statuses(self, projects: Sequence[str], now: int) -> list[StatusCount]:
        rows = await self._db.read(_CORRECTION_STATUSES, projects=list(projects), now=now)
        return [StatusCount(r["status"], bool(r["confirmed"]), int(r["n"])) for r in rows]

    async def turns_per_day(self, projects: Sequence[str], now: int) -> list[IngestDay]:
        rows = await self._db.read(_TURNS_PER_DAY, projects=list(projects), now=now, day_ms=DAY_MS)
        return [IngestDay(int(r["day"]), int(r["turns"]), int(r["sessions"])) for r in rows]
