"""Per-request GraphQL context: the caller, the shared resources and fresh DataLoaders."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from graphql import GraphQLError
from strawberry.dataloader import DataLoader
from strawberry.fastapi import BaseContext

from api.auth import Principal
from api.config import ApiSettings
from api.services import Resources
from core.timeutil import now_ms
from graph.errors import InvalidInputError
from graph.models import LessonVersion, Project, Session, TopicBrief, Turn


class ForbiddenError(Exception):
    """Raised when a caller names a project its key does not cover."""

    def __init__(self, project: str) -> None:
        super().__init__(f"this API key does not grant access to project {project!r}")
        self.project = project


@dataclass
class Loaders:
    """Batching loaders, created fresh for every request so caches never leak between callers."""

    project: DataLoader[str, Project | None]
    session: DataLoader[str, Session | None]
    turn: DataLoader[str, Turn | None]
    session_turns: DataLoader[tuple[str, int, int], list[Turn]]
    lesson_versions: DataLoader[str, list[LessonVersion]]
    topic_brief: DataLoader[tuple[str, int, int], TopicBrief | None]
    """A topic's brief by `(topic_id, as_of_ms, known_at_ms)`."""


def make_loaders(resources: Resources, principal: Principal) -> Loaders:
    """Loaders bound to one caller's scope."""
    scoped = resources.scoped
    scope = principal.projects

    async def projects(ids: list[str]) -> list[Project | None]:
        return await scoped.projects_get(ids, scope)

    async def sessions(ids: list[str]) -> list[Session | None]:
        return await scoped.sessions.get_many(ids, scope)

    async def turns(ids: list[str]) -> list[Turn | None]:
        return await scoped.turns_get(ids, scope)

    async def session_turns(keys: list[tuple[str, int, int]]) -> list[list[Turn]]:
        return await scoped.session_turns(keys, scope)

    async def lesson_versions(ids: list[str]) -> list[list[LessonVersion]]:
        return await scoped.lesson_versions(ids, scope)

    async def topic_briefs(keys: list[tuple[str, int, int]]) -> list[TopicBrief | None]:
        found: dict[tuple[str, int, int], TopicBrief | None] = {}
        for as_of, known_at in sorted({(a, k) for _, a, k in keys}):
            ids = sorted({t for t, a, k in keys if (a, k) == (as_of, known_at)})
            got = await scoped.topic_briefs(ids, scope, as_of=as_of, known_at=known_at)
            found.update({(t, as_of, known_at): b for t, b in zip(ids, got, strict=True)})
        return [found[k] for k in keys]

    return Loaders(
        project=DataLoader(load_fn=projects),
        session=DataLoader(load_fn=sessions),
        turn=DataLoader(load_fn=turns),
        session_turns=DataLoader(load_fn=session_turns),
        lesson_versions=DataLoader(load_fn=lesson_versions),
        topic_brief=DataLoader(load_fn=topic_briefs),
    )


class Context(BaseContext):
    """What every resolver receives as `info.context`."""

    def __init__(
        self,
        *,
        resources: Resources,
        settings: ApiSettings,
        principal: Principal,
        request_id: str | None = None,
    ) -> None:
        super().__init__()
        self.resources = resources
        self.settings = settings
        self.principal = principal
        self.request_id = request_id or uuid.uuid4().hex[:16]
        self.loaders = make_loaders(resources, principal)
        self.now_ms = now_ms()
        self.cost = 0

    def charge(self, field: str, query: str, rows: int) -> None:
        """Charge a `context`/`search` field to the request's budget before it starts working.

        Raises:
            GraphQLError: `COST_LIMIT` when the request would pass `max_request_cost`.
        """
        # out-of-range limits and long queries are refused by the field's own checks
        rows = min(max(rows, 1), self.settings.api.max_limit)
        cost = rows * (1 + min(len(query), 4000) // 250)
        budget = self.settings.api.max_request_cost
        if self.cost + cost > budget:
            raise GraphQLError(
                f"request cost budget exceeded: this {field} costs {cost} (limit × (1 + query "
                f"length // 250)), {self.cost} already spent of {budget} "
                "(REMGRAPH_API__MAX_REQUEST_COST); ask for fewer aliases, a smaller limit or a "
                "shorter query",
                extensions={"code": "COST_LIMIT", "cost": cost, "budget": budget},
            )
        self.cost += cost

    def check_first(self, first: int, field: str = "first") -> int:
        """Refuse page sizes outside 1..`max_limit`."""
        cap = self.settings.api.max_limit
        if not 1 <= first <= cap:
            raise InvalidInputError(field, f"must be between 1 and {cap}, got {first}")
        return first

    def scope(self, project: str | None) -> tuple[str, ...]:
        """The `$projects` for a query optionally narrowed to `project`; raises when not allowed."""
        if project is None:
            return self.principal.projects
        if not self.principal.allows(project):
            raise ForbiddenError(project)
        return (project,)

    def require_project(self, project: str) -> str:
        """`project` if the caller may write to it (explicit projects only for writes)."""
        if not project.strip():
            raise InvalidInputError("project", "must not be empty")
        if not self.principal.allows(project):
            raise ForbiddenError(project)
        return project
