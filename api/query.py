"""`Query`: thin resolvers that check arguments and scope, call one service, map the result."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from api.context import Context, ForbiddenError
from api.types.context import (
    ContextItem,
    ContextPayload,
    SearchHit,
    SearchHitConnection,
    SearchMode,
    TimeRangeType,
)
from api.types.conversation import (
    Project,
    ProjectConnection,
    Session,
    SessionConnection,
    Turn,
)
from api.types.errors import Forbidden, InvalidInput, NotFound, Unavailable
from api.types.knowledge import (
    Correction,
    CorrectionConnection,
    Fact,
    FactConnection,
    Lesson,
    LessonConnection,
    Topic,
    TopicConnection,
)
from api.types.pagination import decode_cursor, make_connection
from core.timeutil import from_ms, now_ms
from graph.errors import InvalidInputError, NotFoundError
from graph.kinds import ItemKind
from graph.repositories.context_queries import ContextItemRef, ContextQueryRecord
from recall.ranking import FULLTEXT, VECTOR, Ranked, rrf
from recall.retrieval import Hit, parse_time

Info = strawberry.Info[Context, None]

ContextResult = Annotated[
    ContextPayload | InvalidInput | Forbidden, strawberry.union("ContextResult")
]
SearchResult = Annotated[
    SearchHitConnection | InvalidInput | Forbidden, strawberry.union("SearchResult")
]
SessionsResult = Annotated[
    SessionConnection | InvalidInput | Forbidden, strawberry.union("SessionsResult")
]
SessionResult = Annotated[Session | NotFound, strawberry.union("SessionResult")]
TurnResult = Annotated[Turn | NotFound, strawberry.union("TurnResult")]
ProjectResult = Annotated[Project | NotFound, strawberry.union("ProjectResult")]
LessonsResult = Annotated[
    LessonConnection | InvalidInput | Forbidden, strawberry.union("LessonsResult")
]
CorrectionsResult = Annotated[
    CorrectionConnection | InvalidInput | Forbidden, strawberry.union("CorrectionsResult")
]
FactsResult = Annotated[FactConnection | InvalidInput | Forbidden, strawberry.union("FactsResult")]
TopicsResult = Annotated[
    TopicConnection | InvalidInput | Forbidden, strawberry.union("TopicsResult")
]


log = logging.getLogger("remgraph.api")


def _record(
    ctx: Context, query: str, project: str | None, scope: Sequence[str], ranked: Sequence[Ranked]
) -> None:
    """Queue what was asked and returned (Browser guide `context_for_query`, REM staleness).

    No I/O here: the app's background recorder writes the queue in batches (`api/recorder.py`),
    and a full queue or a failed write never fails the request.
    """
    ctx.resources.recorder.submit(
        ContextQueryRecord(
            project=project or ",".join(scope),
            query=query,
            items=tuple(
                ContextItemRef(r.candidate.id, r.candidate.kind.value, rank, r.score)
                for rank, r in enumerate(ranked, start=1)
            ),
            at_ms=now_ms(),
            principal=ctx.principal.key_id,
            request_id=ctx.request_id,
        )
    )


@strawberry.type
class RemPayload:
    """REM-cycle entries (JSON objects)."""

    items: list[JSON]


RemResult = Annotated[
    RemPayload | Forbidden | InvalidInput | Unavailable, strawberry.union("RemResult")
]
LessonResult = Annotated[Lesson | NotFound, strawberry.union("LessonResult")]
TopicResult = Annotated[Topic | NotFound, strawberry.union("TopicResult")]
ProjectsResult = Annotated[ProjectConnection | InvalidInput, strawberry.union("ProjectsResult")]


def error_type(e: Exception) -> InvalidInput | NotFound | Forbidden:
    """The schema type for an expected error; anything else is re-raised by the caller."""
    if isinstance(e, InvalidInputError):
        return InvalidInput(field=e.field, message=str(e))
    if isinstance(e, NotFoundError):
        return NotFound(kind=e.kind, id=e.id, message=str(e))
    if isinstance(e, ForbiddenError):
        return Forbidden(project=e.project, message=str(e))
    raise e


EXPECTED = (InvalidInputError, NotFoundError, ForbiddenError)


def _check_query(query: str) -> str:
    if not query.strip():
        raise InvalidInputError("query", "must not be empty")
    if len(query) > 4000:
        raise InvalidInputError("query", f"is {len(query)} characters; the limit is 4000")
    return query


_PAGED: dict[str, tuple[Any, Any]] = {
    "session": (Session, SessionConnection),
    "lesson": (Lesson, LessonConnection),
    "correction": (Correction, CorrectionConnection),
    "fact": (Fact, FactConnection),
    "topic": (Topic, TopicConnection),
}


async def _page(
    info: Info,
    kind: str,
    project: str | None,
    as_of: datetime | None,
    known_at: datetime | None,
    first: int,
    after: str | None,
) -> Any:
    ctx = info.context
    try:
        scope = ctx.scope(project)
        first = ctx.check_first(first)
        offset = decode_cursor(after)
    except EXPECTED as e:
        return error_type(e)
    now = ctx.now_ms
    items = await ctx.resources.reader.page(
        kind,
        scope,
        project=project,
        as_of=parse_time(as_of) or now,
        known_at=parse_time(known_at) or now,
        skip=offset,
        limit=first + 1,
    )
    node, conn = _PAGED[kind]
    return make_connection(conn, [node.from_domain(m) for m in items], offset, first)


async def _get(info: Info, kind: str, id: str) -> Any:
    ctx = info.context
    [m] = await ctx.resources.reader.get_many(kind, [id], ctx.principal.projects)
    if m is None:
        return NotFound(kind=kind, id=id, message=f"{kind} {id!r} not found")
    return _PAGED[kind][0].from_domain(m)


@strawberry.type
class Query:
    """Read access to a project's memory."""

    @strawberry.field
    async def context(
        self,
        info: Info,
        query: str,
        project: str | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        token_budget: int | None = None,
        limit: int = 20,
        kinds: list[ItemKind] | None = None,
    ) -> ContextResult:
        """The best context for `query` that fits `tokenBudget`, ranked, with the reasons."""
        ctx = info.context
        api = ctx.settings.api
        try:
            _check_query(query)
            scope = ctx.scope(project)
            limit = ctx.check_first(limit, "limit")
            budget = api.default_token_budget if token_budget is None else token_budget
            if not 1 <= budget <= api.max_token_budget:
                raise InvalidInputError(
                    "tokenBudget", f"must be between 1 and {api.max_token_budget}, got {budget}"
                )
            result = await ctx.resources.retrieval.context(
                query,
                scope,
                limit=limit,
                token_budget=budget,
                as_of=parse_time(as_of),
                known_at=parse_time(known_at),
                kinds=None if kinds is None else frozenset(kinds),
            )
        except EXPECTED as e:
            return error_type(e)  # type: ignore[return-value]  # NotFound cannot occur here
        _record(ctx, query, project, scope, result.items)
        items = [ContextItem.from_ranked(r) for r in result.items]
        return ContextPayload(
            items=items,
            total_tokens=sum(i.tokens for i in items),
            candidates=result.candidates,
            terms=list(result.intent.terms),
            speakers=list(result.intent.speakers),
            time_ranges=[
                TimeRangeType(label=t.label, start=from_ms(t.start_ms), end=from_ms(t.end_ms))
                for t in result.intent.times
            ],
        )

    @strawberry.field
    async def search(
        self,
        info: Info,
        query: str,
        mode: SearchMode = SearchMode.HYBRID,
        project: str | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> SearchResult:
        """Turns matching `query` by fulltext, vector similarity or both (RRF); no reranking."""
        ctx = info.context
        try:
            _check_query(query)
            scope = ctx.scope(project)
            first = ctx.check_first(first)
            offset = decode_cursor(after)
            want = offset + first + 1
            if want > ctx.settings.api.max_limit * 5:
                raise InvalidInputError("after", "search pages end at 5 × the maximum page size")
            now = ctx.now_ms
            as_of_ms = parse_time(as_of) or now
            known_ms = parse_time(known_at) or now
            ret = ctx.resources.retrieval
            ft: list[Hit] = []
            vec: list[Hit] = []
            if mode in (SearchMode.FULLTEXT, SearchMode.HYBRID):
                ft = await ret.fulltext(query, scope, k=want, as_of=as_of_ms, known_at=known_ms)
            if mode in (SearchMode.VECTOR, SearchMode.HYBRID):
                if not ret.has_vectors and mode is SearchMode.VECTOR:
                    raise InvalidInputError("mode", "no embedder is configured for VECTOR search")
                v = await ret.embed_query(query)
                vec = await ret.vector(v, scope, k=want, as_of=as_of_ms, known_at=known_ms)
        except EXPECTED as e:
            return error_type(e)  # type: ignore[return-value]  # NotFound cannot occur here
        if mode is SearchMode.HYBRID:
            ranks: dict[str, dict[str, int]] = {}
            for src, hits in ((FULLTEXT, ft), (VECTOR, vec)):
                for i, h in enumerate(hits, start=1):
                    ranks.setdefault(h.id, {})[src] = i
            k = ctx.settings.ranking.rrf_k
            weights = {FULLTEXT: 1.0, VECTOR: 1.0}
            fused = sorted(
                ((rrf(r, weights, k), i) for i, r in ranks.items()), key=lambda x: (-x[0], x[1])
            )
            hits = [Hit(i, s) for s, i in fused]
        else:
            hits = ft if mode is SearchMode.FULLTEXT else vec
        page = [
            SearchHit(id=strawberry.ID(h.id), score=h.score, kind=ItemKind.TURN)
            for h in hits[offset:want]
        ]
        return make_connection(SearchHitConnection, page, offset, first)

    @strawberry.field
    async def project(self, info: Info, id: str) -> ProjectResult:
        """One project the caller may read."""
        p = await info.context.loaders.project.load(id)
        if p is None:
            return NotFound(kind="project", id=id, message=f"project {id!r} not found")
        return Project.from_domain(p)

    @strawberry.field
    async def projects(
        self, info: Info, first: int = 20, after: str | None = None
    ) -> ProjectsResult:
        """Projects the caller may read."""
        ctx = info.context
        try:
            first = ctx.check_first(first)
            offset = decode_cursor(after)
        except EXPECTED as e:
            return error_type(e)  # type: ignore[return-value]  # only InvalidInput can occur here
        items = await ctx.resources.reader.projects_page(ctx.principal.projects, offset, first + 1)
        return make_connection(
            ProjectConnection, [Project.from_domain(p) for p in items], offset, first
        )

    @strawberry.field
    async def session(self, info: Info, id: str) -> SessionResult:
        """One session by id."""
        s = await info.context.loaders.session.load(id)
        if s is None:
            return NotFound(kind="session", id=id, message=f"session {id!r} not found")
        return Session.from_domain(s)

    @strawberry.field
    async def sessions(
        self,
        info: Info,
        project: str | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> SessionsResult:
        """Sessions, newest first, as of a time."""
        return await _page(info, "session", project, as_of, known_at, first, after)  # type: ignore[no-any-return]  # union

    @strawberry.field
    async def turn(self, info: Info, id: str) -> TurnResult:
        """One turn by id."""
        t = await info.context.loaders.turn.load(id)
        if t is None:
            return NotFound(kind="turn", id=id, message=f"turn {id!r} not found")
        return Turn.from_domain(t)

    @strawberry.field
    async def lesson(self, info: Info, id: str) -> LessonResult:
        """One lesson, with its version history."""
        return await _get(info, "lesson", id)  # type: ignore[no-any-return]  # union

    @strawberry.field
    async def lessons(
        self,
        info: Info,
        project: str | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> LessonsResult:
        """Lessons valid at `asOf` as known at `knownAt`, newest first."""
        return await _page(info, "lesson", project, as_of, known_at, first, after)  # type: ignore[no-any-return]  # union

    @strawberry.field
    async def corrections(
        self,
        info: Info,
        project: str | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> CorrectionsResult:
        """Corrections and rules valid at `asOf`, newest first."""
        return await _page(info, "correction", project, as_of, known_at, first, after)  # type: ignore[no-any-return]  # union

    @strawberry.field
    async def facts(
        self,
        info: Info,
        project: str | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> FactsResult:
        """Facts that held at `asOf` (default now) as known at `knownAt`."""
        return await _page(info, "fact", project, as_of, known_at, first, after)  # type: ignore[no-any-return]  # union

    @strawberry.field
    async def topic(self, info: Info, id: str) -> TopicResult:
        """One topic."""
        return await _get(info, "topic", id)  # type: ignore[no-any-return]  # union

    @strawberry.field
    async def topics(
        self,
        info: Info,
        project: str | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> TopicsResult:
        """Topics discussed in the readable projects, heaviest first."""
        return await _page(info, "topic", project, as_of, known_at, first, after)  # type: ignore[no-any-return]  # union

    @strawberry.field
    async def rem_status(self, info: Info, project: str) -> RemResult:
        """Per-job REM-cycle state of a project (last run, next due) as JSON."""
        return await _rem(info, project, None, status_only=True)  # type: ignore[no-any-return]  # union

    @strawberry.field
    async def rem_findings(self, info: Info, project: str, status: str | None = None) -> RemResult:
        """Findings of the REM cycle awaiting review (or with `status`) as JSON."""
        return await _rem(info, project, status, status_only=False)  # type: ignore[no-any-return]  # union


async def _rem(info: Info, project: str, status: str | None, *, status_only: bool) -> Any:
    ctx = info.context
    try:
        scope = ctx.require_project(project)
    except EXPECTED as e:
        return error_type(e)
    cons = ctx.resources.services.consolidator
    if cons is None:
        return Unavailable(capability="consolidate", message="no consolidation is configured")
    if status_only:
        items = await cons.rem_status(project=scope)
    else:
        items = await cons.findings(project=scope, status=status)
    return RemPayload(items=[JSON(dict(i)) for i in items])


__all__ = ["EXPECTED", "ItemKind", "Query", "error_type"]
