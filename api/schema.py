"""The strawberry schema, with limits and error masking built from the settings."""

from __future__ import annotations

import logging

import strawberry
from graphql import GraphQLError
from strawberry.extensions import MaskErrors, MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter

from api.config import ApiSection, ApiSettings
from api.mutation import Mutation
from api.query import Query
from graph.errors import GraphUnavailableError

log = logging.getLogger("remgraph.api")


def _unexpected(error: GraphQLError) -> bool:
    """Mask errors raised by resolver code; keep validation and limit errors readable."""
    orig = error.original_error
    return orig is not None and not isinstance(orig, GraphQLError)


class MaskWithRequestId(MaskErrors):
    """Replaces unexpected errors by "internal error (request id ...)" and logs the original."""

    def __init__(self) -> None:
        super().__init__(should_mask_error=_unexpected)

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        ctx = self.execution_context.context
        rid = getattr(ctx, "request_id", "-")
        if isinstance(error.original_error, GraphUnavailableError):
            # An outage, not a bug: say so (clients retry), without the socket path or traceback.
            log.warning("request %s: %s", rid, error.original_error)
            return GraphQLError(
                message="graph engine unavailable, retry shortly",
                nodes=error.nodes,
                source=error.source,
                positions=error.positions,
                path=error.path,
                extensions={"code": "UNAVAILABLE", "requestId": rid},
            )
        log.error("request %s failed: %r", rid, error.original_error, exc_info=error.original_error)
        return GraphQLError(
            message=f"internal error (request id {rid})",
            nodes=error.nodes,
            source=error.source,
            positions=error.positions,
            path=error.path,
            extensions={"code": "INTERNAL", "requestId": rid},
        )


def build_schema(settings: ApiSettings | None = None) -> strawberry.Schema:
    """The schema with depth, alias and token limits from `settings.api`."""
    section = settings.api if settings is not None else ApiSection()
    return strawberry.Schema(
        query=Query,
        mutation=Mutation,
        extensions=[
            lambda: QueryDepthLimiter(max_depth=section.max_depth),
            lambda: MaxAliasesLimiter(max_alias_count=section.max_aliases),
            lambda: MaxTokensLimiter(max_token_count=section.max_tokens),
            MaskWithRequestId,
        ],
    )
