"""The metrics of `remgraph eval knowledge` on tiny hand-made inputs (no engine, no model)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from remgraph.knowledge_metrics import (
    PACK_BUDGET,
    TIER_BUDGETS,
    KnowledgeItem,
    Observation,
    ObservationCounts,
    cut_words,
    flat_units,
    is_generic_label,
    is_text_property,
    knowledge_items,
    rouge_f1,
    score_observations,
    score_summary,
    size_stats,
    split_sentences,
    summarize_summaries,
    targets,
    text_properties,
    text_units,
    topic_stats,
    turn_items,
)


@dataclass(frozen=True)
class Node:
    label: str
    id: str
    props: dict[str, Any] = field(default_factory=dict)


def obs(text: str = "Caroline attended a support group.", *evidence: str) -> Observation:
    return Observation("s", "session_1", "Caroline", text, frozenset(evidence or ("D1:3",)))


DIM = 6


def unit_vec(cos: float, toward: int = 0, rest: int = 5) -> list[float]:
    """A unit vector at cosine `cos` from axis `toward`, the rest of its length on axis `rest`."""
    v = [0.0] * DIM
    v[toward] = cos
    v[rest] = math.sqrt(max(0.0, 1.0 - cos * cos))
    return v


E0 = unit_vec(1.0)


def item(
    id: str, *units: str, prov: tuple[str, ...] = (), label: str = "Fact", fact_like: bool = True
) -> KnowledgeItem:
    return KnowledgeItem(
        id, label, tuple((f"{label}.text", u) for u in units), frozenset(prov), fact_like
    )


# --- text units ---------------------------------------------------------------------------------


def test_a_single_sentence_is_one_unit_and_long_texts_add_their_sentences() -> None:
    assert text_units("Caroline went to the support group.") == (
        "Caroline went to the support group.",
    )
    primer = "# Daily primer\n\n- Caroline went to a group. She felt accepted there.\n- Hi Mel"
    units = text_units(primer)
    assert units[0].startswith("# Daily primer - Caroline went")  # the whole text first
    assert units[1:] == (
        "Caroline went to a group.",
        "She felt accepted there.",
    )  # "Daily primer" and "Hi Mel" have fewer than three words


def test_sentences_split_on_lines_and_sentence_ends_without_markup() -> None:
    text = "## Facts\n* **Mel** paints. Wow! Ok?\n1. Ten items, e.g. pots and mugs."
    assert split_sentences(text) == [
        "Facts",
        "Mel paints.",
        "Wow!",
        "Ok?",
        "Ten items, e.g. pots and mugs.",  # no split before a lower-case word
    ]


def test_text_properties_leave_out_ids_enums_times_json_and_source_titles() -> None:
    assert is_text_property("Fact", "statement", "Caroline attended a group")
    assert not is_text_property("Fact", "kind", "preference")
    assert not is_text_property("Fact", "source_turn_ids", ["t1"])
    assert not is_text_property("Session", "meta", '{"date_time": "1:56 pm"}')
    assert not is_text_property("Session", "title", "conv-26 session 1")
    assert is_text_property("Community", "title", "support group")
    assert not is_text_property("Primer", "period_key", "2023-W19")
    assert not is_text_property("Fact", "valid_from", 1683504960000)
    assert not is_text_property("Fact", "statement", "1234 5678")


def test_a_property_inside_a_longer_one_is_left_out_and_equal_texts_are_kept() -> None:
    props = {
        "statement": "Caroline attended an LGBTQ support group",
        "object": "an LGBTQ support group",
        "subject": "caroline",
    }
    assert text_properties("Fact", props) == [
        ("statement", "Caroline attended an LGBTQ support group")
    ]
    same = {"summary": "Hey Mel, how are you?", "intent": "Hey Mel, how are you?"}
    assert text_properties("Session", same) == [
        ("intent", "Hey Mel, how are you?"),
        ("summary", "Hey Mel, how are you?"),
    ]


# --- items and provenance -----------------------------------------------------------------------


def test_provenance_from_id_lists_edges_and_through_listed_items() -> None:
    turn_dia = {"t1": "D1:1", "t2": "D1:2", "t3": "D2:1", "t4": None}
    nodes = [
        Node("Fact", "f1", {"statement": "Caroline went to a group", "source_turn_ids": ["t1"]}),
        Node("Topic", "top", {"title": "support group", "message_ids": ["t4"]}),
        Node("Primer", "daily", {"text": "Caroline went to a group.", "source_ids": ["f1", "s1"]}),
        Node("Primer", "weekly", {"text": "A week of groups and art.", "source_ids": ["daily"]}),
        Node("Session", "s1", {"summary": "They talked about the support group.", "title": "x"}),
        Node("Observation", "o1", {"text": "Melanie paints sunrises at the lake"}),
        Node("Finding", "fd", {"title": "needs a lesson badly", "target_ids": ["f1"]}),
    ]
    links = [("top", "t3"), ("o1", "t2"), ("fd", "t1"), ("f1", "nope")]
    items = {it.id: it for it in knowledge_items(nodes, links, turn_dia)}
    assert set(items) == {"f1", "top", "daily", "weekly", "s1", "o1"}  # the finding is no item
    assert items["f1"].provenance == {"D1:1"}
    assert items["top"].provenance == {"D2:1"}  # MENTIONS edge; t4 has no dialog id
    assert items["daily"].provenance == {"D1:1"}  # through the fact; the session gives none
    assert items["weekly"].provenance == {"D1:1"}  # two hops
    assert items["s1"].provenance == frozenset()
    assert items["o1"].provenance == {"D1:2"}
    assert items["o1"].fact_like
    assert items["f1"].fact_like
    assert not items["daily"].fact_like
    assert not items["top"].fact_like
    assert items["top"].units == ()  # a two-word label is not a statement
    assert items["s1"].units == (("Session.summary", "They talked about the support group."),)


def test_provenance_cycles_terminate() -> None:
    nodes = [
        Node("Community", "a", {"summary": "one two three", "member_ids": ["b", "t1"]}),
        Node("Community", "b", {"summary": "four five six", "member_ids": ["a"]}),
    ]
    items = {it.id: it for it in knowledge_items(nodes, [], {"t1": "D1:1"})}
    assert items["a"].provenance == items["b"].provenance == {"D1:1"}


def test_turn_items_are_their_own_provenance() -> None:
    [t] = turn_items([("t1", "I went to a group yesterday. It was great!", "D1:3")])
    assert t.provenance == {"D1:3"}
    assert t.fact_like
    assert t.label == "Turn"
    assert [u for _, u in t.units] == [
        "I went to a group yesterday. It was great!",
        "I went to a group yesterday.",
        "It was great!",
    ]


# --- observation recall and precision -----------------------------------------------------------


def test_matched_with_and_without_provenance_and_unmatched() -> None:
    observations = [obs("a", "D1:3"), obs("b", "D1:4"), obs("c", "D1:5")]
    o_vecs = np.array([unit_vec(1.0, 0), unit_vec(1.0, 1), unit_vec(1.0, 2)], dtype=np.float32)
    items = [
        item("good", "x x x", prov=("D1:3",)),  # 0.71 to a, linked to its evidence
        item("elsewhere", "y y y", prov=("D9:9",)),  # 1.0 to b, linked to another turn
        item("weak", "z z z", prov=("D1:5",)),  # 0.69 to c: below the recall threshold
    ]
    u_vecs = np.array(
        [unit_vec(0.71, 0, 3), unit_vec(1.0, 1), unit_vec(0.69, 2, 4)], dtype=np.float32
    )
    s = score_observations(observations, o_vecs, items, u_vecs).summary()
    assert (s["observations"], s["matched"], s["matched_with_provenance"]) == (3, 2, 1)
    assert s["recall"] == round(2 / 3, 4)
    assert s["recall_with_provenance"] == round(1 / 3, 4)
    assert s["matched_by_kind"] == {"Fact.text": 2}
    assert s["matched_with_provenance_by_kind"] == {"Fact.text": 1}
    assert s["units_by_kind"] == {"Fact.text": 3}
    assert s["provenance_mean_by_label"] == {"Fact": 1.0}
    assert s["provenance_coverage"] == round(2 / 3, 4)  # a and c have a linked item
    # precision at 0.60: good (0.71), elsewhere (1.0) and weak (0.69) all reach it
    assert (s["fact_like_items"], s["fact_like_matched"], s["precision"]) == (3, 3, 1.0)


def test_precision_threshold_non_fact_like_items_and_items_without_units() -> None:
    observations = [obs("a")]
    o_vecs = np.array([E0], dtype=np.float32)
    items = [
        item("hit", "p p p", prov=()),  # 0.61: counts at 0.60
        item("miss", "q q q"),  # 0.59
        item("layer", "r r r", label="ReferenceLayer", fact_like=False),  # 0.99, not fact-like
        item("empty"),  # no unit: a fact-like item that states nothing
    ]
    u_vecs = np.array([unit_vec(0.61), unit_vec(0.59), unit_vec(0.99)], dtype=np.float32)
    s = score_observations(observations, o_vecs, items, u_vecs).summary()
    assert (s["fact_like_items"], s["fact_like_matched"]) == (3, 1)
    assert s["provenance_mean_by_label"] == {"Fact": 0.0, "ReferenceLayer": 0.0}
    assert s["recall"] == 1.0
    assert s["matched_by_kind"] == {"ReferenceLayer.text": 1}
    assert s["recall_with_provenance"] == 0.0


def test_a_long_item_matches_through_one_of_its_sentences() -> None:
    [o] = [obs("Caroline went to a support group.", "D1:3")]
    it = item("primer", "whole text here", "Caroline went to a group.", prov=("D1:3",))
    u_vecs = np.array([unit_vec(0.40), unit_vec(0.90)], dtype=np.float32)
    s = score_observations([o], np.array([E0], dtype=np.float32), [it], u_vecs).summary()
    assert s["matched_with_provenance"] == 1


def test_vectors_must_line_up_with_observations_and_units() -> None:
    with pytest.raises(ValueError, match="one vector per"):
        score_observations([obs()], np.zeros((1, DIM)), [item("a", "x y z")], np.zeros((2, DIM)))


def test_no_observations_or_no_items_give_none_not_zero() -> None:
    s = score_observations([], np.zeros((0, DIM)), [], np.zeros((0, DIM))).summary()
    assert s["recall"] is None
    assert s["precision"] is None
    s = score_observations([obs()], np.array([E0]), [], np.zeros((0, DIM))).summary()
    assert s["recall"] == 0.0
    assert s["precision"] is None


def test_counts_pool_across_projects() -> None:
    a = ObservationCounts(observations=2, matched=1, matched_with_provenance=1, fact_like_items=1)
    b = ObservationCounts(observations=3, matched=3, matched_with_provenance=0, fact_like_items=0)
    s = (a + b).summary()
    assert (s["recall"], s["recall_with_provenance"], s["precision"]) == (0.8, 0.2, 0.0)


def test_flat_units_keep_item_order() -> None:
    assert flat_units([item("a", "one two three", "four five six"), item("b", "x y z")]) == [
        "one two three",
        "four five six",
        "x y z",
    ]


# --- session summaries --------------------------------------------------------------------------


def test_rouge_scores_identical_disjoint_and_empty_texts() -> None:
    same = rouge_f1("Caroline went to a group", "Caroline went to a group")
    assert same == {"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}
    assert rouge_f1("dogs bark loudly", "Caroline went to a group")["rouge1"] == 0.0
    assert rouge_f1("", "Caroline went") == {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}
    # Porter stemming: "painting" and "paints" share a stem
    assert rouge_f1("Melanie painting", "Melanie paints")["rouge1"] == 1.0


def test_baseline_is_cut_to_the_summary_length_or_the_reference_length() -> None:
    ref = "Caroline told Melanie about the support group she attended"
    turns = ["Hey Mel! Good to see you!", "I went to a support group yesterday."]
    s = score_summary("session_1", ref, "Caroline attended a support group", turns)
    assert (s.summary_words, s.baseline_words, s.reference_words) == (5, 5, 9)
    assert s.baseline == rouge_f1("Hey Mel! Good to see", ref)
    none = score_summary("session_2", ref, None, turns)
    assert none.summary_words == 0
    assert none.baseline_words == 9
    assert none.remgraph == {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}
    assert none.baseline == rouge_f1(cut_words(" ".join(turns), 9), ref)
    assert cut_words("a  b\nc d", 3) == "a b c"


def test_summary_means_and_the_rouge_l_ratio() -> None:
    ref = "Caroline told Melanie about the support group"
    rows = [
        score_summary("session_1", ref, "Caroline told Melanie about the group", ["hi there"]),
        score_summary("session_2", ref, None, ["Caroline told Melanie about it"]),
    ]
    out = summarize_summaries(rows)
    assert out["sessions"] == 2
    assert out["with_summary"] == 1
    expect = (rows[0].remgraph["rougeL"] + 0.0) / 2
    assert out["remgraph"]["rougeL"] == round(expect, 4)
    base = (rows[0].baseline["rougeL"] + rows[1].baseline["rougeL"]) / 2
    assert out["first_turns"]["rougeL"] == round(base, 4)
    assert out["rougeL_ratio"] == round(round(expect, 4) / round(base, 4), 3)
    assert summarize_summaries([])["rougeL_ratio"] is None


# --- topic labels -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "generic"),
    [
        ("photo", True),  # Zipf 4.97
        ("gonna", True),
        ("The", True),
        ("whence", True),  # rare (Zipf ~3.1) but a stopword
        ("", True),
        ("!!!", True),
        ("pottery", False),  # Zipf ~3.7
        ("adoption agencies", False),  # two words
        ("shares image", False),  # a caption artifact, but not what this rule measures
        ("guinea pig", False),
    ],
)
def test_generic_label_rule_with_wordfreq(label: str, generic: bool) -> None:
    assert is_generic_label(label) is generic


def test_generic_threshold_is_inclusive_at_4_5() -> None:
    stop: frozenset[str] = frozenset()
    assert is_generic_label("alpha", frequency=lambda w: 4.5, stopwords=stop)
    assert not is_generic_label("alpha", frequency=lambda w: 4.49, stopwords=stop)


def test_topic_stats_judge_the_heaviest_and_count_words() -> None:
    topics = [(f"pottery class {i}", 0.1) for i in range(60)] + [
        ("photo", 0.9),
        ("adoption agencies", 0.8),
        ("love", 0.5),
    ]
    s = topic_stats(topics, top=50)
    assert (s["topics"], s["judged"], s["generic"]) == (63, 50, 2)
    assert s["generic_share"] == 0.04
    assert s["generic_examples"] == ["photo", "love"]
    assert s["label_words"] == {"0": 0, "1": 2, "2": 1, "3": 47, "4": 0, "5+": 0}
    tied = topic_stats([("b thing here", 0.5), ("a thing here", 0.5)], top=1)
    assert tied["judged"] == 1
    assert tied["generic"] == 0
    assert topic_stats([])["generic_share"] is None


# --- sizes and targets --------------------------------------------------------------------------


def test_size_stats_against_the_daily_budget() -> None:
    daily = TIER_BUDGETS["daily"]
    s = size_stats([1_999, 2_000, 5_000, 5_001, 8_000, 8_001], daily)
    assert (s["count"], s["min"], s["max"]) == (6, 1_999, 8_001)
    assert (s["in_range"], s["over_max"]) == (2, 1)
    assert s["in_range_share"] == round(2 / 6, 4)
    assert s["budget"] == "2–5 KB, max 8 KB"
    assert size_stats([], daily)["mean"] is None
    assert TIER_BUDGETS["weekly"].max == 12_000
    assert TIER_BUDGETS["monthly"].max == 15_000
    assert (PACK_BUDGET.lo, PACK_BUDGET.hi, PACK_BUDGET.max) == (20_000, 25_000, 35_000)


def _targets(**kw: Any) -> dict[str, bool]:
    base: dict[str, Any] = {
        "observations": {"recall_with_provenance": 0.6, "precision": 0.5},
        "summaries": {"remgraph": {"rougeL": 0.25}, "first_turns": {"rougeL": 0.2}},
        "topic_shares": [0.05, 0.0, None],
        "pack_sizes": [20_000, 35_000],
        "primers_over_max": 0,
    }
    out = targets(**(base | kw))
    return {t["name"]: t["met"] for t in out}


def test_targets_met_at_their_bounds() -> None:
    assert all(_targets().values())


@pytest.mark.parametrize(
    ("change", "name"),
    [
        (
            {"observations": {"recall_with_provenance": 0.59, "precision": 0.9}},
            "observation recall with provenance at precision",
        ),
        (
            {"observations": {"recall_with_provenance": 0.9, "precision": 0.49}},
            "observation recall with provenance at precision",
        ),
        (
            {"summaries": {"remgraph": {"rougeL": 0.249}, "first_turns": {"rougeL": 0.2}}},
            "session summary ROUGE-L vs first turns",
        ),
        (
            {"summaries": {"remgraph": {"rougeL": 0.0}, "first_turns": {"rougeL": 0.0}}},
            "session summary ROUGE-L vs first turns",
        ),
        ({"topic_shares": [0.0, 0.051]}, "generic topic labels"),
        ({"topic_shares": [None]}, "generic topic labels"),
        ({"pack_sizes": [19_999, 25_000]}, "pack and primer sizes"),
        ({"pack_sizes": [35_001]}, "pack and primer sizes"),
        ({"pack_sizes": []}, "pack and primer sizes"),
        ({"primers_over_max": 1}, "pack and primer sizes"),
    ],
)
def test_each_target_fails_just_past_its_bound(change: dict[str, Any], name: str) -> None:
    met = _targets(**change)
    assert met[name] is False
    assert all(v for k, v in met.items() if k != name)
