"""Pure scoring formulas shared by extraction, ranking and the REM cycle.

No I/O and no clocks: callers pass times and counts in. Every function is small, total and
deterministic, so ranking, consolidation and extraction agree on what a weight means.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from graph.models import CorrectionStatus

__all__ = [
    "STATUS_ORDER",
    "correction_effective_weight",
    "correction_status",
    "decay",
    "lesson_quality",
]

STATUS_ORDER: dict[CorrectionStatus, int] = {
    "candidate": -1,
    "correction": 0,
    "pattern": 1,
    "preference": 2,
    "rule": 3,
}
"""Graduation order of correction statuses; a status never moves backwards."""


def decay(days: float, half_life_days: float) -> float:
    """`exp(-days / half_life)`: the decay factor the issue specifies for corrections and topics.

    The issue writes the decay as `exp(−days/half_life)` (an e-folding time called half-life); we
    keep that exact form so ranking and the REM cycle reproduce the documented numbers.
    """
    if half_life_days <= 0:
        return 0.0
    return math.exp(-max(0.0, days) / half_life_days)


def correction_effective_weight(
    base: float,
    reinforcement: float,
    days_since_last_seen: float,
    *,
    g: float = 0.5,
    half_life_days: float = 30.0,
) -> float:
    """`base × reinforcement^g × exp(−days_since_last_seen / half_life)`.

    Args:
        base: the correction's base weight (its confidence).
        reinforcement: how many times it was seen (≥ 1).
        days_since_last_seen: age of the latest sighting.
        g: reinforcement exponent (< 1 gives diminishing returns).
        half_life_days: decay constant in days.
    """
    boost: float = max(1.0, reinforcement) ** g
    return base * boost * decay(days_since_last_seen, half_life_days)


def correction_status(
    current: CorrectionStatus,
    *,
    sessions: int,
    sightings: int,
    consistent: bool = True,
    confirmed: bool = False,
    rule_after: int = 5,
    preference_after: int = 4,
    pattern_after: int = 2,
) -> CorrectionStatus:
    """Graduation: (candidate →) correction → pattern → preference → rule; never backwards.

    A candidate (`graph.models.CANDIDATE`: stored, not served) stays one until it reaches
    `pattern` or is confirmed: one more sighting in the same session does not make it hold.

    - `rule`: explicit confirmation, or ≥ `rule_after` consistent sightings in distinct sessions;
    - `preference`: ≥ `preference_after` sightings across distinct sessions;
    - `pattern`: seen in ≥ `pattern_after` distinct sessions (2–3 sightings);
    - else `correction` (or `candidate`, for a candidate).

    Args:
        current: the status stored so far.
        sessions: distinct sessions in which it was seen.
        sightings: total sightings (reinforcement count).
        consistent: False when a contradicting correction exists (blocks graduation to rule).
        confirmed: a human confirmed it.
        rule_after: sightings needed for `rule`.
        preference_after: sightings needed for `preference`.
        pattern_after: distinct sessions needed for `pattern`.
    """
    spread = min(sessions, sightings)
    new: CorrectionStatus = "candidate" if current == "candidate" else "correction"
    if confirmed or (consistent and spread >= rule_after):
        new = "rule"
    elif spread >= preference_after:
        new = "preference"
    elif spread >= pattern_after:
        new = "pattern"
    return new if STATUS_ORDER[new] > STATUS_ORDER[current] else current


def lesson_quality(
    *,
    has_examples: bool,
    has_steps: bool,
    sources: int,
    content_chars: int,
    concise_max_chars: int = 600,
) -> float:
    """Quality in [0, 1]: a quarter each for examples, steps, ≥ 2 sources, and concision."""
    score = 0.0
    score += 0.25 if has_examples else 0.0
    score += 0.25 if has_steps else 0.0
    score += 0.25 if sources >= 2 else 0.0
    score += 0.25 if 0 < content_chars <= concise_max_chars else 0.0
    return score


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; 0 for an empty sequence."""
    return sum(values) / len(values) if values else 0.0
