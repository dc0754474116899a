"""Check every named query against a live engine with EXPLAIN.

Used by `remgraph db verify-queries` and the integration tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graph.cypher import Mode, Query, QueryRef, registry
from graph.db import GraphDB
from graph.errors import GraphError

VECTOR_DIMS = 384


def placeholder(name: str) -> Any:
    """A plausibly typed dummy value for a parameter, chosen by naming convention."""
    n = name.lower()
    if n in {
        "rows",
        "ids",
        "projects",
        "keywords",
        "names",
        "edges",
        "members",
        "items",
        "keys",
        "paths",
        "statuses",
        "keep",
        "top",
        "scored",
    } or n.endswith(("_ids", "_rows", "_list")):
        return []
    if "vector" in n or "embedding" in n:
        return [0.0] * VECTOR_DIMS
    if (
        n in {"limit", "k", "k_search", "skip", "offset", "first", "batch_size", "n", "depth"}
        or n in {"size", "used", "helpful", "harmful", "cap", "fetch"}
        or n.endswith(("_ms", "_at", "_count", "_limit"))
        or n in {"as_of", "known_at", "now", "at", "since", "until"}
    ):
        return 0
    if n.endswith(("_weight", "_score", "threshold")) or n in {"weight", "score", "confidence"}:
        return 0.0
    if n.startswith(("is_", "has_", "with_")) or n in {"current", "replace", "flag"}:
        return False
    if n in {"row", "props", "properties", "summary"}:
        return {}
    return "x"


@dataclass(frozen=True)
class VerifyResult:
    """One query's EXPLAIN outcome."""

    name: str
    ok: bool
    error: str | None = None


async def verify_queries(db: GraphDB) -> list[VerifyResult]:
    """EXPLAIN every non-schema query for the engine's dialect."""
    out: list[VerifyResult] = []
    reg = registry()
    for name in reg.names(db.dialect):
        q: Query = reg.get(name, db.dialect)
        if q.mode is Mode.SCHEMA:
            continue
        params = {p: placeholder(p) for p in sorted(q.params)}
        try:
            await db.explain(QueryRef(name), **params)
            out.append(VerifyResult(name, True))
        except GraphError as e:
            out.append(VerifyResult(name, False, str(e)))
    return out
