"""The LLM extractor: three structured passes over a session through `ai.llm.LLMClient`.

Passes (the session-enrichment design):

1. overview: summary, intent, topic evolution, outcome, complexity;
2. knowledge: decisions, corrections, repeated instructions, frustration signals, tool stats,
   new knowledge (lessons), rules;
3. quality: scores computed from the outputs of passes 1–2.

Routing by size: a session up to `llm_whole_session_tokens` goes in one request per pass. Longer
sessions are cut into chunks of `llm_chunk_tokens` with `llm_chunk_overlap` (15%) overlap on
message boundaries; passes 1–2 run per chunk (map) and merge (reduce): items found in several
chunks (the overlap) are deduplicated and their confidence is raised with their support, and the
chunk overviews are reduced by one more pass-1 call. Beyond `llm_map_reduce_tokens` the overview
reduce runs hierarchically and every merged field carries a confidence (its share of supporting
chunks), so a very long session still costs a bounded number of calls per chunk.

Prompt layout (long-context practice: material first, the question last): a one-line system
role, then one user message holding the transcript (each turn as `[ordinal] time role(speaker):
text`, times in UTC), then, for pass 2, pass 1's overview of the same turns (JSON), and the pass's
instructions at the end. Pass 3 reads passes 1–2 (JSON) the same way.

The model refers to turns by their `[ordinal]`. An item citing unknown ordinals is tied to the
turn whose words it shares most (at least two content words), else dropped, so every extracted
item keeps provenance to real turns. What passes 2–3 return beyond the candidates is kept on the
session enrichment: repeated instructions (also as rules), frustration quotes, the quality
sub-scores and rationale.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Literal, TypeVar

from pydantic import BaseModel, Field

from ai.llm import LLMClient, Message, estimate_tokens
from core.ids import normalize_key
from core.text import content_words
from graph.models import CorrectionType, LessonCategory
from ingest.extract.config import ExtractSettings
from ingest.extract.models import (
    CorrectionCandidate,
    EntityMentions,
    ExtractionResult,
    FactCandidate,
    LessonCandidate,
    SessionEnrichment,
    SessionInput,
    TopicCandidate,
    TurnInput,
)
from ingest.extract.text import clean_text, technologies

__all__ = [
    "LLMExtractor",
    "SessionKnowledge",
    "SessionOverview",
    "SessionQuality",
    "chunk_turns",
]

# --- structured output schemas -------------------------------------------------------------------


class TopicItem(BaseModel):
    """A topic the session discusses."""

    title: str
    keywords: list[str] = Field(default_factory=list)
    turns: list[int] = Field(default_factory=list, description="ordinals of mentioning turns")


class SessionOverview(BaseModel):
    """Pass 1: what the session was about and how it went."""

    summary: str = ""
    intent: str = ""
    topics: list[TopicItem] = Field(default_factory=list, description="in order of appearance")
    outcome: Literal["success", "partial", "failure", "abandoned", "unknown"] = "unknown"
    complexity: float = Field(default=0.5, ge=0.0, le=1.0)


class DecisionItem(BaseModel):
    """A decision or preference as a subject–predicate–object fact."""

    subject: str
    predicate: str
    object: str
    statement: str = ""
    kind: Literal["decision", "preference", "tech_stack", "project", "todo", "event", "other"] = (
        "decision"
    )
    turns: list[int] = Field(default_factory=list)
    confidence: float = Field(default=0.7, ge=0.0, le=1.0)


class CorrectionItem(BaseModel):
    """The user correcting the agent."""

    type: CorrectionType = "preference"
    original_behaviour: str = ""
    corrected_behaviour: str = ""
    rule_text: str
    explicit_rule: bool = False
    turns: list[int] = Field(default_factory=list)
    confidence: float = Field(default=0.7, ge=0.0, le=1.0)
    action: Literal["ADD", "UPDATE", "INVALIDATE", "NOOP"] | None = None


class FrustrationItem(BaseModel):
    """A sign of user frustration."""

    turn: int
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
    category: LessonCategory = "problem-solution"
    applicable_when: str = ""
    keywords: list[str] = Field(default_factory=list)
    turns: list[int] = Field(default_factory=list)
    has_examples: bool = False
    has_steps: bool = False


class SessionKnowledge(BaseModel):
    """Pass 2: durable knowledge in the session."""

    decisions: list[DecisionItem] = Field(default_factory=list)
    corrections: list[CorrectionItem] = Field(default_factory=list)
    repeated_instructions: list[str] = Field(default_factory=list)
    frustration_signals: list[FrustrationItem] = Field(default_factory=list)
    tool_stats: list[ToolStatItem] = Field(default_factory=list)
    new_knowledge: list[KnowledgeItem] = Field(default_factory=list)
    rules: list[str] = Field(default_factory=list)


class SessionQuality(BaseModel):
    """Pass 3: quality scores from passes 1–2."""

    quality: float = Field(ge=0.0, le=1.0)
    clarity: float = Field(default=0.5, ge=0.0, le=1.0)
    efficiency: float = Field(default=0.5, ge=0.0, le=1.0)
    knowledge_value: float = Field(default=0.5, ge=0.0, le=1.0)
    rationale: str = ""


_SYSTEM = (
    """You extract structured knowledge from agent session transcripts. Answer with JSON only."""
)

_PASS1 = """PASS 1 (overview). Above is one agent session transcript. Each line starts with the
turn's [ordinal] and its UTC time. Describe the session: a 1–3 sentence summary, the user's
intent, the topics in the order they appear (short titles, keywords, the ordinals of turns that
discuss them), the outcome and a complexity in [0, 1]. Use only what the transcript says."""

_PASS2 = """PASS 2 (knowledge). Above are the transcript and your pass-1 overview of it (use the
overview's topics and outcome as context; the transcript is the evidence). From the transcript
extract durable knowledge with turn ordinals:
decisions and preferences as subject/predicate/object facts (subject = the thing decided about,
e.g. "database"; predicate e.g. "uses"), corrections the user made to the agent (original and
corrected behaviour, a normalised imperative rule_text, type one of preference, factual, style,
process, tool_usage), instructions the user repeated, frustration signals, per-tool call and
failure counts, new knowledge (problem → attempt → outcome lessons, gotchas, best practices) and
standing rules. Omit anything not supported by the transcript."""

_PASS3 = """PASS 3 (quality). Above are a session overview and its extracted knowledge (JSON). Score
the session in [0, 1]: overall quality, clarity of the request, efficiency of the agent, and the
value of the knowledge extracted. Give a one-sentence rationale."""

_REDUCE = """PASS 1 (overview, reduce). Above are overviews of consecutive chunks of one long
session (JSON). Merge them into one overview of the whole session: summary, intent, topics
(merge duplicates, keep turn ordinals), outcome (of the last chunk) and complexity."""


def _render(turns: Sequence[TurnInput], max_chars: int = 6000) -> str:
    lines = []
    for t in turns:
        who = t.role if not t.speaker else f"{t.role}({t.speaker})"
        tool = f" [{t.tool_name}{'' if t.tool_ok is None else ' ok' if t.tool_ok else ' FAILED'}]"
        at = t.timestamp.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
        lines.append(
            f"[{t.ordinal}] {at} {who}{tool if t.tool_name else ''}: "
            f"{clean_text(t.text, max_chars)}"
        )
    return "\n".join(lines)


def prompt(instructions: str, *material: tuple[str, str]) -> list[Message]:
    """Messages of one pass: the material first, each part tagged, the instructions last."""
    body = "\n\n".join(f"<{tag}>\n{text}\n</{tag}>" for tag, text in material)
    return [Message("system", _SYSTEM), Message("user", f"{body}\n\n{instructions}")]


def chunk_turns(
    turns: Sequence[TurnInput], chunk_tokens: int, overlap: float
) -> list[list[TurnInput]]:
    """Cut turns into chunks of about `chunk_tokens`, overlapping by `overlap`, on turn boundaries.

    Every turn is in at least one chunk; consecutive chunks share their boundary turns worth about
    `overlap × chunk_tokens` tokens (at least one turn when there is more than one chunk).
    """
    if not turns:
        return []
    sizes = [estimate_tokens(t.text) + 8 for t in turns]
    chunks: list[list[TurnInput]] = []
    start = 0
    n = len(turns)
    while start < n:
        end, total = start, 0
        while end < n and (total + sizes[end] <= chunk_tokens or end == start):
            total += sizes[end]
            end += 1
        chunks.append(list(turns[start:end]))
        if end >= n:
            break
        back, kept = end, 0
        while back - 1 > start and kept + sizes[back - 1] <= overlap * chunk_tokens:
            back -= 1
            kept += sizes[back]
        if back == end and end - 1 > start:
            back = end - 1  # always share at least one boundary turn
        start = back
    return chunks


class LLMExtractor:
    """Extraction through an OpenAI-compatible chat model (three structured passes).

    Args:
        llm: the client (its ledger accumulates the run's usage).
        settings: routing sizes and overlap.
    """

    name = "llm"

    def __init__(self, llm: LLMClient, settings: ExtractSettings | None = None) -> None:
        self.llm = llm
        self.settings = settings or ExtractSettings()
        self.last_mode: str = ""

    async def extract(self, session: SessionInput) -> ExtractionResult:
        turns = [t for t in session.turns if t.text.strip()]
        total = sum(estimate_tokens(t.text) for t in turns)
        s = self.settings
        if total <= s.llm_whole_session_tokens:
            self.last_mode = "single"
            overview = await self._pass1(turns)
            knowledge = await self._pass2(turns, overview)
            support: dict[str, float] = {}
        else:
            self.last_mode = "map_reduce" if total > s.llm_map_reduce_tokens else "chunked"
            chunks = chunk_turns(turns, s.llm_chunk_tokens, s.llm_chunk_overlap)
            overviews = [await self._pass1(c) for c in chunks]
            knowledges = [await self._pass2(c, o) for c, o in zip(chunks, overviews, strict=True)]
            overview = await self._reduce_overviews(overviews)
            knowledge, support = _merge_knowledge(knowledges)
        quality = await self._pass3(overview, knowledge)
        return self._to_result(session, turns, overview, knowledge, quality, support)

    async def _pass1(self, turns: Sequence[TurnInput]) -> SessionOverview:
        return await self.llm.structured(
            prompt(_PASS1, ("transcript", _render(turns))),
            SessionOverview,
            purpose="extract.pass1",
        )

    async def _pass2(
        self, turns: Sequence[TurnInput], overview: SessionOverview
    ) -> SessionKnowledge:
        return await self.llm.structured(
            prompt(
                _PASS2,
                ("transcript", _render(turns)),
                ("overview", overview.model_dump_json()),
            ),
            SessionKnowledge,
            purpose="extract.pass2",
        )

    async def _pass3(self, o: SessionOverview, k: SessionKnowledge) -> SessionQuality:
        payload = json.dumps(
            {"overview": o.model_dump(), "knowledge": k.model_dump()}, separators=(",", ":")
        )
        return await self.llm.structured(
            prompt(_PASS3, ("session", payload[:200_000])),
            SessionQuality,
            purpose="extract.pass3",
        )

    async def _reduce_overviews(self, parts: list[SessionOverview]) -> SessionOverview:
        # Hierarchical reduce: at most 8 overviews per call, so the prompt stays bounded.
        while len(parts) > 1:
            merged: list[SessionOverview] = []
            for i in range(0, len(parts), 8):
                group = parts[i : i + 8]
                if len(group) == 1:
                    merged.append(group[0])
                    continue
                payload = json.dumps([p.model_dump() for p in group], separators=(",", ":"))
                merged.append(
                    await self.llm.structured(
                        prompt(_REDUCE, ("overviews", payload)),
                        SessionOverview,
                        purpose="extract.reduce",
                    )
                )
            parts = merged
        return parts[0]

    def _to_result(
        self,
        session: SessionInput,
        turns: Sequence[TurnInput],
        o: SessionOverview,
        k: SessionKnowledge,
        q: SessionQuality,
        support: dict[str, float],
    ) -> ExtractionResult:
        m = _Candidates(session.project, turns, support)
        corrections = m.corrections(k.corrections)
        corrections += m.rules([*k.rules, *k.repeated_instructions], corrections)
        stats = {t.tool: {"calls": t.calls, "failures": t.failures} for t in k.tool_stats if t.tool}
        return ExtractionResult(
            session_id=session.id,
            project=session.project,
            topics=tuple(m.topics(o.topics)),
            corrections=tuple(corrections),
            facts=tuple(m.facts(k.decisions)),
            lessons=tuple(m.lessons(k.new_knowledge)),
            entities=EntityMentions(
                projects=(session.project,),
                technologies=tuple(
                    dict.fromkeys(x for t in turns for x in technologies(t.text[:2000]))
                )[:50],
            ),
            enrichment=SessionEnrichment(
                summary=o.summary or None,
                intent=o.intent or None,
                outcome=o.outcome,
                complexity=o.complexity,
                quality=q.quality,
                frustration_signals=len(k.frustration_signals),
                tool_stats=stats,
                meta=_meta(k, q),
            ),
            extractor=self.name,
            llm_usage={"mode": self.last_mode, **self.llm.ledger.as_dict()},
        )


def _meta(k: SessionKnowledge, q: SessionQuality) -> dict[str, str]:
    """What passes 2–3 say about the session beyond the candidates, for the session's `meta`."""
    out = {
        "llm_clarity": f"{q.clarity:.2f}",
        "llm_efficiency": f"{q.efficiency:.2f}",
        "llm_knowledge_value": f"{q.knowledge_value:.2f}",
    }
    if q.rationale.strip():
        out["llm_rationale"] = q.rationale.strip()[:500]
    quotes = [f"[{f.turn}] {f.quote.strip()}" for f in k.frustration_signals if f.quote.strip()]
    if quotes:
        out["llm_frustration"] = " | ".join(quotes)[:1000]
    if k.repeated_instructions:
        out["llm_repeated_instructions"] = " | ".join(k.repeated_instructions)[:1000]
    return out


class _Candidates:
    """Turns the model's items, which cite turns by ordinal, into candidates with provenance.

    An item citing no turn of the session is dropped (no provenance, no knowledge).
    """

    def __init__(self, project: str, turns: Sequence[TurnInput], support: dict[str, float]) -> None:
        self.project = project
        self.turns = turns
        self.by_ord = {t.ordinal: t for t in turns}
        self.support = support

    def ids(self, ords: Sequence[int]) -> tuple[str, ...]:
        """Ids of the cited turns, once each, in citation order."""
        return tuple(dict.fromkeys(self.by_ord[o].id for o in ords if o in self.by_ord))

    def cite(self, ords: Sequence[int], text: str) -> list[int]:
        """The cited ordinals that exist; when none does, the turn sharing most words with `text`.

        Models often get ordinals wrong while the item itself is right: tie it to the turn that
        says it (at least two shared content words), rather than drop it.
        """
        known = [o for o in ords if o in self.by_ord]
        if known:
            return known
        want = set(content_words(text))
        best, score = None, 1
        for t in self.turns:
            n = len(want & set(content_words(t.text[:4000])))
            if n > score:
                best, score = t.ordinal, n
        return [best] if best is not None else []

    def times(self, ords: Sequence[int]) -> list[datetime]:
        return [self.by_ord[o].timestamp for o in ords if o in self.by_ord]

    def when(self, ords: Sequence[int]) -> datetime | None:
        """The latest cited turn's time (else the session's last turn's)."""
        ts = self.times(ords)
        if ts:
            return max(ts)
        return self.turns[-1].timestamp if self.turns else None

    def conf(self, key: str, base: float) -> float:
        """Confidence scaled by how many chunks reported the item (map-reduce support)."""
        return min(0.99, base * self.support.get(key, 1.0))

    def topics(self, items: Sequence[TopicItem]) -> list[TopicCandidate]:
        out = []
        for tp in items:
            cited = self.cite(tp.turns, " ".join([tp.title, *tp.keywords]))
            tp = tp.model_copy(update={"turns": cited})
            tids = self.ids(tp.turns)
            if not tids:
                continue
            texts = [self.by_ord[x].text for x in tp.turns if x in self.by_ord]
            out.append(
                TopicCandidate(
                    title=tp.title.strip()[:120],
                    keywords=tuple(dict.fromkeys([tp.title.lower(), *tp.keywords]))[:12],
                    turn_ids=tids,
                    entities=EntityMentions(
                        projects=(self.project,),
                        technologies=tuple(
                            dict.fromkeys(x for tx in texts for x in technologies(tx))
                        ),
                    ),
                    first_seen=min(self.times(tp.turns)),
                    last_seen=max(self.times(tp.turns)),
                )
            )
        return out

    def facts(self, items: Sequence[DecisionItem]) -> list[FactCandidate]:
        out = []
        for d in items:
            text = d.statement or f"{d.subject} {d.predicate} {d.object}"
            d = d.model_copy(update={"turns": self.cite(d.turns, text)})
            tids = self.ids(d.turns)
            if not tids or self.when(d.turns) is None:
                continue
            out.append(
                FactCandidate(
                    subject=d.subject,
                    predicate=d.predicate,
                    object=d.object,
                    kind=d.kind,
                    statement=d.statement or f"{d.subject} {d.predicate} {d.object}",
                    confidence=self.conf(f"d:{_dkey(d)}", d.confidence),
                    turn_ids=tids,
                    valid_from=min(self.times(d.turns)),
                )
            )
        return out

    def corrections(self, items: Sequence[CorrectionItem]) -> list[CorrectionCandidate]:
        out = []
        for c in items:
            c = c.model_copy(update={"turns": self.cite(c.turns, c.rule_text)})
            tids = self.ids(c.turns)
            seen = self.when(c.turns)
            if not tids or seen is None or not c.rule_text.strip():
                continue
            out.append(
                CorrectionCandidate(
                    type=c.type,
                    original_behaviour=c.original_behaviour,
                    corrected_behaviour=c.corrected_behaviour,
                    rule_text=c.rule_text.strip(),
                    confidence=self.conf(f"c:{normalize_key(c.rule_text)}", c.confidence),
                    explicit_rule=c.explicit_rule,
                    turn_ids=tids,
                    seen_at=seen,
                    action=c.action,
                )
            )
        return out

    def rules(
        self, rules: Sequence[str], corrections: Sequence[CorrectionCandidate]
    ) -> list[CorrectionCandidate]:
        """Standing rules not already a correction, tied to the first user turn that says them."""
        known = {normalize_key(c.rule_text) for c in corrections}
        user_turns = [t for t in self.turns if t.role == "user"]
        out = []
        for rule in rules:
            key = normalize_key(rule)
            if key in known:
                continue
            src = next((t for t in user_turns if key[:20] in normalize_key(t.text)), None)
            if src is None:
                continue  # a rule we cannot tie to a turn has no provenance: drop it
            known.add(key)
            out.append(
                CorrectionCandidate(
                    type="process",
                    rule_text=rule.strip(),
                    corrected_behaviour=rule.strip(),
                    confidence=0.7,
                    explicit_rule=True,
                    turn_ids=(src.id,),
                    seen_at=src.timestamp,
                )
            )
        return out

    def lessons(self, items: Sequence[KnowledgeItem]) -> list[LessonCandidate]:
        out = []
        for item in items:
            item = item.model_copy(
                update={"turns": self.cite(item.turns, f"{item.title} {item.content}")}
            )
            tids = self.ids(item.turns)
            seen = self.when(item.turns)
            if not tids or seen is None:
                continue
            out.append(
                LessonCandidate(
                    category=item.category,
                    title=item.title.strip()[:160],
                    content=item.content.strip(),
                    summary=item.content.strip().split("\n")[0][:200],
                    applicable_when=item.applicable_when,
                    keywords=tuple(item.keywords[:12]),
                    has_examples=item.has_examples,
                    has_steps=item.has_steps,
                    turn_ids=tids,
                    seen_at=seen,
                )
            )
        return out


def _dkey(d: DecisionItem) -> str:
    return f"{normalize_key(d.subject)}|{normalize_key(d.predicate)}|{normalize_key(d.object)}"


_Scored = TypeVar("_Scored", DecisionItem, CorrectionItem)


def _fold_scored(
    into: dict[str, _Scored], key: str, item: _Scored, seen_count: dict[str, int]
) -> None:
    """Count one more report of `key`; keep `item`, or union its turns into the kept one.

    The kept item takes the higher confidence of the two.
    """
    seen_count[key] = seen_count.get(key, 0) + 1
    if key in into:
        kept: _Scored = into[key]
        into[key] = kept.model_copy(
            update={
                "turns": sorted({*kept.turns, *item.turns}),
                "confidence": max(kept.confidence, item.confidence),
            }
        )
    else:
        into[key] = item


def _merge_knowledge(parts: list[SessionKnowledge]) -> tuple[SessionKnowledge, dict[str, float]]:
    """Union chunk results; duplicates (from the overlap) merge their turns.

    Returns the merged knowledge and, per item key, a confidence multiplier that grows with the
    number of chunks that reported the item (1.0 for one chunk, up to 1.2).
    """
    decisions: dict[str, DecisionItem] = {}
    corrections: dict[str, CorrectionItem] = {}
    lessons: dict[str, KnowledgeItem] = {}
    seen_count: dict[str, int] = {}
    tools: dict[str, ToolStatItem] = {}
    repeated: dict[str, str] = {}
    rules: dict[str, str] = {}
    frustration: dict[int, FrustrationItem] = {}
    for p in parts:
        for d in p.decisions:
            _fold_scored(decisions, f"d:{_dkey(d)}", d, seen_count)
        for c in p.corrections:
            _fold_scored(corrections, f"c:{normalize_key(c.rule_text)}", c, seen_count)
        for item in p.new_knowledge:
            key = f"l:{normalize_key(item.title)}"
            if key in lessons:
                old_l = lessons[key]
                lessons[key] = old_l.model_copy(
                    update={"turns": sorted({*old_l.turns, *item.turns})}
                )
            else:
                lessons[key] = item
        for t in p.tool_stats:
            prev = tools.get(t.tool)
            # Chunks overlap, so a tool's counts are the maximum seen, never a double-counted sum.
            tools[t.tool] = (
                t
                if prev is None
                else ToolStatItem(
                    tool=t.tool,
                    calls=max(prev.calls, t.calls),
                    failures=max(prev.failures, t.failures),
                )
            )
        for r in p.repeated_instructions:
            repeated.setdefault(normalize_key(r), r)
        for r in p.rules:
            rules.setdefault(normalize_key(r), r)
        for f in p.frustration_signals:
            frustration.setdefault(f.turn, f)
    support = {k: min(1.2, 1.0 + 0.1 * (n - 1)) for k, n in seen_count.items()}
    merged = SessionKnowledge(
        decisions=list(decisions.values()),
        corrections=list(corrections.values()),
        repeated_instructions=list(repeated.values()),
        frustration_signals=[frustration[k] for k in sorted(frustration)],
        tool_stats=list(tools.values()),
        new_knowledge=list(lessons.values()),
        rules=list(rules.values()),
    )
    return merged, support
