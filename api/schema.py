"""The strawberry schema, with limits and error masking built from the settings."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

import strawberry
from graphql import GraphQLError, IntValueNode, Visitor, visit
from strawberry.extensions import (
    AddValidationRules,
    MaskErrors,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    ValidationCache,
)
from strawberry.types import ExecutionContext

from api.config import ApiSection, ApiSettings
from api.mutation import Mutation
from api.query import Query
from graph.errors import ConflictError, GraphUnavailableError, InvalidInputError, NotFoundError

log = logging.getLogger("remgraph.api")

PARSE_CACHE_SIZE = 256
"""Distinct query texts whose parsed documents are kept (LRU; agents send a handful of texts)."""
VALIDATION_CACHE_SIZE = 256
"""Distinct documents whose validation result (errors included) is kept (LRU)."""


def _unexpected(error: GraphQLError) -> bool:
    """Mask errors raised by resolver code; keep validation and limit errors readable."""
    orig = error.original_error
    return orig is not None and not isinstance(orig, GraphQLError)


def _client_error(orig: BaseException | None) -> tuple[str, str] | None:
    """(code, message) when `orig` is a client's mistake rather than a server fault."""
    if isinstance(orig, InvalidInputError):
        return "BAD_USER_INPUT", str(orig)
    if isinstance(orig, NotFoundError):
        return "NOT_FOUND", str(orig)
    if isinstance(orig, ConflictError):
        return "CONFLICT", str(orig)
    if isinstance(orig, UnicodeEncodeError):
        # A lone surrogate (`"\\ud800"` in JSON) cannot be encoded for the engine.
        return "BAD_USER_INPUT", f"string argument is not valid Unicode ({orig.reason})"
    if isinstance(orig, OverflowError):
        return "BAD_USER_INPUT", f"a date or number argument is out of range ({orig})"
    return None


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
        typed = _client_error(error.original_error)
        if typed is not None:
            # The client's mistake, not a bug: say what was wrong, with no traceback in the log.
            code, message = typed
            log.info("request %s refused: %s", rid, message)
            return GraphQLError(
                message=message,
                nodes=error.nodes,
                source=error.source,
                positions=error.positions,
                path=error.path,
                extensions={"code": code, "requestId": rid},
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


class _Schema(strawberry.Schema):
    """The schema, logging each error once, on one line, at the level it deserves.

    strawberry logs every error at ERROR with the query's code frame; a client's typo ("Cannot
    query field ...") is the client's to fix, so it is one INFO line. Errors raised while
    resolving were logged where they were typed or masked (`MaskWithRequestId`).
    """

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        rid = getattr(getattr(execution_context, "context", None), "request_id", "-")
        for error in errors:
            if error.original_error is None:
                log.info("request %s refused: %s", rid, " ".join(error.message.split()))


_INT_DIGITS = 10
"""A GraphQL `Int` is 32 bits: at most 10 digits (2,147,483,647) and a sign."""


_LONG_DIGITS = re.compile(rf"\d{{{_INT_DIGITS + 1},}}")


class _IntLiterals(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.errors: list[GraphQLError] = []

    def enter_int_value(self, node: IntValueNode, *_args: object) -> None:
        digits = len(node.value.lstrip("-"))
        if digits > _INT_DIGITS:
            self.errors.append(
                GraphQLError(f"Int cannot represent a {digits}-digit value (32 bits at most)", node)
            )


class IntCheckedValidationCache(ValidationCache):
    """strawberry's validation cache, refusing first an `Int` literal longer than 32 bits.

    Python refuses to convert an integer string of more than 4,300 digits, so a 5,000-digit
    literal was an internal error instead of the client's. Validation rules run side by side
    and the cache validates whatever ran before it, so the check sits in front of the cache: a
    document with an oversized literal is answered with that error and never validated. A
    document without a long run of digits costs one regular-expression scan.
    """

    def on_validate(self) -> Iterator[None]:
        ec = self.execution_context
        if ec.query and ec.graphql_document is not None and _LONG_DIGITS.search(ec.query):
            found = _IntLiterals()
            visit(ec.graphql_document, found)
            if found.errors:
                ec.pre_execution_errors = found.errors
                yield
                return
        yield from super().on_validate()


def build_schema(settings: ApiSettings | None = None) -> strawberry.Schema:
    """The schema with the limits of `settings.api` and LRU caches for parsing and validation.

    The depth and alias rules are built once here, not per request: the validation cache is keyed
    by (schema, document, rules), so per-request rule classes would never hit. A cached entry holds
    the limit errors too, so a too-deep query is refused on every submission, not only the first;
    the token limit applies while parsing, and a failed parse is never cached.
    """
    section = settings.api if settings is not None else ApiSection()
    rules = (
        *QueryDepthLimiter(max_depth=section.max_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=section.max_aliases).validation_rules,
    )
    return _Schema(
        query=Query,
        mutation=Mutation,
        extensions=[
            lambda: AddValidationRules(list(rules)),
            lambda: MaxTokensLimiter(max_token_count=section.max_tokens),
            lambda: ParserCache(maxsize=PARSE_CACHE_SIZE),
            lambda: IntCheckedValidationCache(maxsize=VALIDATION_CACHE_SIZE),
            MaskWithRequestId,
        ],
    )
