"""One test per ranking signal, plus the registry's contract with `score_candidates`."""

from __future__ import annotations

import dataclasses
import math
import random
from datetime import UTC, datetime

import pytest

from graph.kinds import ItemKind
from recall import signals
from recall.config import RankingSection
from recall.items import Candidate
from recall.ranking import score_candidates
from recall.signals import SIGNALS, Effect, QueryState, Signal, fuse
from recall.understand import understand

W = RankingSection()
DAY = 86_400_000
NOW = datetime(2024, 6, 15, tzinfo=UTC)


def cand(id: str, kind: ItemKind = ItemKind.TURN, **kw) -> Candidate:
    return Candidate(id=id, kind=kind, text=kw.pop("text", id), tokens=1, **kw)


def state(cands: list[Candidate], query: str = "x", w: RankingSection = W, **kw) -> QueryState:
    intent = understand(query, speakers=("Caroline Smith", "Mel"), now=NOW)
    return QueryState(cands, intent, w, fuse(cands, w), **kw)


def test_fusion_adds_scaled_scores_to_normalised_rrf() -> None:
    cs = [
        cand("a", ranks={"fulltext": 1}, scores={"fulltext": 4.0, "vector": 0.2}),
        cand("b", ranks={"vector": 1}, scores={"fulltext": 0.0, "vector": 0.6}),
    ]
    fused = fuse(cs, W)
    # a: RRF 0.5 + BM25 at the top of [0, 4] (weight 1) + cosine at the bottom of [0.2, 0.6]
    assert fused["a"] == pytest.approx(0.5 + 1.0)
    # b: RRF 0.5 + BM25 0 + cosine at the top (weight 0.5)
    assert fused["b"] == pytest.approx(0.5 + 0.5)
    # a lone cosine has no spread and adds nothing; BM25 is scaled from 0, so it still counts
    assert fuse([cand("c", scores={"vector": 0.3})], W) == {"c": 0.0}
    assert fuse([cand("c", scores={"fulltext": 3.0})], W) == {"c": 1.0}


def test_vector_pending_says_why_a_turn_has_no_vector_score_and_leaves_the_score() -> None:
    waiting = cand("t1", ranks={"fulltext": 1}, scores={"fulltext": 2.0}, vector_pending=True)
    done = dataclasses.replace(waiting, id="t2", vector_pending=False)
    q = state([waiting, done])
    assert signals.vector_pending(waiting, q) == 1.0
    assert signals.vector_pending(done, q) is None
    [a, b] = score_candidates([waiting, done], understand("x", now=NOW), W, now_ms=0)
    assert "vector_pending" in a.why or "vector_pending" in b.why
    why = {r.candidate.id: r.why for r in (a, b)}
    assert why["t1"]["vector_pending"] == 1.0
    assert "vector_pending" not in why["t2"]
    assert a.score == pytest.approx(b.score)  # ranked by the other signals alone


def test_neighbour_takes_the_best_neighbours_fused_score_for_turns_only() -> None:
    cs = [
        cand("t1", neighbours=("t2", "t3", "gone")),
        cand("t2", ranks={"fulltext": 1}),
        cand("t3", ranks={"fulltext": 5}),
        cand("les", ItemKind.LESSON, neighbours=("t2",)),
    ]
    q = state(cs)
    assert signals.neighbour(cs[0], q) == pytest.approx(W.neighbour_weight * q.fused["t2"])
    assert signals.neighbour(cand("alone"), q) == 0.0
    assert signals.neighbour(cs[3], q) is None


def test_session_is_the_mean_of_the_sessions_best_turns() -> None:
    w = RankingSection(session_top=2)
    cs = [cand(f"t{r}", session_id="s", ranks={"fulltext": r}) for r in (1, 2, 3)]
    cs.append(cand("fct", ItemKind.FACT, session_id="s", ranks={"fulltext": 1}))
    q = state(cs, w=w)
    expected = (q.fused["t1"] + q.fused["t2"]) / 2  # the fact does not count
    assert signals.session(cs[2], q) == pytest.approx(w.session_weight * expected)
    assert signals.session(cand("t9"), q) == 0.0  # no session
    assert signals.session(cs[3], q) is None


def test_derived_flows_both_ways_between_knowledge_and_its_turns() -> None:
    cs = [
        cand("t1", ranks={"vector": 3}),
        cand("les", ItemKind.LESSON, ranks={"fulltext": 1}, turn_ids=("t1", "t2")),
        cand("fct", ItemKind.FACT, ranks={"fulltext": 9}, turn_ids=("t1",)),
    ]
    q = state(cs)
    assert signals.derived(cs[0], q) == pytest.approx(W.derived_weight * q.fused["les"])
    assert signals.derived(cs[1], q) == pytest.approx(W.derived_weight * q.fused["t1"])
    assert signals.derived(cand("t2"), q) == pytest.approx(W.derived_weight * q.fused["les"])
    assert signals.derived(cand("t3"), q) == 0.0


def test_speaker_boosts_turns_by_a_named_speaker_or_first_name() -> None:
    q = state([], "what did Caroline Smith and Mel say")
    assert signals.speaker(cand("a", speaker="Caroline Smith"), q) == W.speaker_boost
    assert signals.speaker(cand("b", speaker="caroline"), q) == W.speaker_boost
    assert signals.speaker(cand("c", speaker="Mel Jones"), q) == W.speaker_boost
    assert signals.speaker(cand("d", speaker="Bob"), q) is None


def test_speaker_boosts_facts_about_a_named_speaker_only() -> None:
    q = state([], "what did Caroline Smith and Mel say")
    # A fact's candidate speaker is its subject: a fact about Mel counts, one about Bob or
    # a knowledge item about no one does not.
    assert signals.speaker(cand("e", ItemKind.FACT, speaker="Mel"), q) == W.speaker_boost
    assert signals.speaker(cand("f", ItemKind.FACT, speaker="Bob"), q) is None
    assert signals.speaker(cand("g", ItemKind.TOPIC), q) is None


def test_time_boosts_items_inside_a_named_range() -> None:
    q = state([], "what happened in May 2023")
    may = int(datetime(2023, 5, 10, tzinfo=UTC).timestamp() * 1000)
    june = int(datetime(2023, 6, 10, tzinfo=UTC).timestamp() * 1000)
    assert signals.time(cand("a", time_ms=may), q) == W.time_boost
    assert signals.time(cand("b", ItemKind.FACT, time_ms=may), q) == W.time_boost
    assert signals.time(cand("c", time_ms=june), q) is None
    assert signals.time(cand("d"), q) is None


def test_kind_weight_follows_each_kinds_salience() -> None:
    q = state([])
    assert signals.kind_weight(cand("t"), q) is None
    assert signals.kind_weight(cand("f", ItemKind.FACT, weight=9.0), q) == W.knowledge_weight
    topic = signals.kind_weight(cand("p", ItemKind.TOPIC, weight=3.0), q)
    assert topic == pytest.approx(1.0 + W.topic_weight * math.log1p(3.0))
    lesson = signals.kind_weight(cand("l", ItemKind.LESSON, weight=2.0), q)
    assert lesson == pytest.approx(1.0 + W.lesson_weight * 2.0)
    rule = signals.kind_weight(cand("c", ItemKind.CORRECTION, weight=-1.0), q)
    assert rule == 1.0  # negative salience counts as none


def test_quality_and_recency_are_factors_around_one() -> None:
    q = state([], now_ms=1000 * DAY)
    assert signals.quality(cand("a", quality=1.0), q) == pytest.approx(1 + W.quality_weight / 2)
    assert signals.quality(cand("b", quality=0.0), q) == pytest.approx(1 - W.quality_weight / 2)
    assert signals.quality(cand("c"), q) is None
    w = RankingSection(recency_weight=0.4, recency_half_life_days=10)
    q = state([], w=w, now_ms=1000 * DAY)
    assert signals.recency(cand("d", time_ms=1000 * DAY), q) == pytest.approx(1.0)
    assert signals.recency(cand("e", time_ms=990 * DAY), q) == pytest.approx(0.6 + 0.4 * 0.5)
    assert signals.recency(cand("f"), q) is None
    assert signals.recency(cand("g", time_ms=0), state([], w=w)) is None  # no reference time


def test_inactive_signals_are_skipped_for_the_whole_query() -> None:
    by_name = {s.name: s for s in SIGNALS}
    plain = state([], "deploy")
    assert not by_name["speaker"].active(plain)
    assert not by_name["time"].active(plain)
    assert not by_name["recency"].active(plain)  # weight 0 by default
    assert not by_name["quality"].active(state([], w=RankingSection(quality_weight=0)))
    assert by_name["speaker"].active(state([], "did Mel go"))


def test_registry_names_are_unique_and_why_follows_the_registry() -> None:
    names = [s.name for s in SIGNALS]
    assert len(names) == len(set(names))
    cs = [
        cand(
            "t1",
            session_id="s",
            speaker="Mel",
            quality=0.9,
            time_ms=int(datetime(2023, 5, 1, tzinfo=UTC).timestamp() * 1000),
            ranks={"fulltext": 1},
            scores={"fulltext": 2.0},
            vector_pending=True,
            superseded=True,
        ),
        cand("les", ItemKind.LESSON, weight=1.0, turn_ids=("t1",), ranks={"vector": 1}),
    ]
    w = RankingSection(recency_weight=0.5)
    [*ranked] = score_candidates(
        cs, understand("Mel in May 2023", speakers=("Mel",), now=NOW), w, now_ms=NOW_MS
    )
    turn = next(r for r in ranked if r.candidate.id == "t1")
    signal_keys = [k for k in turn.why if k in names]
    assert signal_keys == [n for n in names if n != "kind_weight"]
    # the score is the documented combination of the values `why` reports
    by_effect = {s.name: s.effect for s in SIGNALS}
    added = sum(v for k, v in turn.why.items() if by_effect.get(k) is Effect.ADD)
    mult = math.prod(
        (1.0 + v) if by_effect.get(k) is Effect.BOOST else v
        for k, v in turn.why.items()
        if by_effect.get(k) in (Effect.BOOST, Effect.FACTOR)
    )
    assert turn.score == pytest.approx((turn.why["fused"] + added) * mult)


NOW_MS = int(NOW.timestamp() * 1000)


def test_a_new_signal_is_one_function_and_one_registry_line(monkeypatch) -> None:
    def shouting(c: Candidate, q: QueryState) -> float | None:
        return 1.0 if c.text.isupper() else None

    extra = Signal("shouting", Effect.BOOST, shouting)
    monkeypatch.setattr("recall.ranking.SIGNALS", (*SIGNALS, extra))
    cs = [cand("a", text="CALM DOWN", ranks={"fulltext": 2}), cand("b", ranks={"fulltext": 1})]
    ranked = score_candidates(cs, understand("x"), RankingSection(session_weight=0))
    assert [r.candidate.id for r in ranked] == ["a", "b"]  # doubled by the boost
    assert ranked[0].why["shouting"] == 1.0
    assert "shouting" not in ranked[1].why
    assert dataclasses.is_dataclass(extra)


def test_a_turn_whose_derived_item_ended_ranks_below_an_equal_one() -> None:
    w = RankingSection()
    cs = [
        cand("old", ranks={"fulltext": 1}, scores={"fulltext": 2.0}, superseded=True),
        cand("new", ranks={"fulltext": 1}, scores={"fulltext": 2.0}),
    ]
    ranked = {r.candidate.id: r for r in score_candidates(cs, understand("db", now=NOW), w)}
    assert ranked["old"].why["superseded"] == w.superseded_factor
    assert ranked["old"].score == pytest.approx(ranked["new"].score * w.superseded_factor)
    off = RankingSection(superseded_factor=1.0)
    same = {r.candidate.id: r.score for r in score_candidates(cs, understand("db", now=NOW), off)}
    assert same["old"] == same["new"]


def _one_by_one(cs: list[Candidate], intent, w: RankingSection, now_ms: int) -> dict[str, tuple]:
    """Every candidate scored alone through `fuse` and each signal's `value`: the definition."""
    q = QueryState(cs, intent, w, fuse(cs, w), now_ms)
    out = {}
    for c in cs:
        why = {"fused": q.fused[c.id]}
        for src in ("fulltext", "vector"):
            if src in c.ranks:
                why[f"{src}_rank"] = float(c.ranks[src])
            if src in c.scores:
                why[f"{src}_score"] = c.scores[src]
        added, mult = 0.0, 1.0
        for s in SIGNALS:
            v = s.value(c, q) if s.active(q) else None
            if v is None:
                continue
            why[s.name] = v
            if s.effect is Effect.ADD:
                added += v
            elif s.effect is Effect.BOOST:
                mult *= 1.0 + v
            else:
                mult *= v
        out[c.id] = ((why["fused"] + added) * mult, why)
    return out


def _random_candidates(rnd: random.Random) -> list[Candidate]:
    may = int(datetime(2023, 5, 10, tzinfo=UTC).timestamp() * 1000)
    turns = [f"t{i}" for i in range(rnd.randrange(1, 40))]
    cs = []
    for t in turns:
        ranks = {}  # the fulltext list first, as `list_ranks` builds them
        if rnd.random() < 0.5:
            ranks["fulltext"] = rnd.randrange(1, 60)
        if rnd.random() < 0.5:
            ranks["vector"] = rnd.randrange(1, 60)
        scores = {}
        if rnd.random() < 0.6:
            scores["fulltext"] = rnd.uniform(0, 12)
        if rnd.random() < 0.8:
            scores["vector"] = rnd.uniform(-0.1, 0.9)
        cs.append(
            cand(
                t,
                ranks=ranks,
                scores=scores,
                session_id=rnd.choice(["s1", "s2", "s3", None, ""]),
                ordinal=rnd.randrange(20),
                neighbours=tuple(
                    rnd.sample([*turns, "gone"], min(len(turns) + 1, rnd.randrange(4)))
                ),
                speaker=rnd.choice(["Mel", "Caroline Smith", "Caroline", "Bob", ""]),
                time_ms=rnd.choice([None, may, may - 400 * DAY, NOW_MS - 3 * DAY]),
                quality=rnd.choice([None, 0.2, 0.75]),
                vector_pending=rnd.random() < 0.2,
                superseded=rnd.random() < 0.2,
            )
        )
    for k in range(rnd.randrange(8)):
        kind = rnd.choice([ItemKind.LESSON, ItemKind.FACT, ItemKind.TOPIC, ItemKind.CORRECTION])
        cs.append(
            cand(
                f"k{k}",
                kind,
                ranks={"vector": rnd.randrange(1, 9)} if rnd.random() < 0.7 else {},
                scores={"vector": rnd.uniform(0, 0.9), "fulltext": rnd.uniform(0, 5)},
                turn_ids=tuple(rnd.sample(turns, min(len(turns), 2))),
                weight=rnd.uniform(0, 2),
                speaker=rnd.choice(["Mel", ""]),
                time_ms=rnd.choice([None, may]),
            )
        )
    return cs


def test_turn_columns_score_exactly_as_each_signal_does_one_candidate_at_a_time() -> None:
    """The column forms (`Signal.turns`) are the per-candidate `value`s, float for float."""
    rnd = random.Random(11)
    for query in ("Mel in May 2023", "what did Caroline say", "deploy"):
        intent = understand(query, speakers=("Caroline Smith", "Mel"), now=NOW)
        for w in (
            RankingSection(recency_weight=0.4, fact_over_source=False),
            RankingSection(session_top=2, quality_weight=0.3, fact_over_source=False),
        ):
            for _ in range(40):
                cs = _random_candidates(rnd)
                expected = _one_by_one(cs, intent, w, NOW_MS)
                got = score_candidates(cs, intent, w, now_ms=NOW_MS)
                assert {r.candidate.id: (r.score, dict(r.why)) for r in got} == {
                    k: v for k, v in expected.items() if v[0] > 0
                }
                order = [(-r.score, r.candidate.id) for r in got]
                assert order == sorted(order)
