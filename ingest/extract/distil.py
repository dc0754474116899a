"""Rules, decisions and facts from what each sentence does (the sentence-act model), verbatim.

Every sentence a person typed in an agent session (`ingest.extract.sentences`) is classified by
`ai.acts`; a sentence whose act is a standing instruction, a decision or a fact, with the head's
probability at least that act's floor, becomes an item whose text is the sentence itself. The
declared vocabulary (`knowledge.vocabulary`) gives its slot: a decision or fact on a slot of one
current value takes the slot as its predicate, so a newer statement on the same slot ends the
older one (supersession by slot); "instead of X" / "rather than X" in the parse names what it
replaces. Everything else a sentence says (requests, questions, problem reports, talk) yields
no item here: lessons and topics come from their own passes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from ai import language
from ai.acts import ActHead, ActScore, classify, load_head
from core.ids import normalize_key
from ingest.extract.models import CorrectionCandidate, FactCandidate, TurnInput
from ingest.extract.sentences import said
from knowledge.vocabulary import Vocabulary, vocabulary

if TYPE_CHECKING:
    from spacy.tokens import Doc

    from ai.embed import Embedder

__all__ = ["ActFloors", "Distilled", "SentenceActs", "distil"]


@dataclass(frozen=True, slots=True)
class ActFloors:
    """The head's probability from which a sentence's act makes an item (precision first).

    Read off the grouped cross-validation of `tools/train_acts.py` on the tuning sentences
    (`bench/results/acts.json`): the floors where each act's held-out precision stops rising.
    """

    instruction: float = 0.5
    """Lower than the others: an instruction whose words do not say it holds is stored as a
    candidate, not served, until it is said again in another session (`ai.standing`); a sweep
    over the tuning history's instruction sentences (0.4/0.5/0.6) put the floor here."""
    decision: float = 0.8
    fact: float = 0.8
    vet: float = 0.25
    """An older pattern's item is kept when its sentence's acts of keeping sum to this."""


@dataclass(frozen=True, slots=True)
class Heard:
    """One sentence of one turn, with its act."""

    turn: TurnInput
    text: str
    doc: Doc
    act: ActScore


_LASTING = frozenset({"fact", "decision"})
"""The acts of a sentence that states something lasting about its speaker or the project."""


@cache
def _local_embedder() -> Embedder:
    from ai.embed import LocalEmbedder  # deferred: loads torch

    return LocalEmbedder()


class SentenceActs:
    """Classifies the sentences people typed in a session."""

    def __init__(self, embedder: Embedder | None = None, head: ActHead | None = None) -> None:
        self._embedder = embedder
        self._head = head

    def _model(self) -> tuple[Embedder, ActHead]:
        """The head and the embedder it reads: the caller's when it is the head's model.

        The service's embedder is passed down so a process loads all-MiniLM-L6-v2 once; a
        service on another embedding model leaves the head its own.
        """
        head = self._head or load_head()
        mine = self._embedder
        return (
            mine if mine is not None and mine.name == head.embedding_model else _local_embedder()
        ), head

    def acts(self, sentences: Sequence[str]) -> list[str]:
        """The act of each sentence (one batch through the parser and the head)."""
        if not sentences:
            return []
        texts = list(sentences)
        docs = language.parse(texts)
        embedder, head = self._model()
        return [a.act for a in classify(texts, embedder, head, docs)]

    def lasting(self, sentences: Sequence[str]) -> list[bool]:
        """Per sentence, whether it states something that lasts: a fact or a decision.

        Not a problem report ("I'm seeing this error"), a request or talk: what a user tells
        an agent about the moment is not knowledge about them.
        """
        return [a in _LASTING for a in self.acts(sentences)]

    def of(self, turns: Sequence[TurnInput]) -> list[Heard]:
        spoken = [(t, s) for t in turns if t.role == "user" for s in said(t.text)]
        if not spoken:
            return []
        embedder, head = self._model()
        texts = [s for _, s in spoken]
        docs = language.parse(texts)
        acts = classify(texts, embedder, head, docs)
        return [Heard(t, s, d, a) for (t, s), d, a in zip(spoken, docs, acts, strict=True)]


@dataclass(frozen=True, slots=True)
class Distilled:
    """What a session's sentences give: rules and facts (decisions among them)."""

    corrections: tuple[CorrectionCandidate, ...]
    facts: tuple[FactCandidate, ...]


def _item_text(text: str) -> str:
    t = " ".join(text.split())
    return t[:1].upper() + t[1:] if t else t


_NAMING = frozenset({"NOUN", "PROPN", "X", "NUM", "ADJ", "SYM"})


def _replaced_in(doc: Doc) -> str:
    for tok in doc[:-2]:
        nxt = doc[tok.i + 1]
        if (tok.lower_, nxt.lower_) not in (("instead", "of"), ("rather", "than")):
            continue
        words = []
        for t in doc[tok.i + 2 :]:
            if t.pos_ not in _NAMING and not (t.text.strip("`'\"") and "`" in t.text):
                break
            words.append(t.text)
        return " ".join(words).strip("`'\" ")
    return ""


def replaced(text: str) -> str:
    """What a sentence says it replaces: the words after "instead of" / "rather than"."""
    return _replaced_in(language.parse([text])[0])


def _slot(doc: Doc, kind: str, vocab: Vocabulary) -> tuple[str, str] | None:
    """`(slot, value)`: the first value, named as a thing, of a one-value slot the text fills.

    A value said as a verb ("install") or as what is replaced ("instead of yarn") is not the
    slot's new value.
    """
    text = doc.text
    gone = _replaced_in(doc).casefold()
    low = text.casefold()
    slots = [vocab.get(n) for n in sorted(vocab.valued_in(text))]
    # a value two slots share ("bun": runtime, package manager): the slot more of whose
    # terms the text uses ("instead of yarn") is the one it fills
    slots.sort(key=lambda sl: -sum(t.casefold() in low for t in sl.terms))
    for slot in slots:
        if slot.cardinality != "one" or kind not in slot.kinds:
            continue
        found = []
        for v in slot.values:
            for m in re.finditer(rf"(?<![\w@/.-]){re.escape(v)}(?![\w-])", text, re.IGNORECASE):
                span = doc.char_span(m.start(), m.end(), alignment_mode="expand")
                if span is None or span.root.pos_ in ("VERB", "AUX") or v.casefold() in gone:
                    continue
                found.append((m.start(), v))
        if found:
            return slot.name, min(found)[1]
    return None


def _rule(h: Heard, prev_agent: str) -> CorrectionCandidate:
    text = _item_text(h.text)
    gone = _replaced_in(h.doc)
    return CorrectionCandidate(
        type="preference",
        original_behaviour=prev_agent,
        corrected_behaviour=text,
        rule_text=text,
        confidence=round(h.act.probability, 3),
        explicit_rule=h.act.probability >= 0.9,
        turn_ids=(h.turn.id,),
        seen_at=h.turn.timestamp,
        negates=f"use {gone}" if gone else None,
    )


def _fact(h: Heard, project: str, vocab: Vocabulary) -> FactCandidate:
    kind = "decision" if h.act.act == "decision" else "project"
    text = _item_text(h.text)
    slot = _slot(h.doc, "decision" if kind == "decision" else "fact", vocab)
    predicate, obj = slot if slot else (f"said {normalize_key(text)[:80]}", text)
    return FactCandidate(
        subject=normalize_key(project) or project,
        predicate=predicate,
        object=obj,
        kind=kind,
        statement=text,
        confidence=round(h.act.probability, 3),
        turn_ids=(h.turn.id,),
        valid_from=h.turn.timestamp,
        replaces=_replaced_in(h.doc) if slot else "",
    )


_KEEPS = ("instruction", "decision", "fact", "retraction")
"""The acts of sentences that state something to keep (a rule, a decision, a fact, a lift)."""


def _overlap(a: str, b: str) -> float:
    x, y = set(normalize_key(a).split()), set(normalize_key(b).split())
    return len(x & y) / len(x) if x else 0.0


def _stated(heard: Sequence[Heard], turn_ids: Sequence[str], text: str, gate: float) -> bool:
    """Whether the sentence an older pattern read `text` from states something to keep."""
    mine = [h for h in heard if h.turn.id in turn_ids]
    if not mine:
        return False
    best = max(mine, key=lambda h: _overlap(text, h.text))
    return sum(best.act.probabilities[a] for a in _KEEPS) >= gate


def _vetted(
    heard: Sequence[Heard],
    patterns: tuple[Sequence[CorrectionCandidate], Sequence[FactCandidate]],
    gate: float,
) -> tuple[list[CorrectionCandidate], list[FactCandidate]]:
    """The older patterns' items whose sentence the act model reads as stating something."""
    rules, facts = patterns
    kept_rules = [
        c for c in rules if _stated(heard, c.turn_ids, c.corrected_behaviour or c.rule_text, gate)
    ]
    kept_facts = [
        f
        for f in facts
        if f.kind == "todo" or _stated(heard, f.turn_ids, f.statement or f.object, gate)
    ]
    return kept_rules, kept_facts


def _agent_before(turns: Sequence[TurnInput]) -> dict[str, str]:
    """Per turn, what the agent said last before it (a rule's original behaviour)."""
    out: dict[str, str] = {}
    last = ""
    for t in turns:
        if t.role == "assistant" and t.text.strip():
            last = " ".join(t.text.split())[:200]
        out[t.id] = last
    return out


def _from_acts(
    heard: Sequence[Heard], before: dict[str, str], project: str, f: ActFloors
) -> tuple[list[CorrectionCandidate], list[FactCandidate], set[tuple[str, str]]]:
    """The act model's own items, and `(turn id, sentence)` of each."""
    vocab = vocabulary()
    rules: list[CorrectionCandidate] = []
    facts: list[FactCandidate] = []
    kept: set[tuple[str, str]] = set()
    seen: set[str] = set()
    for h in heard:
        key = normalize_key(h.text)
        floor = getattr(f, h.act.act, None)
        if floor is None or h.act.probability < floor or key in seen:
            continue
        seen.add(key)
        kept.add((h.turn.id, key))
        if h.act.act == "instruction":
            rules.append(_rule(h, before.get(h.turn.id, "")))
        else:
            facts.append(_fact(h, project, vocab))
    return rules, facts, kept


def distil(
    turns: Sequence[TurnInput],
    project: str,
    acts: SentenceActs,
    floors: ActFloors | None = None,
    *,
    patterns: tuple[Sequence[CorrectionCandidate], Sequence[FactCandidate]] = ((), ()),
) -> Distilled:
    """The rules, decisions and project facts of an agent session's user sentences.

    `patterns`: items the older clause patterns read from the same turns; those whose sentence
    the act model reads as a statement to keep (`ActFloors.vet`) are kept beside the act
    model's own, unless a verbatim item of the same turn already says it.
    """
    f = floors or ActFloors()
    heard = acts.of(turns)
    rules, facts, kept = _from_acts(heard, _agent_before(turns), project, f)
    old_rules, old_facts = _vetted(heard, patterns, f.vet)

    def new(turn_ids: Sequence[str], text: str) -> bool:
        return not any(tid in turn_ids and _overlap(text, said) >= 0.6 for tid, said in kept)

    rules += [c for c in old_rules if new(c.turn_ids, c.corrected_behaviour or c.rule_text)]
    facts += [x for x in old_facts if new(x.turn_ids, x.statement or x.object)]
    return Distilled(tuple(rules), tuple(facts))
