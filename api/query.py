"""`Query`: thin resolvers that check arguments and scope, call one service, map the result."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Annotated, TypeVar

import strawberry
from strawberry.scalars import JSON

from api.context import Context, ForbiddenError
from api.rules import RulesResult, resolve_rules
from api.types.context import (
    ContextItem,
    ContextPayload,
    SearchHit,
    SearchHitConnection,
    Signal,
    TimeRangeType,
)
from api.types.conversation import (
    Project,
    ProjectConnection,
    Session,
    SessionConnection,
    Turn,
)
from api.types.docs import AsOfArg, KnownAtArg, described_field
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
from api.types.pagination import AfterArg, C, FirstArg, decode_cursor, make_connection
from core.timeutil import from_ms, now_ms, parse_ms
from graph.errors import InvalidInputError
from graph.kinds import ItemKind
from graph.repositories.context_queries import ContextItemRef, ContextQueryRecord
from graph.repositories.scoped import ScopedPages
from recall.ranking import Ranked
from recall.search import SearchMode

Info = strawberry.Info[Context, None]
M = TypeVar("M")
N = TypeVar("N")

_REFUSED_WHY = "or why the request was refused (a bad argument or a project the key lacks)."

ContextResult = Annotated[
    ContextPayload | InvalidInput | Forbidden,
    strawberry.union("ContextResult", description=f"The answer to `context`, {_REFUSED_WHY}"),
]
SearchResult = Annotated[
    SearchHitConnection | InvalidInput | Forbidden,
    strawberry.union("SearchResult", description=f"A page of search hits, {_REFUSED_WHY}"),
]
SessionsResult = Annotated[
    SessionConnection | InvalidInput | Forbidden,
    strawberry.union("SessionsResult", description=f"A page of sessions, {_REFUSED_WHY}"),
]
SessionResult = Annotated[
    Session | NotFound,
    strawberry.union("SessionResult", description="The session, or `NotFound`."),
]
TurnResult = Annotated[
    Turn | NotFound, strawberry.union("TurnResult", description="The turn, or `NotFound`.")
]
ProjectResult = Annotated[
    Project | NotFound,
    strawberry.union("ProjectResult", description="The project, or `NotFound`."),
]
LessonsResult = Annotated[
    LessonConnection | InvalidInput | Forbidden,
    strawberry.union("LessonsResult", description=f"A page of lessons, {_REFUSED_WHY}"),
]
CorrectionsResult = Annotated[
    CorrectionConnection | InvalidInput | Forbidden,
    strawberry.union("CorrectionsResult", description=f"A page of corrections, {_REFUSED_WHY}"),
]
FactsResult = Annotated[
    FactConnection | InvalidInput | Forbidden,
    strawberry.union("FactsResult", description=f"A page of facts, {_REFUSED_WHY}"),
]
TopicsResult = Annotated[
    TopicConnection | InvalidInput | Forbidden,
    strawberry.union("TopicsResult", description=f"A page of topics, {_REFUSED_WHY}"),
]
ProjectArg = Annotated[
    str | None,
    strawberry.argument(
        description="Read only this project (`Forbidden` unless the API key grants it); by default "
        "every project the key grants."
    ),
]
ProjectRequiredArg = Annotated[
    str, strawberry.argument(description="The project to read; the API key must grant it.")
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


@strawberry.type(description="REM-cycle entries, as JSON objects.")
class RemPayload:
    """REM-cycle entries (JSON objects)."""

    items: list[JSON] = strawberry.field(
        description="One JSON object per job (`remStatus`) or per finding (`remFindings`)."
    )


RemResult = Annotated[
    RemPayload | Forbidden | InvalidInput | Unavailable,
    strawberry.union(
        "RemResult",
        description="REM-cycle entries, or why not: a refused project, or no REM cycle configured.",
    ),
]
LessonResult = Annotated[
    Lesson | NotFound, strawberry.union("LessonResult", description="The lesson, or `NotFound`.")
]
TopicResult = Annotated[
    Topic | NotFound, strawberry.union("TopicResult", description="The topic, or `NotFound`.")
]
ProjectsResult = Annotated[
    ProjectConnection | InvalidInput,
    strawberry.union(
        "ProjectsResult", description="A page of projects, or why the page arguments were refused."
    ),
]


REFUSED = (InvalidInputError, ForbiddenError)
"""What argument and scope checks raise; resolvers answer them with `refused`."""


def refused(e: InvalidInputError | ForbiddenError) -> InvalidInput | Forbidden:
    """The schema type for a refused argument or project."""
    if isinstance(e, ForbiddenError):
        return Forbidden(project=e.project, message=str(e))
    return InvalidInput(field=e.field, message=str(e))


def _check_query(query: str) -> str:
    if not query.strip():
        raise InvalidInputError("query", "must not be empty")
    if len(query) > 4000:
        raise InvalidInputError("query", f"is {len(query)} characters; the limit is 4000")
    return query


async def _page(
    info: Info,
    pages: ScopedPages[M],
    node: Callable[[M], N],
    conn: type[C],
    project: str | None,
    as_of: datetime | None,
    known_at: datetime | None,
    first: int,
    after: str | None,
) -> C | InvalidInput | Forbidden:
    """A page of one kind (`pages`, of the scoped repository), as of a time."""
    ctx = info.context
    try:
        scope = ctx.scope(project)
        first = ctx.check_first(first)
        offset = decode_cursor(after)
    except REFUSED as e:
        return refused(e)
    now = ctx.now_ms
    items = await pages.page(
        scope,
        project=project,
        as_of=parse_ms(as_of) or now,
        known_at=parse_ms(known_at) or now,
        skip=offset,
        limit=first + 1,
    )
    return make_connection(conn, [node(m) for m in items], offset, first)


async def _get(
    info: Info,
    pages: ScopedPages[M],
    node: Callable[[M], N],
    kind: ItemKind,
    id: str,
) -> N | NotFound:
    """One item of a kind by id, or `NotFound` (unknown or not readable)."""
    ctx = info.context
    [m] = await pages.get_many([id], ctx.principal.projects)
    if m is None:
        return NotFound(kind=str(kind), id=id, message=f"{kind} {id!r} not found")
    return node(m)


@strawberry.type(
    description="Read access to memory: only projects the API key grants are ever read."
)
class Query:
    """Read access to a project's memory."""

    @described_field(
        "The best context for `query` that fits `tokenBudget`: ranked items with the "
        "reasons, and how likely they answer it."
    )
    async def context(
        self,
        info: Info,
        query: Annotated[
            str,
            strawberry.argument(
                description="The question or task to find context for (1 to 4000 characters)."
            ),
        ],
        project: ProjectArg = None,
        as_of: Annotated[
            datetime | None,
            strawberry.argument(
                description="Event time to answer at: items true then; relative times in "
                "`query` count back from it (ISO 8601; UTC when no zone); default now."
            ),
        ] = None,
        known_at: KnownAtArg = None,
        token_budget: Annotated[
            int | None,
            strawberry.argument(
                description="Most tokens the items may hold together, 1 to the server's maximum "
                "(32000 by default); null means the server default (2000)."
            ),
        ] = None,
        limit: Annotated[
            int,
            strawberry.argument(
                description="Most items to return, 1 to the server's limit (200 by default)."
            ),
        ] = 20,
        kinds: Annotated[
            list[ItemKind] | None,
            strawberry.argument(description="Return only these kinds of item; null: every kind."),
        ] = None,
    ) -> ContextResult:
        """The best context for `query` that fits `tokenBudget`, ranked, with the reasons."""
        ctx = info.context
        api = ctx.settings.api
        ctx.charge("context", query, limit)
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
                as_of=parse_ms(as_of),
                known_at=parse_ms(known_at),
                kinds=None if kinds is None else frozenset(kinds),
            )
        except REFUSED as e:
            return refused(e)
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
            answerable=result.answerable.score,
            answerable_why=[Signal(name=k, value=v) for k, v in result.answerable.reasons.items()],
        )

    @described_field(
        "Turns matching `query` by keywords, vector similarity or both, best first, "
        "with no reranking; pages end at 5 × the page-size limit."
    )
    async def search(
        self,
        info: Info,
        query: Annotated[
            str, strawberry.argument(description="The text to search for (1 to 4000 characters).")
        ],
        mode: Annotated[
            SearchMode, strawberry.argument(description="How to match turns; default HYBRID.")
        ] = SearchMode.HYBRID,
        project: ProjectArg = None,
        as_of: AsOfArg = None,
        known_at: KnownAtArg = None,
        first: FirstArg = 20,
        after: AfterArg = None,
    ) -> SearchResult:
        """Turns matching `query` by fulltext, vector similarity or both (RRF); no reranking."""
        ctx = info.context
        ctx.charge("search", query, first)
        try:
            _check_query(query)
            scope = ctx.scope(project)
            first = ctx.check_first(first)
            offset = decode_cursor(after)
            want = offset + first + 1
            if want > ctx.settings.api.max_limit * 5:
                raise InvalidInputError("after", "search pages end at 5 × the maximum page size")
            now = ctx.now_ms
            hits = await ctx.resources.retrieval.search(
                query,
                scope,
                mode=mode,
                k=want,
                as_of=parse_ms(as_of) or now,
                known_at=parse_ms(known_at) or now,
            )
        except REFUSED as e:
            return refused(e)
        page = [
            SearchHit(id=strawberry.ID(h.id), score=h.score, kind=ItemKind.TURN)
            for h in hits[offset:want]
        ]
        return make_connection(SearchHitConnection, page, offset, first)

    @described_field(
        "The rules and preferences in force now, rules first, then by effective "
        "weight: what an agent should follow from the start of a session."
    )
    async def rules(
        self,
        info: Info,
        project: ProjectArg = None,
        limit: Annotated[
            int,
            strawberry.argument(
                description="Most rules to return, 1 to the server's limit (200 by default)."
            ),
        ] = 50,
    ) -> RulesResult:
        """Rules and preferences in force now: rules first, then by effective weight."""
        return await resolve_rules(info, project, limit)

    @described_field("One project by id; `NotFound` when unknown or not granted by the API key.")
    async def project(
        self,
        info: Info,
        id: Annotated[str, strawberry.argument(description="The project's slug.")],
    ) -> ProjectResult:
        """One project the caller may read."""
        p = await info.context.loaders.project.load(id)
        if p is None:
            return NotFound(kind="project", id=id, message=f"project {id!r} not found")
        return Project.from_domain(p)

    @described_field("The projects the API key grants, in id order.")
    async def projects(
        self, info: Info, first: FirstArg = 20, after: AfterArg = None
    ) -> ProjectsResult:
        """Projects the caller may read."""
        ctx = info.context
        try:
            first = ctx.check_first(first)
            offset = decode_cursor(after)
        except InvalidInputError as e:
            return InvalidInput(field=e.field, message=str(e))
        items = await ctx.resources.scoped.projects_page(ctx.principal.projects, offset, first + 1)
        return make_connection(
            ProjectConnection, [Project.from_domain(p) for p in items], offset, first
        )

    @described_field("One session by id, in a project the API key grants; else `NotFound`.")
    async def session(
        self,
        info: Info,
        id: Annotated[str, strawberry.argument(description="The session's id.")],
    ) -> SessionResult:
        """One session by id."""
        s = await info.context.loaders.session.load(id)
        if s is None:
            return NotFound(kind="session", id=id, message=f"session {id!r} not found")
        return Session.from_domain(s)

    @described_field("Sessions valid at `asOf` as known at `knownAt`, newest first.")
    async def sessions(
        self,
        info: Info,
        project: ProjectArg = None,
        as_of: AsOfArg = None,
        known_at: KnownAtArg = None,
        first: FirstArg = 20,
        after: AfterArg = None,
    ) -> SessionsResult:
        """Sessions, newest first, as of a time."""
        return await _page(
            info,
            info.context.resources.scoped.sessions,
            Session.from_domain,
            SessionConnection,
            project,
            as_of,
            known_at,
            first,
            after,
        )

    @described_field("One turn by id, in a project the API key grants; else `NotFound`.")
    async def turn(
        self,
        info: Info,
        id: Annotated[str, strawberry.argument(description="The turn's id.")],
    ) -> TurnResult:
        """One turn by id."""
        t = await info.context.loaders.turn.load(id)
        if t is None:
            return NotFound(kind="turn", id=id, message=f"turn {id!r} not found")
        return Turn.from_domain(t)

    @described_field(
        "One lesson by id, with its version history, in a project the API key "
        "grants; else `NotFound`."
    )
    async def lesson(
        self,
        info: Info,
        id: Annotated[str, strawberry.argument(description="The lesson's id (`les_...`).")],
    ) -> LessonResult:
        """One lesson, with its version history."""
        return await _get(
            info, info.context.resources.scoped.lessons, Lesson.from_domain, ItemKind.LESSON, id
        )

    @described_field("Lessons valid at `asOf` as known at `knownAt`, newest first.")
    async def lessons(
        self,
        info: Info,
        project: ProjectArg = None,
        as_of: AsOfArg = None,
        known_at: KnownAtArg = None,
        first: FirstArg = 20,
        after: AfterArg = None,
    ) -> LessonsResult:
        """Lessons valid at `asOf` as known at `knownAt`, newest first."""
        return await _page(
            info,
            info.context.resources.scoped.lessons,
            Lesson.from_domain,
            LessonConnection,
            project,
            as_of,
            known_at,
            first,
            after,
        )

    @described_field(
        "Corrections, rules among them, valid at `asOf` as known at `knownAt`, newest first."
    )
    async def corrections(
        self,
        info: Info,
        project: ProjectArg = None,
        as_of: AsOfArg = None,
        known_at: KnownAtArg = None,
        first: FirstArg = 20,
        after: AfterArg = None,
    ) -> CorrectionsResult:
        """Corrections and rules valid at `asOf`, newest first."""
        return await _page(
            info,
            info.context.resources.scoped.corrections,
            Correction.from_domain,
            CorrectionConnection,
            project,
            as_of,
            known_at,
            first,
            after,
        )

    @described_field("Facts that held at `asOf` as known at `knownAt`, newest first.")
    async def facts(
        self,
        info: Info,
        project: ProjectArg = None,
        as_of: AsOfArg = None,
        known_at: KnownAtArg = None,
        first: FirstArg = 20,
        after: AfterArg = None,
    ) -> FactsResult:
        """Facts that held at `asOf` (default now) as known at `knownAt`."""
        return await _page(
            info,
            info.context.resources.scoped.facts,
            Fact.from_domain,
            FactConnection,
            project,
            as_of,
            known_at,
            first,
            after,
        )

    @described_field("One topic by id, in a project the API key grants; else `NotFound`.")
    async def topic(
        self,
        info: Info,
        id: Annotated[str, strawberry.argument(description="The topic's id.")],
    ) -> TopicResult:
        """One topic."""
        return await _get(
            info, info.context.resources.scoped.topics, Topic.from_domain, ItemKind.TOPIC, id
        )

    @described_field("Topics valid at `asOf` as known at `knownAt`, heaviest first.")
    async def topics(
        self,
        info: Info,
        project: ProjectArg = None,
        as_of: AsOfArg = None,
        known_at: KnownAtArg = None,
        first: FirstArg = 20,
        after: AfterArg = None,
    ) -> TopicsResult:
        """Topics discussed in the readable projects, heaviest first."""
        return await _page(
            info,
            info.context.resources.scoped.topics,
            Topic.from_domain,
            TopicConnection,
            project,
            as_of,
            known_at,
            first,
            after,
        )

    @described_field(
        "Per-job REM-cycle state of a project (last run, next due...), one JSON object per job."
    )
    async def rem_status(self, info: Info, project: ProjectRequiredArg) -> RemResult:
        """Per-job REM-cycle state of a project (last run, next due) as JSON."""
        return await _rem(info, project, None, status_only=True)

    @described_field(
        "What the REM cycle found and proposes (merges, archives...), newest first, "
        "one JSON object per finding."
    )
    async def rem_findings(
        self,
        info: Info,
        project: ProjectRequiredArg,
        status: Annotated[
            str | None,
            strawberry.argument(
                description="Only findings with this review status (`open`, `approved`, "
                "`rejected`, `skipped` or `applied`); null: every status."
            ),
        ] = None,
    ) -> RemResult:
        """Findings of the REM cycle (every status, or only `status`), newest first, as JSON."""
        return await _rem(info, project, status, status_only=False)


async def _rem(
    info: Info, project: str, status: str | None, *, status_only: bool
) -> RemPayload | Forbidden | InvalidInput | Unavailable:
    ctx = info.context
    try:
        scope = ctx.require_project(project)
    except REFUSED as e:
        return refused(e)
    cons = ctx.resources.services.consolidator
    if cons is None:
        return Unavailable(capability="consolidate", message="no consolidation is configured")
    if status_only:
        items = await cons.rem_status(project=scope)
    else:
        items = await cons.findings(project=scope, status=status)
    return RemPayload(items=[JSON(dict(i)) for i in items])


__all__ = ["REFUSED", "Query", "refused"]
