import pytest

from recall.eval import (
    QuestionResult,
    all_at,
    auc,
    hit_at,
    markdown_table,
    parse_evidence,
    summarize,
)


def test_parse_evidence_tolerates_known_typos():
    assert parse_evidence(["D1:3", "D:2:4", "D10:11; D10:12"]) == {
        "D1:3",
        "D2:4",
        "D10:11",
        "D10:12",
    }
    assert parse_evidence([]) == frozenset()


def test_hit_and_all_at_k():
    r = QuestionResult(1, frozenset({"D1:1", "D1:2"}), ("D1:2", "D9:9", "D1:1"), 1.0)
    assert hit_at(r, 1)
    assert not all_at(r, 2)
    assert all_at(r, 3)
    assert not hit_at(QuestionResult(1, frozenset({"x"}), ("y",), 0.0), 25)


def test_auc_is_the_mann_whitney_probability():
    assert auc([3, 4], [1, 2]) == 1.0
    assert auc([1, 2], [3, 4]) == 0.0
    assert auc([1], [1]) == 0.5
    assert auc([], [1]) is None


def test_summary_by_category_skips_questions_without_evidence():
    rs = [
        QuestionResult(1, frozenset({"a"}), ("a",), 2.0),
        QuestionResult(4, frozenset({"b"}), ("c", "b"), 1.5),
        QuestionResult(2, frozenset(), ("a",), 1.0),  # no evidence: not counted
        QuestionResult(5, frozenset(), ("a",), 0.5),  # adversarial
    ]
    s = summarize(rs)
    assert s["questions"] == 2
    assert s["categories"]["all"]["hit@1"] == 0.5
    assert s["categories"]["all"]["hit@5"] == 1.0
    assert s["categories"]["4"]["hit@1"] == 0.0
    assert s["auc_answerable_vs_adversarial"] == pytest.approx(1.0)
    table = markdown_table({"x": s})
    assert "| x | all | 2 | 0.500 | 1.000 |" in table
