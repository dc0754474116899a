"""`ProjectRepository`: projects and their (Project)-[:HAS_SESSION]->(Session) edges."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from graph.cypher import Q
from graph.models import Edge, Project, Session
from graph.records import Row, edge_to_row, project_from_record, project_to_row
from graph.repositories.base import TemporalRepository, window

_UPSERT = Q("project.upsert_many")
_GET_MANY = Q("project.get_many")
_LIST = Q("project.list")
_CLOSE = Q("project.close")
_LINK_SESSIONS = Q("project.link_sessions")
_CREATE = Q("project.create")


class ProjectRepository(TemporalRepository[Project]):
    """Reads and writes `Project` nodes."""

    kind = "project"
    upsert_query = _UPSERT
    get_many_query = _GET_MANY
    close_query = _CLOSE

    def _row(self, m: Project) -> Row:
        return project_to_row(m)

    def _model(self, r: Mapping[str, Any]) -> Project:
        return project_from_record(r)

    async def create(self, project: Project) -> None:
        """Create a new project; raises `ConflictError` when the slug is already taken."""
        await self.db.write(_CREATE, row=project_to_row(project))

    async def list(
        self,
        *,
        after: str = "",
        limit: int = 100,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> list[Project]:
        """Projects ordered by id, starting after the id `after` (cursor pagination)."""
        a, k = window(as_of, known_at)
        rows = await self.db.read(_LIST, after=after, limit=limit, as_of=a, known_at=k)
        return [self._model(r["node"]) for r in rows]

    async def link_sessions(self, sessions: Sequence[Session]) -> int:
        """Write `(Project)-[:HAS_SESSION]->(Session)` for stored sessions.

        A project node that does not exist yet is created (named after its slug). The edge takes
        the session's times. Returns the number of edges written.
        """
        rows = [
            edge_to_row(
                Edge(
                    type="HAS_SESSION",
                    source_id=s.project,
                    target_id=s.id,
                    valid_from=s.valid_from,
                    valid_to=s.valid_to,
                    recorded_at=s.recorded_at,
                    expired_at=s.expired_at,
                )
            )
            for s in sessions
        ]
        if not rows:
            return 0
        res = await self.db.write(_LINK_SESSIONS, rows=rows)
        return int(res[0]["count"]) if res else 0
