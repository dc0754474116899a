"""The LLM extractor's structured output schemas, and their lenient field types.

One schema per pass (`SessionOverview`, `SessionKnowledge`, `SessionQuality`), validated record
by record (`ai.records`). Models answer `"turns": ["[3]"]`, `"kind": "architecture"`,
`"complexity": 7`, a repeated instruction or a rule as an object (or a bare string), a slot as
`"Package Manager"`; the lenient field types read such values into the schema's types (ordinals
from strings, off-list kinds to the field's default, 0–10 and 0–100 scores rescaled, slot names
in snake_case), so one such record does not fail its pass.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, BeforeValidator, Field, model_validator

from graph.models import CorrectionType, FactKind, LessonCategory
from ingest.extract.outcome import Outcome

__all__ = [
    "CorrectionItem",
    "DecisionItem",
    "FrustrationItem",
    "KnowledgeItem",
    "Ordinals",
    "RuleItem",
    "Score",
    "SessionKnowledge",
    "SessionOverview",
    "SessionQuality",
    "SlotName",
    "Text",
    "ToolStatItem",
    "TopicItem",
]

# --- lenient field types: what models write instead of the schema's exact shape -------------------

_ORDINALS = re.compile(r"(\d+)(?:\s*[-–]\s*(\d+))?")


def _ordinals(v: Any) -> Any:
    """`3`, `"3"`, `"[3]"`, `"t3"`, `"turn 3"`, `"3-5"` or a list of those → ordinals."""
    items = v if isinstance(v, list) else [v]
    out: list[Any] = []
    for x in items:
        if not isinstance(x, str):
            out.append(x)
            continue
        found = _ORDINALS.findall(x)
        for a, b in found:
            lo, hi = int(a), int(b or a)
            out += list(range(lo, hi + 1)) if hi - lo < 100 else [lo, hi]
        if not found:
            out.append(x)  # no number in it: the validation error names it
    return out


def _ordinal(v: Any) -> Any:
    """The first ordinal of `v` (a frustration signal cites one turn)."""
    got = _ordinals(v)
    return got[0] if got else v


_WORDS = {"low": 0.25, "medium": 0.5, "moderate": 0.5, "high": 0.8, "very high": 0.95}


def _score(v: Any) -> Any:
    """A score in [0, 1]: `"high"` → 0.8, `7` (of 10) → 0.7, `85` (of 100) → 0.85."""
    if isinstance(v, str):
        word = v.strip().lower()
        if word in _WORDS:
            return _WORDS[word]
        try:
            v = float(word.rstrip("%")) / (100 if word.endswith("%") else 1)
        except ValueError:
            return v
    if isinstance(v, int | float) and not isinstance(v, bool):
        if 1 < v <= 10:
            return v / 10
        if 10 < v <= 100:
            return v / 100
    return v


def _one_of(
    options: tuple[str, ...], default: str | None, synonyms: dict[str, str] | None = None
) -> Any:
    """A validator mapping `v` onto `options` (case, `-`/`_`/space and synonyms aside).

    Anything else becomes `default`: an off-list kind is the model's wording, not a reason to
    lose the record.
    """

    def pick(v: Any) -> Any:
        if not isinstance(v, str):
            return v
        key = re.sub(r"[\s_-]+", "_", v.strip().lower())
        for o in options:
            if key == o.replace("-", "_"):
                return o
        return (synonyms or {}).get(key, default)

    return BeforeValidator(pick)


def _text(v: Any) -> Any:
    """A string, or the first text value of an object the model wrote instead of one."""
    if isinstance(v, dict):
        for k in ("text", "instruction", "rule", "rule_text", "content", "statement"):
            if isinstance(v.get(k), str):
                return v[k]
        return next((x for x in v.values() if isinstance(x, str)), v)
    return v


Ordinals = Annotated[list[int], BeforeValidator(_ordinals)]
Score = Annotated[float, BeforeValidator(_score), Field(ge=0.0, le=1.0)]
Text = Annotated[str, BeforeValidator(_text)]
_OUTCOMES: tuple[str, ...] = get_args(Outcome)
_OUTCOME_SYNONYMS = {
    "failure": "failed",
    "fail": "failed",
    "error": "failed",
    "completed": "success",
    "complete": "success",
    "done": "success",
    "resolved": "success",
    "successful": "success",
    "partial_success": "partial",
    "in_progress": "ongoing",
    "open": "ongoing",
    "unresolved": "ongoing",
}


_NO_SLOT = {"", "null", "none", "n/a", "na", "other", "unknown"}


def _slot_name(v: Any) -> Any:
    """`"Package Manager"`, `"package-manager"` → `"package_manager"`; `"none"`, `""` → None.

    A list names its first slot; any other value is kept as text, so an unknown one is reported
    by name rather than failing the record.
    """
    if isinstance(v, list):
        v = next(iter(v), None)
    if v is None:
        return None
    key = re.sub(r"[\s-]+", "_", str(v).strip().lower())
    return None if key in _NO_SLOT else key


SlotName = Annotated[str | None, BeforeValidator(_slot_name)]


# --- structured output schemas -------------------------------------------------------------------

_SLOT = "the vocabulary slot it fills, null when none fits"


class TopicItem(BaseModel):
    """A topic the session discusses."""

    title: str
    keywords: list[str] = Field(default_factory=list)
    turns: Ordinals = Field(default_factory=list, description="ordinals of mentioning turns")


class SessionOverview(BaseModel):
    """Pass 1: what the session was about and how it went."""

    summary: str = ""
    intent: str = ""
    topics: list[TopicItem] = Field(default_factory=list, description="in order of appearance")
    outcome: Annotated[Outcome | None, _one_of(_OUTCOMES, None, _OUTCOME_SYNONYMS)] = None
    complexity: Score = 0.5


class DecisionItem(BaseModel):
    """A decision, preference or fact as a subject–predicate–object triple, and its slot."""

    subject: str
    predicate: str
    object: str
    statement: str = ""
    kind: Annotated[FactKind, _one_of(get_args(FactKind), "other", {"tech": "tech_stack"})] = (
        "decision"
    )
    turns: Ordinals = Field(default_factory=list)
    confidence: Score = 0.7
    slot: SlotName = Field(None, description=_SLOT)


class CorrectionItem(BaseModel):
    """The user correcting the agent."""

    type: Annotated[
        CorrectionType, _one_of(get_args(CorrectionType), "preference", {"tool": "tool_usage"})
    ] = "preference"
    original_behaviour: str = ""
    corrected_behaviour: str = ""
    rule_text: str
    explicit_rule: bool = False
    turns: Ordinals = Field(default_factory=list)
    confidence: Score = 0.7
    action: Literal["ADD", "UPDATE", "INVALIDATE", "NOOP"] | None = None
    slot: SlotName = Field(None, description=_SLOT)


class RuleItem(BaseModel):
    """A standing rule: the user's sentence and the slot it fills (a bare string is its text)."""

    text: str
    slot: SlotName = Field(None, description=_SLOT)

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, v: Any) -> Any:
        if isinstance(v, str):
            return {"text": v}
        if isinstance(v, dict) and not isinstance(v.get("text"), str):
            return {**v, "text": _text(v)}
        return v


class FrustrationItem(BaseModel):
    """A sign of user frustration."""

    turn: Annotated[int, BeforeValidator(_ordinal)]
    quote: str = ""


class ToolStatItem(BaseModel):
    """Calls and failures of one tool."""

    tool: str
    calls: int = 0
    failures: int = 0


class KnowledgeItem(BaseModel):
    """Something learned: a lesson."""

    title: str
    content: str
    category: Annotated[
        LessonCategory,
        _one_of(get_args(LessonCategory), "problem-solution", {"best_practices": "best-practice"}),
    ] = "problem-solution"
    applicable_when: str = ""
    keywords: list[str] = Field(default_factory=list)
    turns: Ordinals = Field(default_factory=list)
    has_examples: bool = False
    has_steps: bool = False


class SessionKnowledge(BaseModel):
    """Pass 2: durable knowledge in the session."""

    decisions: list[DecisionItem] = Field(default_factory=list)
    corrections: list[CorrectionItem] = Field(default_factory=list)
    repeated_instructions: list[Text] = Field(default_factory=list)
    frustration_signals: list[FrustrationItem] = Field(default_factory=list)
    tool_stats: list[ToolStatItem] = Field(default_factory=list)
    new_knowledge: list[KnowledgeItem] = Field(default_factory=list)
    rules: list[RuleItem] = Field(default_factory=list)


class SessionQuality(BaseModel):
    """Pass 3: quality scores from passes 1–2."""

    quality: Score
    clarity: Score = 0.5
    efficiency: Score = 0.5
    knowledge_value: Score = 0.5
    rationale: str = ""
