"""An extractive session summary: the session's salient, diverse sentences, in the third person.

Offline and deterministic. Every sentence of the conversation (questions, greetings and
fragments aside) is scored by the informative words it carries: a word counts by how many of
the session's sentences use it (what the session is about) times how rare it is in English
(`knowledge.labels.zipf`: "adoption" says more than "good"), over the square root of the
sentence's length. The best sentences are taken greedily, skipping one that repeats a chosen
one, until the word budget is spent, then put back in conversation order. A person's first-person
words are rewritten to their name ("I went to a support group" → "Caroline went to a support
group"); an agent session's lines are labelled "User:" / "Assistant:".
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from core.text import content_words, sentences
from knowledge.labels import zipf

__all__ = ["SUMMARY_WORDS", "extractive_summary", "third_person"]

SUMMARY_WORDS = 100
"""Word budget of a session summary (LoCoMo's own session summaries average ~110 words)."""

_MIN_WORDS = 5
_REPEAT = 0.5
"""Jaccard overlap of content words with a chosen sentence from which a sentence is a repeat."""
_RARE_AT = 6.5
"""Zipf frequency at which a word stops being informative (the most common English words)."""

_FIRST_PERSON: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), r)
    for p, r in (
        (r"\bI'm\b|\bI am\b", "{n} is"),
        (r"\bI've\b|\bI have\b", "{n} has"),
        (r"\bI'll\b", "{n} will"),
        (r"\bI'd\b", "{n} would"),
        (r"\bI was\b", "{n} was"),
        (r"\bI\b", "{n}"),
        (r"\b[Mm]y\b", "{n}'s"),
        (r"\b[Mm]yself\b", "{n}"),
        (r"\bme\b", "{n}"),
    )
)


def third_person(sentence: str, name: str) -> tuple[str, bool]:
    """`sentence` with the speaker's first-person words replaced by `name`; whether any were."""
    out, hit = sentence, False
    for rx, repl in _FIRST_PERSON:
        out, n = rx.subn(repl.replace("{n}", name), out)
        hit = hit or n > 0
    return out, hit


@dataclass(frozen=True)
class _Sentence:
    pos: int
    speaker: str
    person: bool
    text: str
    words: frozenset[str]


def _candidates(lines: Sequence[tuple[str, bool, str]]) -> list[_Sentence]:
    out: list[_Sentence] = []
    for who, person, text in lines:
        for s in sentences(text):
            s = s.strip(" -*•")
            if len(s.split()) < _MIN_WORDS or s.endswith("?") or s.startswith(("```", "$ ")):
                continue
            ws = frozenset(content_words(s))
            if ws:
                out.append(_Sentence(len(out), who, person, s, ws))
    return out


def extractive_summary(
    lines: Sequence[tuple[str, bool, str]], *, max_words: int = SUMMARY_WORDS
) -> str:
    """A summary of a conversation from its own sentences.

    Args:
        lines: `(speaker, is_person, text)` per turn, in conversation order; `speaker` is a
            person's name when `is_person`, else a role label ("User", "Assistant").
        max_words: word budget (the first chosen sentence is kept whatever its length).
    """
    cands = _candidates(lines)
    if not cands:
        return ""
    df = Counter(w for c in cands for w in c.words)
    weight = {w: n * max(0.0, _RARE_AT - zipf(w)) for w, n in df.items()}

    def score(c: _Sentence) -> float:
        return sum(weight[w] for w in c.words) / math.sqrt(len(c.text.split()))

    chosen: list[_Sentence] = []
    used = 0
    for c in sorted(cands, key=lambda c: (-score(c), c.pos)):
        if any(len(c.words & o.words) / len(c.words | o.words) >= _REPEAT for o in chosen):
            continue
        n = len(c.text.split())
        if chosen and used + n > max_words:
            continue
        chosen.append(c)
        used += n
        if used >= max_words:
            break
    parts: list[str] = []
    for c in sorted(chosen, key=lambda c: c.pos):
        text = c.text if c.text[-1] in ".!" else c.text + "."
        if c.person:
            text, named = third_person(text, c.speaker)
            parts.append(text if named else f"{c.speaker}: {text}")
        else:
            parts.append(f"{c.speaker}: {text}")
    return " ".join(parts)
