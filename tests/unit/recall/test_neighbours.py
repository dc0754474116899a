"""Neighbour links read from the fetched turns' (session, ordinal)."""

from __future__ import annotations

from graph.repositories.recall import TurnFacts
from recall.candidates import session_neighbours


def _row(i: str, session: str | None, ordinal: int | None) -> TurnFacts:
    return TurnFacts(
        id=i,
        project="p",
        session_id=session,
        ordinal=ordinal,
        speaker="",
        tokens=0,
        valid_from=None,
        valid_to=None,
        quality=None,
        similarity=None,
    )


def test_links_turns_of_one_session_within_the_window_both_ways() -> None:
    rows = [_row("a", "s", 1), _row("c", "s", 3), _row("b", "s", 2), _row("d", "s", 6)]
    got = session_neighbours(rows, 2)
    assert got["a"] == ("b", "c")
    assert got["b"] == ("a", "c")
    assert got["c"] == ("a", "b")
    assert "d" not in got  # four ordinals away from c


def test_never_links_across_sessions_or_turns_without_an_ordinal() -> None:
    rows = [_row("a", "s", 1), _row("b", "t", 2), _row("c", None, 1), _row("e", "s", None)]
    assert session_neighbours(rows, 3) == {}


def test_window_zero_links_nothing_and_a_gap_counts_in_ordinals() -> None:
    rows = [_row("a", "s", 1), _row("b", "s", 2), _row("c", "s", 5)]
    assert session_neighbours(rows, 0) == {}
    assert session_neighbours(rows, 1) == {"a": ("b",), "b": ("a",)}
