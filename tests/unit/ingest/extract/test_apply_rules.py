"""The offline AUDN rules (pure: no engine)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graph.models import Correction
from ingest.extract.apply import correction_action, reverses
from ingest.extract.models import CorrectionCandidate
from ingest.extract.offline import correction_from_clause

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _cand(clause: str) -> CorrectionCandidate:
    parsed = correction_from_clause(clause)
    assert parsed is not None
    rule, corrected, original, explicit, negates = parsed
    return CorrectionCandidate(
        rule_text=rule,
        corrected_behaviour=corrected,
        original_behaviour=original,
        explicit_rule=explicit,
        negates=negates,
        seen_at=NOW,
    )


def _stored(clause: str, sessions: tuple[str, ...] = ("s0",)) -> Correction:
    c = _cand(clause)
    return Correction(
        id="cor_1",
        project="p",
        rule_text=c.rule_text,
        corrected_behaviour=c.corrected_behaviour,
        original_behaviour=c.original_behaviour,
        sessions=sessions,
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Use pytest instead of unittest.", "Use unittest instead of pytest."),
        ("Always use tabs for indentation.", "Don't use tabs for indentation."),
        ("Don't use tabs for indentation.", "Always use tabs for indentation."),
        ("Never push to main directly.", "Always push to main directly."),
    ],
)
def test_reversals_invalidate(old: str, new: str) -> None:
    assert reverses(_cand(new), _stored(old))
    assert correction_action(_cand(new), _stored(old), 0.9, "s1", 0.85) == "INVALIDATE"


def test_same_rule_in_a_new_session_updates() -> None:
    old = _stored("Use pytest instead of unittest.")
    cand = _cand("No, use pytest not unittest.")
    assert not reverses(cand, old)
    assert correction_action(cand, old, 0.99, "s1", 0.85) == "UPDATE"


def test_same_session_again_is_noop_and_dissimilar_is_add() -> None:
    old = _stored("Use pytest instead of unittest.", sessions=("s1",))
    cand = _cand("Use pytest instead of unittest.")
    assert correction_action(cand, old, 0.99, "s1", 0.85) == "NOOP"
    assert correction_action(cand, old, 0.80, "s2", 0.85) == "ADD"
    assert correction_action(cand, None, 0.0, "s2", 0.85) == "ADD"


def test_llm_decision_wins() -> None:
    old = _stored("Use pytest instead of unittest.")
    cand = _cand("Use pytest instead of unittest.").model_copy(update={"action": "NOOP"})
    assert correction_action(cand, old, 0.99, "s9", 0.85) == "NOOP"
