"""How an agent session ended, and how well it went, from what the transcript shows.

Offline and deterministic; people talking to each other (`between_people`) get neither. Signals:

- the last tool run that reports success or failure, and test runs ("12 passed", "2 failed");
- how the user closed: thanks, "works", "perfect" against "still broken", "forget it";
- the user's corrections and frustration ("I told you", "again", "!!") along the way;
- who spoke last: a request the agent never answered leaves the session `ongoing`.

`outcome` is one of `success` (closed well, at most one correction and no frustration),
`partial` (closed well after corrections, frustration or mostly failed runs), `failed` (closed
unhappy), `abandoned` (the last run failed and nobody spoke after it) or `ongoing`. `quality` in
[0, 1] starts at 0.5 and moves with the same signals; the ranking's `quality` signal lifts items
of better sessions (`RankingSection.quality_weight`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ingest.extract.models import TurnInput

__all__ = ["Assessment", "Outcome", "assess"]

Outcome = Literal["success", "partial", "failed", "abandoned", "ongoing"]

_POSITIVE = re.compile(
    r"\b(?:thanks|thank you|thx|perfect|great|awesome|excellent|works(?: now)?|working now|"
    r"lgtm|looks good|nice|good job|well done|that did it|fixed|all good|ship it)\b",
    re.IGNORECASE,
)
_NEGATIVE = re.compile(
    r"\b(?:still (?:broken|failing|not working|doesn'?t work|wrong)|doesn'?t work|not working|"
    r"broken|forget it|give up|never ?mind|useless|this is wrong|revert (?:it|that|everything))\b",
    re.IGNORECASE,
)
_TESTS_PASSED = re.compile(r"\b\d+ passed\b|\ball (?:tests|checks) pass", re.IGNORECASE)
_TESTS_FAILED = re.compile(r"\b\d+ (?:failed|errors?)\b|\bFAILED\b")


@dataclass(frozen=True)
class Assessment:
    """A session's outcome and quality, with the signals that decided them."""

    outcome: Outcome
    quality: float
    reasons: dict[str, float]


def _last_run(turns: Sequence[TurnInput]) -> tuple[int, bool] | None:
    """Index and success of the last tool turn that reports one."""
    for i in range(len(turns) - 1, -1, -1):
        t = turns[i]
        if t.role == "tool" or t.tool_name:
            if _TESTS_FAILED.search(t.text[:4000]):
                return i, False
            if _TESTS_PASSED.search(t.text[:4000]):
                return i, True
            if t.tool_ok is not None:
                return i, bool(t.tool_ok)
    return None


def assess(turns: Sequence[TurnInput], *, corrections: int, frustration: int) -> Assessment:
    """The outcome and quality of an agent session.

    Args:
        turns: the session's turns in order.
        corrections: corrections the user made in it.
        frustration: frustration cues in the user's turns.
    """
    said = [t for t in turns if t.role in ("user", "assistant") and not t.tool_name and t.text]
    users = [i for i, t in enumerate(turns) if t.role == "user" and not t.tool_name and t.text]
    run = _last_run(turns)
    closing = turns[users[-1]].text[:500] if users else ""
    positive = bool(_POSITIVE.search(closing)) and not _NEGATIVE.search(closing)
    negative = bool(_NEGATIVE.search(closing))
    runs = [t for t in turns if t.tool_ok is not None]
    failure_share = sum(1 for t in runs if not t.tool_ok) / len(runs) if runs else 0.0
    passed_last = run is not None and run[1]
    failed_last = run is not None and not run[1]
    last_is_user_request = bool(said) and said[-1].role == "user" and not positive and not negative
    if negative:
        outcome: Outcome = "failed"
    elif run is not None and not run[1] and (not users or users[-1] < run[0]):
        outcome = "abandoned"
    elif last_is_user_request:
        outcome = "ongoing"
    elif positive or passed_last:
        troubled = corrections > 1 or frustration > 0 or failure_share > 0.5
        outcome = "partial" if troubled else "success"
    else:
        outcome = "ongoing"
    reasons = {
        "closing_positive": 0.2 if positive else 0.0,
        "closing_negative": -0.25 if negative else 0.0,
        "last_run_passed": 0.15 if passed_last else 0.0,
        "last_run_failed": -0.15 if failed_last else 0.0,
        "corrections": -0.05 * min(corrections, 4),
        "frustration": -0.05 * min(frustration, 4),
        "failed_runs": -0.1 * failure_share,
    }
    quality = min(1.0, max(0.0, 0.5 + sum(reasons.values())))
    return Assessment(outcome, round(quality, 3), reasons)
