"""Reading a project's current rules and preferences: graph candidates, then `knowledge.rules`.

One read for every consumer: the GraphQL `rules` query (and through it the MCP tool and the Python
client) and the SessionStart hooks.
"""

from __future__ import annotations

from collections.abc import Sequence

from ai.standing import unstanding
from graph.db import GraphDB
from graph.kinds import ItemKind
from graph.repositories.context_queries import ContextItemRef
from graph.repositories.corrections import CorrectionRepository
from graph.repositories.facts import FactRepository
from knowledge.rules import CURRENT_STATUSES, CurrentRule, InForce, StandingPreference, in_force
from knowledge.vocabulary import vocabulary

__all__ = [
    "CurrentRule",
    "InForce",
    "StandingPreference",
    "held_back",
    "read_current_rules",
    "read_held_back",
    "served_refs",
]


async def read_current_rules(
    db: GraphDB, projects: Sequence[str], *, now_ms: int, limit: int | None = None
) -> list[InForce]:
    """The rules and preferences in force at `now_ms` in `projects` (`*` = all), best first.

    Corrections graduated or confirmed, and the standing preferences the user stated, that
    are confident standing instructions (`held_back` gives none of its reasons).
    """
    kept = [r for r in await _in_force(db, projects, now_ms) if held_back(r) is None]
    return kept if limit is None else kept[:limit]


async def _in_force(db: GraphDB, projects: Sequence[str], now_ms: int) -> list[InForce]:
    corrections = await CorrectionRepository(db).current_rules(
        projects, CURRENT_STATUSES, now=now_ms
    )
    standing = await FactRepository(db).standing_preferences(projects, now=now_ms)
    return in_force(corrections, standing, now_ms=now_ms)


async def read_held_back(
    db: GraphDB, projects: Sequence[str], *, now_ms: int
) -> list[tuple[InForce, str]]:
    """The rules in force that a session is not handed, each with why (`held_back`)."""
    out: list[tuple[InForce, str]] = []
    for r in await _in_force(db, projects, now_ms):
        why = held_back(r)
        if why is not None:
            out.append((r, why))
    return out


def held_back(rule: InForce) -> str | None:
    """Why a rule in force is not handed to a session as a standing instruction, or None.

    A session starts with what holds beyond the moment it was said, and nothing it has to
    guess the meaning of. Handed: a rule a person confirmed or that graduated by repetition;
    a correction whose words say it holds (`ai.standing.unstanding` gives no reason);
    a stated preference about the user that is not a wish for now. Held back, with the
    reason: `injection` (it addresses an AI model), `fragment`, `question`, `one_off` ("do
    not write code yet"), `dangling` ("always do this"), `unsaid` (nothing says it stands).
    """
    why = unstanding(rule.text, names_value=bool(vocabulary().valued_in(rule.text)))
    if why in ("injection", "fragment", "question"):
        return why  # whatever its status: not an instruction a session can be handed
    if isinstance(rule, CurrentRule) and rule.status == "rule":
        return None
    if isinstance(rule, StandingPreference):
        return "one_off" if why == "one_off" else None
    return why


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
