from __future__ import annotations

import pytest

from knowledge.habits import ends_habit, ends_having


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


@pytest.mark.parametrize(
    ("statement", "parted", "ends"),
    [
        (
            "The user drives a Honda Civic, so keep the parking app set to compact.",
            "Honda Civic",
            True,
        ),
        ("Ann owns a Subaru.", "Subaru", True),
        ("Ann bought a Honda Civic in 2019.", "Honda Civic", True),
        ("The user sold their Honda Civic and bought a Tesla.", "Honda Civic", False),  # says so
        ("Ann no longer has her Subaru.", "Subaru", False),
        ("Ann washed a Honda Civic for a friend.", "Honda Civic", False),  # not hers
        ("Ann drives a Tesla.", "Honda Civic", False),
        ("Ann drives a Tesla.", "", False),
    ],
)
def test_parting_with_a_thing_ends_a_statement_of_having_it(
    statement: str, parted: str, ends: bool
) -> None:
    assert ends_having(statement, parted) is ends
