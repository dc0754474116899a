"""Scoped reads behind the GraphQL queries: every query takes `$projects` (the caller's scope)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph.cypher import Q
from graph.db import GraphDB
from graph.models import Correction, Fact, Lesson, LessonVersion, Project, Topic, Turn
from graph.records import (
    correction_from_record,
    fact_from_record,
    lesson_from_record,
    lesson_version_from_record,
    project_from_record,
    session_from_record,
    topic_from_record,
    turn_from_record,
)

_PROJECTS_PAGE = Q("context.projects_page")
_PROJECTS_GET = Q("context.projects_get")
_SESSIONS_GET = Q("context.sessions_get")
_SESSIONS_PAGE = Q("context.sessions_page")
_TURNS_GET = Q("context.turns_get")
_SESSION_TURNS = Q("context.session_turns")
_LESSON_VERSIONS = Q("context.lesson_versions")
_LESSON_FEEDBACK = Q("context.lesson_feedback")
_CORRECTION_FEEDBACK = Q("context.correction_feedback")
_CONFIRM_CORRECTION = Q("context.confirm_correction")
_CLOSE_FACT = Q("context.close_fact")
_PAGES = {
    "session": (_SESSIONS_PAGE, _SESSIONS_GET, session_from_record),
    "lesson": (Q("context.lessons_page"), Q("context.lessons_get"), lesson_from_record),
    "correction": (
        Q("context.corrections_page"),
        Q("context.corrections_get"),
        correction_from_record,
    ),
    "fact": (Q("context.facts_page"), Q("context.facts_get"), fact_from_record),
    "topic": (Q("context.topics_page"), Q("context.topics_get"), topic_from_record),
}


def _by_id(rows: list[dict[str, Any]], ids: Sequence[str], conv: Any) -> list[Any]:
    found = {r["id"]: conv(r["props"]) for r in rows}
    return [found.get(i) for i in ids]


class ScopedReader:
    """Read-only queries for the API; a row outside `projects` is never returned."""

    def __init__(self, db: GraphDB) -> None:
        self._db = db

    async def projects_get(
        self, ids: Sequence[str], projects: Sequence[str]
    ) -> list[Project | None]:
        rows = await self._db.read(_PROJECTS_GET, ids=list(ids), projects=list(projects))
        return _by_id(rows, ids, project_from_record)

    async def projects_page(self, projects: Sequence[str], skip: int, limit: int) -> list[Project]:
        rows = await self._db.read(_PROJECTS_PAGE, projects=list(projects), skip=skip, limit=limit)
        return [project_from_record(r["props"]) for r in rows]

    async def turns_get(self, ids: Sequence[str], projects: Sequence[str]) -> list[Turn | None]:
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

    async def page(
        self,
        kind: str,
        projects: Sequence[str],
        *,
        project: str | None,
        as_of: int,
        known_at: int,
        skip: int,
        limit: int,
    ) -> list[Any]:
        """A page of sessions, lessons, corrections, facts or topics (`kind`) as of a time."""
        page_q, _, conv = _PAGES[kind]
        rows = await self._db.read(
            page_q,
            projects=list(projects),
            project=project,
            as_of=as_of,
            known_at=known_at,
            skip=skip,
            limit=limit,
        )
        return [conv(r["props"]) for r in rows]

    async def get_many(self, kind: str, ids: Sequence[str], projects: Sequence[str]) -> list[Any]:
        """Sessions, lessons, corrections, facts or topics by id, in order (None: not readable)."""
        _, get_q, conv = _PAGES[kind]
        rows = await self._db.read(get_q, ids=list(ids), projects=list(projects))
        return _by_id(rows, ids, conv)

    async def lesson_versions(
        self, ids: Sequence[str], projects: Sequence[str]
    ) -> list[list[LessonVersion]]:
        """Version history of each lesson, oldest first."""
        rows = await self._db.read(_LESSON_VERSIONS, ids=list(ids), projects=list(projects))
        out: dict[str, list[LessonVersion]] = {}
        for r in rows:
            out.setdefault(r["lesson_id"], []).append(lesson_version_from_record(r["props"]))
        return [out.get(i, []) for i in ids]

    async def record_feedback(
        self, kind: str, item_id: str, projects: Sequence[str], now: int, signal: str
    ) -> dict[str, Any] | None:
        """Count one use (and a helpful/harmful verdict) of a lesson or correction."""
        q = _LESSON_FEEDBACK if kind == "lesson" else _CORRECTION_FEEDBACK
        rows = await self._db.write(
            q,
            id=item_id,
            projects=list(projects),
            now=now,
            used=1,
            helpful=int(signal == "helpful"),
            harmful=int(signal == "harmful"),
        )
        return rows[0] if rows else None

    async def confirm_correction(
        self, item_id: str, projects: Sequence[str], now: int
    ) -> Correction | None:
        """Mark a correction confirmed; it becomes a rule."""
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


__all__ = ["Correction", "Fact", "Lesson", "ScopedReader", "Topic"]
