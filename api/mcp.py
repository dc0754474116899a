"""`remgraph mcp`: the API's capabilities over the Model Context Protocol (stdio).

Tools run the same GraphQL operations as HTTP clients, in process, against the same schema, so
scope checks, limits and error types are identical: `context`, `search`, `ingest_turns`,
`record_feedback`. The caller is the key in `REMGRAPH_API_KEY` (or `--key`); without one, access
is refused unless anonymous dev access is enabled.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver import MCPServer

from api.auth import ANONYMOUS, Principal
from api.config import ApiSettings
from api.context import Context
from api.schema import build_schema
from api.services import ApiServices, Resources

_ITEM = (
    "id kind text score tokens why { name value } "
    "provenance { project sessionId turnIds timestamp speaker }"
)
_SCOPE_ERRORS = "... on InvalidInput { field message } ... on Forbidden { project message }"

CONTEXT_DOC = (
    "query($query: String!, $project: String, $tokenBudget: Int, $limit: Int!, $asOf: DateTime) {"
    " context(query: $query, project: $project, tokenBudget: $tokenBudget, limit: $limit,"
    " asOf: $asOf) { __typename ... on ContextPayload { totalTokens terms speakers items { "
    + _ITEM
    + " } } "
    + _SCOPE_ERRORS
    + " } }"
)
SEARCH_DOC = (
    "query($query: String!, $mode: SearchMode!, $project: String, $first: Int!) {"
    " search(query: $query, mode: $mode, project: $project, first: $first) { __typename"
    " ... on SearchHitConnection { nodes { id score turn { id project sessionId speaker text"
    " timestamp } } } ... on InvalidInput { field message } ... on Forbidden { project message }"
    " } }"
)
INGEST_DOC = (
    "mutation($input: IngestTurnsInput!) { ingestTurns(input: $input) { __typename"
    " ... on IngestTurnsPayload { sessionId turnIds added failures } "
    + _SCOPE_ERRORS
    + " ... on Unavailable { capability message } } }"
)
FEEDBACK_DOC = (
    "mutation($input: RecordFeedbackInput!) { recordFeedback(input: $input) { __typename"
    " ... on FeedbackPayload { id kind usageCount helpfulCount harmfulCount effectiveness } "
    + _SCOPE_ERRORS
    + " ... on NotFound { notFoundKind: kind message }"
    + " } }"
)


@dataclass
class _State:
    resources: Resources | None = None
    principal: Principal | None = None


class McpAccessError(Exception):
    """Raised at startup when no usable key is given and anonymous access is off."""


def build_mcp(
    settings: ApiSettings, services: ApiServices | None = None, *, key: str | None = None
) -> MCPServer[Any]:
    """An MCP server exposing `context`, `search`, `ingest_turns` and `record_feedback`."""
    from api.app import open_resources

    svc = services or ApiServices()
    schema = build_schema(settings)
    state = _State()
    secret = key or os.environ.get("REMGRAPH_API_KEY")

    @contextlib.asynccontextmanager
    async def lifespan(_: MCPServer[Any]) -> AsyncIterator[None]:
        async with open_resources(settings, svc) as resources:
            if secret:
                principal = await resources.resolver.resolve(secret)
                if principal is None:
                    raise McpAccessError("REMGRAPH_API_KEY is unknown or revoked")
            elif settings.api.anonymous_dev and settings.env == "dev":
                principal = ANONYMOUS
            else:
                raise McpAccessError(
                    "set REMGRAPH_API_KEY (a key from `remgraph keys create`) or enable "
                    "REMGRAPH_API__ANONYMOUS_DEV in dev"
                )
            state.resources, state.principal = resources, principal
            yield

    server: MCPServer[Any] = MCPServer(
        name="remgraph",
        instructions="Long-term memory: ranked context, search, appending turns, feedback.",
        lifespan=lifespan,
    )

    async def run(doc: str, variables: dict[str, Any]) -> dict[str, Any]:
        if state.resources is None or state.principal is None:
            raise RuntimeError("the MCP server is not started")  # the lifespan sets both
        ctx = Context(resources=state.resources, settings=settings, principal=state.principal)
        result = await schema.execute(doc, variable_values=variables, context_value=ctx)
        if result.errors:
            return {"errors": [e.message for e in result.errors]}
        data = result.data or {}
        return dict(next(iter(data.values()), {}) or {})

    @server.tool()
    async def context(
        query: str,
        project: str | None = None,
        token_budget: int | None = None,
        limit: int = 10,
        as_of: str | None = None,
    ) -> dict[str, Any]:
        """Ranked context for a question or task, packed under a token budget, with reasons."""
        return await run(
            CONTEXT_DOC,
            {
                "query": query,
                "project": project,
                "tokenBudget": token_budget,
                "limit": limit,
                "asOf": as_of,
            },
        )

    @server.tool()
    async def search(
        query: str, mode: str = "HYBRID", project: str | None = None, first: int = 10
    ) -> dict[str, Any]:
        """Turns matching a query: mode FULLTEXT, VECTOR or HYBRID."""
        return await run(
            SEARCH_DOC, {"query": query, "mode": mode.upper(), "project": project, "first": first}
        )

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

    return server


def run_stdio(
    settings: ApiSettings, services: ApiServices | None = None, key: str | None = None
) -> None:
    """Serve MCP on stdin/stdout until the client disconnects."""
    build_mcp(settings, services, key=key).run("stdio")


if __name__ == "__main__":  # `python -m api.mcp`: no ingest or consolidation wired
    run_stdio(ApiSettings())
