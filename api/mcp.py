"""`remgraph mcp`: the API's capabilities over the Model Context Protocol (stdio).

Tools run the same GraphQL operations as HTTP clients, in process, against the same schema, so
scope checks, limits and error types are identical; `context`, `search` and `rules` answer in
compact text sized to the budget (`api.mcp_text`; `format="json"` for the payload), and an
error is one line: `context`, `search`, `rules`, `ingest_turns`,
`record_feedback`, `rem_status` and `findings`. The caller is the key in `REMGRAPH_API_KEY` (or
`--key`). It is checked at start-up (a bad key stops the server with a clear message) and again on
every tool call through the same resolver as HTTP requests, so a revoked key stops working within
`REMGRAPH_API__KEY_CACHE_S` seconds. Without a key, access is refused unless anonymous dev access
is enabled.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from api.auth import ANONYMOUS, Principal
from api.config import ApiSettings
from api.context import Context
from api.mcp_text import FORMATS, context_text, error_line, rules_text, search_text
from api.schema import build_schema
from api.services import ApiServices, Resources
from graph.errors import GraphUnavailableError

TOOLS = (
    "context",
    "search",
    "rules",
    "ingest_turns",
    "record_feedback",
    "rem_status",
    "findings",
)
"""The tools `build_mcp` registers."""

_ITEM = (
    "id kind text score tokens why { name value } "
    "provenance { project sessionId turnIds timestamp speaker }"
)
_SCOPE_ERRORS = "... on InvalidInput { field message } ... on Forbidden { project message }"
_UNAVAILABLE = "... on Unavailable { capability message }"

CONTEXT_DOC = (
    "query($query: String!, $project: String, $tokenBudget: Int, $limit: Int!, $asOf: DateTime) {"
    " context(query: $query, project: $project, tokenBudget: $tokenBudget, limit: $limit,"
    " asOf: $asOf) { __typename ... on ContextPayload { totalTokens terms speakers answerable"
    " answerableWhy { name value } items { " + _ITEM + " } } " + _SCOPE_ERRORS + " } }"
)
SEARCH_DOC = (
    "query($query: String!, $mode: SearchMode!, $project: String, $first: Int!) {"
    " search(query: $query, mode: $mode, project: $project, first: $first) { __typename"
    " ... on SearchHitConnection { nodes { id score turn { id project sessionId speaker text"
    " timestamp } } } ... on InvalidInput { field message } ... on Forbidden { project message }"
    " } }"
)
RULES_DOC = (
    "query($project: String, $limit: Int!) { rules(project: $project, limit: $limit) {"
    " __typename ... on RulesPayload { asOf items { id project status confirmed text type"
    " effectiveWeight lastSeen } } " + _SCOPE_ERRORS + " } }"
)
INGEST_DOC = (
    "mutation($input: IngestTurnsInput!) { ingestTurns(input: $input) { __typename"
    " ... on IngestTurnsPayload { sessionId turnIds added failures } "
    + _SCOPE_ERRORS
    + " "
    + _UNAVAILABLE
    + " } }"
)
FEEDBACK_DOC = (
    "mutation($input: RecordFeedbackInput!) { recordFeedback(input: $input) { __typename"
    " ... on FeedbackPayload { id kind usageCount helpfulCount harmfulCount effectiveness } "
    + _SCOPE_ERRORS
    + " ... on NotFound { notFoundKind: kind message }"
    + " } }"
)
REM_STATUS_DOC = (
    "query($project: String!) { remStatus(project: $project) { __typename"
    " ... on RemPayload { items } " + _SCOPE_ERRORS + " " + _UNAVAILABLE + " } }"
)
FINDINGS_DOC = (
    "query($project: String!, $status: String) { remFindings(project: $project, status: $status)"
    " { __typename ... on RemPayload { items } " + _SCOPE_ERRORS + " " + _UNAVAILABLE + " } }"
)

INSTRUCTIONS = (
    "Long-term memory of past agent sessions. At the start of a task call `rules` (the project's "
    "rules and preferences in force) and `context` with the task as the query; `search` finds "
    "turns by words or meaning. Append what happens with `ingest_turns`, and report whether a "
    "served lesson or correction helped with `record_feedback`. `rem_status` and `findings` show "
    "the consolidation cycle's state and what it proposes for review."
)


DEFAULT_BUDGET = 1000
"""The `context` tool's token budget when the agent names none."""


def _text_format(name: str) -> bool:
    """Whether a tool answers as text (`format="text"`) or JSON; one line for anything else."""
    if name not in FORMATS:
        raise ToolError(f"format: {name!r} is not one of {', '.join(FORMATS)}")
    return name == "text"


def _checked(payload: dict[str, Any]) -> dict[str, Any]:
    """`payload` when it is a result; an error result or GraphQL error as one line."""
    line = error_line(payload)
    if line is not None:
        raise ToolError(line)
    return payload


class _Server(MCPServer[Any]):
    """The MCP server, with argument mistakes said on one line (no pydantic report or URL)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as e:
            if not isinstance(e.__cause__, ValidationError):
                raise
            raise ToolError(f"{name}: {_argument_problems(e.__cause__)}") from e


def _argument_problems(e: ValidationError) -> str:
    """'missing `query`; `limit`: Input should be a valid integer' (field names, never values)."""
    out = []
    for err in e.errors():
        where = ".".join(str(p) for p in err["loc"])
        out.append(f"missing `{where}`" if err["type"] == "missing" else f"`{where}`: {err['msg']}")
    return "; ".join(out)


@dataclass
class _State:
    resources: Resources | None = None


class McpAccessError(Exception):
    """Raised at startup when no usable key is given and anonymous access is off."""


def build_mcp(
    settings: ApiSettings, services: ApiServices | None = None, *, key: str | None = None
) -> MCPServer[Any]:
    """An MCP server exposing the tools in `TOOLS`, each call checked against the key."""
    from api.app import open_resources

    svc = services or ApiServices()
    schema = build_schema(settings)
    state = _State()
    secret = key or os.environ.get("REMGRAPH_API_KEY")
    anonymous = settings.api.anonymous_dev and settings.env == "dev"
    if not secret and not anonymous:
        raise McpAccessError(
            "set REMGRAPH_API_KEY (a key from `remgraph keys create`) or enable "
            "REMGRAPH_API__ANONYMOUS_DEV in dev"
        )

    @contextlib.asynccontextmanager
    async def lifespan(_: MCPServer[Any]) -> AsyncIterator[None]:
        async with open_resources(settings, svc) as resources:
            if secret and await resources.resolver.resolve(secret) is None:
                raise McpAccessError("REMGRAPH_API_KEY is unknown or revoked")
            state.resources = resources
            try:
                yield
            finally:
                state.resources = None

    server: MCPServer[Any] = _Server(name="remgraph", instructions=INSTRUCTIONS, lifespan=lifespan)

    async def caller(resources: Resources) -> Principal:
        """The key's principal now: revocation is seen like on HTTP (within the cache time)."""
        if not secret:
            return ANONYMOUS
        try:
            principal = await resources.resolver.resolve(secret)
        except GraphUnavailableError as e:
            raise ToolError("graph engine unavailable, retry shortly") from e
        if principal is None:
            raise ToolError("unknown or revoked API key (REMGRAPH_API_KEY)")
        return principal

    async def run(doc: str, variables: dict[str, Any]) -> dict[str, Any]:
        resources = state.resources
        if resources is None:
            raise ToolError("the MCP server is not started")  # the lifespan sets it
        ctx = Context(resources=resources, settings=settings, principal=await caller(resources))
        result = await schema.execute(doc, variable_values=variables, context_value=ctx)
        if result.errors:
            return {"errors": [e.message for e in result.errors]}
        data = result.data or {}
        return dict(next(iter(data.values()), {}) or {})

    @server.tool()
    async def context(
        query: str,
        project: str | None = None,
        token_budget: int | None = DEFAULT_BUDGET,
        limit: int = 10,
        as_of: str | None = None,
        format: str = "text",
        why: bool = False,
    ) -> str | dict[str, Any]:
        """Ranked context for a question or task, within `token_budget` tokens (default 1,000).

        One line per item (rank, kind, date, id, text); `why=true` adds each item's ranking
        signals; `format="json"` returns the GraphQL payload instead.
        """
        as_text = _text_format(format)
        payload = await run(
            CONTEXT_DOC,
            {
                "query": query,
                "project": project,
                "tokenBudget": token_budget,
                "limit": limit,
                "asOf": as_of,
            },
        )
        if not as_text:
            return payload
        return context_text(_checked(payload), token_budget, why=why)

    @server.tool()
    async def search(
        query: str,
        mode: str = "HYBRID",
        project: str | None = None,
        first: int = 10,
        format: str = "text",
    ) -> str | dict[str, Any]:
        """Turns matching a query: mode FULLTEXT, VECTOR or HYBRID; one line per turn."""
        as_text = _text_format(format)
        payload = await run(
            SEARCH_DOC, {"query": query, "mode": mode.upper(), "project": project, "first": first}
        )
        return search_text(_checked(payload)) if as_text else payload

    @server.tool()
    async def rules(
        project: str | None = None, limit: int = 50, format: str = "text"
    ) -> str | dict[str, Any]:
        """The project's rules and preferences in force now: rules first, heaviest first."""
        as_text = _text_format(format)
        payload = await run(RULES_DOC, {"project": project, "limit": limit})
        return rules_text(_checked(payload)) if as_text else payload

    @server.tool()
    async def ingest_turns(
        project: str, session_key: str, turns: list[dict[str, Any]], title: str = ""
    ) -> dict[str, Any]:
        """Append turns ({role, text, speaker?, timestamp?}) to a session of a project."""
        return await run(
            INGEST_DOC,
            {
                "input": {
                    "project": project,
                    "sessionKey": session_key,
                    "title": title,
                    "turns": turns,
                }
            },
        )

    @server.tool()
    async def record_feedback(project: str, item_id: str, signal: str) -> dict[str, Any]:
        """Report that a lesson or correction was USED, HELPFUL or HARMFUL."""
        return await run(
            FEEDBACK_DOC,
            {"input": {"project": project, "itemId": item_id, "signal": signal.upper()}},
        )

    @server.tool()
    async def rem_status(project: str) -> dict[str, Any]:
        """The REM cycle's jobs for a project: last run, summary, next due."""
        return await run(REM_STATUS_DOC, {"project": project})

    @server.tool()
    async def findings(project: str, status: str | None = None) -> dict[str, Any]:
        """What the REM cycle proposes for review (open, or with `status`)."""
        return await run(FINDINGS_DOC, {"project": project, "status": status})

    return server


def run_stdio(
    settings: ApiSettings, services: ApiServices | None = None, key: str | None = None
) -> None:
    """Serve MCP on stdin/stdout until the client disconnects.

    Raises:
        McpAccessError: no usable key, also when the server's task group found it at start-up.
    """
    try:
        build_mcp(settings, services, key=key).run("stdio")
    except BaseExceptionGroup as group:
        refused = _leaf(group, McpAccessError)
        if refused is None:
            raise
        raise refused from None


def _leaf(group: BaseExceptionGroup, kind: type[Exception]) -> Exception | None:
    """The first exception of `kind` among a task group's (nested) exceptions."""
    for e in group.exceptions:
        if isinstance(e, kind):
            return e
        if isinstance(e, BaseExceptionGroup) and (found := _leaf(e, kind)) is not None:
            return found
    return None


if __name__ == "__main__":  # `python -m api.mcp`: no ingest or consolidation wired
    run_stdio(ApiSettings())
