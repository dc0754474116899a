"""`knowledge.rules`: which corrections are in force, and their order."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from core.timeutil import to_ms
from graph.models import Correction
from knowledge.rules import current_rules, is_current

NOW = datetime(2025, 6, 1, tzinfo=UTC)
NOW_MS = to_ms(NOW)


def _c(id: str, **kw) -> Correction:
    kw.setdefault("valid_from", NOW - timedelta(days=10))
    kw.setdefault("recorded_at", NOW - timedelta(days=10))
    kw.setdefault("last_seen", NOW)
    return Correction(id=id, project="p", rule_text=f"text of {id}", **kw)


def test_only_rules_preferences_and_confirmed_corrections_are_current() -> None:
    cands = [
        _c("rule", status="rule"),
        _c("pref", status="preference"),
        _c("pattern", status="pattern"),
        _c("plain", status="correction"),
        _c("confirmed", status="correction", confirmed=True),
    ]
    got = [r.correction.id for r in current_rules(cands, now_ms=NOW_MS)]
    assert sorted(got) == ["confirmed", "pref", "rule"]


def test_closed_superseded_and_future_corrections_are_not_current() -> None:
    assert not is_current(_c("closed", status="rule", valid_to=NOW - timedelta(days=1)), NOW_MS)
    assert not is_current(_c("gone", status="rule", expired_at=NOW), NOW_MS)
    assert not is_current(_c("later", status="rule", valid_from=NOW + timedelta(days=1)), NOW_MS)
    assert not is_current(
        _c("unknown-yet", status="rule", recorded_at=NOW + timedelta(seconds=1)), NOW_MS
    )
    assert is_current(_c("open", status="rule", valid_to=NOW + timedelta(days=1)), NOW_MS)


def test_order_is_status_then_effective_weight_then_id() -> None:
    cands = [
        _c("pref-heavy", status="preference", confidence=1.0, reinforcement=9.0),
        _c("rule-light", status="rule", confidence=0.2),
        _c("rule-heavy", status="rule", confidence=0.9, reinforcement=4.0),
        _c("confirmed", status="pattern", confirmed=True, confidence=0.5),
        _c("b-tie", status="rule", confidence=0.5),
        _c("a-tie", status="rule", confidence=0.5),
    ]
    rules = current_rules(cands, now_ms=NOW_MS)
    assert [r.correction.id for r in rules] == [
        "rule-heavy",
        "a-tie",
        "b-tie",
        "confirmed",
        "rule-light",
        "pref-heavy",
    ]
    assert rules[3].status == "rule"  # a confirmed correction is ranked as a rule
    assert rules[0].effective_weight == 0.9 * 2.0  # confidence × 4^0.5, seen today


def test_effective_weight_decays_with_the_time_since_last_seen() -> None:
    old = _c("old", status="rule", confidence=0.8, last_seen=NOW - timedelta(days=30))
    [r] = current_rules([old], now_ms=NOW_MS)
    assert math.isclose(r.effective_weight, 0.8 * math.exp(-1), rel_tol=1e-5)


def test_limit_and_text_fallback() -> None:
    c = Correction(
        id="x",
        project="p",
        status="rule",
        corrected_behaviour="use uv",
        valid_from=NOW - timedelta(days=1),
        recorded_at=NOW - timedelta(days=1),
    )
    top = current_rules([c, _c("y", status="rule")], now_ms=NOW_MS, limit=1)
    assert [r.correction.id for r in top] == ["y"]  # seen today outweighs seen yesterday
    assert current_rules([c], now_ms=NOW_MS)[0].text == "use uv"
