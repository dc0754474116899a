"""From repository rows to ranking candidates: pure functions, no I/O.

`recall.retrieval` runs the queries (through `graph.repositories.recall.RecallRepository`) and
hands the rows here; `recall.ranking` scores what comes out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from core.timeutil import days_between
from graph.kinds import CORRECTION, LESSON, PRIMER, REFERENCE_LAYER, TOPIC
from graph.repositories.recall import KnowledgeHit, TurnFacts, TurnHit
from knowledge.scoring import correction_effective_weight
from recall.items import FULLTEXT, VECTOR, Candidate, TurnColumns, group_codes

_WEIGHT_ONE = (REFERENCE_LAYER, PRIMER)
"""Kinds whose salience is 1 (`knowledge_weight`)."""


def list_ranks(lists: Iterable[tuple[str, Sequence[TurnHit]]]) -> dict[str, dict[str, int]]:
    """Item id -> 1-based rank in each named list that returned it."""
    ranks: dict[str, dict[str, int]] = {}
    for src, hits in lists:
        for i, h in enumerate(hits, start=1):
            ranks.setdefault(h.id, {})[src] = i
    return ranks


@dataclass(slots=True)
class TurnFields:
    """Fetched turns as lists, one row per turn, each value as `TurnFacts` holds it."""

    ids: list[str]
    project: list[str | None]
    session: list[str | None]
    ordinal: list[int | None]
    speaker: list[str]
    tokens: list[int]
    """Stored token estimate; 0 when unknown."""
    valid_from: list[int | None]
    valid_to: list[int | None]
    quality: list[float | None]
    similarity: list[float | None]
    pending: np.ndarray
    """bool per row: `TurnFacts.vector_pending`."""

    @classmethod
    def of(cls, rows: Sequence[TurnFacts]) -> TurnFields:
        return cls(
            ids=[r.id for r in rows],
            project=[r.project for r in rows],
            session=[r.session_id for r in rows],
            ordinal=[r.ordinal for r in rows],
            speaker=[r.speaker for r in rows],
            tokens=[r.tokens for r in rows],
            valid_from=[r.valid_from for r in rows],
            valid_to=[r.valid_to for r in rows],
            quality=[r.quality for r in rows],
            similarity=[r.similarity for r in rows],
            pending=np.fromiter((r.vector_pending for r in rows), dtype=bool, count=len(rows)),
        )

    def facts(self) -> list[TurnFacts]:
        """The rows as `TurnFacts`."""
        return [
            TurnFacts(
                id=self.ids[k],
                project=self.project[k],
                session_id=self.session[k],
                ordinal=self.ordinal[k],
                speaker=self.speaker[k],
                tokens=self.tokens[k],
                valid_from=self.valid_from[k],
                valid_to=self.valid_to[k],
                quality=self.quality[k],
                similarity=self.similarity[k],
                vector_pending=bool(self.pending[k]),
            )
            for k in range(len(self.ids))
        ]


def turn_columns(
    rows: Sequence[TurnFacts],
    ranks: Mapping[str, dict[str, int]],
    bm25_of: Mapping[str, float],
    known_text: Mapping[str, str],
    window: int,
    cosine_of: Mapping[str, float] | None = None,
) -> TurnColumns:
    """The fetched turns as ranking's columns, each with its list ranks and raw scores.

    `bm25_of` holds the fulltext (BM25) score of every turn the fulltext search found,
    `known_text` the texts that search already read (the others are read later, when needed),
    `cosine_of` the similarity of the turns the vector search found (a row's own `similarity`,
    when set, is the one read with it). A turn's neighbours are the other rows of its session
    within `window` ordinals (`session_pairs`).
    """
    f = TurnFields.of(rows)
    text = [known_text.get(i) for i in f.ids]
    return columns_of(
        f, text, ranks=ranks, bm25_of=bm25_of, cosine_of=cosine_of or {}, window=window
    )


def columns_of(
    f: TurnFields,
    text: list[str | None],
    *,
    ranks: Mapping[str, dict[str, int]],
    bm25_of: Mapping[str, float],
    cosine_of: Mapping[str, float],
    window: int,
) -> TurnColumns:
    """`turn_columns` of turns read as `TurnFields`, with their texts (None: not read yet).

    A token count of 0 (unknown) is estimated from the text once read; a `similarity` of None
    is the vector search's (`cosine_of`), if any.
    """
    ids = f.ids
    n = len(ids)
    nan = float("nan")
    no_ranks: dict[str, int] = {}
    of = [ranks.get(i, no_ranks) for i in ids]
    return TurnColumns(
        ids=ids,
        project=f.project,
        session=f.session,
        ordinal=f.ordinal,
        speaker=f.speaker,
        tokens=[
            k or (0 if t is None else max(1, len(t) // 4))
            for k, t in zip(f.tokens, text, strict=True)
        ],
        text=text,
        time=f.valid_from,
        valid_from=f.valid_from,
        valid_to=f.valid_to,
        quality=f.quality,
        fulltext_rank=np.fromiter((r.get(FULLTEXT, 0) for r in of), dtype=np.int64, count=n),
        vector_rank=np.fromiter((r.get(VECTOR, 0) for r in of), dtype=np.int64, count=n),
        bm25=np.fromiter((bm25_of.get(i, nan) for i in ids), dtype=np.float64, count=n),
        cosine=np.fromiter(
            (
                c if c is not None else cosine_of.get(i, nan)
                for i, c in zip(ids, f.similarity, strict=True)
            ),
            dtype=np.float64,
            count=n,
        ),
        pending=f.pending,
        superseded=np.zeros(n, dtype=bool),
        near=session_pairs(f.session, f.ordinal, window),
    )


def session_pairs(
    session: Sequence[str | None], ordinal: Sequence[int | None], window: int
) -> tuple[np.ndarray, np.ndarray]:
    """(row, neighbour row) for every two rows of one session at most `window` ordinals apart.

    Both ways round; rows without a session or an ordinal have none. Ordinals grow along
    `NEXT`, so this is the `NEXT` neighbourhood the fetch query expanded.
    """
    sess, _ = group_codes([None if o is None else s for s, o in zip(session, ordinal, strict=True)])
    ords = np.fromiter((o or 0 for o in ordinal), dtype=np.int64, count=len(ordinal))
    rows = np.flatnonzero(sess >= 0)
    rows = rows[np.lexsort((ords[rows], sess[rows]))]  # by session, then ordinal
    o = ords[rows]
    s = sess[rows]
    a: list[np.ndarray] = []
    b: list[np.ndarray] = []
    d = 1
    while d < rows.size:  # rows d apart in the order; none within reach at d, none beyond
        close = (s[d:] == s[:-d]) & (o[d:] - o[:-d] <= window)
        if not close.any():
            break
        a.append(rows[:-d][close])
        b.append(rows[d:][close])
        d += 1
    if not a:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    first, second = np.concatenate(a), np.concatenate(b)
    return np.concatenate([first, second]), np.concatenate([second, first])


def knowledge_weight(h: KnowledgeHit, now: int) -> float:
    """Kind-specific salience of a knowledge item.

    Lessons: weight × (1 + effectiveness); topics: weight; corrections: the effective
    (reinforced, decayed) weight, doubled for rules; reference layers and primers: 1; facts:
    confidence.
    """
    kind = h.kind
    if kind is LESSON:
        return max(0.0, float(h.weight or 1.0) * (1.0 + float(h.effectiveness or 0)))
    if kind is TOPIC:
        return max(0.0, float(h.weight or 0.0))
    if kind in _WEIGHT_ONE:
        return 1.0
    if kind is CORRECTION:
        return _correction_weight(h, now)
    return float(h.confidence or 0.5)


def _correction_weight(h: KnowledgeHit, now: int) -> float:
    last = h.last_seen or h.valid_from or now
    w = correction_effective_weight(
        float(h.confidence or 0.5),
        float(h.reinforcement or 1.0),
        days_between(int(last), now),
        half_life_days=float(h.half_life_days or 30.0),
    )
    return w * (2.0 if h.status == "rule" else 1.0)


def knowledge_candidate(
    h: KnowledgeHit,
    ranks: Mapping[str, int],
    scores: Mapping[str, float],
    turn_ids: Sequence[str],
    now: int,
) -> Candidate:
    """A knowledge candidate; `turn_ids` are its source turns (deduplicated, in order)."""
    return Candidate(
        id=h.id,
        kind=h.kind,
        text=h.text,
        tokens=max(1, len(h.text) // 4),
        ranks=ranks,
        scores=scores,
        project=h.project,
        time_ms=h.valid_from,
        valid_from_ms=h.valid_from,
        valid_to_ms=h.valid_to,
        turn_ids=tuple(dict.fromkeys(turn_ids)),
        weight=knowledge_weight(h, now),
        speaker=h.subject or "",
        status=h.status,
        predicate=h.predicate or "",
    )


@dataclass
class KnowledgePool:
    """Knowledge items found by fulltext, by embedding and through the best hits' turns.

    Items are keyed by id (the first row seen wins; rows of one item carry the same fields), with
    the turns each points back to, its rank in the fulltext and vector lists, and its cosine
    similarity to the query where known.
    """

    hits: dict[str, KnowledgeHit] = field(default_factory=dict)
    turns: dict[str, list[str]] = field(default_factory=dict)
    ranks: dict[str, dict[str, int]] = field(default_factory=dict)
    similarity: dict[str, float] = field(default_factory=dict)
    derived: set[str] = field(default_factory=set)
    """Items found through the turns of the best hits."""

    @classmethod
    def gather(
        cls,
        by_text: Sequence[KnowledgeHit],
        by_vector: Sequence[KnowledgeHit],
        derived: Sequence[KnowledgeHit],
        similarity: Mapping[str, float],
    ) -> KnowledgePool:
        """Merge the three sources; vector hits bring their own similarity (their score).

        Fulltext hits are ranked by BM25 in `candidates`; vector hits by score, equal scores by id.
        """
        pool = cls()
        pool.derived = {h.id for h in derived}
        for h in (*by_text, *by_vector, *derived):
            pool.hits.setdefault(h.id, h)
            pool.turns.setdefault(h.id, []).extend(h.turn_ids)
        pool.ranks = {kid: {} for kid in pool.hits}
        for i, h in enumerate(by_text, start=1):
            pool.ranks[h.id].setdefault(FULLTEXT, i)
        pool.similarity = dict(similarity)
        for i, h in enumerate(sorted(by_vector, key=lambda x: (-x.score, x.id)), 1):
            pool.ranks[h.id].setdefault(VECTOR, i)
            pool.similarity[h.id] = h.score
        return pool

    def candidates(self, lexical: Mapping[str, float], now: int) -> list[Candidate]:
        """One candidate per item with its BM25 (`lexical`) and cosine scores where known.

        Fulltext hits are ranked by that BM25, equal scores by id, as turns are: the engines'
        own fulltext scores (RediSearch TF-IDF, Lucene BM25) order the same matches differently.
        """
        by_text = [kid for kid, r in self.ranks.items() if FULLTEXT in r]
        for kid in by_text:  # no query word by remgraph's tokenizer (BM25 0): no hit, as for turns
            if lexical.get(kid, 0.0) <= 0:
                del self.ranks[kid][FULLTEXT]
        hits = sorted(
            (k for k in by_text if FULLTEXT in self.ranks[k]), key=lambda k: (-lexical[k], k)
        )
        for i, kid in enumerate(hits, 1):
            self.ranks[kid][FULLTEXT] = i
        out = []
        for kid, h in self.hits.items():
            if not self.ranks[kid] and kid not in self.derived:
                continue
            scores = {}
            if kid in lexical:
                scores[FULLTEXT] = lexical[kid]
            if kid in self.similarity:
                scores[VECTOR] = self.similarity[kid]
            out.append(knowledge_candidate(h, self.ranks[kid], scores, self.turns[kid], now))
        return out
