"""Settings of the shared knowledge rules: one section each, read by every app that applies them.

`KnowledgeSettings` adds them to the graph settings; `IngestSettings` and `ConsolidateSettings`
both extend it, so extraction and the REM cycle read the same thresholds from the same variables:
`REMGRAPH_TOPICS__COMPLETED_AFTER_DAYS=60`, `REMGRAPH_CORRECTIONS__RULE_AFTER_SESSIONS=5`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from graph.config import GraphSettings
from knowledge.topics import TopicRules

__all__ = ["CorrectionRules", "KnowledgeSettings", "TopicRules"]


class CorrectionRules(BaseModel):
    """Graduation and decay of corrections (`REMGRAPH_CORRECTIONS__<FIELD>`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    half_life_days: float = Field(default=30.0, gt=0)
    """Decay constant of a new correction's effective weight (stored on the correction)."""
    reinforcement_exponent: float = Field(default=0.5, ge=0.0, le=2.0)
    """`g` in `base × reinforcement^g × exp(−days/half_life)`."""
    pattern_after_sessions: int = Field(default=2, ge=1)
    """Distinct sessions that make a correction a `pattern`."""
    preference_after_sessions: int = Field(default=4, ge=1)
    """Sightings across distinct sessions that make a correction a `preference`."""
    rule_after_sessions: int = Field(default=5, ge=1)
    """Consistent sightings in distinct sessions that make a correction a `rule`."""


class KnowledgeSettings(GraphSettings):
    """Graph settings plus the knowledge rules every app applies alike."""

    topics: TopicRules = Field(default_factory=TopicRules)
    """Topic weight and phase (`REMGRAPH_TOPICS__*`)."""
    corrections: CorrectionRules = Field(default_factory=CorrectionRules)
    """Correction graduation and decay (`REMGRAPH_CORRECTIONS__*`)."""
