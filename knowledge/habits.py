"""Habits and belongings: what a person does regularly or has, and what ends such a statement.

"I've quit coffee" ends "drinks their coffee black, two cups every morning": a statement of the
same person that names the thing given up with a verb of doing it regularly. A statement that
only mentions it ("their favourite coffee shop is Blue Bottle") stays. Likewise "I sold my
Honda Civic" ends "drives a Honda Civic" (`ends_having`), and not "sold their Honda Civic".
"""

from __future__ import annotations

import re

from core.text import search_tokens

__all__ = ["HABIT_VERBS", "PARTING", "ends_habit", "ends_having"]

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
    return _says(statement, given_up, _DOING, _NEGATED)


def _says(statement: str, thing: str, verb: re.Pattern[str], undone: re.Pattern[str]) -> bool:
    """`statement` names every content word of `thing` (stemmed) with a `verb`, and no `undone`."""
    wanted = set(search_tokens(thing))
    if not wanted or undone.search(statement):
        return False
    return wanted <= set(search_tokens(statement)) and verb.search(statement) is not None


PARTING = r"sold|gave away|given away|got rid of|gotten rid of|traded in|scrapped|returned"
"""Verbs of no longer having something ("I sold my bike")."""
_HAVING = re.compile(
    r"\b(?:has|have|had|owns?|owned|drives?|drove|rides?|rode|bought|got|gets|keeps?|kept|"
    r"uses?|used|plays?|played|adopted|is (?:getting|driving|riding|using))\b",
    re.IGNORECASE,
)
_PARTED = re.compile(rf"\b(?:{PARTING}|no longer|used to|anymore|any more)\b", re.IGNORECASE)


def ends_having(statement: str, parted: str) -> bool:
    """Whether `statement` says its subject has `parted` (so parting with it ends it).

    Every content word of `parted` must be in the statement (stemmed), with a verb of having,
    driving or owning it, and the statement must not itself say it is gone.
    """
    return _says(statement, parted, _HAVING, _PARTED)
