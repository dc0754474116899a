"""Rows to candidates: knowledge salience per kind, the knowledge pool's ranks, search fusion."""

from __future__ import annotations

import dataclasses

import pytest

from graph.kinds import ItemKind
from graph.repositories.recall import KnowledgeHit, TurnFacts, TurnHit
from knowledge.scoring import correction_effective_weight
from recall.candidates import KnowledgePool, knowledge_candidate, knowledge_weight, turn_columns
from recall.items import FULLTEXT, VECTOR
from recall.search import fuse_hits

DAY = 86_400_000
NOW = 1_000 * DAY


def hit(id: str, kind: ItemKind = ItemKind.FACT, **kw) -> KnowledgeHit:
    base = {
        "kind": kind,
        "id": id,
        "project": "p",
        "text": f"text of {id}",
        "score": 0.0,
        "confidence": None,
        "weight": None,
        "effectiveness": None,
        "reinforcement": None,
        "last_seen": None,
        "half_life_days": None,
        "status": None,
        "valid_from": None,
        "valid_to": None,
        "turn_ids": (),
        "subject": None,
    }
    return KnowledgeHit(**(base | kw))


def test_knowledge_weight_per_kind() -> None:
    lesson = hit("l", ItemKind.LESSON, weight=2.0, effectiveness=0.5)
    assert knowledge_weight(lesson, NOW) == pytest.approx(3.0)
    assert knowledge_weight(hit("l0", ItemKind.LESSON), NOW) == 1.0  # unset weight counts 1
    assert knowledge_weight(hit("t", ItemKind.TOPIC, weight=-2.0), NOW) == 0.0
    assert knowledge_weight(hit("r", ItemKind.REFERENCE_LAYER, weight=9.0), NOW) == 1.0
    assert knowledge_weight(hit("p", ItemKind.PRIMER), NOW) == 1.0
    assert knowledge_weight(hit("f", confidence=0.8), NOW) == 0.8
    assert knowledge_weight(hit("f0"), NOW) == 0.5
    cor = hit(
        "c",
        ItemKind.CORRECTION,
        confidence=0.9,
        reinforcement=3.0,
        last_seen=NOW - 10 * DAY,
        half_life_days=20.0,
    )
    decayed = correction_effective_weight(0.9, 3.0, 10.0, half_life_days=20.0)
    assert knowledge_weight(cor, NOW) == pytest.approx(decayed)
    rule = dataclasses.replace(cor, status="rule")
    assert knowledge_weight(rule, NOW) == pytest.approx(2 * decayed)


def test_pool_ranks_each_list_and_merges_provenance() -> None:
    by_text = [hit("a", turn_ids=("t1",), score=5.0), hit("b", score=3.0)]
    by_vector = [hit("c", score=0.2), hit("a", score=0.9, turn_ids=("t2",)), hit("d", score=0.2)]
    derived = [hit("b", turn_ids=("t3",)), hit("e", turn_ids=("t4",))]
    pool = KnowledgePool.gather(by_text, by_vector, derived, {"b": 0.4, "e": 0.1})
    assert pool.ranks == {
        "a": {"fulltext": 1, "vector": 1},
        "b": {"fulltext": 2},
        "c": {"vector": 2},  # tied with d on score: by id
        "d": {"vector": 3},
        "e": {},
    }
    assert pool.similarity == {"b": 0.4, "e": 0.1, "a": 0.9, "c": 0.2, "d": 0.2}
    assert pool.turns["a"] == ["t1", "t2"]
    cands = {c.id: c for c in pool.candidates({"a": 7.0}, NOW)}
    assert cands["a"].scores == {"fulltext": 7.0, "vector": 0.9}
    assert cands["e"].scores == {"vector": 0.1}
    assert cands["b"].turn_ids == ("t3",)
    assert cands["a"].tokens == len("text of a") // 4
    assert KnowledgePool.gather([], [], [], {}).candidates({}, NOW) == []


def test_fulltext_ranks_follow_bm25_not_the_engines_order() -> None:
    # RediSearch and Lucene order the same matches differently; remgraph's BM25 decides.
    by_text = [hit("z", score=9.0), hit("b", score=8.0), hit("a", score=7.0), hit("n", score=6.0)]
    pool = KnowledgePool.gather(by_text, [hit("n", score=0.5)], [hit("d")], {})
    cands = {c.id: c for c in pool.candidates({"a": 2.0, "b": 2.0, "z": 1.0}, NOW)}
    assert pool.ranks == {
        "a": {"fulltext": 1},  # tied with b on BM25: by id
        "b": {"fulltext": 2},
        "z": {"fulltext": 3},
        "n": {"vector": 1},  # no query word by remgraph's tokenizer: not a fulltext hit
        "d": {},
    }
    assert set(cands) == {"a", "b", "z", "n", "d"}
    only_text = KnowledgePool.gather([hit("x", score=3.0)], [], [], {})
    assert only_text.candidates({}, NOW) == []


def test_hybrid_search_fuses_by_reciprocal_rank_then_id() -> None:
    ft = [TurnHit("a", 9.0), TurnHit("b", 5.0)]
    vec = [TurnHit("b", 0.9), TurnHit("c", 0.8)]
    fused = fuse_hits((("fulltext", ft), ("vector", vec)), rrf_k=10)
    assert [h.id for h in fused] == ["b", "a", "c"]
    assert fused[0].score == pytest.approx((1 / 12 + 1 / 11) * 11 / 2)
    assert fused[1].score == pytest.approx(0.5)
    assert fused[2].score == pytest.approx(1 / 12 * 11 / 2)
    assert all(h.text is None for h in fused)
    tied = fuse_hits((("fulltext", [TurnHit("z", 1.0)]), ("vector", [TurnHit("y", 1.0)])), 10)
    assert [h.id for h in tied] == ["y", "z"]  # equal fused scores go by id


def test_a_fact_candidate_speaks_for_its_subject() -> None:
    fact = knowledge_candidate(hit("f", subject="user"), {}, {}, ("t1",), now=0)
    topic = knowledge_candidate(hit("t", ItemKind.TOPIC), {}, {}, (), now=0)
    assert (fact.speaker, topic.speaker) == ("user", "")
    assert fact.turn_ids == ("t1",)


def _facts(id: str, similarity: float | None) -> TurnFacts:
    return TurnFacts(
        id=id, project="p", session_id="s", ordinal=int(id[1:]), speaker="", tokens=3,
        valid_from=None, valid_to=None, quality=None, similarity=similarity,
    )  # fmt: skip


def test_turn_candidates_take_the_vector_searchs_cosine_where_the_fetch_left_it_out() -> None:
    rows = [_facts("t1", None), _facts("t2", 0.25), _facts("t3", None)]
    ranks = {"t1": {VECTOR: 1}, "t3": {FULLTEXT: 1}}
    cols = turn_columns(
        rows, ranks, bm25_of={"t3": 2.0}, known_text={}, window=1, cosine_of={"t1": 0.9}
    )
    got = {cols.ids[i]: cols.candidate(i).scores for i in range(len(cols))}
    # t1: scored by the vector search (the fetch skipped it); t2: a neighbour the fetch scored;
    # t3: a fulltext hit without an embedding, so no vector score at all
    assert got == {"t1": {VECTOR: 0.9}, "t2": {VECTOR: 0.25}, "t3": {FULLTEXT: 2.0}}


def test_a_turn_candidate_has_its_neighbours_and_raw_scores_as_the_columns_hold_them() -> None:
    rows = [
        TurnFacts(f"t{o}", "p", "s", o, "a", 3, 10, None, None, None, False) for o in (4, 1, 2, 3)
    ]
    cols = turn_columns(
        rows, {"t1": {FULLTEXT: 2}, "t3": {VECTOR: 1}}, {"t1": 1.5}, {}, 1, {"t3": 0.25}
    )
    got = {i: cols.candidate(cols.pos[i]) for i in ("t1", "t2", "t3", "t4")}
    assert got["t2"].neighbours == ("t1", "t3")
    assert got["t4"].neighbours == ("t3",)
    assert (got["t1"].ranks, got["t1"].scores) == ({FULLTEXT: 2}, {FULLTEXT: 1.5})
    assert (got["t3"].ranks, got["t3"].scores) == ({VECTOR: 1}, {VECTOR: 0.25})
    assert (got["t2"].ranks, got["t2"].scores) == ({}, {})
    cols.mark_superseded(["t2"])  # after a candidate was read: read again, marked
    assert cols.candidate(cols.pos["t2"]).superseded
    assert not cols.candidate(cols.pos["t1"]).superseded
