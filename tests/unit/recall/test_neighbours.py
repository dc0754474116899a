"""Neighbour links read from the fetched turns' (session, ordinal)."""

from __future__ import annotations

import random

from graph.repositories.recall import TurnFacts
from recall.candidates import turn_columns


def session_neighbours(rows: list[TurnFacts], window: int) -> dict[str, tuple[str, ...]]:
    """Turn id -> its neighbours' ids, for the turns that have any."""
    cols = turn_columns(rows, {}, {}, {}, window)
    got = {cols.ids[i]: cols.neighbours(i) for i in range(len(cols))}
    return {k: v for k, v in got.items() if v}


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


def test_turns_at_one_ordinal_are_neighbours_and_any_order_gives_the_pairs_of_the_definition() -> (
    None
):
    assert session_neighbours([_row("a", "s", 4), _row("b", "s", 4)], 0) == {
        "a": ("b",),
        "b": ("a",),
    }
    rnd = random.Random(7)
    for _ in range(200):
        rows = [
            _row(f"t{i}", rnd.choice(["s", "u", None]), rnd.choice([None, *range(8)]))
            for i in range(rnd.randrange(12))
        ]
        window = rnd.randrange(4)
        expected = {
            a.id: tuple(
                sorted(
                    b.id
                    for b in rows
                    if b is not a
                    and a.session_id is not None
                    and a.session_id == b.session_id
                    and a.ordinal is not None
                    and b.ordinal is not None
                    and abs(a.ordinal - b.ordinal) <= window
                )
            )
            for a in rows
        }
        assert session_neighbours(rows, window) == {k: v for k, v in expected.items() if v}
