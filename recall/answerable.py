"""Know when nothing is known: how likely the items of a `context` answer hold its answer.

A top score says how well the best item matches the words of the question, not whether it answers
it: a question about what *Caroline* said matches Melanie's turn on the same subject just as well.
`answerable` weighs who said the best-matching material against who the question names, and how
much of the question the answer covers at all:

- `coverage`: the share of the question's content words (speaker names left out) found in the
  best item;
- `named_coverage` / `other_coverage`: the same over the items the named speakers said, and over
  those other speakers said (when the question names a speaker of the project);

The score is `coverage`, moved towards 0 when the material that covers the question came from
someone the question does not name, and towards 1 when the named speaker said it. Its reasons
travel with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import get_args

from core.text import search_tokens
from graph.kinds import ItemKind
from graph.models import Role
from recall.items import Ranked
from recall.understand import QueryIntent

__all__ = ["Answerability", "answerability"]

_ROLES = frozenset(get_args(Role))
"""Speakers that are roles, not people ("user", "assistant"): a question that names one ("should
I ask the user first?") does not ask what that person said, so the speaker contrast is off."""


@dataclass(frozen=True)
class Answerability:
    """A calibrated 0–1 estimate that the answer holds what the question asks, and why."""

    score: float
    reasons: dict[str, float]


def _coverage(terms: frozenset[str], text: str) -> float:
    return len(terms & set(search_tokens(text))) / len(terms) if terms else 0.0


def answerability(intent: QueryIntent, items: Sequence[Ranked], *, top: int = 5) -> Answerability:
    """How likely `items` (best first) answer the question `intent` was read from."""
    names = {t for s in intent.speakers if s.lower() not in _ROLES for t in search_tokens(s)}
    terms = frozenset(t for t in search_tokens(intent.keyword_query) if t not in names)
    head = list(items[:top])
    if not head or not terms:
        return Answerability(0.0 if not head else 0.5, {"items": float(len(head))})
    cover = [_coverage(terms, r.candidate.text) for r in head]
    best = max(cover)
    reasons = {"coverage": round(best, 4)}
    named = {s.lower() for s in intent.speakers} - _ROLES
    if not named:
        return Answerability(round(best, 4), reasons)
    said = [
        (c, r.candidate.speaker.lower() in named)
        for c, r in zip(cover, head, strict=True)
        if r.candidate.kind is ItemKind.TURN and r.candidate.speaker
    ]
    by_named = max((c for c, mine in said if mine), default=0.0)
    by_other = max((c for c, mine in said if not mine), default=0.0)
    reasons |= {"named_coverage": round(by_named, 4), "other_coverage": round(by_other, 4)}
    # The named speaker said the best-covering material: answerable; someone else did: the
    # question likely asks about something the named speaker never said.
    score = best * (0.5 + 0.5 * (by_named - by_other)) if said else best * 0.5
    return Answerability(round(min(1.0, max(0.0, score)), 4), reasons)
