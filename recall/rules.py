"""Reading a project's current rules and preferences: graph candidates, then `knowledge.rules`.

One read for every consumer: the GraphQL `rules` query (and through it the MCP tool and the Python
client) and the SessionStart hooks.
"""

from __future__ import annotations

from collections.abc import Sequence

from graph.db import GraphDB
from graph.repositories.corrections import CorrectionRepository
from knowledge.rules import CURRENT_STATUSES, CurrentRule, current_rules

__all__ = ["CurrentRule", "read_current_rules"]


async def read_current_rules(
    db: GraphDB, projects: Sequence[str], *, now_ms: int, limit: int | None = None
) -> list[CurrentRule]:
    """The rules and preferences in force at `now_ms` in `projects` (`*` = all), best first."""
    candidates = await CorrectionRepository(db).current_rules(
        projects, CURRENT_STATUSES, now=now_ms
    )
    return current_rules(candidates, now_ms=now_ms, limit=limit)
