"""Ranking settings: every weight of `context` and `search`, set by `REMGRAPH_RANKING__*`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

_CFG = ConfigDict(frozen=True, use_attribute_docstrings=True)


class RankingSection(BaseModel):
    """Weights of the context ranking (`recall/ranking.py`); tuned once, never per question."""

    model_config = _CFG

    rrf_k: float = Field(default=10.0, gt=0)
    """Reciprocal-rank-fusion constant: a candidate at rank r of a list scores 1/(k + r). Cormack
    et al. (SIGIR 2009) use 60; 10 was measured better on the LoCoMo dev file (hit@5 +0.02), as
    the lists here are short and their heads matter most. Larger flattens the head of each list."""
    fulltext_weight: float = Field(default=1.0, ge=0)
    """Weight of the fulltext (BM25-style) list in the fusion."""
    vector_weight: float = Field(default=1.0, ge=0)
    """Weight of the vector (embedding) list in the fusion."""
    fulltext_score_weight: float = Field(default=1.0, ge=0)
    """Weight of the BM25 score (divided by the query's best) added to the fused ranks."""
    vector_score_weight: float = Field(default=0.5, ge=0)
    """Weight of the cosine similarity (divided by the query's best) added to the fused ranks."""
    fulltext_candidates: int = Field(default=100, ge=1, le=1000)
    """How many fulltext hits the engine returns per query."""
    fulltext_pool: int = Field(default=200, ge=1, le=10_000)
    """How many fulltext matches the engine hands over for BM25 scoring in process (200: as good
    as 400 on the LoCoMo dev file, half the transfer; 100 loses 0.035 hit@5)."""
    fulltext_match_budget: int = Field(default=4000, ge=0)
    """Most index-wide matches a fulltext query may make the engine enumerate: query words are
    searched rarest first while their summed document frequency stays within this (the rarest
    always); the others still count in BM25 for the turns found. 0 searches every word. Words
    in most turns otherwise made each query walk much of the collection (measured at 100K turns:
    41 ms of a 71 ms request)."""
    bm25_k1: float = Field(default=1.2, gt=0)
    """BM25 term-frequency saturation."""
    bm25_b: float = Field(default=0.75, ge=0, le=1)
    """BM25 length normalisation."""
    vector_candidates: int = Field(default=100, ge=1, le=1000)
    """How many vector hits the engine returns per query."""
    vector_exact_max_turns: int = Field(default=2000, ge=0)
    """A scope (the key's projects) of at most this many turns, too small a share of the graph
    for the vector index's nearest overall to hold enough of its turns, has each of its turns
    scored instead (`recall.vectors`; 0: always the index)."""
    turn_index_max_turns: int = Field(default=300_000, ge=0)
    """Most turns the API holds in its in-process turn index (`recall.turn_index`; about 1.7 KB
    each with a 384-d embedding). A `context` call over one project held there searches its turns
    in process, exactly and without the engine's turn queries; a project past the room left is
    searched by the engine. 0 turns the index off."""
    knowledge_index_max_items: int = Field(default=50_000, ge=0)
    """Most knowledge items the API holds per project in its in-process knowledge index
    (`recall.knowledge_index`; about 2 KB each with a 384-d embedding). A `context` call over one
    project held there finds its knowledge in process, exactly, while the knowledge clock has not
    moved since the load; the engine answers otherwise. 0 turns the index off."""
    knowledge_candidates: int = Field(default=20, ge=0, le=500)
    """How many lessons, corrections and facts each fulltext search returns (0: none)."""
    expand_top: int = Field(default=20, ge=0, le=500)
    """How many fused candidates get their graph neighbourhood (NEXT, topics, provenance)
    expanded (20: LoCoMo dev hit@5 0.780 as with 40, 15: 0.779; half the neighbour rows)."""
    neighbour_window: int = Field(default=2, ge=0, le=3)
    """Turns either side (via NEXT) whose fused score flows into a turn."""
    neighbour_weight: float = Field(default=0.5, ge=0)
    """Share of the best neighbour's fused score a turn receives (dialogue context)."""
    session_weight: float = Field(default=0.5, ge=0)
    """Share of its session's aggregate score a turn receives (session context)."""
    session_top: int = Field(default=3, ge=1, le=50)
    """How many of a session's best turns make up its aggregate score."""
    speaker_boost: float = Field(default=0.6, ge=0)
    """Relative boost of a turn whose speaker the query names."""
    time_boost: float = Field(default=1.0, ge=0)
    """Relative boost of an item whose time falls in the range the query names."""
    knowledge_weight: float = Field(default=1.0, ge=0)
    """Multiplier of knowledge items (lessons, corrections, facts, topics, layers, primers)."""
    superseded_factor: float = Field(default=0.6, gt=0, le=1)
    """Multiplier of a turn whose derived fact or correction has ended as of the read (and none
    derived from it is live): the current item, or the turn that replaced it, goes first."""
    fact_over_source: bool = True
    """A current keyed fact (not an observation) ranks at least as high as the best of the turns
    it was distilled from: the agent gets "user has dog Luna" before the turn that said it (the
    turn is its provenance)."""
    derived_weight: float = Field(default=0.5, ge=0)
    """Share of a knowledge item's score passed to the turns it was derived from."""
    topic_weight: float = Field(default=0.15, ge=0)
    """Relative boost per unit of (log-scaled) topic weight."""
    lesson_weight: float = Field(default=0.15, ge=0)
    """Relative boost per unit of lesson weight × effectiveness."""
    correction_weight: float = Field(default=0.3, ge=0)
    """Relative boost per unit of a correction's effective (decayed) weight."""
    quality_weight: float = Field(default=0.1, ge=0)
    """Relative boost of items from high-quality sessions (quality − 0.5)."""
    recency_weight: float = Field(default=0.0, ge=0, le=1)
    """Share of the score that decays with age (0: age does not matter)."""
    recency_half_life_days: float = Field(default=90.0, gt=0)
    """Half-life of the recency decay."""
    mmr_lambda: float = Field(default=0.95, ge=0, le=1)
    """Maximal marginal relevance trade-off: 1 ranks by relevance only, 0 by novelty only."""
    min_score: float = Field(default=0.0, ge=0)
    """Items scoring below this are dropped."""
    rules_first: int = Field(default=3, ge=0, le=20)
    """At most this many rules and preferences in force open a `context` answer: those that pass
    the relevance gate and concern the query (`recall.opening`), most relevant first."""
    rule_standout: float = Field(default=3.0)
    """How many deviations a rule's cosine to the query must stand above the project's rules in
    force (`recall.opening.standing`) to open an answer on its meaning. Read off the labelled
    history we tune on (`bench/labels/minsky.json`): the nearest rule that answers stands at
    2.2-4.6, the nearest unrelated one mostly at 1.8-2.9; 3.0 opens 6 of minsky's 20 answers
    with the rule that answers them and 3 with an unrelated one (requests stored as rules)."""
    rule_prior_mean: float = Field(default=0.1, ge=-1, le=1)
    """The cosine expected of an unrelated rule, which `standing` shrinks the rules' mean toward
    (a query and an unrelated sentence under all-MiniLM-L6-v2: about 0.1)."""
    rule_prior_sd: float = Field(default=0.12, gt=0, le=1)
    """The spread expected of unrelated rules' cosines (minsky's 20 questions: 0.10-0.18)."""
    rule_prior_weight: float = Field(default=8.0, ge=0)
    """How many rules the prior counts as: with few rules in force the prior decides."""
    knowledge_min_similarity: float = Field(default=0.4, ge=-1, le=1)
    """The relevance gate of distilled items (rules, facts, lessons, topics, layers, primers):
    an item whose cosine similarity to the query reaches this enters the answer on its meaning
    alone. Below it, an item needs a query word in its text (`knowledge_lexical_min_similarity`)
    or stays out, whatever its weight or stage: a distilled item that does not concern the
    query must not crowd out the turns that do. Turns are never gated. Read off the labelled
    history we tune on (`bench/labels/minsky.json`) and our scenario set: the rules that answer
    score 0.4-0.6 or share a word; unrelated ones 0.1-0.5."""
    slot_task_similarity: float = Field(default=0.5, ge=-1, le=1.01)
    """Cosine similarity to one of a slot's tasks (`knowledge/vocabulary.toml`) from which a
    query concerns that slot, so the items naming the slot's terms pass the relevance gate
    (above 1: only a slot term said in the query counts)."""
    knowledge_lexical_min_similarity: float = Field(default=0.2, ge=-1, le=1)
    """The gate's second way in: an item that shares a query word (a fulltext hit by remgraph's
    tokenizer) and whose cosine similarity reaches this."""
    knowledge_turn_margin: float = Field(default=0.1, ge=0, le=2)
    """By meaning, a distilled item must also come within this of the cosine of the turn
    closest to the query (2: off). In one project every text is about the same things and
    cosines of unrelated pairs run at 0.3-0.5 (the unrelated rules of the labelled history
    `minsky`, the one tuned on: 0.16-0.51, its best turns 0.45-0.82). Read off `minsky` and our
    scenario set: 0.05 leaves 2 of minsky's 20 questions with an unrelated rule in the top 3
    and passes 140/155 scenario checks, 0.1 leaves 6 and passes 143, 0.15 leaves 6, off (2)
    leaves all 20."""
