from __future__ import annotations

import pytest

from ingest.extract.apply import takes_the_place_of


@pytest.mark.parametrize(
    ("new", "old", "replaces"),
    [
        ("Use npm from now on.", "Use yarn.", True),  # one package manager at a time
        ("Spaces are fine now, actually I prefer spaces.", "Use tabs for indentation.", True),
        ("Use playwright for e2e tests.", "Use pytest for unit tests.", False),  # other scope
        ("Use pnpm.", "Use pnpm.", False),  # the same thing: a repeat, not a replacement
        ("Use pytest for unit tests.", "Use yarn.", False),  # another kind of tool
        ("Do not use npm.", "Use yarn.", False),  # avoiding one names no replacement
        # one date format at a time, whatever the verb; "for dates" narrows nothing
        ("Use DD/MM/YYYY for dates.", "Always write dates as YYYY-MM-DD.", True),
        ("Format dates as MM/DD/YYYY.", "Use DD.MM.YYYY for dates.", True),
        ("Use DD/MM/YYYY for dates in the admin panel.", "Write dates as YYYY-MM-DD.", False),
        ("Use DD/MM/YYYY for dates.", "Use pnpm.", False),  # another kind of thing
        ("Always write dates as YYYY-MM-DD.", "Write dates as YYYY-MM-DD.", False),  # a repeat
        # conventions without a tool: one naming case, quote style and indent width per scope
        ("Use camelCase for variable names.", "Use snake_case for variable names.", True),
        ("Use camelCase for variable names.", "Use PascalCase for class names.", False),
        ("Use double quotes for strings.", "Use single quotes for strings.", True),
        ("Use 2 spaces for indentation.", "Use 4 spaces for indentation.", True),
        ("Use tabs for indentation.", "Use 4 spaces for indentation.", True),
    ],
)
def test_a_rule_to_use_another_tool_of_the_same_kind_replaces_the_old(
    new: str, old: str, replaces: bool
) -> None:
    assert takes_the_place_of(new, old) is replaces
