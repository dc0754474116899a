"""A rule opens an answer on its meaning only when it stands out from the project's other rules."""

from __future__ import annotations

from recall.config import RankingSection
from recall.opening import standing

W = RankingSection()


def test_the_one_close_rule_among_many_far_ones_stands_out() -> None:
    cos = {f"r{i}": 0.1 + 0.01 * (i % 7) for i in range(40)}
    cos["answer"] = 0.55
    z = standing(cos, W)
    assert z["answer"] >= W.rule_standout
    assert max(v for k, v in z.items() if k != "answer") < 1.5


def test_among_rules_all_about_the_same_thing_none_stands_out() -> None:
    # one project, one subject: every rule is at 0.45-0.6 to a query about that subject
    cos = {f"r{i}": 0.45 + 0.005 * i for i in range(30)}
    z = standing(cos, W)
    assert max(z.values()) < W.rule_standout


def test_with_few_rules_the_prior_decides_and_a_rule_is_not_measured_by_itself() -> None:
    alone = standing({"only": 0.58}, W)["only"]
    assert alone >= W.rule_standout  # far above what an unrelated rule scores
    assert standing({"only": 0.2}, W)["only"] < W.rule_standout
    # a second, equally close rule takes nothing from the first's standing but what it says
    pair = standing({"a": 0.58, "b": 0.56}, W)
    assert pair["a"] < alone


def test_no_rules_no_standing() -> None:
    assert standing({}, W) == {}
