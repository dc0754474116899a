"""`vector_plan`: how much of the vector index a scope asks for, or whether it is scored whole."""

from __future__ import annotations

from recall.vectors import MAX_OVERSAMPLE, MIN_OVERSAMPLE, VectorPlan, vector_plan


def test_the_whole_graph_asks_the_least_the_index_gives() -> None:
    assert vector_plan(100, 50_000, 50_000, exact_max=2000) == VectorPlan(
        False, 100 * MIN_OVERSAMPLE
    )


def test_a_scope_asks_in_proportion_to_how_little_of_the_graph_it_holds() -> None:
    half = vector_plan(100, 50_000, 100_000, exact_max=2000)
    assert half == VectorPlan(False, 250)  # 100 x 1.25 margin / 0.5 share
    quarter = vector_plan(100, 25_000, 100_000, exact_max=2000)
    assert quarter == VectorPlan(False, 100 * MAX_OVERSAMPLE)  # 500 wanted, capped


def test_a_small_share_that_is_small_itself_is_scored_whole() -> None:
    assert vector_plan(100, 550, 2760, exact_max=2000).exact  # a fifth: 4x is not enough
    assert vector_plan(2, 2, 62, exact_max=2000).exact
    assert vector_plan(100, 0, 10_000, exact_max=2000).exact  # nothing to score: cheap
    # Too large to score each turn: the index, as widely as allowed.
    assert vector_plan(100, 20_000, 1_000_000, exact_max=2000) == VectorPlan(False, 400)
    # Switched off.
    assert not vector_plan(100, 550, 2760, exact_max=0).exact


def test_a_small_graph_whole_uses_the_index() -> None:
    # A single small project: its turns are all the index holds.
    assert vector_plan(100, 500, 500, exact_max=2000) == VectorPlan(False, 200)
    assert vector_plan(10, 0, 0, exact_max=0) == VectorPlan(False, 20)
