"""What counts as a project's current rules and preferences, and in which order they come.

`current_rules` is the one definition: the GraphQL `rules` query, the MCP `rules` tool, the Python
client and the SessionStart hook all read through it (`recall.rules`). The graph query that feeds
it (`correction.current_rules`) only narrows the candidates with `CURRENT_STATUSES`; the decision
and the order are made here, so refining "current" (trust, contradictions, feedback) means
changing this module alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.timeutil import days_between, to_ms
from graph.models import Correction, CorrectionStatus, Fact, Temporal
from knowledge.scoring import STATUS_ORDER, correction_effective_weight

__all__ = [
    "CURRENT_STATUSES",
    "CurrentRule",
    "InForce",
    "StandingPreference",
    "current_rules",
    "effective_status",
    "in_force",
    "is_current",
    "status_with_confirmation",
]

CURRENT_STATUSES: tuple[CorrectionStatus, ...] = ("preference", "rule")
"""Graduation stages that are in force on their own; a confirmed correction is in force at any
stage (confirming makes it a rule)."""


@dataclass(frozen=True)
class CurrentRule:
    """A correction in force, with the status and weight it is ranked by.

    Attributes:
        correction: the stored correction.
        status: `rule` when confirmed, else its graduation status.
        effective_weight: `confidence × reinforcement^g × exp(−days since last seen / half-life)`
            as of the read time (the same weight `context` ranks corrections by).
    """

    correction: Correction
    status: CorrectionStatus
    effective_weight: float

    @property
    def id(self) -> str:
        return self.correction.id

    @property
    def text(self) -> str:
        """The instruction: the rule text, else what the user wanted instead."""
        c = self.correction
        return c.rule_text.strip() or c.corrected_behaviour.strip() or c.original_behaviour.strip()


@dataclass(frozen=True)
class StandingPreference:
    """A preference the user told the agent about themselves: a diet, an allergy, the name.

    A fact of kind `preference`, in force while it holds, like a graduated preference.

    Attributes:
        fact: the stored fact.
    """

    fact: Fact
    status: CorrectionStatus = "preference"

    @property
    def id(self) -> str:
        return self.fact.id

    @property
    def text(self) -> str:
        """What to respect: the fact's statement ("Ann is pescatarian (diet)")."""
        return (
            self.fact.statement.strip()
            or f"{self.fact.subject} {self.fact.predicate} {self.fact.object}"
        )

    @property
    def effective_weight(self) -> float:
        """Its confidence: a stated preference does not decay while it holds."""
        return round(self.fact.confidence, 6)


InForce = CurrentRule | StandingPreference
"""One item of `rules(project)`: a correction in force or a standing preference."""


def _holds(item: Temporal, now_ms: int) -> bool:
    """Valid at `now_ms` and the current record then (a correction's or a fact's interval)."""
    if to_ms(item.valid_from) > now_ms or to_ms(item.recorded_at) > now_ms:
        return False
    if item.valid_to is not None and to_ms(item.valid_to) <= now_ms:
        return False
    return item.expired_at is None or to_ms(item.expired_at) > now_ms


def effective_status(c: Correction) -> CorrectionStatus:
    """The status a correction is ranked by: confirmed ones are rules."""
    return status_with_confirmation(c.status, c.confirmed)


def status_with_confirmation(status: CorrectionStatus, confirmed: bool) -> CorrectionStatus:
    """A stored status as it counts: a person's confirmation makes any correction a rule."""
    return "rule" if confirmed else status


def is_current(c: Correction, now_ms: int) -> bool:
    """True when `c` is a rule or preference in force at `now_ms`.

    In force: valid and the current record at `now_ms`, and graduated to a status in
    `CURRENT_STATUSES` or confirmed by a person.
    """
    return _holds(c, now_ms) and (c.confirmed or c.status in CURRENT_STATUSES)


def _weight(c: Correction, now_ms: int) -> float:
    seen = c.last_seen or c.valid_from
    return correction_effective_weight(
        c.confidence,
        c.reinforcement,
        days_between(to_ms(seen), now_ms),
        half_life_days=c.half_life_days,
    )


def current_rules(
    candidates: Iterable[Correction], *, now_ms: int, limit: int | None = None
) -> list[CurrentRule]:
    """The corrections of `candidates` in force at `now_ms`, rules first, then by weight.

    Order: effective status (rule before preference before pattern before correction), then
    effective weight (heaviest first), then id, so equal inputs always give the same list.
    """
    rules = [
        CurrentRule(c, effective_status(c), round(_weight(c, now_ms), 6))
        for c in candidates
        if is_current(c, now_ms)
    ]
    rules.sort(key=lambda r: (-STATUS_ORDER[r.status], -r.effective_weight, r.correction.id))
    return rules if limit is None else rules[:limit]


def in_force(
    corrections: Iterable[Correction],
    facts: Iterable[Fact],
    *,
    now_ms: int,
    limit: int | None = None,
) -> list[InForce]:
    """What `rules(project)` lists, in one order.

    `current_rules` of `corrections` and the standing preferences among `facts` (kind
    `preference`, holding at `now_ms`).

    Order: effective status (rules before preferences), then effective weight, then id.
    """
    out: list[InForce] = [*current_rules(corrections, now_ms=now_ms)]
    out += [StandingPreference(f) for f in facts if f.kind == "preference" and _holds(f, now_ms)]
    out.sort(key=lambda r: (-STATUS_ORDER[r.status], -r.effective_weight, r.id))
    return out if limit is None else out[:limit]
