"""How an agent session ended: outcome and quality from runs, corrections and the closing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from ingest.extract.models import SessionInput, TurnInput
from ingest.extract.offline import OfflineExtractor
from ingest.extract.outcome import assess

T0 = datetime(2026, 1, 5, tzinfo=UTC)


def _turns(*lines: tuple) -> list[TurnInput]:
    out = []
    for i, (role, text, *tool) in enumerate(lines):
        out.append(
            TurnInput(
                id=f"t{i}",
                ordinal=i,
                role=role,
                text=text,
                timestamp=T0 + timedelta(minutes=i),
                tool_name=tool[0] if tool else None,
                tool_ok=tool[1] if tool else None,
            )
        )
    return out


FIX = (
    ("user", "The billing tests fail on a fresh checkout."),
    ("assistant", "Running pytest.", "Bash", None),
    ("tool", "ModuleNotFoundError: No module named 'billing'\n1 error", "Bash", False),
    ("assistant", "Added pythonpath to pyproject and re-ran.", "Bash", None),
    ("tool", "===== 12 passed in 0.3s =====", "Bash", True),
)


@pytest.mark.parametrize(
    ("lines", "corrections", "frustration", "outcome"),
    [
        ((*FIX, ("user", "Perfect, thanks!")), 0, 0, "success"),
        ((*FIX, ("user", "Thanks.")), 2, 1, "partial"),
        ((*FIX, ("user", "It's still broken on CI, forget it.")), 0, 0, "failed"),
        (FIX[:3], 0, 0, "abandoned"),
        ((*FIX, ("user", "Now add a test for the discount code.")), 0, 0, "ongoing"),
    ],
)
def test_outcome_follows_how_the_session_ended(lines, corrections, frustration, outcome) -> None:
    a = assess(_turns(*lines), corrections=corrections, frustration=frustration)
    assert a.outcome == outcome
    assert 0.0 <= a.quality <= 1.0


def test_quality_ranks_a_clean_fix_above_a_troubled_one_above_a_failure() -> None:
    clean = assess(_turns(*FIX, ("user", "Perfect, thanks!")), corrections=0, frustration=0)
    troubled = assess(_turns(*FIX, ("user", "Thanks.")), corrections=3, frustration=2)
    failed = assess(
        _turns(*FIX[:3], ("user", "Doesn't work, forget it.")), corrections=1, frustration=1
    )
    assert clean.quality > troubled.quality > failed.quality
    assert clean.reasons["last_run_passed"] > 0
    assert failed.reasons["closing_negative"] < 0


def test_the_extractor_stores_outcome_and_quality_for_agent_sessions_only() -> None:
    agent = OfflineExtractor().extract_sync(
        SessionInput(id="s", project="p", turns=tuple(_turns(*FIX, ("user", "Perfect, thanks!"))))
    )
    assert (agent.enrichment.outcome, agent.enrichment.quality is not None) == ("success", True)
    chat = [
        TurnInput(
            id=f"c{i}",
            ordinal=i,
            role="user" if i % 2 == 0 else "assistant",
            speaker="Ann" if i % 2 == 0 else "Bob",
            text=text,
            timestamp=T0 + timedelta(minutes=i),
        )
        for i, text in enumerate(["Hi Bob, how was the trip?", "Great, thanks! Lisbon was sunny."])
    ]
    people = OfflineExtractor().extract_sync(SessionInput(id="c", project="p", turns=tuple(chat)))
    assert (people.enrichment.outcome, people.enrichment.quality) == (None, None)
