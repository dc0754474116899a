"""Scoped reads behind the GraphQL queries: every query takes `$projects` (the caller's scope)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph.cypher import Q
from graph.db import GraphDB
from graph.models import Project, Session, Turn
from graph.records import project_from_record, session_from_record, turn_from_record

_PROJECTS_PAGE = Q("context.projects_page")
_PROJECTS_GET = Q("context.projects_get")
_SESSIONS_GET = Q("context.sessions_get")
_SESSIONS_PAGE = Q("context.sessions_page")
_TURNS_GET = Q("context.turns_get")
_SESSION_TURNS = Q("context.session_turns")


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

    async def sessions_get(
        self, ids: Sequence[str], projects: Sequence[str]
    ) -> list[Session | None]:
        rows = await self._db.read(_SESSIONS_GET, ids=list(ids), projects=list(projects))
        return _by_id(rows, ids, session_from_record)

    async def sessions_page(
        self,
        projects: Sequence[str],
        *,
        project: str | None,
        as_of: int,
        known_at: int,
        skip: int,
        limit: int,
    ) -> list[Session]:
        rows = await self._db.read(
            _SESSIONS_PAGE,
            projects=list(projects),
            project=project,
            as_of=as_of,
            known_at=known_at,
            skip=skip,
            limit=limit,
        )
        return [session_from_record(r["props"]) for r in rows]

    async def turns_get(self, ids: Sequence[str], projects: Sequence[str]) -> list[Turn | None]:
        rows = await self._db.read(_TURNS_GET, ids=list(ids), projects=list(projects))
        return _by_id(rows, ids, turn_from_record)

    async def session_turns(
        self, reqs: Sequence[tuple[str, int, int]], projects: Sequence[str]
    ) -> list[list[Turn]]:
        """One page of turns (by ordinal offset) per `(session_id, skip, limit)` request."""
        keyed = [
            {"key": f"{i}", "session_id": s, "skip": skip, "limit": limit}
            for i, (s, skip, limit) in enumerate(reqs)
        ]
        rows = await self._db.read(_SESSION_TURNS, reqs=keyed, projects=list(projects))
        out: list[list[Turn]] = [[] for _ in reqs]
        for r in rows:
            out[int(r["key"])].append(turn_from_record(r["props"]))
        for page in out:
            page.sort(key=lambda t: t.ordinal)
        return out
