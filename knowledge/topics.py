"""How much a topic matters now: its weight and phase (pure, the one owner of the rule).

Extraction recomputes every topic's standing at the end of an ingest run and the REM cycle's
`topic_weights` job does it on its schedule; both call `topic_standings` with the same
`TopicRules` (`REMGRAPH_TOPICS__*`), so a topic gets the same weight and phase whichever ran last.

Weight = 0.3·frequency + 0.3·recency + 0.2·depth + 0.2·engagement, each signal in [0, 1]:
frequency is log-scaled mentions (50 score 1), recency decays with the days since the topic was
last seen, depth is mentions per session / 8, engagement is log-scaled sessions (10 score 1) plus
0.1 per extra project. Phase: `active` while recently discussed, `dormant` after a quiet spell,
`completed` after a long one. Recency and phase are measured against the latest activity among
the topics when that lies in the past, so a historic import (LoCoMo) does not all look dormant.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from core.timeutil import days_between
from graph.models import TopicPhase
from knowledge.scoring import decay

__all__ = [
    "TopicActivity",
    "TopicRules",
    "TopicSignals",
    "TopicStanding",
    "engagement_score",
    "frequency_score",
    "recency_score",
    "reference_time",
    "topic_phase",
    "topic_standing",
    "topic_standings",
    "topic_weight",
]

NEVER_SEEN_DAYS = 365.0
"""Age given to a topic without a `last_seen` time."""


class TopicRules(BaseModel):
    """Thresholds of topic weight and phase (`REMGRAPH_TOPICS__<FIELD>`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    recency_half_life_days: float = Field(default=14.0, gt=0)
    """Decay constant of the recency signal."""
    dormant_after_days: float = Field(default=14.0, gt=0)
    """Quiet days after which a topic is `dormant`."""
    completed_after_days: float = Field(default=60.0, gt=0)
    """Quiet days after which a topic is `completed`."""


@dataclass(frozen=True, slots=True)
class TopicSignals:
    """The four normalised signals of a topic's weight (each in [0, 1])."""

    frequency: float
    recency: float
    depth: float
    engagement: float


@dataclass(frozen=True, slots=True)
class TopicActivity:
    """What the rule needs to know about one topic."""

    id: str
    message_count: int
    """Mentions (turns) of the topic."""
    sessions: int
    """Sessions it was discussed in."""
    projects: int
    """Projects it was discussed in."""
    last_seen_ms: int | None
    """When it was last discussed (epoch ms), if known."""


@dataclass(frozen=True, slots=True)
class TopicStanding:
    """A topic's weight (rounded to 6 places) and phase."""

    id: str
    weight: float
    phase: TopicPhase


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


def topic_weight(s: TopicSignals) -> float:
    """`0.3·frequency + 0.3·recency + 0.2·depth + 0.2·engagement`, in [0, 1]."""
    return (
        0.3 * _clamp01(s.frequency)
        + 0.3 * _clamp01(s.recency)
        + 0.2 * _clamp01(s.depth)
        + 0.2 * _clamp01(s.engagement)
    )


def topic_phase(days_since_last_seen: float, rules: TopicRules | None = None) -> TopicPhase:
    """`active`, `dormant` after `rules.dormant_after_days`, `completed` after the longer wait."""
    r = rules or TopicRules()
    if days_since_last_seen >= r.completed_after_days:
        return "completed"
    if days_since_last_seen >= r.dormant_after_days:
        return "dormant"
    return "active"


def reference_time(topics: Sequence[TopicActivity], now_ms: int) -> int:
    """The time recency and phase are measured from: the latest activity, or now if later."""
    latest = max((t.last_seen_ms for t in topics if t.last_seen_ms), default=now_ms)
    return min(now_ms, latest)


def topic_standing(t: TopicActivity, ref_ms: int, rules: TopicRules) -> TopicStanding:
    """Weight and phase of one topic seen from `ref_ms` (see `reference_time`)."""
    days = days_between(t.last_seen_ms, ref_ms) if t.last_seen_ms else NEVER_SEEN_DAYS
    signals = TopicSignals(
        frequency=frequency_score(t.message_count),
        recency=recency_score(days, rules.recency_half_life_days),
        depth=min(1.0, t.message_count / max(1, t.sessions) / 8.0),
        engagement=engagement_score(t.sessions, t.projects),
    )
    return TopicStanding(t.id, round(topic_weight(signals), 6), topic_phase(days, rules))


def topic_standings(
    topics: Sequence[TopicActivity], now_ms: int, rules: TopicRules
) -> list[TopicStanding]:
    """Weight and phase of every topic, measured from their common `reference_time`."""
    ref = reference_time(topics, now_ms)
    return [topic_standing(t, ref, rules) for t in topics]


def _clamp01(x: float) -> float:
    return 0.0 if x < 0 else 1.0 if x > 1 else x
