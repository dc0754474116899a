from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowledge.scoring import (
    correction_effective_weight,
    correction_status,
    decay,
    lesson_quality,
)
from knowledge.topics import TopicSignals, topic_phase, topic_weight


def test_effective_weight_formula() -> None:
    w = correction_effective_weight(0.8, 4, 30, g=0.5, half_life_days=30)
    assert w == pytest.approx(0.8 * 2 * math.exp(-1))
    assert correction_effective_weight(1.0, 1, 0) == 1.0


def test_status_ladder() -> None:
    seq = [correction_status("correction", sessions=n, sightings=n) for n in range(1, 7)]
    assert seq == ["correction", "pattern", "pattern", "preference", "rule", "rule"]


def test_a_candidate_waits_for_another_session_or_a_person() -> None:
    seq = [correction_status("candidate", sessions=n, sightings=n) for n in range(1, 4)]
    assert seq == ["candidate", "pattern", "pattern"]
    # said many times in one session, it is still said once
    assert correction_status("candidate", sessions=1, sightings=9) == "candidate"
    assert correction_status("candidate", sessions=1, sightings=1, confirmed=True) == "rule"


def test_status_never_regresses_and_confirmation_wins() -> None:
    assert correction_status("preference", sessions=1, sightings=1) == "preference"
    assert correction_status("correction", sessions=1, sightings=1, confirmed=True) == "rule"
    assert (
        correction_status("correction", sessions=9, sightings=9, consistent=False) == "preference"
    )
    # Many sightings within one session are not spread across sessions.
    assert correction_status("correction", sessions=1, sightings=9) == "correction"


def test_topic_weight_and_phase() -> None:
    assert topic_weight(TopicSignals(1, 1, 1, 1)) == pytest.approx(1.0)
    assert topic_weight(TopicSignals(1, 0, 0, 0)) == pytest.approx(0.3)
    assert topic_weight(TopicSignals(0, 0, 1, 0)) == pytest.approx(0.2)
    assert topic_phase(1) == "active"
    assert topic_phase(20) == "dormant"
    assert topic_phase(90) == "completed"


def test_lesson_quality_quarters() -> None:
    assert lesson_quality(has_examples=True, has_steps=True, sources=2, content_chars=100) == 1.0
    assert lesson_quality(has_examples=False, has_steps=False, sources=1, content_chars=5000) == 0.0


@given(st.floats(0, 1000), st.floats(0.1, 365))
def test_decay_in_unit_interval(days: float, hl: float) -> None:
    assert 0.0 <= decay(days, hl) <= 1.0
