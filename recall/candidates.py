"""From repository rows to ranking candidates: pure functions, no I/O.

`recall.retrieval` runs the queries (through `graph.repositories.recall.RecallRepository`) and
hands the rows here; `recall.ranking` scores what comes out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from core.timeutil import days_between
from graph.kinds import CORRECTION, LESSON, PRIMER, REFERENCE_LAYER, TOPIC, TURN
from graph.repositories.recall import KnowledgeHit, TurnFacts, TurnHit
from knowledge.scoring import correction_effective_weight
from recall.items import FULLTEXT, VECTOR, Candidate

_WEIGHT_ONE = (REFERENCE_LAYER, PRIMER)
"""Kinds whose salience is 1 (`knowledge_weight`)."""


def list_ranks(lists: Iterable[tuple[str, Sequence[TurnHit]]]) -> dict[str, dict[str, int]]:
    """Item id -> 1-based rank in each named list that returned it."""
    ranks: dict[str, dict[str, int]] = {}
    for src, hits in lists:
        for i, h in enumerate(hits, start=1):
            ranks.setdefault(h.id, {})[src] = i
    return ranks


def turn_candidate(
    r: TurnFacts,
    text: str | None,
    ranks: Mapping[str, int],
    scores: Mapping[str, float],
    neighbours: Sequence[str],
) -> Candidate:
    """A turn candidate; `text` None means not read yet (`Candidate.text_pending`)."""
    tokens = r.tokens or (0 if text is None else max(1, len(text) // 4))
    return Candidate(
        id=r.id,
        kind=TURN,
        text=text or "",
        text_pending=text is None,
        tokens=tokens,
        ranks=ranks,
        scores=scores,
        project=r.project,
        session_id=r.session_id,
        ordinal=r.ordinal,
        speaker=r.speaker,
        time_ms=r.valid_from,
        valid_from_ms=r.valid_from,
        valid_to_ms=r.valid_to,
        turn_ids=(r.id,),
        neighbours=tuple(neighbours),
        quality=r.quality,
        vector_pending=r.vector_pending,
    )


def turn_candidates(
    rows: Sequence[TurnFacts],
    ranks: Mapping[str, dict[str, int]],
    bm25_of: Mapping[str, float],
    known_text: Mapping[str, str],
    window: int,
    cosine_of: Mapping[str, float] | None = None,
) -> list[Candidate]:
    """Candidates for the fetched turns, each with its list ranks and raw scores.

    `bm25_of` holds the fulltext (BM25) score of every turn the fulltext search found,
    `known_text` the texts that search already read (the others are read later, when needed),
    `cosine_of` the similarity of the turns the vector search found (a row's own `similarity`,
    when set, is the one read with it).
    """
    cosine_of = cosine_of or {}
    neighbours = session_neighbours(rows, window)
    out = []
    for r in rows:
        scores = {}
        if r.id in bm25_of:
            scores[FULLTEXT] = bm25_of[r.id]
        similarity = r.similarity if r.similarity is not None else cosine_of.get(r.id)
        if similarity is not None:
            scores[VECTOR] = similarity
        out.append(
            turn_candidate(
                r, known_text.get(r.id), ranks.get(r.id, {}), scores, neighbours.get(r.id, ())
            )
        )
    return out


def session_neighbours(rows: Sequence[TurnFacts], window: int) -> dict[str, tuple[str, ...]]:
    """Turn id → ids of the other `rows` in its session at most `window` ordinals away, sorted.

    Ordinals grow along `NEXT`, so this is the `NEXT` neighbourhood the fetch query expanded.
    """
    by_session: dict[str, list[tuple[int, str]]] = {}
    for r in rows:
        if r.session_id is not None and r.ordinal is not None:
            by_session.setdefault(r.session_id, []).append((r.ordinal, r.id))
    out: dict[str, list[str]] = {}
    for turns in by_session.values():
        turns.sort()
        for i, (o, a) in enumerate(turns):
            for o2, b in turns[i + 1 :]:
                if o2 - o > window:
                    break
                out.setdefault(a, []).append(b)
                out.setdefault(b, []).append(a)
    return {k: tuple(sorted(v)) for k, v in out.items()}


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
