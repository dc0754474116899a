"""Pure scoring formulas shared by extraction, ranking and the REM cycle.

No I/O and no clocks: callers pass times and counts in. Every function is small, total and
deterministic, so ranking, consolidation and extraction agree on what a weight means.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from graph.models import CorrectionStatus, TopicPhase

__all__ = [
    "DAY_MS",
    "STATUS_ORDER",
    "TopicSignals",
    "correction_effective_weight",
    "correction_status",
    "days_between",
    "decay",
    "engagement_score",
    "frequency_score",
    "lesson_quality",
    "recency_score",
    "topic_phase",
    "topic_weight",
]

DAY_MS = 86_400_000
"""Milliseconds per day."""

STATUS_ORDER: dict[CorrectionStatus, int] = {
    "correction": 0,
    "pattern": 1,
    "preference": 2,
    "rule": 3,
}
"""Graduation order of correction statuses; a status never moves backwards."""


def days_between(earlier_ms: int, later_ms: int) -> float:
    """Days from `earlier_ms` to `later_ms` (epoch ms), never negative."""
    return max(0.0, (later_ms - earlier_ms) / DAY_MS)


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
    """Graduation: correction → pattern → preference → rule; never backwards.

    - `rule`: explicit confirmation, or ≥ `rule_after` consistent sightings in distinct sessions;
    - `preference`: ≥ `preference_after` sightings across distinct sessions;
    - `pattern`: seen in ≥ `pattern_after` distinct sessions (2–3 sightings);
    - else `correction`.

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
    new: CorrectionStatus = "correction"
    if confirmed or (consistent and spread >= rule_after):
        new = "rule"
    elif spread >= preference_after:
        new = "preference"
    elif spread >= pattern_after:
        new = "pattern"
    return new if STATUS_ORDER[new] > STATUS_ORDER[current] else current


def frequency_score(message_count: int, reference: int = 50) -> float:
    """Log-scaled mention frequency in [0, 1]; `reference` mentions score 1."""
    if message_count <= 0:
        return 0.0
    return min(1.0, math.log1p(message_count) / math.log1p(reference))


def recency_score(days_since_last_seen: float, half_life_days: float = 14.0) -> float:
    """Exponential recency in (0, 1]."""
    return decay(days_since_last_seen, half_life_days)


def engagement_score(sessions: int, projects: int = 1, reference_sessions: int = 10) -> float:
    """Breadth of engagement in [0, 1]: distinct sessions (log-scaled) + cross-project bonus."""
    if sessions <= 0:
        return 0.0
    base = min(1.0, math.log1p(sessions) / math.log1p(reference_sessions))
    bonus = 0.1 * max(0, projects - 1)
    return min(1.0, base + bonus)


class TopicSignals:
    """The four normalised signals of a topic's weight (each in [0, 1])."""

    __slots__ = ("depth", "engagement", "frequency", "recency")

    def __init__(self, frequency: float, recency: float, depth: float, engagement: float) -> None:
        self.frequency = frequency
        self.recency = recency
        self.depth = depth
        self.engagement = engagement


def topic_weight(s: TopicSignals) -> float:
    """`0.3·frequency + 0.3·recency + 0.2·depth + 0.2·engagement`, in [0, 1]."""
    clamp = _clamp01
    return (
        0.3 * clamp(s.frequency)
        + 0.3 * clamp(s.recency)
        + 0.2 * clamp(s.depth)
        + 0.2 * clamp(s.engagement)
    )


def topic_phase(
    days_since_last_seen: float,
    *,
    dormant_after_days: float = 14.0,
    completed_after_days: float = 60.0,
) -> TopicPhase:
    """`active` while recently discussed, `dormant` after a quiet spell, `completed` after long."""
    if days_since_last_seen >= completed_after_days:
        return "completed"
    if days_since_last_seen >= dormant_after_days:
        return "dormant"
    return "active"


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


def _clamp01(x: float) -> float:
    return 0.0 if x < 0 else 1.0 if x > 1 else x
