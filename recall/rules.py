"""Reading a project's current rules and preferences: graph candidates, then `knowledge.rules`.

One read for every consumer: the GraphQL `rules` query (and through it the MCP tool and the Python
client) and the SessionStart hooks.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ai.language import fragments, questions
from graph.db import GraphDB
from graph.kinds import ItemKind
from graph.repositories.context_queries import ContextItemRef
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.facts import FactRepository
from knowledge.rules import CURRENT_STATUSES, CurrentRule, InForce, StandingPreference, in_force

__all__ = ["CurrentRule", "InForce", "StandingPreference", "read_current_rules", "served_refs"]


async def read_current_rules(
    db: GraphDB, projects: Sequence[str], *, now_ms: int, limit: int | None = None
) -> list[InForce]:
    """The rules and preferences in force at `now_ms` in `projects` (`*` = all), best first.

    Corrections graduated or confirmed, and the standing preferences the user stated, that
    read as instructions (`is_instruction`).
    """
    corrections = await CorrectionRepository(db).current_rules(
        projects, CURRENT_STATUSES, now=now_ms
    )
    standing = await FactRepository(db).standing_preferences(projects, now=now_ms)
    kept = [r for r in in_force(corrections, standing, now_ms=now_ms) if is_instruction(r.text)]
    return kept if limit is None else kept[:limit]


@lru_cache(maxsize=4096)
def is_instruction(text: str) -> bool:
    """Whether a rule's text is a standing instruction a session can be handed as it is.

    Not a fragment (`ai.language.fragments`: a cut-off or verbless text) and not a question
    ("How can we improve the rules …?" was said, not instructed). What a session-start hook
    injects as the project's rules must read as instructions.
    """
    return not fragments([text])[0] and not questions([text])[0]


def served_refs(rules: Sequence[InForce]) -> tuple[ContextItemRef, ...]:
    """The rules served, as the items a `ContextQueryRecord` links (rank order, weight as score).

    A served rule counts as use for the REM staleness job and `rem run --auto`, as an item
    `context` returned does.
    """
    return tuple(
        ContextItemRef(r.correction.id, ItemKind.CORRECTION.value, rank, r.effective_weight)
        if isinstance(r, CurrentRule)
        else ContextItemRef(r.fact.id, ItemKind.FACT.value, rank, r.effective_weight)
        for rank, r in enumerate(rules, start=1)
    )
