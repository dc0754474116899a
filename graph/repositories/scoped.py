"""`ScopedRepository`: the API's reads and agent feedback, limited to the caller's projects.

Every query takes `$projects` (the projects an API key may read; `("*",)` is every project), so a
row outside the caller's scope is never returned or changed, whatever the resolver asks for.
Lookups by id return a list in the order of the ids with None where nothing is readable
(DataLoader-friendly).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from graph.cypher import Q, QueryRef
from graph.db import GraphDB
from graph.errors import InvalidInputError
from graph.kinds import ItemKind
from graph.models import (
    Correction,
    Fact,
    Lesson,
    LessonVersion,
    Project,
    Session,
    Topic,
    TopicBrief,
    Turn,
)
from graph.records import (
    correction_from_record,
    fact_from_record,
    lesson_from_record,
    lesson_version_from_record,
    project_from_record,
    session_from_record,
    topic_brief_from_record,
    topic_from_record,
    turn_from_record,
)

M = TypeVar("M")

_PROJECTS_PAGE = Q("scoped.projects_page")
_PROJECTS_GET = Q("scoped.projects_get")
_SESSIONS_PAGE = Q("scoped.sessions_page")
_SESSIONS_GET = Q("scoped.sessions_get")
_LESSONS_PAGE = Q("scoped.lessons_page")
_LESSONS_GET = Q("scoped.lessons_get")
_CORRECTIONS_PAGE = Q("scoped.corrections_page")
_CORRECTIONS_GET = Q("scoped.corrections_get")
_FACTS_PAGE = Q("scoped.facts_page")
_FACTS_GET = Q("scoped.facts_get")
_TOPICS_PAGE = Q("scoped.topics_page")
_TOPICS_GET = Q("scoped.topics_get")
_TURNS_GET = Q("scoped.turns_get")
_SESSION_TURNS = Q("scoped.session_turns")
_LESSON_VERSIONS = Q("scoped.lesson_versions")
_TOPIC_BRIEFS = Q("scoped.topic_briefs")
_LESSON_FEEDBACK = Q("scoped.lesson_feedback")
_CORRECTION_FEEDBACK = Q("scoped.correction_feedback")
_CONFIRM_CORRECTION = Q("scoped.confirm_correction")
_CLOSE_FACT = Q("scoped.close_fact")
_RETRACT_FACT = Q("scoped.retract_fact")
_CLOSE_CORRECTION = Q("scoped.close_correction")
_RETRACT_CORRECTION = Q("scoped.retract_correction")
_FEEDBACK = {ItemKind.LESSON: _LESSON_FEEDBACK, ItemKind.CORRECTION: _CORRECTION_FEEDBACK}


@dataclass(frozen=True, slots=True)
class FeedbackCounts:
    """A lesson's or correction's usage counters after one piece of feedback."""

    id: str
    usage_count: int
    helpful_count: int
    harmful_count: int
    effectiveness: float
    """(helpful − harmful) / (helpful + harmful + 2), in (−1, 1)."""


def _by_id(
    rows: Sequence[Mapping[str, Any]], ids: Sequence[str], model: Callable[[Mapping[str, Any]], M]
) -> list[M | None]:
    found = {r["id"]: model(r["props"]) for r in rows}
    return [found.get(i) for i in ids]


class ScopedPages(Generic[M]):
    """Pages (as of a time) and id lookups of one kind of node within the caller's projects."""

    def __init__(
        self,
        db: GraphDB,
        page_query: QueryRef,
        get_query: QueryRef,
        model: Callable[[Mapping[str, Any]], M],
    ) -> None:
        self._db = db
        self._page = page_query
        self._get = get_query
        self._model = model

    async def page(
        self,
        projects: Sequence[str],
        *,
        project: str | None,
        as_of: int,
        known_at: int,
        skip: int,
        limit: int,
    ) -> list[M]:
        """`limit` items after the first `skip`, optionally of one `project`, as of a time."""
        rows = await self._db.read(
            self._page,
            projects=list(projects),
            project=project,
            as_of=as_of,
            known_at=known_at,
            skip=skip,
            limit=limit,
        )
        return [self._model(r["props"]) for r in rows]

    async def get_many(self, ids: Sequence[str], projects: Sequence[str]) -> list[M | None]:
        """Items by id in the order of `ids`; None where not found or not readable."""
        rows = await self._db.read(self._get, ids=list(ids), projects=list(projects))
        return _by_id(rows, ids, self._model)


class ScopedRepository:
    """Reads for the API and the feedback agents give; nothing outside `projects` is touched.

    Attributes:
        sessions, lessons, corrections, facts, topics: pages and id lookups of each kind.
    """

    def __init__(self, db: GraphDB) -> None:
        self._db = db
        self.sessions: ScopedPages[Session] = ScopedPages(
            db, _SESSIONS_PAGE, _SESSIONS_GET, session_from_record
        )
        self.lessons: ScopedPages[Lesson] = ScopedPages(
            db, _LESSONS_PAGE, _LESSONS_GET, lesson_from_record
        )
        self.corrections: ScopedPages[Correction] = ScopedPages(
            db, _CORRECTIONS_PAGE, _CORRECTIONS_GET, correction_from_record
        )
        self.facts: ScopedPages[Fact] = ScopedPages(db, _FACTS_PAGE, _FACTS_GET, fact_from_record)
        self.topics: ScopedPages[Topic] = ScopedPages(
            db, _TOPICS_PAGE, _TOPICS_GET, topic_from_record
        )

    async def projects_get(
        self, ids: Sequence[str], projects: Sequence[str]
    ) -> list[Project | None]:
        """Projects by id, in order (None: unknown or not readable)."""
        rows = await self._db.read(_PROJECTS_GET, ids=list(ids), projects=list(projects))
        return _by_id(rows, ids, project_from_record)

    async def projects_page(self, projects: Sequence[str], skip: int, limit: int) -> list[Project]:
        """Readable projects in id order."""
        rows = await self._db.read(_PROJECTS_PAGE, projects=list(projects), skip=skip, limit=limit)
        return [project_from_record(r["props"]) for r in rows]

    async def turns_get(self, ids: Sequence[str], projects: Sequence[str]) -> list[Turn | None]:
        """Turns by id, in order (None: unknown or not readable)."""
        rows = await self._db.read(_TURNS_GET, ids=list(ids), projects=list(projects))
        return _by_id(rows, ids, turn_from_record)

    async def session_turns(
        self, reqs: Sequence[tuple[str, int, int]], projects: Sequence[str]
    ) -> list[list[Turn]]:
        """One page of turns (by ordinal offset) per `(session_id, skip, limit)` request."""
        if not reqs:
            return []
        lo = min(r[1] for r in reqs)
        hi = max(r[1] + r[2] for r in reqs)
        rows = await self._db.read(
            _SESSION_TURNS,
            session_ids=sorted({r[0] for r in reqs}),
            projects=list(projects),
            skip=lo,
            limit=hi - lo,
        )
        by_session: dict[str, list[Turn]] = {}
        for r in rows:
            by_session.setdefault(r["session_id"], []).append(turn_from_record(r["props"]))
        out: list[list[Turn]] = []
        for sid, skip, limit in reqs:
            turns = sorted(by_session.get(sid, []), key=lambda t: t.ordinal)
            out.append([t for t in turns if skip <= t.ordinal < skip + limit])
        return out

    async def lesson_versions(
        self, ids: Sequence[str], projects: Sequence[str]
    ) -> list[list[LessonVersion]]:
        """Version history of each lesson, oldest first."""
        rows = await self._db.read(_LESSON_VERSIONS, ids=list(ids), projects=list(projects))
        out: dict[str, list[LessonVersion]] = {}
        for r in rows:
            out.setdefault(r["lesson_id"], []).append(lesson_version_from_record(r["props"]))
        return [out.get(i, []) for i in ids]

    async def topic_briefs(
        self, topic_ids: Sequence[str], projects: Sequence[str], *, as_of: int, known_at: int
    ) -> list[TopicBrief | None]:
        """Each topic's brief that held at `as_of` as known at `known_at` (None: none readable)."""
        rows = await self._db.read(
            _TOPIC_BRIEFS,
            ids=list(topic_ids),
            projects=list(projects),
            as_of=as_of,
            known_at=known_at,
        )
        out: dict[str, TopicBrief] = {}
        for r in rows:  # ordered by version: the newest that held wins
            out[r["topic_id"]] = topic_brief_from_record(r["props"])
        return [out.get(i) for i in topic_ids]

    async def record_feedback(
        self,
        kind: ItemKind,
        item_id: str,
        projects: Sequence[str],
        *,
        now: int,
        helpful: bool = False,
        harmful: bool = False,
    ) -> FeedbackCounts | None:
        """Count one use of a lesson or correction, and whether it helped or harmed.

        None when the item is not found (or expired) in `projects`; `InvalidInputError` for a
        kind that takes no feedback.
        """
        query = _FEEDBACK.get(kind)
        if query is None:
            raise InvalidInputError("kind", f"{kind} takes no feedback (lesson or correction)")
        rows = await self._db.write(
            query,
            id=item_id,
            projects=list(projects),
            now=now,
            used=1,
            helpful=int(helpful),
            harmful=int(harmful),
        )
        if not rows:
            return None
        r = rows[0]
        return FeedbackCounts(
            id=r["id"],
            usage_count=int(r["usage_count"]),
            helpful_count=int(r["helpful_count"]),
            harmful_count=int(r["harmful_count"]),
            effectiveness=float(r["effectiveness"]),
        )

    async def confirm_correction(
        self, item_id: str, projects: Sequence[str], now: int
    ) -> Correction | None:
        """Mark a correction confirmed; it becomes a rule (None: not found or out of scope)."""
        rows = await self._db.write(
            _CONFIRM_CORRECTION, id=item_id, projects=list(projects), now=now
        )
        return correction_from_record(rows[0]["props"]) if rows else None

    async def close_fact(
        self, item_id: str, projects: Sequence[str], now: int, valid_to: int
    ) -> Fact | None:
        """End a fact's validity at `valid_to`; None when not found, closed, or out of scope."""
        rows = await self._db.write(
            _CLOSE_FACT, id=item_id, projects=list(projects), now=now, valid_to=valid_to
        )
        return fact_from_record(rows[0]["props"]) if rows else None

    async def close_correction(
        self, item_id: str, projects: Sequence[str], now: int, valid_to: int
    ) -> Correction | None:
        """End a correction's validity at `valid_to`; None: not found, closed, or out of scope."""
        rows = await self._db.write(
            _CLOSE_CORRECTION, id=item_id, projects=list(projects), now=now, valid_to=valid_to
        )
        return correction_from_record(rows[0]["props"]) if rows else None

    async def retract_correction(
        self, item_id: str, projects: Sequence[str], now: int
    ) -> Correction | None:
        """Retract a correction extracted wrong (`expired_at` = now); None when not found."""
        rows = await self._db.write(
            _RETRACT_CORRECTION, id=item_id, projects=list(projects), now=now
        )
        return correction_from_record(rows[0]["props"]) if rows else None

    async def retract_fact(self, item_id: str, projects: Sequence[str], now: int) -> Fact | None:
        """Retract a fact found wrong (`expired_at` = now); None when not found or out of scope."""
        rows = await self._db.write(_RETRACT_FACT, id=item_id, projects=list(projects), now=now)
        return fact_from_record(rows[0]["props"]) if rows else None
