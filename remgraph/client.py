"""A Python client for remgraph's GraphQL API, sync (`Client`) and async (`AsyncClient`).

It needs only `httpx` and `pydantic` (it imports nothing else from remgraph), so an agent can use
it from any process that reaches the API::

    from remgraph.client import Client

    with Client("http://127.0.0.1:8765", key="rg_...") as memory:
        for rule in memory.rules("myproj").items:
            print(rule.status, rule.text)
        ctx = memory.context("how do we deploy?", project="myproj", token_budget=1500)

Results are typed pydantic models. Expected errors of the API (its result unions) raise typed
exceptions: `ForbiddenError` (the key does not cover the project), `InvalidInputError`,
`NotFoundError`, `UnavailableError`; a missing or revoked key raises `AuthenticationError`.
The key defaults to `$REMGRAPH_API_KEY` and the URL to `$REMGRAPH_API_URL` (else
`http://127.0.0.1:8765`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, Literal, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

__all__ = [
    "AsyncClient",
    "AuthenticationError",
    "Client",
    "ContextItem",
    "ContextResult",
    "FeedbackResult",
    "ForbiddenError",
    "IngestResult",
    "InvalidInputError",
    "Message",
    "NotFoundError",
    "Provenance",
    "RemgraphError",
    "Rule",
    "RulesResult",
    "SearchHit",
    "Session",
    "SessionPage",
    "Signal",
    "Turn",
    "UnavailableError",
]

DEFAULT_URL = "http://127.0.0.1:8765"

# -- errors ---------------------------------------------------------------------------------------


class RemgraphError(Exception):
    """Base class of every error the client raises."""


class AuthenticationError(RemgraphError):
    """The API refused the key (missing, unknown or revoked): HTTP 401."""


class ForbiddenError(RemgraphError):
    """The key does not cover the project named in the call."""

    def __init__(self, message: str, project: str) -> None:
        super().__init__(message)
        self.project = project


class InvalidInputError(RemgraphError):
    """An argument was refused; `field` names it."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


class NotFoundError(RemgraphError):
    """The item does not exist, or the key may not read it."""

    def __init__(self, message: str, kind: str, id: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.id = id


class UnavailableError(RemgraphError):
    """The engine (HTTP 503) or a capability (ingest, consolidation) is not available: retry."""


# -- models ---------------------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(
        frozen=True, alias_generator=to_camel, populate_by_name=True, extra="ignore"
    )


class Signal(_Model):
    """One ranking signal of a context item."""

    name: str
    value: float


class Provenance(_Model):
    """Where a context item comes from."""

    project: str | None = None
    session_id: str | None = None
    turn_ids: list[str] = Field(default_factory=list)
    timestamp: datetime | None = None
    speaker: str | None = None


class ContextItem(_Model):
    """A ranked item: a turn, lesson, correction, fact, topic, reference layer or primer."""

    id: str
    kind: str
    text: str
    score: float
    tokens: int
    why: list[Signal] = Field(default_factory=list)
    provenance: Provenance = Field(default_factory=Provenance)


class ContextResult(_Model):
    """`context`: the items that fit the token budget, best first."""

    items: list[ContextItem]
    total_tokens: int
    candidates: int = 0
    terms: list[str] = Field(default_factory=list)
    speakers: list[str] = Field(default_factory=list)
    answerable: float = 0.0
    """How likely the items answer the query (0-1): low means nothing is known."""
    answerable_why: list[Signal] = Field(default_factory=list)


class Turn(_Model):
    """One message of a session."""

    id: str
    project: str
    session_id: str
    ordinal: int
    role: str
    speaker: str
    text: str
    timestamp: datetime


class SearchHit(_Model):
    """A turn found by `search`."""

    id: str
    score: float
    turn: Turn | None = None


class Rule(_Model):
    """A rule or preference in force."""

    id: str
    project: str
    status: str
    confirmed: bool
    text: str
    type: str
    original_behaviour: str = ""
    corrected_behaviour: str = ""
    confidence: float
    reinforcement: float
    effective_weight: float
    last_seen: datetime | None = None
    source_turn_ids: list[str] = Field(default_factory=list)


class RulesResult(_Model):
    """`rules`: rules before preferences, heaviest first, as of `as_of`."""

    items: list[Rule]
    as_of: datetime


class IngestResult(_Model):
    """What `ingest_turns` stored (`added` is 0 when the call repeats an earlier one)."""

    session_id: str
    turn_ids: list[str]
    added: int
    failures: list[str] = Field(default_factory=list)


class FeedbackResult(_Model):
    """A lesson's or correction's counters after `record_feedback`."""

    id: str
    kind: str
    usage_count: int
    helpful_count: int
    harmful_count: int
    effectiveness: float


class Session(_Model):
    """One agent conversation."""

    id: str
    project: str
    source: str
    title: str
    started_at: datetime | None = None
    ended_at: datetime | None = None
    turn_count: int
    summary: str | None = None
    quality: float | None = None


class SessionPage(_Model):
    """A page of sessions, newest first; pass `end_cursor` as `after` for the next one."""

    items: list[Session]
    has_next_page: bool
    end_cursor: str | None = None


class Message(_Model):
    """A turn to append with `ingest_turns` (plain dicts with the same keys work too)."""

    role: Literal["user", "assistant", "system", "tool"]
    text: str
    speaker: str = ""
    timestamp: datetime | None = None
    tool_name: str | None = None


# -- operations (shared by both clients) ----------------------------------------------------------

_CONTEXT = (
    "query($query: String!, $project: String, $tokenBudget: Int, $limit: Int!, $asOf: DateTime,"
    " $kinds: [ContextKind!]) { result: context(query: $query, project: $project,"
    " tokenBudget: $tokenBudget, limit: $limit, asOf: $asOf, kinds: $kinds) { __typename"
    " ... on ContextPayload { totalTokens candidates terms speakers answerable"
    " answerableWhy { name value } items { id kind text score"
    " tokens why { name value } provenance { project sessionId turnIds timestamp speaker } } }"
    " ... on InvalidInput { field message } ... on Forbidden { project message } } }"
)
_SEARCH = (
    "query($query: String!, $mode: SearchMode!, $project: String, $first: Int!) {"
    " result: search(query: $query, mode: $mode, project: $project, first: $first) { __typename"
    " ... on SearchHitConnection { nodes { id score turn { id project sessionId ordinal role"
    " speaker text timestamp } } }"
    " ... on InvalidInput { field message } ... on Forbidden { project message } } }"
)
_RULES = (
    "query($project: String, $limit: Int!) { result: rules(project: $project, limit: $limit) {"
    " __typename ... on RulesPayload { asOf items { id project status confirmed text type"
    " originalBehaviour correctedBehaviour confidence reinforcement effectiveWeight lastSeen"
    " sourceTurnIds } } ... on InvalidInput { field message } ... on Forbidden { project message }"
    " } }"
)
_INGEST = (
    "mutation($input: IngestTurnsInput!) { result: ingestTurns(input: $input) { __typename"
    " ... on IngestTurnsPayload { sessionId turnIds added failures }"
    " ... on InvalidInput { field message } ... on Forbidden { project message }"
    " ... on Unavailable { capability message } } }"
)
_FEEDBACK = (
    "mutation($input: RecordFeedbackInput!) { result: recordFeedback(input: $input) { __typename"
    " ... on FeedbackPayload { id kind usageCount helpfulCount harmfulCount effectiveness }"
    " ... on InvalidInput { field message } ... on Forbidden { project message }"
    " ... on NotFound { notFoundKind: kind id message } } }"
)
_SESSIONS = (
    "query($project: String, $first: Int!, $after: String) {"
    " result: sessions(project: $project, first: $first, after: $after) { __typename"
    " ... on SessionConnection { pageInfo { hasNextPage endCursor } nodes { id project source"
    " title startedAt endedAt turnCount summary quality } }"
    " ... on InvalidInput { field message } ... on Forbidden { project message } } }"
)

T = TypeVar("T")


@dataclass(frozen=True)
class _Op(Generic[T]):
    """One GraphQL operation: the document, its variables and how to read its payload."""

    document: str
    variables: dict[str, Any]
    payload: str
    """`__typename` of the success member of the result union."""
    parse: Any  # Callable[[dict[str, Any]], T]

    def read(self, body: Any) -> T:
        errors = body.get("errors") if isinstance(body, dict) else None
        if errors:
            messages = "; ".join(str(e.get("message", e)) for e in errors)
            codes = {(e.get("extensions") or {}).get("code") for e in errors}
            if "UNAVAILABLE" in codes:
                raise UnavailableError(messages)
            raise RemgraphError(messages)
        result = ((body or {}).get("data") or {}).get("result")
        if not isinstance(result, dict):
            raise RemgraphError(f"unexpected response: {body!r}"[:500])
        typename = str(result.get("__typename"))
        message = str(result.get("message", typename))
        if typename == self.payload:
            return self.parse(result)  # type: ignore[no-any-return]  # typed by the constructors
        if typename == "Forbidden":
            raise ForbiddenError(message, str(result.get("project", "")))
        if typename == "InvalidInput":
            raise InvalidInputError(message, str(result.get("field", "")))
        if typename == "NotFound":
            kind = str(result.get("notFoundKind", result.get("kind", "")))
            raise NotFoundError(message, kind, str(result.get("id", "")))
        if typename == "Unavailable":
            raise UnavailableError(message)
        raise RemgraphError(f"unexpected result {typename}: {message}")


def _time(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat()


def _turns(turns: Sequence[Message | Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for t in turns:
        m = t if isinstance(t, Message) else Message.model_validate(t)
        out.append(m.model_dump(mode="json", by_alias=True, exclude_none=True))
    return out


class _Operations:
    """Builds the operations; `Client` and `AsyncClient` only differ in how they send them."""

    @staticmethod
    def context(
        query: str,
        project: str | None,
        token_budget: int | None,
        limit: int,
        as_of: datetime | None,
        kinds: Sequence[str] | None,
    ) -> _Op[ContextResult]:
        return _Op(
            _CONTEXT,
            {
                "query": query,
                "project": project,
                "tokenBudget": token_budget,
                "limit": limit,
                "asOf": _time(as_of),
                "kinds": None if kinds is None else [k.upper() for k in kinds],
            },
            "ContextPayload",
            ContextResult.model_validate,
        )

    @staticmethod
    def search(query: str, mode: str, project: str | None, first: int) -> _Op[list[SearchHit]]:
        return _Op(
            _SEARCH,
            {"query": query, "mode": mode.upper(), "project": project, "first": first},
            "SearchHitConnection",
            lambda r: [SearchHit.model_validate(n) for n in r["nodes"]],
        )

    @staticmethod
    def rules(project: str | None, limit: int) -> _Op[RulesResult]:
        return _Op(
            _RULES, {"project": project, "limit": limit}, "RulesPayload", RulesResult.model_validate
        )

    @staticmethod
    def ingest_turns(
        project: str, session_key: str, turns: Sequence[Message | Mapping[str, Any]], title: str
    ) -> _Op[IngestResult]:
        payload = {
            "project": project,
            "sessionKey": session_key,
            "title": title,
            "turns": _turns(turns),
        }
        return _Op(_INGEST, {"input": payload}, "IngestTurnsPayload", IngestResult.model_validate)

    @staticmethod
    def record_feedback(
        project: str, item_id: str, signal: str, kind: str | None
    ) -> _Op[FeedbackResult]:
        payload = {"project": project, "itemId": item_id, "signal": signal.upper()}
        if kind is not None:
            payload["kind"] = kind.upper()
        return _Op(_FEEDBACK, {"input": payload}, "FeedbackPayload", FeedbackResult.model_validate)

    @staticmethod
    def sessions(project: str | None, first: int, after: str | None) -> _Op[SessionPage]:
        def parse(r: dict[str, Any]) -> SessionPage:
            info = r["pageInfo"]
            return SessionPage(
                items=[Session.model_validate(n) for n in r["nodes"]],
                has_next_page=info["hasNextPage"],
                end_cursor=info["endCursor"],
            )

        return _Op(
            _SESSIONS,
            {"project": project, "first": first, "after": after},
            "SessionConnection",
            parse,
        )


def _endpoint(url: str | None) -> str:
    base = (url or os.environ.get("REMGRAPH_API_URL") or DEFAULT_URL).rstrip("/")
    return base if base.endswith("/graphql") else base + "/graphql"


def _headers(key: str | None) -> dict[str, str]:
    secret = key or os.environ.get("REMGRAPH_API_KEY")
    if not secret:
        raise AuthenticationError("no API key: pass key=... or set REMGRAPH_API_KEY")
    return {"Authorization": f"Bearer {secret}", "Accept": "application/json"}


def _check(response: httpx.Response) -> Any:
    if response.status_code == 401:
        raise AuthenticationError(_detail(response) or "unknown or revoked API key")
    if response.status_code == 503:
        raise UnavailableError(_detail(response) or "graph engine unavailable, retry shortly")
    if response.status_code != 200:
        raise RemgraphError(f"HTTP {response.status_code}: {response.text[:300]}")
    return response.json()


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:300]
    return str(body.get("detail", "")) if isinstance(body, dict) else ""


class Client:
    """Synchronous client. Use it as a context manager, or call `close()`.

    Args:
        url: the API (`http://HOST:PORT` or the `/graphql` URL); default `$REMGRAPH_API_URL`
            or `http://127.0.0.1:8765`.
        key: the API key (`rg_...`); default `$REMGRAPH_API_KEY`.
        timeout: seconds per request.
        transport: an httpx transport (tests, proxies); default: HTTP.
    """

    def __init__(
        self,
        url: str | None = None,
        key: str | None = None,
        *,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.endpoint = _endpoint(url)
        self._http = httpx.Client(
            headers=_headers(key), timeout=timeout, transport=transport, trust_env=False
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def _run(self, op: _Op[T]) -> T:
        body = {"query": op.document, "variables": op.variables}
        return op.read(_check(self._http.post(self.endpoint, json=body)))

    def context(
        self,
        query: str,
        *,
        project: str | None = None,
        token_budget: int | None = None,
        limit: int = 20,
        as_of: datetime | None = None,
        kinds: Sequence[str] | None = None,
    ) -> ContextResult:
        """The best context for `query` within `token_budget`, ranked, with reasons."""
        return self._run(_Operations.context(query, project, token_budget, limit, as_of, kinds))

    def search(
        self, query: str, *, mode: str = "HYBRID", project: str | None = None, first: int = 20
    ) -> list[SearchHit]:
        """Turns matching `query` (mode FULLTEXT, VECTOR or HYBRID)."""
        return self._run(_Operations.search(query, mode, project, first))

    def rules(self, project: str | None = None, *, limit: int = 50) -> RulesResult:
        """The rules and preferences in force now (the key's projects, or `project`)."""
        return self._run(_Operations.rules(project, limit))

    def ingest_turns(
        self,
        project: str,
        session_key: str,
        turns: Sequence[Message | Mapping[str, Any]],
        *,
        title: str = "",
    ) -> IngestResult:
        """Append turns to a session (created when new); repeating a call adds nothing."""
        return self._run(_Operations.ingest_turns(project, session_key, turns, title))

    def record_feedback(
        self, project: str, item_id: str, signal: str, *, kind: str | None = None
    ) -> FeedbackResult:
        """Report that a served lesson or correction was USED, HELPFUL or HARMFUL."""
        return self._run(_Operations.record_feedback(project, item_id, signal, kind))

    def sessions(
        self, project: str | None = None, *, first: int = 20, after: str | None = None
    ) -> SessionPage:
        """A page of sessions, newest first."""
        return self._run(_Operations.sessions(project, first, after))


class AsyncClient:
    """Asynchronous client, with the same methods as `Client` (awaitable).

    Args:
        url: the API (`http://HOST:PORT` or the `/graphql` URL); default `$REMGRAPH_API_URL`
            or `http://127.0.0.1:8765`.
        key: the API key (`rg_...`); default `$REMGRAPH_API_KEY`.
        timeout: seconds per request.
        transport: an httpx async transport (e.g. `httpx.ASGITransport(app)` in process).
    """

    def __init__(
        self,
        url: str | None = None,
        key: str | None = None,
        *,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.endpoint = _endpoint(url)
        self._http = httpx.AsyncClient(
            headers=_headers(key), timeout=timeout, transport=transport, trust_env=False
        )

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def _run(self, op: _Op[T]) -> T:
        body = {"query": op.document, "variables": op.variables}
        return op.read(_check(await self._http.post(self.endpoint, json=body)))

    async def context(
        self,
        query: str,
        *,
        project: str | None = None,
        token_budget: int | None = None,
        limit: int = 20,
        as_of: datetime | None = None,
        kinds: Sequence[str] | None = None,
    ) -> ContextResult:
        """The best context for `query` within `token_budget`, ranked, with reasons."""
        return await self._run(
            _Operations.context(query, project, token_budget, limit, as_of, kinds)
        )

    async def search(
        self, query: str, *, mode: str = "HYBRID", project: str | None = None, first: int = 20
    ) -> list[SearchHit]:
        """Turns matching `query` (mode FULLTEXT, VECTOR or HYBRID)."""
        return await self._run(_Operations.search(query, mode, project, first))

    async def rules(self, project: str | None = None, *, limit: int = 50) -> RulesResult:
        """The rules and preferences in force now (the key's projects, or `project`)."""
        return await self._run(_Operations.rules(project, limit))

    async def ingest_turns(
        self,
        project: str,
        session_key: str,
        turns: Sequence[Message | Mapping[str, Any]],
        *,
        title: str = "",
    ) -> IngestResult:
        """Append turns to a session (created when new); repeating a call adds nothing."""
        return await self._run(_Operations.ingest_turns(project, session_key, turns, title))

    async def record_feedback(
        self, project: str, item_id: str, signal: str, *, kind: str | None = None
    ) -> FeedbackResult:
        """Report that a served lesson or correction was USED, HELPFUL or HARMFUL."""
        return await self._run(_Operations.record_feedback(project, item_id, signal, kind))

    async def sessions(
        self, project: str | None = None, *, first: int = 20, after: str | None = None
    ) -> SessionPage:
        """A page of sessions, newest first."""
        return await self._run(_Operations.sessions(project, first, after))
