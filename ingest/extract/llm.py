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
text`, times in UTC), then, for pass 2, pass 1's overview of the same turns (JSON) and the
declared vocabulary (one line per slot, `llm_vocabulary.vocabulary_section`), and the pass's
instructions at the end. Pass 3 reads passes 1–2 (JSON) the same way.

Pass 2 asks for the user's own sentences, for facts about the user and the people they mention
(relatives, pets, contact details, schedules, versions) as well as project facts, and for the
vocabulary slot each decision, correction and rule fills. A decision in a slot of cardinality
one takes the slot's name as its predicate, so a newer value for the same subject and slot ends
the older one when applied (`ingest.extract.facts`); a slot the vocabulary lacks is ignored with
an issue (`pass 2 decision 'db uses x': slot 'db' is not in the vocabulary; slot ignored`).

Replies are read record by record (`LLMClient.structured_records`), leniently
(`ingest.extract.llm_schema`): models answer `"turns": ["[3]"]`, `"kind": "architecture"`,
`"complexity": 7` or a repeated instruction as an object, and one such record used to fail the
whole pass, so the session fell back to the offline rules and everything the model said was
lost. Now ordinals are read from strings, off-list kinds take the field's default (`other`,
`preference`, `problem-solution`), scores on a 0–10 or 0–100 scale are rescaled, and a record
that still does not validate is left out with an issue naming the pass, the record and the field
(`pass 2 decisions[1]: object: Field required`); the rest of the reply is kept. Only a reply
that is not a JSON object (after one re-ask) fails the pass, and the session then falls back to
the offline rules. A failed pass 3 leaves the quality unset and keeps passes 1–2.

The model refers to turns by their `[ordinal]`. An item citing unknown ordinals is tied to the
turn whose words it shares most (at least two content words), else left out, so every extracted
item keeps provenance to real turns; either way an issue names the item and the ordinals. What
passes 1–3 return beyond the candidates is kept on the session's `meta` (`llm_*`): complexity,
tool counts, repeated instructions (also as rules), frustration quotes, the quality sub-scores
and rationale. `ExtractionResult.issues` carries every issue; the ingest summary prints them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TypeVar

from pydantic import BaseModel

from ai.llm import LLMClient, LLMError, Message, estimate_tokens
from ai.records import RecordIssue
from core.ids import normalize_key
from core.text import content_words
from ingest.extract.config import ExtractSettings
from ingest.extract.llm_schema import (
    CorrectionItem,
    DecisionItem,
    FrustrationItem,
    KnowledgeItem,
    RuleItem,
    SessionKnowledge,
    SessionOverview,
    SessionQuality,
    ToolStatItem,
    TopicItem,
)
from ingest.extract.llm_vocabulary import known_slot, slot_predicate, vocabulary_section
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
from knowledge.environments import ENVIRONMENTS

__all__ = [
    "LLMExtractor",
    "SessionKnowledge",
    "SessionOverview",
    "SessionQuality",
    "chunk_turns",
]

_SYSTEM = (
    """You extract structured knowledge from agent session transcripts. Answer with JSON only."""
)

_PASS1 = """PASS 1 (overview). Above is one agent session transcript. Each line starts with the
turn's [ordinal] and its UTC time. Describe the session: a 1–3 sentence summary, the user's
intent, the topics in the order they appear (short titles, keywords, the ordinals of turns that
discuss them), the outcome (success, partial, failed, abandoned or ongoing) and a complexity in
[0, 1]. Use only what the transcript says."""

_PASS2 = f"""PASS 2 (knowledge). Above are the transcript, your pass-1 overview of it (use the
overview's topics and outcome as context; the transcript is the evidence) and the vocabulary of
slots, one per line: name (scope, cardinality): examples. From the transcript extract durable
knowledge with turn ordinals:
decisions, preferences and facts as subject/predicate/object facts (subject = the thing decided
about or the person the fact is about, e.g. "database", "user", "Ana (user's sister)"; predicate
e.g. "uses", "lives in"; a choice made for one environment names it in the subject, e.g.
"database (local development)", one of: {", ".join(ENVIRONMENTS)}), including facts about the
user and about the people they mention (relatives, friends, colleagues: "my sister Ana lives in
Porto" is a fact about Ana), versions, schedules and dates, contact details, pets, and project
facts (stack, test command, package manager, ...); corrections the user made to the agent
(original and corrected behaviour, rule_text, type one of preference, factual, style, process,
tool_usage), instructions the user repeated, frustration signals, per-tool call and failure
counts, new knowledge (problem → attempt → outcome lessons, gotchas, best practices) and
standing rules (text and slot).
A decision's or fact's statement, a correction's rule_text and a rule's text are the user's own
complete sentence from the transcript, without lead-ins ("ok so", "also,") and markdown, never a
rewrite. Give each decision, correction and rule the slot it fills: a name from the vocabulary,
or null when none fits. A slot of cardinality one holds one value per subject, a newer value
replacing the older: there the subject names the one thing that has the value, the same each
time (e.g. "user's home city", "user's manager", "API rate limit", "staging RAM"). Omit anything
not supported by the transcript."""

_PASS3 = """PASS 3 (quality). Above are a session overview and its extracted knowledge (JSON). Score
the session in [0, 1]: overall quality, clarity of the request, efficiency of the agent, and the
value of the knowledge extracted. Give a one-sentence rationale."""

_REDUCE = """PASS 1 (overview, reduce). Above are overviews of consecutive chunks of one long
session (JSON). Merge them into one overview of the whole session: summary, intent, topics
(merge duplicates, keep turn ordinals), outcome (of the last chunk) and complexity."""


def _render(turns: Sequence[TurnInput], max_chars: int = 6000) -> str:
    lines = []
    for t in turns:
        named = t.speaker and t.speaker.casefold() != t.role.casefold()
        who = f"{t.role}({t.speaker})" if named else t.role
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
        issues: list[str] = []
        if total <= s.llm_whole_session_tokens:
            self.last_mode = "single"
            overview = await self._pass1(turns, issues)
            knowledge = await self._pass2(turns, overview, issues)
            support: dict[str, float] = {}
        else:
            self.last_mode = "map_reduce" if total > s.llm_map_reduce_tokens else "chunked"
            chunks = chunk_turns(turns, s.llm_chunk_tokens, s.llm_chunk_overlap)
            n = len(chunks)
            overviews = [
                await self._pass1(c, issues, f"chunk {i}/{n}") for i, c in enumerate(chunks, 1)
            ]
            knowledges = [
                await self._pass2(c, o, issues, f"chunk {i}/{n}")
                for i, (c, o) in enumerate(zip(chunks, overviews, strict=True), 1)
            ]
            overview = await self._reduce_overviews(overviews, issues)
            knowledge, support = _merge_knowledge(knowledges)
        quality = await self._pass3(overview, knowledge, issues)
        return self._to_result(session, turns, overview, knowledge, quality, support, issues)

    async def _ask(
        self, messages: list[Message], schema: type[_M], purpose: str, where: str, issues: list[str]
    ) -> _M:
        """One pass's call, read record by record; the records left out become `issues`."""
        value, dropped = await self.llm.structured_records(messages, schema, purpose=purpose)
        issues += [_issue(where, d) for d in dropped]
        return value

    async def _pass1(
        self, turns: Sequence[TurnInput], issues: list[str], chunk: str = ""
    ) -> SessionOverview:
        return await self._ask(
            prompt(_PASS1, ("transcript", _render(turns))),
            SessionOverview,
            "extract.pass1",
            _where("pass 1", chunk),
            issues,
        )

    async def _pass2(
        self,
        turns: Sequence[TurnInput],
        overview: SessionOverview,
        issues: list[str],
        chunk: str = "",
    ) -> SessionKnowledge:
        return await self._ask(
            prompt(
                _PASS2,
                ("transcript", _render(turns)),
                ("overview", overview.model_dump_json()),
                ("vocabulary", vocabulary_section()),
            ),
            SessionKnowledge,
            "extract.pass2",
            _where("pass 2", chunk),
            issues,
        )

    async def _pass3(
        self, o: SessionOverview, k: SessionKnowledge, issues: list[str]
    ) -> SessionQuality | None:
        """Pass 3, or None when it fails: passes 1–2 are kept either way."""
        payload = json.dumps(
            {"overview": o.model_dump(), "knowledge": k.model_dump()}, separators=(",", ":")
        )
        try:
            return await self._ask(
                prompt(_PASS3, ("session", payload[:200_000])),
                SessionQuality,
                "extract.pass3",
                "pass 3",
                issues,
            )
        except LLMError as e:
            issues.append(f"pass 3 failed, quality left unset: {e}")
            return None

    async def _reduce_overviews(
        self, parts: list[SessionOverview], issues: list[str]
    ) -> SessionOverview:
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
                    await self._ask(
                        prompt(_REDUCE, ("overviews", payload)),
                        SessionOverview,
                        "extract.reduce",
                        "pass 1 (reduce)",
                        issues,
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
        q: SessionQuality | None,
        support: dict[str, float],
        issues: list[str],
    ) -> ExtractionResult:
        m = _Candidates(session.project, turns, support, issues)
        corrections = m.corrections(k.corrections)
        repeated = [RuleItem(text=r) for r in k.repeated_instructions]
        corrections += m.rules([*k.rules, *repeated], corrections)
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
                quality=q.quality if q is not None else None,
                frustration_signals=len(k.frustration_signals),
                tool_stats=stats,
                meta=_meta(o, k, q),
            ),
            extractor=self.name,
            llm_usage={"mode": self.last_mode, **self.llm.ledger.as_dict()},
            issues=tuple(issues),
        )


_M = TypeVar("_M", bound=BaseModel)


def _where(pass_name: str, chunk: str) -> str:
    return f"{pass_name} ({chunk})" if chunk else pass_name


def _issue(where: str, d: RecordIssue) -> str:
    """`pass 2 decisions[1] left out: object: Field required; record {...}`."""
    if not d.excerpt:
        return f"{where} {d.path}: {d.reason}"
    return f"{where} {d.path} left out: {d.reason}; record {d.excerpt}"


def _meta(o: SessionOverview, k: SessionKnowledge, q: SessionQuality | None) -> dict[str, str]:
    """What passes 1–3 say about the session beyond the candidates, for the session's `meta`."""
    out = {"llm_complexity": f"{o.complexity:.2f}"}
    if q is not None:
        out |= {
            "llm_clarity": f"{q.clarity:.2f}",
            "llm_efficiency": f"{q.efficiency:.2f}",
            "llm_knowledge_value": f"{q.knowledge_value:.2f}",
        }
        if q.rationale.strip():
            out["llm_rationale"] = q.rationale.strip()[:500]
    tools = [f"{t.tool} {t.calls}/{t.failures}" for t in k.tool_stats if t.tool]
    if tools:
        out["llm_tool_stats"] = ", ".join(tools)[:1000]  # tool calls/failures
    quotes = [f"[{f.turn}] {f.quote.strip()}" for f in k.frustration_signals if f.quote.strip()]
    if quotes:
        out["llm_frustration"] = " | ".join(quotes)[:1000]
    if k.repeated_instructions:
        out["llm_repeated_instructions"] = " | ".join(k.repeated_instructions)[:1000]
    return out


class _Candidates:
    """Turns the model's items, which cite turns by ordinal, into candidates with provenance.

    An item citing no turn of the session, and sharing too few words with any, is left out (no
    provenance, no knowledge); every cited ordinal that does not exist is reported in `issues`.
    """

    def __init__(
        self,
        project: str,
        turns: Sequence[TurnInput],
        support: dict[str, float],
        issues: list[str],
    ) -> None:
        self.project = project
        self.turns = turns
        self.by_ord = {t.ordinal: t for t in turns}
        self.support = support
        self.issues = issues

    def ids(self, ords: Sequence[int]) -> tuple[str, ...]:
        """Ids of the cited turns, once each, in citation order."""
        return tuple(dict.fromkeys(self.by_ord[o].id for o in ords if o in self.by_ord))

    def cite(
        self, ords: Sequence[int], text: str, what: str, among: Sequence[TurnInput] | None = None
    ) -> list[int]:
        """The cited ordinals that exist; when none does, the turn sharing most words with `text`.

        Models often get ordinals wrong while the item itself is right: tie it to the turn that
        says it (at least two shared content words; only `among` when given), rather than drop
        it. `what` names the item in the issue that reports unknown ordinals.
        """
        known = [o for o in ords if o in self.by_ord]
        unknown = [o for o in ords if o not in self.by_ord]
        if known:
            if unknown:
                self.issues.append(
                    f"{what}: cites turns {unknown} not in the session; kept {known}"
                )
            return known
        want = set(content_words(text))
        best, score = None, 1
        for t in self.turns if among is None else among:
            n = len(want & set(content_words(t.text[:4000])))
            if n > score:
                best, score = t.ordinal, n
        cited = f"cites turns {list(ords)}, none in the session" if ords else "cites no turn"
        if best is None:
            self.issues.append(f"{what} left out: {cited} ({self._span()}) and no turn says it")
            return []
        if ords:
            self.issues.append(f"{what}: {cited}; tied to turn [{best}], which says it")
        return [best]

    def _span(self) -> str:
        if not self.turns:
            return "no turns"
        return f"ordinals {self.turns[0].ordinal}–{self.turns[-1].ordinal}"

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
            what = f"pass 1 topic {_quote(tp.title)}"
            cited = self.cite(tp.turns, " ".join([tp.title, *tp.keywords]), what)
            tids = self.ids(cited)
            if not tids:
                continue
            texts = [self.by_ord[x].text for x in cited]
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
                    first_seen=min(self.times(cited)),
                    last_seen=max(self.times(cited)),
                )
            )
        return out

    def facts(self, items: Sequence[DecisionItem]) -> list[FactCandidate]:
        out = []
        for d in items:
            text = d.statement or f"{d.subject} {d.predicate} {d.object}"
            what = f"pass 2 decision {_quote(text)}"
            slot = known_slot(d.slot, what, self.issues)
            cited = self.cite(d.turns, text, what)
            tids = self.ids(cited)
            if not tids:
                continue
            out.append(
                FactCandidate(
                    subject=d.subject,
                    predicate=slot_predicate(d.predicate, slot),
                    object=d.object,
                    kind=d.kind,
                    statement=text,
                    confidence=self.conf(f"d:{_dkey(d)}", d.confidence),
                    turn_ids=tids,
                    valid_from=min(self.times(cited)),
                )
            )
        return out

    def corrections(self, items: Sequence[CorrectionItem]) -> list[CorrectionCandidate]:
        out = []
        for c in items:
            what = f"pass 2 correction {_quote(c.rule_text)}"
            known_slot(c.slot, what, self.issues)  # a correction keeps no slot: only checked
            if not c.rule_text.strip():
                self.issues.append(f"{what} left out: rule_text is empty")
                continue
            cited = self.cite(c.turns, c.rule_text, what)
            tids = self.ids(cited)
            seen = self.when(cited)
            if not tids or seen is None:
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
        self, rules: Sequence[RuleItem], corrections: Sequence[CorrectionCandidate]
    ) -> list[CorrectionCandidate]:
        """Standing rules not already a correction, tied to the user turn that says them."""
        known = {_rule_key(c.rule_text) for c in corrections}
        user_turns = [t for t in self.turns if t.role == "user"]
        out = []
        for item in rules:
            rule, what = item.text, f"pass 2 rule {_quote(item.text)}"
            known_slot(item.slot, what, self.issues)  # a rule keeps no slot: only checked
            key = _rule_key(rule)
            if not key or key in known:
                continue
            src = next((t for t in user_turns if key[:20] in normalize_key(t.text)), None)
            if src is None:  # said in other words: the user turn sharing most of them
                cited = self.cite([], rule, what, among=user_turns)
                if not cited:
                    continue  # a rule we cannot tie to a turn has no provenance
                src = self.by_ord[cited[0]]
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
            what = f"pass 2 lesson {_quote(item.title)}"
            cited = self.cite(item.turns, f"{item.title} {item.content}", what)
            tids = self.ids(cited)
            seen = self.when(cited)
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


def _rule_key(text: str) -> str:
    """A rule's key: the same words with or without the closing full stop are one rule."""
    return normalize_key(text).rstrip(" .!;:")


def _quote(text: str, limit: int = 60) -> str:
    t = " ".join(text.split())
    return f"'{t if len(t) <= limit else t[: limit - 1] + '…'}'"


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
                "slot": kept.slot or item.slot,
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
    rules: dict[str, RuleItem] = {}
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
        for rule in p.rules:
            rules.setdefault(normalize_key(rule.text), rule)
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
