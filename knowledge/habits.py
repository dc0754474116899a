"""Habits: what a person says they do regularly, and when giving one up ends such a statement.

"I've quit coffee" ends "drinks their coffee black, two cups every morning": a statement of the
same person that names the thing given up with a verb of doing it regularly. A statement that
only mentions it ("their favourite coffee shop is Blue Bottle") stays.
"""

from __future__ import annotations

import re

from core.text import search_tokens

__all__ = ["HABIT_VERBS", "ends_habit"]

HABIT_VERBS: dict[str, str] = {
    "drink": "drinking",
    "eat": "eating",
    "smoke": "smoking",
    "use": "using",
    "play": "playing",
    "take": "taking",
    "watch": "watching",
    "vape": "vaping",
}
"""Verbs of doing something regularly, with their gerund ("I stopped drinking coffee")."""

_DOING = re.compile(
    r"\b(?:"
    + "|".join(rf"{v}s?|{g}" for v, g in HABIT_VERBS.items())
    + r"|has|have|had|loves?|likes?|enjoys?|goes|runs?|does|is (?:on|into|addicted to|a)|"
    r"(?:every|each) (?:day|morning|evening|night|week)|daily|regularly|usually|always)\b",
    re.IGNORECASE,
)
_NEGATED = re.compile(r"\b(?:not|no longer|never|don't|doesn't|quit|gave up|stopped)\b", re.I)


def ends_habit(statement: str, given_up: str) -> bool:
    """Whether `statement` says its subject does `given_up` regularly (so giving it up ends it).

    Every content word of `given_up` must be in the statement (stemmed), with a verb or phrase of
    doing it regularly, and the statement must not already say it stopped.
    """
    wanted = set(search_tokens(given_up))
    if not wanted or _NEGATED.search(statement):
        return False
    return wanted <= set(search_tokens(statement)) and _DOING.search(statement) is not None
