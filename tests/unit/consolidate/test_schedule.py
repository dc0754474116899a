from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from consolidate.config import ConsolidateSection, ConsolidateSettings, Schedule
from consolidate.schedule import Due, fibonacci_at_least, is_due, next_session_threshold

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


def test_fibonacci_thresholds_follow_the_sequence_from_five():
    s = Schedule(kind="fibonacci")
    seen = []
    last = None
    for _ in range(5):
        last = next_session_threshold(s, last)
        seen.append(last)
    assert seen == [5, 8, 13, 21, 34]
    assert fibonacci_at_least(22) == 34


def test_linear_every_n_sessions():
    s = Schedule(kind="linear", every=5)
    assert next_session_threshold(s, None) == 5
    assert next_session_threshold(s, 12) == 17


def test_logarithmic_gaps_grow_slowly():
    s = Schedule(kind="logarithmic", start=5, scale=4.0)
    gaps = []
    last = None
    for _ in range(6):
        nxt = next_session_threshold(s, last)
        if last is not None:
            gaps.append(nxt - last)
        last = nxt
    assert gaps == sorted(gaps)
    assert gaps[0] < gaps[-1] < 3 * gaps[0]


def _due(schedule: Schedule, **kw: Any) -> Due:
    base = {
        "now": NOW,
        "sessions": 0,
        "last_run_at": None,
        "last_status": None,
        "sessions_at_last_run": None,
    }
    return is_due(schedule, **{**base, **kw})


def test_cron_due_when_never_ran_and_after_next_fire():
    s = Schedule(kind="cron", cron="0 3,15 * * *")
    assert _due(s).due
    assert not _due(s, last_run_at=NOW - timedelta(hours=1), last_status="succeeded").due
    late = _due(s, last_run_at=NOW - timedelta(hours=10), last_status="succeeded")
    assert late.due
    assert late.next_at == datetime(2026, 11, 22, 3, 0, tzinfo=UTC)


@pytest.mark.parametrize(("sessions", "due"), [(12, False), (13, True), (20, True)])
def test_session_trigger(sessions, due):
    s = Schedule(kind="fibonacci")
    d = _due(s, sessions=sessions, last_run_at=NOW, last_status="succeeded", sessions_at_last_run=8)
    assert d.due is due
    assert d.next_sessions == 13


def test_failure_backs_off_then_flags():
    s = Schedule(kind="linear", every=1)
    kw = {"sessions": 100, "last_status": "failed", "sessions_at_last_run": 0, "backoff_s": 60}
    assert not _due(s, last_run_at=NOW - timedelta(seconds=30), attempts=1, **kw).due
    assert _due(s, last_run_at=NOW - timedelta(seconds=61), attempts=1, **kw).due
    assert not _due(s, last_run_at=NOW - timedelta(seconds=100), attempts=2, **kw).due
    flagged = _due(s, last_run_at=NOW - timedelta(days=1), attempts=3, **kw)
    assert (flagged.due, flagged.flagged) == (False, True)


def test_default_schedules_match_the_rem_design():
    c = ConsolidateSection()
    assert c.schedule_for("staleness") == Schedule(kind="linear", every=5)
    assert c.schedule_for("duplicates") == Schedule(kind="linear", every=10)
    assert c.schedule_for("communities").kind == "fibonacci"
    assert c.schedule_for("extraction").kind == "logarithmic"
    assert c.schedule_for("rollups") == Schedule(kind="linear", every=20)
    assert c.schedule_for("topic_weights").kind == "cron"


def test_env_overrides_one_field_of_one_schedule(monkeypatch):
    monkeypatch.setenv("REMGRAPH_CONSOLIDATE__SCHEDULES__DUPLICATES__EVERY", "3")
    monkeypatch.setenv("REMGRAPH_CONSOLIDATE__SEED", "9")
    s = ConsolidateSettings(_env_file=None)
    assert s.consolidate.seed == 9
    assert s.consolidate.schedule_for("duplicates") == Schedule(kind="linear", every=3)
    assert s.consolidate.schedule_for("communities").kind == "fibonacci"
