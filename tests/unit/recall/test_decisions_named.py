"""A decision in force opens an answer only when the query names what it is about."""

from __future__ import annotations

import pytest

from graph.kinds import ItemKind
from recall.items import Candidate
from recall.lexical import tokenize
from recall.opening import names_decision as _names_decision

PNPM = Candidate(
    id="fct_pm",
    kind=ItemKind.FACT,
    text="webapp: package manager uses pnpm (package manager)",
    tokens=12,
    project="webapp",
    speaker="package manager",
    status="decision",
    predicate="uses",
)


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("Which package manager does this repo use?", True),  # the category / subject
        ("Is pnpm installed on the CI runners?", True),  # the object
        ("Which HTTP client should I use for the webapp?", False),  # predicate and project only
        ("Write the login form", False),
    ],
)
def test_a_decision_is_named_by_its_subject_object_or_category(query: str, named: bool) -> None:
    assert _names_decision(PNPM, frozenset(tokenize(query))) is named


def test_only_decisions_are_named_this_way() -> None:
    pref = Candidate(**{**{f: getattr(PNPM, f) for f in PNPM.__slots__}, "status": "preference"})
    assert not _names_decision(pref, frozenset(tokenize("which package manager")))
