"""What `remgraph eval extraction` reports: distilled items matched to labelled ones (pure).

A distilled item matches a labelled item when they mean the same (cosine of the local embedding
model between the item's text and the label's text, problem and fix or any of its quotes) and
share provenance (the item was derived from a message that holds one of the label's quotes).
An item whose meaning is very close (`SIM_ALONE`) matches without a shared message, so a rule
said in a session the labels did not quote still counts; those matches are counted apart.

Per kind (rule, decision, fact, lesson):
- precision: share of distilled items of the kind that match a labelled item of the kind;
- recall: share of labelled items of the kind matched by a distilled item of the kind;
- current-value accuracy (rules, decisions, facts): of the matched labelled items, the share
  whose matched items are served as current exactly when the label is current (a superseded
  decision served as current counts wrong, and so does a current one that was closed);
- garbled: share of distilled items whose text is not a complete sentence (`core`'s judge in
  `ai.language.is_fragment`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from remgraph.extraction_labels import LABEL_KINDS, LabelItem, LabelKind, Labels

SIM_WITH_TURN = 0.5
"""Cosine from which an item derived from a labelled message means the labelled item.

all-MiniLM-L6-v2 gives paraphrases of one instruction 0.6-0.9 and two different instructions of
one message (\"use bun; never use grep\") 0.2-0.45; read off the unmatched lists of both
labelled histories."""
SIM_ALONE = 0.8
"""Cosine from which an item matches a labelled one without a shared message (a restatement)."""

ItemKind = Literal["rule", "decision", "fact", "lesson", "other"]


@dataclass(frozen=True, slots=True)
class Distilled:
    """One item remgraph distilled, as the eval reads it back."""

    id: str
    kind: ItemKind
    source: str
    """What it is stored as: `correction`, `fact:<kind>` or `lesson`."""
    text: str
    places: frozenset[tuple[str, int]]
    """The messages it was derived from: `(session, index in session)`."""
    current: bool
    """In force at the end of the history (not closed, not expired)."""
    confidence: float = 0.0
    headline: str = ""
    """What the fragment judge reads: the text, or a lesson's title (its content is a record of
    problem, fix and output, not a sentence)."""

    @property
    def judged_text(self) -> str:
        return self.headline or self.text


@dataclass
class Match:
    """The matches between distilled and labelled items, both ways."""

    pairs: list[tuple[str, str, float, bool]] = field(default_factory=list)
    """(item id, label id, cosine, by shared message)."""

    def labels_of(self, item_id: str) -> list[str]:
        return [lab for i, lab, _, _ in self.pairs if i == item_id]

    def items_of(self, label_id: str) -> list[str]:
        return [i for i, lab, _, _ in self.pairs if lab == label_id]


Similarity = Callable[[Distilled, LabelItem], float]


def match(
    items: Sequence[Distilled],
    labels: Labels,
    places: Mapping[str, set[tuple[str, int]]],
    similarity: Similarity,
) -> Match:
    """Every (item, label) pair that means the same and shares provenance (see the module)."""
    out = Match()
    for it in items:
        for lab in labels.items:
            sim = similarity(it, lab)
            shared = not it.places.isdisjoint(places.get(lab.id, ()))
            if (shared and sim >= SIM_WITH_TURN) or sim >= SIM_ALONE:
                out.pairs.append((it.id, lab.id, round(sim, 4), shared))
    return out


def _share(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def kind_report(
    kind: LabelKind,
    items: Sequence[Distilled],
    labels: Labels,
    m: Match,
    fragment: Callable[[str], bool],
) -> dict[str, Any]:
    """The figures of one kind (see the module docstring)."""
    by_id = {i.id: i for i in items}
    label_kind = {lab.id: lab.kind for lab in labels.items}
    mine = [i for i in items if i.kind == kind]
    gold = labels.of_kind(kind)
    matched_items = [i for i in mine if any(label_kind[lab] == kind for lab in m.labels_of(i.id))]
    other_kind = [
        i for i in mine if i not in matched_items and m.labels_of(i.id)
    ]  # right content, another kind
    matched_labels = [g for g in gold if any(by_id[i].kind == kind for i in m.items_of(g.id))]
    current_ok = 0
    for g in matched_labels:
        served_current = any(by_id[i].current and by_id[i].kind == kind for i in m.items_of(g.id))
        current_ok += served_current == g.current
    garbled = [i for i in mine if fragment(i.judged_text)]
    return {
        "distilled": len(mine),
        "labelled": len(gold),
        "matched_items": len(matched_items),
        "matched_labels": len(matched_labels),
        "matched_other_kind": len(other_kind),
        "precision": _share(len(matched_items), len(mine)),
        "recall": _share(len(matched_labels), len(gold)),
        "current_accuracy": None if kind == "lesson" else _share(current_ok, len(matched_labels)),
        "superseded_labelled": sum(not g.current for g in gold),
        "garbled": _share(len(garbled), len(mine)),
        "garbled_items": len(garbled),
    }


def is_candidate(item: Distilled) -> bool:
    """Whether an item is stored as a candidate: kept for repetition to promote, not served."""
    return item.source.endswith(":candidate")


def candidates_report(
    candidates: Sequence[Distilled], labels: Labels, m: Match
) -> dict[str, dict[str, int]]:
    """Per kind, the candidates stored and how many of them match a label of their kind.

    Candidates are not served, so the kind's precision and recall leave them out; these two
    counts say what waiting for repetition held back.
    """
    label_kind = {lab.id: lab.kind for lab in labels.items}
    out: dict[str, dict[str, int]] = {}
    for c in candidates:
        row = out.setdefault(c.kind, {"candidates": 0, "candidates_matched": 0})
        row["candidates"] += 1
        row["candidates_matched"] += any(label_kind[lab] == c.kind for lab in m.labels_of(c.id))
    return out


def unmatched(
    items: Sequence[Distilled], labels: Labels, m: Match, *, text_chars: int = 240
) -> dict[str, list[dict[str, Any]]]:
    """What matched nothing, both ways, for a person to read."""
    matched_items = {i for i, _, _, _ in m.pairs}
    matched_labels = {lab for _, lab, _, _ in m.pairs}
    return {
        "distilled": [
            {
                "id": i.id,
                "kind": i.kind,
                "source": i.source,
                "current": i.current,
                "confidence": round(i.confidence, 3),
                "text": i.text[:text_chars],
                "sessions": sorted({s for s, _ in i.places}),
            }
            for i in items
            if i.id not in matched_items and i.kind != "other"
        ],
        "labelled": [
            {"id": g.id, "kind": g.kind, "current": g.current, "text": g.text[:text_chars]}
            for g in labels.items
            if g.id not in matched_labels
        ],
    }


def totals(per_kind: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """All four kinds together (micro averages)."""
    n = sum(int(per_kind[k]["distilled"]) for k in LABEL_KINDS)
    g = sum(int(per_kind[k]["labelled"]) for k in LABEL_KINDS)
    mi = sum(int(per_kind[k]["matched_items"]) for k in LABEL_KINDS)
    ml = sum(int(per_kind[k]["matched_labels"]) for k in LABEL_KINDS)
    bad = sum(int(per_kind[k]["garbled_items"]) for k in LABEL_KINDS)
    return {
        "distilled": n,
        "labelled": g,
        "precision": _share(mi, n),
        "recall": _share(ml, g),
        "garbled": _share(bad, n),
    }


def auc(scores_pos: Sequence[float], scores_neg: Sequence[float]) -> float | None:
    """Probability a positive scores above a negative (ties count half); None without both."""
    if not scores_pos or not scores_neg:
        return None
    wins = 0.0
    for p in scores_pos:
        for q in scores_neg:
            wins += 1.0 if p > q else 0.5 if p == q else 0.0
    return round(wins / (len(scores_pos) * len(scores_neg)), 4)
