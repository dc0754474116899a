"""Serving is use: staleness's "last used" and `--auto`'s refusal of recently served items."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from consolidate.config import ConsolidateSection
from consolidate.jobs.staleness import last_used_ms
from consolidate.policy import SERVED_DAYS, auto_refusal, served_recently
from core.timeutil import DAY_MS, to_ms
from graph.models import Finding
from graph.repositories.context_queries import Served

T = datetime(2026, 1, 1, tzinfo=UTC)
NOW = to_ms(T) + 42 * DAY_MS
PLAIN = {"status": "correction", "helpful_count": 0, "effectiveness": 0.0}


def _stale(target: str = "cor_x", kind: str = "stale") -> Finding:
    return Finding(
        id="fnd_x",
        project="p",
        job="staleness",
        run_id="r",
        kind=kind,
        target_ids=(target,),
        proposed_action="archive",
        valid_from=T,
        recorded_at=T,
    )


def test_the_window_is_a_setting_of_30_days() -> None:
    assert ConsolidateSection().served_days == 30.0 == SERVED_DAYS
    assert ConsolidateSection.model_fields["served_days"].description  # documented


@pytest.mark.parametrize(
    ("days_ago", "in_use"),
    [(0, True), (0.01, True), (6, True), (29.9, True), (30, False), (42, False)],
)
def test_served_recently(days_ago: float, in_use: bool) -> None:
    why = served_recently(NOW - int(days_ago * DAY_MS), NOW, 30)
    assert (why is not None) is in_use
    if in_use:
        assert why == f"it was served {days_ago:.0f} days ago (within 30)"


def test_never_served_is_not_in_use() -> None:
    assert served_recently(None, NOW, 30) is None


@pytest.mark.parametrize("kind", ["stale", "faded"])
def test_auto_never_archives_an_item_served_in_the_window(kind: str) -> None:
    images = {"cor_x": PLAIN}
    minutes_ago = NOW - 5 * 60_000
    assert auto_refusal(_stale(kind=kind), images) is None  # today's rule alone would archive it
    why = auto_refusal(_stale(kind=kind), images, {"cor_x": minutes_ago}, now_ms=NOW)
    assert why == "never archived automatically: it was served 0 days ago (within 30)"
    old = NOW - 31 * DAY_MS
    assert auto_refusal(_stale(kind=kind), images, {"cor_x": old}, now_ms=NOW) is None
    assert (
        auto_refusal(_stale(kind=kind), images, {"cor_x": old}, now_ms=NOW, served_days=60)
        is not None
    )


def test_serving_of_another_item_does_not_protect() -> None:
    assert auto_refusal(_stale(), {"cor_x": PLAIN}, {"cor_y": NOW}, now_ms=NOW) is None


def test_protection_reasons_come_before_serving() -> None:
    why = auto_refusal(_stale(), {"cor_x": {"status": "rule"}}, {"cor_x": NOW}, now_ms=NOW)
    assert why == "never archived automatically: it is a rule"


def test_last_used_is_the_later_of_recording_and_serving() -> None:
    recorded = NOW - 42 * DAY_MS
    assert last_used_ms(recorded, None) == recorded
    assert last_used_ms(recorded, Served("cor_x", NOW - DAY_MS, 6)) == NOW - DAY_MS
    assert last_used_ms(NOW, Served("cor_x", recorded, 2)) == NOW
