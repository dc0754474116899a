from datetime import UTC, datetime

import pytest

from graph.kinds import ItemKind
from recall.config import RankingSection
from recall.ranking import (
    Candidate,
    Ranked,
    mmr_pack,
    rank,
    rrf,
    score_candidates,
    valid_at,
)
from recall.understand import understand

W = RankingSection()


def turn(id, ranks=None, tokens=10, **kw):
    return Candidate(
        id=id,
        kind=ItemKind.TURN,
        text=kw.pop("text", f"text {id}"),
        tokens=tokens,
        ranks=ranks or {},
        **kw,
    )


def test_rrf_first_in_every_list_scores_one_and_is_documented_formula():
    w = {"fulltext": 1.0, "vector": 1.0}
    assert rrf({"fulltext": 1, "vector": 1}, w, 60) == pytest.approx(1.0)
    assert rrf({"fulltext": 1}, w, 60) == pytest.approx(0.5)
    # 1/(60+3) + 1/(60+10), normalised by 2/(61)
    assert rrf({"fulltext": 3, "vector": 10}, w, 60) == pytest.approx((1 / 63 + 1 / 70) * 61 / 2)
    assert rrf({}, w, 60) == 0.0


def test_rrf_rewards_agreement_over_a_single_top_rank():
    w = {"fulltext": 1.0, "vector": 1.0}
    assert rrf({"fulltext": 5, "vector": 5}, w, 60) > rrf({"fulltext": 1}, w, 60)


def test_fusion_orders_by_agreement():
    cands = [
        turn("a", {"fulltext": 1}),
        turn("b", {"fulltext": 2, "vector": 2}),
        turn("c", {"vector": 1}),
    ]
    w = RankingSection(neighbour_weight=0, session_weight=0, rrf_k=60)
    ranked = score_candidates(cands, understand("x"), w)
    assert [r.candidate.id for r in ranked] == ["b", "a", "c"]
    assert ranked[0].why["fused"] == pytest.approx(1.0 * 61 / 62)


def test_scores_add_their_margin_to_the_fused_ranks():
    # Same ranks, but "b" has by far the better BM25 score: it wins, and "a" gets nothing extra
    # because it holds the query's lowest score (min-max scaling).
    cands = [
        Candidate(
            id="a",
            kind=ItemKind.TURN,
            text="a",
            tokens=1,
            ranks={"fulltext": 1},
            scores={"fulltext": 0.0},
        ),
        Candidate(
            id="b",
            kind=ItemKind.TURN,
            text="b",
            tokens=1,
            ranks={"fulltext": 2},
            scores={"fulltext": 9.0},
        ),
    ]
    w = RankingSection(neighbour_weight=0, session_weight=0, rrf_k=10, fulltext_score_weight=1.0)
    ranked = score_candidates(cands, understand("x"), w)
    assert [r.candidate.id for r in ranked] == ["b", "a"]
    b = ranked[0]
    assert b.why["fused"] == pytest.approx(
        rrf({"fulltext": 2}, {"fulltext": 1, "vector": 1}, 10) + 1
    )
    assert b.why["fulltext_score"] == 9.0


def test_neighbour_context_lifts_an_unmatched_answer_turn():
    # "b" matched nothing itself but follows the question "a" that matched strongly.
    cands = [
        turn("a", {"fulltext": 1, "vector": 1}, session_id="s1", neighbours=("b",)),
        turn("b", {}, session_id="s1", neighbours=("a", "c")),
        turn("c", {}, session_id="s1", neighbours=("b",)),
        turn("z", {}, session_id="s2"),
    ]
    ranked = score_candidates(cands, understand("x"), W)
    ids = [r.candidate.id for r in ranked]
    assert ids[:2] == ["a", "b"]
    assert "z" not in ids  # no signal at all: dropped
    b = next(r for r in ranked if r.candidate.id == "b")
    assert b.why["neighbour"] == pytest.approx(W.neighbour_weight * 1.0)


def test_session_context_prefers_turns_of_the_session_that_matched_most():
    cands = [
        turn("a1", {"fulltext": 1}, session_id="A"),
        turn("a2", {"vector": 1}, session_id="A"),
        turn("b1", {"fulltext": 2}, session_id="B"),
        turn("a3", {"fulltext": 3}, session_id="A"),
    ]
    ranked = score_candidates(cands, understand("x"), RankingSection(neighbour_weight=0))
    ids = [r.candidate.id for r in ranked]
    assert ids.index("a3") < ids.index("b1") or ranked[ids.index("a3")].why["session"] > 0


def test_speaker_named_in_query_boosts_their_turns():
    cands = [
        turn("m", {"fulltext": 1}, speaker="Melanie"),
        turn("c", {"fulltext": 2}, speaker="Caroline"),
    ]
    intent = understand("What did Caroline paint?", speakers=("Caroline", "Melanie"))
    assert intent.speakers == ("Caroline",)
    ranked = score_candidates(cands, intent, W)
    assert ranked[0].candidate.id == "c"
    assert ranked[0].why["speaker"] == W.speaker_boost


def test_time_named_in_query_boosts_items_from_then():
    may = int(datetime(2023, 5, 8, tzinfo=UTC).timestamp() * 1000)
    july = int(datetime(2023, 7, 1, tzinfo=UTC).timestamp() * 1000)
    cands = [turn("july", {"fulltext": 1}, time_ms=july), turn("may", {"fulltext": 2}, time_ms=may)]
    ranked = score_candidates(cands, understand("What happened in May 2023?"), W)
    assert ranked[0].candidate.id == "may"
    assert "time" in ranked[0].why
    assert "time" not in ranked[1].why


def test_validity_at_as_of_drops_items_not_valid_then():
    c = turn("a", {"fulltext": 1}, valid_from_ms=100, valid_to_ms=200)
    assert valid_at(c, 150)
    assert not valid_at(c, 99)
    assert not valid_at(c, 200)
    assert valid_at(c, None)
    assert score_candidates([c], understand("x"), W, as_of_ms=250) == []


def test_knowledge_weights_rerank_corrections_and_lessons():
    strong = Candidate(
        id="c1",
        kind=ItemKind.CORRECTION,
        text="use uv",
        tokens=3,
        ranks={"fulltext": 2},
        weight=2.0,
    )
    weak = Candidate(
        id="c2",
        kind=ItemKind.CORRECTION,
        text="use pip",
        tokens=3,
        ranks={"fulltext": 1},
        weight=0.0,
    )
    ranked = score_candidates([strong, weak], understand("x"), W)
    assert ranked[0].candidate.id == "c1"
    assert ranked[0].why["kind_weight"] == pytest.approx(1 + W.correction_weight * 2.0)


def test_knowledge_item_points_back_to_its_turns():
    lesson = Candidate(
        id="l",
        kind=ItemKind.LESSON,
        text="lesson",
        tokens=3,
        ranks={"fulltext": 1, "vector": 1},
        turn_ids=("t2",),
    )
    cands = [lesson, turn("t1", {"fulltext": 5}), turn("t2", {"fulltext": 6})]
    ranked = score_candidates(cands, understand("x"), RankingSection(session_weight=0))
    turns = [r.candidate.id for r in ranked if r.candidate.kind is ItemKind.TURN]
    assert turns == ["t2", "t1"]


def test_recency_decays_older_items_when_enabled():
    now = 1_000 * 86_400_000
    old = turn("old", {"fulltext": 1}, time_ms=now - 365 * 86_400_000)
    new = turn("new", {"fulltext": 2}, time_ms=now)
    w = RankingSection(recency_weight=0.5, recency_half_life_days=30)
    assert score_candidates([old, new], understand("x"), w, now_ms=now)[0].candidate.id == "new"
    assert (
        score_candidates([old, new], understand("x"), RankingSection(), now_ms=now)[0].candidate.id
        == "old"
    )


def _r(id, score, text, tokens=10):
    return Ranked(turn(id, text=text, tokens=tokens), score, {})


def test_mmr_skips_near_duplicates():
    items = [
        _r("a", 1.0, "red apple pie"),
        _r("b", 0.99, "red apple pie"),
        _r("c", 0.8, "blue car"),
    ]
    assert [r.candidate.id for r in mmr_pack(items, lam=1.0, limit=2, token_budget=None)] == [
        "a",
        "b",
    ]
    assert [r.candidate.id for r in mmr_pack(items, lam=0.5, limit=2, token_budget=None)] == [
        "a",
        "c",
    ]


def test_packing_never_exceeds_budget_and_fills_with_smaller_items():
    items = [_r("big", 1.0, "x", 80), _r("mid", 0.9, "y", 50), _r("small", 0.5, "z", 15)]
    picked = mmr_pack(items, lam=1.0, limit=10, token_budget=100)
    assert [r.candidate.id for r in picked] == ["big", "small"]
    assert sum(r.candidate.tokens for r in picked) <= 100
    assert mmr_pack(items, lam=1.0, limit=10, token_budget=5) == []
    assert len(mmr_pack(items, lam=1.0, limit=1, token_budget=None)) == 1


def test_rank_end_to_end_respects_limit_and_budget():
    cands = [
        turn(f"t{i}", {"fulltext": i + 1}, tokens=30, text=f"word{i} other") for i in range(20)
    ]
    out = rank(cands, understand("x"), W, limit=5, token_budget=100)
    assert len(out) == 3
    assert [r.candidate.id for r in out] == ["t0", "t1", "t2"]


def _eager_mmr(scored, *, lam, limit, token_budget):
    """The textbook greedy MMR: every candidate re-scored against every pick, each step."""
    from recall.ranking import _words, similarity

    top = max(r.score for r in scored) or 1.0
    pool = list(scored[: max(limit * 3, 60)])
    words = [_words(r.candidate.text) for r in pool]
    picked, left, alive = [], token_budget, [True] * len(pool)
    while len(picked) < limit:
        best_i, best_v = -1, float("-inf")
        for i, r in enumerate(pool):
            if not alive[i] or (left is not None and r.candidate.tokens > left):
                alive[i] = False
                continue
            pen = max(
                (similarity(r.candidate, pool[j].candidate, words[i], words[j]) for j in picked),
                default=0.0,
            )
            v = lam * r.score / top - (1 - lam) * pen
            if v > best_v:
                best_v, best_i = v, i
        if best_i < 0:
            break
        alive[best_i] = False
        picked.append(best_i)
        if left is not None:
            left -= pool[best_i].candidate.tokens
    return [pool[i] for i in picked]


@pytest.mark.parametrize("seed", range(40))
def test_lazy_mmr_picks_exactly_what_eager_mmr_picks(seed):
    import random

    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(30)]
    scored = sorted(
        (
            Ranked(
                candidate=Candidate(
                    id=f"t{i}",
                    kind=ItemKind.TURN,
                    text=" ".join(rng.choices(vocab, k=rng.randint(2, 12))),
                    tokens=rng.randint(5, 200),
                ),
                score=round(rng.random(), 2),
                why={},
            )
            for i in range(rng.randint(1, 90))
        ),
        key=lambda r: (-r.score, r.candidate.id),
    )
    lam = rng.choice([0.0, 0.5, 0.8, 0.95, 1.0])
    limit = rng.randint(1, 25)
    budget = rng.choice([None, 300, 1000, 5000])
    got = mmr_pack(scored, lam=lam, limit=limit, token_budget=budget)
    want = _eager_mmr(scored, lam=lam, limit=limit, token_budget=budget)
    assert [r.candidate.id for r in got] == [r.candidate.id for r in want]


def _fact(id, status, ranks, sources):
    return Candidate(
        id=id,
        kind=ItemKind.FACT,
        text=f"fact {id}",
        tokens=3,
        ranks=ranks,
        turn_ids=sources,
        status=status,
    )


def test_a_keyed_fact_goes_before_the_turn_it_was_distilled_from_an_observation_does_not():
    cands = [
        turn("t1", {"fulltext": 1, "vector": 1}),
        turn("t2", {"fulltext": 2}),
        _fact("dog", "other", {"vector": 9}, ("t1",)),
        _fact("said", "observation", {"vector": 10}, ("t1",)),
    ]
    ranked = [r.candidate.id for r in score_candidates(cands, understand("x"), W)]
    assert ranked.index("dog") < ranked.index("t1")
    assert ranked.index("said") > ranked.index("t1")
    lifted = next(r for r in score_candidates(cands, understand("x"), W) if r.candidate.id == "dog")
    assert "over_source" in lifted.why
    off = RankingSection(fact_over_source=False)
    ranked_off = [r.candidate.id for r in score_candidates(cands, understand("x"), off)]
    assert ranked_off.index("dog") > ranked_off.index("t1")


def test_word_similarity_is_the_jaccard_overlap_of_the_word_sets() -> None:
    import random

    from recall.ranking import similarity

    rnd = random.Random(3)
    words = [f"w{i}" for i in range(40)]
    for _ in range(500):
        a = frozenset(rnd.sample(words, rnd.randrange(0, 20)))
        b = frozenset(rnd.sample(words, rnd.randrange(0, 20)))
        ca, cb = turn("a", {}, text=" ".join(sorted(a))), turn("b", {}, text=" ".join(sorted(b)))
        expected = len(a & b) / len(a | b) if a and b else 0.0
        assert similarity(ca, cb) == expected  # word sets made from the texts
        assert similarity(ca, cb, a, b) == expected  # or given


def _rule(sim=None, fulltext=0.0, id="c1"):
    scores = {"fulltext": fulltext} if fulltext else {}
    if sim is not None:
        scores["vector"] = sim
    return Candidate(
        id=id, kind=ItemKind.CORRECTION, text="Use jq, not grep, for JSON.", tokens=8, scores=scores
    )


@pytest.mark.parametrize(
    ("sim", "fulltext", "passes"),
    [
        (0.1, 0.0, False),  # the junk rules of a real history: far off, no shared word
        (0.39, 0.0, False),
        (0.4, 0.0, True),  # close in meaning alone
        (0.25, 2.1, True),  # a shared word, not far off
        (0.15, 2.1, False),
        (0.1, 2.1, False),  # a shared word alone is not enough when the meaning is far off
        (None, 2.1, True),  # no cosine (no query vector, or the item's pending): the word decides
        (None, 0.0, False),
    ],
)
def test_gate_lets_a_distilled_item_in_only_on_relevance(sim, fulltext, passes):
    from recall.ranking import concerns_query

    assert concerns_query(_rule(sim, fulltext), W) is passes


def test_gate_never_drops_a_turn_and_follows_its_settings():
    from recall.ranking import concerns_query

    assert concerns_query(turn("t1"), W)
    loose = RankingSection(knowledge_min_similarity=0.05)
    assert concerns_query(_rule(0.1), loose)
    assert not concerns_query(_rule(0.1), W)


def test_knowledge_where_keeps_every_turn_and_filters_knowledge_in_order():
    cands = [
        turn("t1", ranks={"fulltext": 1}),
        _rule(0.9, id="near"),
        _rule(0.05, id="far"),
        turn("t2", ranks={"vector": 2}),
    ]
    scored = score_candidates(cands, understand("json filter"), W)
    kept = scored.knowledge_where(lambda c: c.id != "far")
    assert [r.candidate.id for r in kept] == [
        r.candidate.id for r in scored if r.candidate.id != "far"
    ]
    assert {r.candidate.id for r in kept} == {"t1", "t2", "near"}
