"""The `GraphDB` protocol: the one narrow interface the rest of remgraph uses to reach an engine.

Adapters live in `graph/engines/`; nothing outside them knows which engine answers. Queries are
passed as `QueryRef`s and resolved against the adapter's dialect, parameters as keyword arguments.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from graph.cypher import Dialect, Mode, Q, Query, QueryRef, registry
from graph.errors import QueryError

log = logging.getLogger("remgraph.graph.db")

Row = dict[str, Any]

_KNOWLEDGE_TICK = Q("knowledge_clock.tick")


@runtime_checkable
class GraphDB(Protocol):
    """What every engine adapter offers."""

    dialect: Dialect
    address: str

    async def read(self, query: QueryRef, **params: Any) -> list[Row]:
        """Run a `mode: read` query and return its rows as dicts keyed by the declared columns."""
        ...

    async def write(self, query: QueryRef, **params: Any) -> list[Row]:
        """Run a `mode: write` query (idempotent: drivers may retry it) and return its rows."""
        ...

    async def autocommit(self, query: QueryRef, **params: Any) -> list[Row]:
        """Run a `mode: autocommit` query (the only mode allowed `IN TRANSACTIONS`)."""
        ...

    async def explain(self, query: QueryRef, **params: Any) -> None:
        """Ask the engine to plan (not run) a query; raises `QueryError` if it is invalid."""
        ...

    async def run_schema(self, statement: str) -> None:
        """Apply one idempotent schema statement from a `cypher/schema` file."""
        ...

    async def wait_for_indexes(self, timeout_s: float = 60.0) -> None:
        """Block until every index is online (both engines build indexes asynchronously)."""
        ...

    async def ping(self) -> None:
        """Raise `GraphUnavailableError` unless the engine answers."""
        ...

    def fulltext_query(self, text: str) -> str:
        """Turn free user text into a safe query string for this engine's fulltext procedure."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


def resolve(query: QueryRef, dialect: Dialect, expected: Mode | tuple[Mode, ...]) -> Query:
    """Resolve a reference for a dialect and check its mode matches the call."""
    q = registry().get(query.name, dialect)
    modes = expected if isinstance(expected, tuple) else (expected,)
    if q.mode not in modes:
        raise QueryError(q.name, f"is mode {q.mode}, called as {'/'.join(modes)}")
    return q


async def after_autocommit(db: GraphDB, query: QueryRef) -> None:
    """Move the knowledge clock after an autocommit query that may change knowledge.

    Such a query commits in transactions of its own, so the registry cannot put the bump into it
    (`Query.bumps_knowledge`); every adapter calls this once the query has run.
    """
    if resolve(query, db.dialect, Mode.AUTOCOMMIT).bumps_knowledge:
        await db.write(_KNOWLEDGE_TICK)


def check_params(q: Query, params: Mapping[str, Any]) -> None:
    """Refuse calls whose keyword arguments differ from the file's declared parameters."""
    given = frozenset(params)
    if given != q.params:
        missing = sorted(q.params - given)
        extra = sorted(given - q.params)
        raise QueryError(q.name, f"parameters missing {missing}, unexpected {extra}")


def summarize(value: Any, depth: int = 0) -> Any:
    """Shorten parameters for logs: long strings, lists and vectors are truncated."""
    if isinstance(value, str):
        return value if len(value) <= 40 else value[:37] + "..."
    if isinstance(value, list | tuple):
        if len(value) > 3 or depth > 1:
            return f"<{len(value)} items>"
        return [summarize(v, depth + 1) for v in value]
    if isinstance(value, dict):
        if depth > 1:
            return f"<{len(value)} keys>"
        return {k: summarize(v, depth + 1) for k, v in value.items()}
    return value


_LUCENE_SPECIAL = set('+-&|!(){}[]^"~*?:\\/')
_REDISEARCH_SPECIAL = set(",.<>{}[]\"':;!@#$%^&*()-+=~|/\\?`")


def lucene_terms(text: str) -> str:
    """Neo4j fulltext (Lucene): OR of escaped terms, so free text never breaks the parser."""
    terms = []
    for raw in text.split():
        t = "".join("\\" + c if c in _LUCENE_SPECIAL else c for c in raw)
        if t and t.upper() not in {"AND", "OR", "NOT", "TO"}:
            terms.append(t)
    return " OR ".join(terms)


def redisearch_terms(text: str) -> str:
    """FalkorDB fulltext (RediSearch): OR (`|`) of words with punctuation removed."""
    cleaned = "".join(" " if c in _REDISEARCH_SPECIAL else c for c in text)
    terms = [t for t in cleaned.split() if t]
    return "|".join(terms)
