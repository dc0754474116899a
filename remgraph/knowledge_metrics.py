"""Metrics of `remgraph eval knowledge` (pure: no engine, no files; vectors come in as arrays).

What is measured, exactly:

- **Knowledge items** are the nodes a project holds other than its raw turns and bookkeeping
  (`NOT_KNOWLEDGE_LABELS`), whatever their label, so kinds added later count without a code change.
  An item's text units are its string properties that carry text (`is_text_property`: not ids,
  enum values, times, hashes or JSON), each whole and, when it holds several sentences, sentence
  by sentence (`text_units`): a long item (primer, reference layer, summary) matches an
  observation through any one of its sentences. Units of fewer than `MIN_UNIT_WORDS` words are
  not statements and are not compared.
- **Provenance** of an item is the set of turns it is linked to: any relationship with a turn but
  the session's `HAS_TURN`, any list property holding turn ids (`source_turn_ids`,
  `message_ids`, ...), and transitively the provenance of other items whose ids it lists
  (`source_ids` of a primer, `member_ids` of a community). It is item-level: the sentences of a
  long item share the item's provenance. Turns map to LoCoMo dialog ids through their source key.
- **Observation recall**: share of observations with a unit at cosine ≥ `RECALL_COSINE`; *with
  provenance*, that unit's item must also be linked to at least one of the observation's evidence
  turns. **Precision**: share of fact-like items (`FACT_LIKE_LABELS`) with a unit at cosine ≥
  `PRECISION_COSINE` to some observation of the same project.
- **Session summaries**: ROUGE-1/2/L F1 (`rouge-score`, Porter stemming) against the reference; a
  session without a stored summary scores 0. The baseline is the session's first turns joined and
  cut to as many words as the stored summary (whitespace words), or as the reference when there is
  no stored summary.
- **Topic labels**: generic when the label (`wordfreq` tokens) is a single word with an English
  Zipf frequency ≥ `GENERIC_ZIPF` or on scikit-learn's English stopword list, or holds no word.
- **Sizes**: UTF-8 bytes against the seed's budgets (1 KB = 1,000 bytes, as the product's own
  budgets).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol

import numpy as np

from knowledge.labels import is_generic_label, label_words

RECALL_COSINE = 0.70
"""An observation is matched by a unit at or above this cosine (all-MiniLM-L6-v2)."""
PRECISION_COSINE = 0.60
"""A fact-like item is correct when one of its units reaches this cosine with an observation."""
"""A one-word topic label at or above this English Zipf frequency is generic."""
TOP_TOPICS = 50
"""Topic labels are judged on each project's heaviest topics."""
MIN_UNIT_WORDS = 3
"""Text units with fewer words are not statements and are not compared."""

NOT_KNOWLEDGE_LABELS = frozenset(
    {
        "Turn",  # the raw material (scored apart, as the baseline)
        "Project",
        "JobRun",
        "JobLock",
        "RemState",
        "Finding",  # REM review proposals for an administrator, not knowledge for an agent
        "CommunityRun",
        "ProjectSnapshot",
        "ContextQuery",
        "ApiKey",
        "SchemaMigration",
        "SourceFile",
        "LessonVersion",  # earlier versions of a lesson; the lesson itself counts
    }
)
"""Labels that are not derived knowledge. Every other label counts (a `Session` through its
derived text properties: summary, intent, outcome)."""

FACT_LIKE_LABELS = frozenset({"Fact", "Observation", "Correction", "Lesson"})
"""Items whose precision is measured: statements about the world or the work. Topics, summaries,
primers, layers and communities organise knowledge rather than state one fact each."""

METADATA_KEYS = frozenset(
    {
        "id",
        "project",
        "source",
        "source_file",
        "source_key",
        "parent_key",
        "period",
        "period_key",
        "status",
        "phase",
        "kind",
        "category",
        "type",
        "role",
        "speaker",
        "tool_name",
        "job",
        "error",
        "principal",
        "key_hash",
    }
)
"""String properties that name, classify or locate a node rather than say something."""

SOURCE_PROVIDED = {"Session": frozenset({"title"})}
"""Text properties copied from the transcript, not derived by remgraph."""

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'“‘(\[]?[A-Z0-9])")
_MARKUP = re.compile(r"^(?:[#>*•\-]+|\d+[.)])\s*")


# --- text units ---------------------------------------------------------------------------------


def words(text: str) -> list[str]:
    """Words of `text` (letters and digits, inner apostrophes kept)."""
    return _WORD.findall(text)


def split_sentences(text: str) -> list[str]:
    """Lines, then sentences within a line; Markdown bullets and headings stripped."""
    out: list[str] = []
    for raw in text.splitlines():
        line = _MARKUP.sub("", raw.strip()).replace("**", "").strip()
        if not line:
            continue
        out.extend(s.strip() for s in _SENTENCE_END.split(line) if s.strip())
    return out


def text_units(text: str) -> tuple[str, ...]:
    """The texts compared for one property: the whole text and, if it has several, its sentences.

    Units of fewer than `MIN_UNIT_WORDS` words are dropped; duplicates are kept once.
    """
    whole = " ".join(text.split())
    candidates = [whole]
    sentences = split_sentences(text)
    if len(sentences) > 1:
        candidates.extend(sentences)
    return tuple(dict.fromkeys(u for u in candidates if len(words(u)) >= MIN_UNIT_WORDS))


def is_text_property(label: str, key: str, value: Any) -> bool:
    """Whether a stored property carries derived text worth comparing."""
    if not isinstance(value, str):
        return False
    if key in METADATA_KEYS or key in SOURCE_PROVIDED.get(label, frozenset()):
        return False
    if key.endswith(("_id", "_ids", "_at", "_hash", "_key")):
        return False
    v = value.strip()
    if not v or v[0] in "{[":  # JSON-encoded maps and lists (meta, tool_stats)
        return False
    return any(c.isalpha() for c in v)


def _norm(text: str) -> str:
    return " ".join(words(text)).lower()


def text_properties(label: str, props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """`(key, text)` of a node's text properties, in key order.

    A property whose words sit inside a longer one's is left out (a fact's object inside its
    statement), so a fragment never matches for the whole item; equal texts are all kept.
    """
    texts = sorted((k, str(v)) for k, v in props.items() if is_text_property(label, k, v))
    norms = [_norm(v) for _, v in texts]
    return [
        (key, value)
        for (key, value), mine in zip(texts, norms, strict=True)
        if not any(mine in other and len(mine) < len(other) for other in norms)
    ]


# --- knowledge items and provenance -------------------------------------------------------------


@dataclass(frozen=True)
class Observation:
    """One annotated observation: what the data set says should be known, and from which turns."""

    sample: str
    session: str
    speaker: str
    text: str
    evidence: frozenset[str]
    """Normalised dialog ids (`D1:3`)."""


@dataclass(frozen=True)
class KnowledgeItem:
    """Something a project holds that may state an observation.

    Attributes:
        id: the node id.
        label: the node label (`Turn` for the raw-turn baseline).
        units: `(kind, text)` pairs compared with observations; kind is `Label.property`.
        provenance: dialog ids of the turns the item is linked to.
        fact_like: whether the item counts in precision.
    """

    id: str
    label: str
    units: tuple[tuple[str, str], ...]
    provenance: frozenset[str]
    fact_like: bool


class NodeLike(Protocol):
    """What `knowledge_items` reads from a stored node (see `graph.repositories.audit`)."""

    @property
    def label(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def props(self) -> Mapping[str, Any]: ...


def _id_lists(props: Mapping[str, Any]) -> Iterable[str]:
    for value in props.values():
        if isinstance(value, list | tuple):
            yield from (x for x in value if isinstance(x, str))


def knowledge_items(
    nodes: Sequence[NodeLike],
    links: Iterable[tuple[str, str]],
    turn_dia: Mapping[str, str | None],
) -> list[KnowledgeItem]:
    """Knowledge items of one project, with their text units and provenance.

    Args:
        nodes: the project's nodes (labels in `NOT_KNOWLEDGE_LABELS` are skipped).
        links: `(node id, turn id)` for every non-containment edge between a node and a turn.
        turn_dia: every turn id of the project → its dialog id (None when it has none).
    """
    kept = [n for n in nodes if n.label not in NOT_KNOWLEDGE_LABELS]
    by_id = {n.id: n for n in kept}
    direct: dict[str, set[str]] = {n.id: set() for n in kept}
    refs: dict[str, set[str]] = {n.id: set() for n in kept}
    for n in kept:
        for x in _id_lists(n.props):
            if x in turn_dia:
                direct[n.id].add(x)
            elif x in by_id and x != n.id:
                refs[n.id].add(x)
    for node_id, turn_id in links:
        if node_id in direct and turn_id in turn_dia:
            direct[node_id].add(turn_id)
    prov = {k: set(v) for k, v in direct.items()}
    changed = True
    while changed:  # transitive closure over listed item ids (terminates: sets only grow)
        changed = False
        for nid, targets in refs.items():
            before = len(prov[nid])
            for t in targets:
                prov[nid] |= prov[t]
            changed = changed or len(prov[nid]) != before
    items: list[KnowledgeItem] = []
    for n in kept:
        units = tuple(
            (f"{n.label}.{key}", u)
            for key, value in text_properties(n.label, n.props)
            for u in text_units(value)
        )
        dias = frozenset(d for t in prov[n.id] if (d := turn_dia.get(t)))
        items.append(KnowledgeItem(n.id, n.label, units, dias, n.label in FACT_LIKE_LABELS))
    return items


def turn_items(turns: Iterable[tuple[str, str, str | None]]) -> list[KnowledgeItem]:
    """The baseline: every raw turn `(id, text, dialog id)` as an item, its own provenance."""
    return [
        KnowledgeItem(
            tid,
            "Turn",
            tuple(("Turn.text", u) for u in text_units(text)),
            frozenset({dia} if dia else ()),
            True,
        )
        for tid, text, dia in turns
    ]


# --- observation recall and precision -----------------------------------------------------------


@dataclass
class ObservationCounts:
    """Counts behind observation recall and precision; add them to pool projects."""

    observations: int = 0
    matched: int = 0
    matched_with_provenance: int = 0
    provenance_reachable: int = 0
    """Observations with some item linked to one of their evidence turns, whatever the cosine."""
    items: int = 0
    units: int = 0
    fact_like_items: int = 0
    fact_like_matched: int = 0
    items_by_label: Counter[str] = field(default_factory=Counter)
    units_by_kind: Counter[str] = field(default_factory=Counter)
    provenance_by_label: Counter[str] = field(default_factory=Counter)
    """Dialog ids summed over the items of each label (how specific provenance is)."""
    matched_by_kind: Counter[str] = field(default_factory=Counter)
    """Observations matched (cosine only) by at least one unit of each kind."""
    matched_with_provenance_by_kind: Counter[str] = field(default_factory=Counter)

    def __add__(self, other: ObservationCounts) -> ObservationCounts:
        return ObservationCounts(
            observations=self.observations + other.observations,
            matched=self.matched + other.matched,
            matched_with_provenance=self.matched_with_provenance + other.matched_with_provenance,
            provenance_reachable=self.provenance_reachable + other.provenance_reachable,
            items=self.items + other.items,
            units=self.units + other.units,
            fact_like_items=self.fact_like_items + other.fact_like_items,
            fact_like_matched=self.fact_like_matched + other.fact_like_matched,
            items_by_label=self.items_by_label + other.items_by_label,
            units_by_kind=self.units_by_kind + other.units_by_kind,
            provenance_by_label=self.provenance_by_label + other.provenance_by_label,
            matched_by_kind=self.matched_by_kind + other.matched_by_kind,
            matched_with_provenance_by_kind=(
                self.matched_with_provenance_by_kind + other.matched_with_provenance_by_kind
            ),
        )

    def summary(self) -> dict[str, Any]:
        """JSON-able figures: recall (with and without provenance), precision, and counts."""
        return {
            "recall": ratio(self.matched, self.observations),
            "recall_with_provenance": ratio(self.matched_with_provenance, self.observations),
            "precision": ratio(self.fact_like_matched, self.fact_like_items),
            "provenance_coverage": ratio(self.provenance_reachable, self.observations),
            "observations": self.observations,
            "matched": self.matched,
            "matched_with_provenance": self.matched_with_provenance,
            "items": self.items,
            "units": self.units,
            "fact_like_items": self.fact_like_items,
            "fact_like_matched": self.fact_like_matched,
            "items_by_label": dict(sorted(self.items_by_label.items())),
            "units_by_kind": dict(sorted(self.units_by_kind.items())),
            "provenance_mean_by_label": {
                k: round(self.provenance_by_label[k] / n, 1)
                for k, n in sorted(self.items_by_label.items())
            },
            "matched_by_kind": dict(sorted(self.matched_by_kind.items())),
            "matched_with_provenance_by_kind": dict(
                sorted(self.matched_with_provenance_by_kind.items())
            ),
        }


def ratio(num: float, den: float) -> float | None:
    """`num / den` rounded to 4 places, None when `den` is 0."""
    return round(num / den, 4) if den else None


def flat_units(items: Sequence[KnowledgeItem]) -> list[str]:
    """Every unit text of `items`, in order (embed these for `score_observations`)."""
    return [text for it in items for _, text in it.units]


def score_observations(
    observations: Sequence[Observation],
    observation_vectors: np.ndarray,
    items: Sequence[KnowledgeItem],
    unit_vectors: np.ndarray,
    *,
    recall_cosine: float = RECALL_COSINE,
    precision_cosine: float = PRECISION_COSINE,
) -> ObservationCounts:
    """Match one project's observations against its items.

    Args:
        observations: the project's observations.
        observation_vectors: their L2-normalised embeddings, one row each.
        items: the project's items.
        unit_vectors: L2-normalised embeddings of `flat_units(items)`, in that order.
        recall_cosine: threshold of an observation match.
        precision_cosine: threshold of a fact-like item match.
    """
    n_units = sum(len(it.units) for it in items)
    if unit_vectors.shape[0] != n_units or observation_vectors.shape[0] != len(observations):
        raise ValueError("one vector per observation and per unit, in order")
    unit_item = np.fromiter(
        (i for i, it in enumerate(items) for _ in it.units), dtype=np.int64, count=n_units
    )
    unit_kind = [kind for it in items for kind, _ in it.units]
    sims = (
        observation_vectors @ unit_vectors.T
        if len(observations) and n_units
        else np.zeros((len(observations), n_units), dtype=np.float32)
    )
    out = ObservationCounts(
        observations=len(observations),
        items=len(items),
        units=n_units,
        items_by_label=Counter(it.label for it in items),
        units_by_kind=Counter(unit_kind),
    )
    for it in items:
        out.provenance_by_label[it.label] += len(it.provenance)
    for o, obs in enumerate(observations):
        if any(it.provenance & obs.evidence for it in items):
            out.provenance_reachable += 1
        hits = np.flatnonzero(sims[o] >= recall_cosine)
        if hits.size == 0:
            continue
        out.matched += 1
        kinds = {unit_kind[u] for u in hits}
        out.matched_by_kind.update(kinds)
        proven = {unit_kind[u] for u in hits if items[unit_item[u]].provenance & obs.evidence}
        if proven:
            out.matched_with_provenance += 1
            out.matched_with_provenance_by_kind.update(proven)
    best = sims.max(axis=0) if len(observations) and n_units else np.zeros(n_units)
    start = 0
    for it in items:
        end = start + len(it.units)
        if it.fact_like:
            out.fact_like_items += 1
            if end > start and float(best[start:end].max()) >= precision_cosine:
                out.fact_like_matched += 1
        start = end
    return out


# --- session summaries --------------------------------------------------------------------------

ROUGE_METRICS = ("rouge1", "rouge2", "rougeL")


@cache
def _rouge() -> Any:
    from rouge_score import rouge_scorer  # deferred: pulls in nltk

    return rouge_scorer.RougeScorer(list(ROUGE_METRICS), use_stemmer=True)


def rouge_f1(hypothesis: str, reference: str) -> dict[str, float]:
    """ROUGE-1/2/L F1 of `hypothesis` against `reference` (0 for an empty hypothesis)."""
    if not hypothesis.strip() or not reference.strip():
        return dict.fromkeys(ROUGE_METRICS, 0.0)
    scores = _rouge().score(reference, hypothesis)
    return {m: float(scores[m].fmeasure) for m in ROUGE_METRICS}


def cut_words(text: str, n: int) -> str:
    """The first `n` whitespace-separated words of `text`."""
    return " ".join(text.split()[: max(0, n)])


@dataclass(frozen=True)
class SummaryScore:
    """One session: the stored summary and the first-turns baseline against the reference."""

    session: str
    reference_words: int
    summary_words: int
    baseline_words: int
    remgraph: dict[str, float]
    baseline: dict[str, float]


def score_summary(
    session: str, reference: str, summary: str | None, first_turns: Sequence[str]
) -> SummaryScore:
    """Score a session's stored summary and its first-turns baseline of the same length."""
    summary = (summary or "").strip()
    n = len(summary.split()) if summary else len(reference.split())
    baseline = cut_words(" ".join(first_turns), n)
    return SummaryScore(
        session=session,
        reference_words=len(reference.split()),
        summary_words=len(summary.split()),
        baseline_words=len(baseline.split()),
        remgraph=rouge_f1(summary, reference),
        baseline=rouge_f1(baseline, reference),
    )


def summarize_summaries(scores: Sequence[SummaryScore]) -> dict[str, Any]:
    """Mean F1 per metric for remgraph and the baseline, the ROUGE-L ratio, and coverage."""
    n = len(scores)

    def mean(side: str, m: str) -> float | None:
        return round(sum(getattr(s, side)[m] for s in scores) / n, 4) if n else None

    ours = {m: mean("remgraph", m) for m in ROUGE_METRICS}
    base = {m: mean("baseline", m) for m in ROUGE_METRICS}
    lr = ours["rougeL"]
    lb = base["rougeL"]
    return {
        "sessions": n,
        "with_summary": sum(1 for s in scores if s.summary_words),
        "summary_words_mean": round(sum(s.summary_words for s in scores) / n, 1) if n else None,
        "reference_words_mean": round(sum(s.reference_words for s in scores) / n, 1) if n else None,
        "remgraph": ours,
        "first_turns": base,
        "rougeL_ratio": round(lr / lb, 3) if lr is not None and lb else None,
    }


# --- topic labels -------------------------------------------------------------------------------


def topic_stats(topics: Sequence[tuple[str, float]], top: int = TOP_TOPICS) -> dict[str, Any]:
    """Generic share and words per label among the `top` heaviest `(label, weight)` topics.

    Ties in weight are broken by label so the choice is reproducible.
    """
    heaviest = sorted(topics, key=lambda t: (-t[1], t[0]))[:top]
    labels = [t[0] for t in heaviest]
    generic = [lb for lb in labels if is_generic_label(lb)]
    lengths = [len(label_words(lb)) for lb in labels]
    hist = Counter(min(n, 5) for n in lengths)
    return {
        "topics": len(topics),
        "judged": len(labels),
        "generic": len(generic),
        "generic_share": ratio(len(generic), len(labels)),
        "label_words": {("5+" if k == 5 else str(k)): hist.get(k, 0) for k in range(0, 6)},
        "label_words_mean": round(sum(lengths) / len(lengths), 2) if lengths else None,
        "generic_examples": generic[:10],
    }


# --- sizes against budgets ----------------------------------------------------------------------


@dataclass(frozen=True)
class Budget:
    """A size budget in bytes: the seed's range `lo`–`hi` and its hard `max`."""

    lo: int
    hi: int
    max: int

    def describe(self) -> str:
        return f"{self.lo / 1000:g}–{self.hi / 1000:g} KB, max {self.max / 1000:g} KB"


TIER_BUDGETS = {
    "daily": Budget(2_000, 5_000, 8_000),
    "weekly": Budget(4_000, 8_000, 12_000),
    "monthly": Budget(6_000, 10_000, 15_000),
}
PACK_BUDGET = Budget(20_000, 25_000, 35_000)


def size_stats(sizes: Sequence[int], budget: Budget) -> dict[str, Any]:
    """Count, mean, min, max, share within the budget range, and how many exceed its max."""
    n = len(sizes)
    in_range = sum(1 for s in sizes if budget.lo <= s <= budget.hi)
    return {
        "count": n,
        "mean": round(sum(sizes) / n, 1) if n else None,
        "min": min(sizes) if n else None,
        "max": max(sizes) if n else None,
        "in_range": in_range,
        "in_range_share": ratio(in_range, n),
        "over_max": sum(1 for s in sizes if s > budget.max),
        "budget": budget.describe(),
    }


# --- targets ------------------------------------------------------------------------------------

TARGET_RECALL = 0.60
TARGET_PRECISION = 0.50
TARGET_ROUGE_RATIO = 1.25
TARGET_GENERIC_SHARE = 0.05


def targets(
    observations: Mapping[str, Any],
    summaries: Mapping[str, Any],
    topic_shares: Sequence[float | None],
    pack_sizes: Sequence[int],
    primers_over_max: int,
) -> list[dict[str, Any]]:
    """The issue's targets beside the measured figures, each met or not.

    Args:
        observations: the pooled remgraph `ObservationCounts.summary()`.
        summaries: the pooled `summarize_summaries` output.
        topic_shares: each project's generic-label share (None: the project has no topic).
        pack_sizes: each project's pack size in bytes.
        primers_over_max: primers above their tier's max, all projects.
    """
    rec = observations.get("recall_with_provenance")
    prec = observations.get("precision")
    ours = summaries.get("remgraph", {}).get("rougeL")
    base = summaries.get("first_turns", {}).get("rougeL")
    shares = [s for s in topic_shares if s is not None]
    worst = max(shares) if shares else None
    packs_ok = bool(pack_sizes) and all(PACK_BUDGET.lo <= s <= PACK_BUDGET.max for s in pack_sizes)
    return [
        {
            "name": "observation recall with provenance at precision",
            "target": f"recall >= {TARGET_RECALL:.2f} at precision >= {TARGET_PRECISION:.2f}",
            "value": f"recall {_fmt(rec)} at precision {_fmt(prec)}",
            "met": rec is not None
            and prec is not None
            and rec >= TARGET_RECALL
            and prec >= TARGET_PRECISION,
        },
        {
            "name": "session summary ROUGE-L vs first turns",
            "target": f"ROUGE-L >= {TARGET_ROUGE_RATIO}x the first-turns baseline",
            "value": f"{_fmt(ours)} vs {_fmt(base)} ({_fmt(summaries.get('rougeL_ratio'))}x)",
            "met": ours is not None
            and base is not None
            and ours > 0
            and ours >= TARGET_ROUGE_RATIO * base,
        },
        {
            "name": "generic topic labels",
            "target": f"<= {TARGET_GENERIC_SHARE:.0%} among each project's {TOP_TOPICS} heaviest",
            "value": f"worst project {_fmt(worst)}",
            "met": worst is not None and worst <= TARGET_GENERIC_SHARE,
        },
        {
            "name": "pack and primer sizes",
            "target": (
                f"pack {PACK_BUDGET.lo // 1000}–{PACK_BUDGET.max // 1000} KB for every project, "
                "no primer over its tier's max"
            ),
            "value": (
                f"packs {min(pack_sizes, default=0)}–{max(pack_sizes, default=0)} B, "
                f"{primers_over_max} primers over max"
            ),
            "met": packs_ok and primers_over_max == 0,
        },
    ]


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"
