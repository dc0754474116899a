from __future__ import annotations

import pytest

from knowledge.habits import ends_habit


@pytest.mark.parametrize(
    ("statement", "given_up", "ends"),
    [
        ("The user drinks their coffee black, two cups every morning.", "coffee", True),
        ("Ann smokes a pack a day.", "smoking", True),
        ("Ann has a glass of red wine every evening.", "red wine", True),
        ("Ann's favourite coffee shop is Blue Bottle.", "coffee", False),  # only mentions it
        ("Ann no longer drinks coffee.", "coffee", False),  # already says it stopped
        ("Ann drinks tea every morning.", "coffee", False),
        ("Ann drinks tea every morning.", "", False),
    ],
)
def test_giving_up_ends_a_statement_of_doing_it_regularly(
    statement: str, given_up: str, ends: bool
) -> None:
    assert ends_habit(statement, given_up) is ends
