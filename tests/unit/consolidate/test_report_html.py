"""The HTML report's data shaping and rendering (pure)."""

from __future__ import annotations

from datetime import UTC, datetime

from consolidate.report_html import (
    ReportData,
    Series,
    graduation_funnel,
    render_html,
    weights_over_time,
)
from graph.repositories.reports import IngestDay, StatusCount, TopicDay
from knowledge.topics import TopicActivity, TopicRules, topic_standing

RULES = TopicRules(recency_half_life_days=14.0)
DAY = 86_400_000


def _weight(count: int, sessions: int, last_seen_day: int, day: int) -> float:
    activity = TopicActivity("t", count, sessions, 1, last_seen_day * DAY)
    return round(topic_standing(activity, day * DAY, RULES).weight, 4)


def test_weights_over_time_follow_the_jobs_formula_day_by_day() -> None:
    rows = [
        TopicDay("t1", "deploys", "p", 100, 3, ("s1",)),
        TopicDay("t1", "deploys", "p", 102, 2, ("s2",)),
        TopicDay("t2", "lunch", "p", 101, 1, ("s1",)),
    ]
    series = weights_over_time(rows, rules=RULES)
    by_id = {s.topic_id: s for s in series}
    assert [d for d, _ in by_id["t1"].points] == [100, 101, 102]
    assert [d for d, _ in by_id["t2"].points] == [101, 102]
    # day 101: 3 mentions in 1 session, last seen a day before
    assert by_id["t1"].points[1][1] == _weight(3, 1, 100, 101)
    # day 102: 5 mentions in 2 sessions, seen that day
    assert by_id["t1"].points[2][1] == _weight(5, 2, 102, 102)
    assert series[0].topic_id == "t1"  # heaviest first
    assert weights_over_time([], rules=RULES) == []


def test_funnel_counts_every_stage_a_correction_reached() -> None:
    counts = [
        StatusCount("candidate", False, 5),
        StatusCount("correction", False, 10),
        StatusCount("pattern", False, 4),
        StatusCount("preference", False, 2),
        StatusCount("rule", False, 1),
        StatusCount("correction", True, 1),  # confirmed: a rule
    ]
    assert graduation_funnel(counts) == [
        ("candidate", 23),
        ("correction", 18),
        ("pattern", 8),
        ("preference", 4),
        ("rule", 2),
    ]


def test_render_escapes_graph_text_and_loads_nothing() -> None:
    data = ReportData(
        project="<p>",
        generated_at=datetime(2025, 1, 2, tzinfo=UTC),
        topics=(Series("t", "<script>alert(1)</script>", ((100, 0.2), (101, 0.3))),),
        funnel=(("correction", 3), ("pattern", 1), ("preference", 0), ("rule", 0)),
        communities=(("a & b", 5), ("c", 2)),
        ingest=(IngestDay(100, 40, 2),),
    )
    page = render_html(data)
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "a &amp; b" in page
    assert "default-src 'none'" in page
    for chart in ("topic-weights", "graduation", "communities", "ingest"):
        assert f'data-chart="{chart}"' in page
    assert "src=" not in page
    assert "href=" not in page


def test_empty_sections_say_so() -> None:
    empty = ReportData("p", datetime(2025, 1, 2, tzinfo=UTC), (), (), (), ())
    page = render_html(empty)
    assert page.count("No data yet.") == 4
    assert "<svg" not in page
