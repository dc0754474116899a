from __future__ import annotations

import pytest

from consolidate.config import ConsolidateSettings
from core.timeutil import DAY_MS
from ingest.config import IngestSettings
from knowledge.topics import (
    TopicActivity,
    TopicRules,
    reference_time,
    topic_phase,
    topic_standings,
)

NOW = 1_800_000_000_000


def _t(id: str, days_ago: float | None, count: int = 4, sessions: int = 2) -> TopicActivity:
    last = None if days_ago is None else NOW - int(days_ago * DAY_MS)
    return TopicActivity(id, count, sessions, 1, last)


def test_phase_thresholds_come_from_the_rules() -> None:
    rules = TopicRules(dormant_after_days=10, completed_after_days=30)
    assert [topic_phase(d, rules) for d in (9.9, 10, 29.9, 30)] == [
        "active",
        "dormant",
        "dormant",
        "completed",
    ]
    assert topic_phase(75) == "completed"  # the default: completed after 60 quiet days


def test_recency_is_measured_from_the_latest_activity_when_it_is_past() -> None:
    topics = [_t("a", 100), _t("b", 30), _t("never", None)]
    assert reference_time(topics, NOW) == NOW - 30 * DAY_MS
    assert reference_time([_t("future", -2)], NOW) == NOW
    got = {s.id: s.phase for s in topic_standings(topics, NOW, TopicRules())}
    # "a" is 70 days older than the latest activity, "b" is the latest, "never" has no time.
    assert got == {"a": "completed", "b": "active", "never": "completed"}


def test_weight_is_rounded_and_grows_with_mentions_and_recency() -> None:
    rules = TopicRules()
    [busy, idle] = topic_standings([_t("busy", 0, 50, 10), _t("idle", 40, 1, 1)], NOW, rules)
    assert busy.weight == pytest.approx(0.3 + 0.3 + 0.2 * (50 / 10 / 8) + 0.2, abs=1e-6)
    assert 0 < idle.weight < busy.weight
    assert busy.weight == round(busy.weight, 6)


def test_ingest_and_consolidate_read_the_same_topic_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("REMGRAPH_TOPICS__COMPLETED_AFTER_DAYS", "45")
    monkeypatch.setenv("REMGRAPH_CORRECTIONS__RULE_AFTER_SESSIONS", "7")
    ingest = IngestSettings(_env_file=None)
    rem = ConsolidateSettings(_env_file=None)
    assert ingest.topics == rem.topics == TopicRules(completed_after_days=45)
    assert ingest.corrections == rem.corrections
    assert rem.corrections.rule_after_sessions == 7
