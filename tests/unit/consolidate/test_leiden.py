import itertools

import pytest

from consolidate.leiden import partition


def _clique(prefix: str, n: int) -> list[tuple[str, str, float]]:
    nodes = [f"{prefix}{i}" for i in range(n)]
    return [(a, b, 1.0) for a, b in itertools.combinations(nodes, 2)]


def _two_cliques() -> list[tuple[str, str, float]]:
    return [*_clique("a", 6), *_clique("b", 6), ("a0", "b0", 1.0)]


@pytest.mark.parametrize("backend", ["igraph", "leidenalg"])
def test_two_planted_cliques_come_out_as_two_communities(backend):
    p = partition(_two_cliques(), seed=7, backend=backend)
    groups = p.communities
    assert sorted(map(tuple, groups)) == [
        tuple(f"a{i}" for i in range(6)),
        tuple(f"b{i}" for i in range(6)),
    ]
    assert p.count == 2
    assert p.quality > 0.4


@pytest.mark.parametrize("backend", ["igraph", "leidenalg"])
def test_same_seed_gives_identical_partition(backend):
    edges = _two_cliques() + _clique("c", 5) + [("c0", "b3", 0.5), ("c1", "a2", 0.2)]
    first = partition(edges, seed=11, backend=backend)
    again = partition(list(reversed(edges)), seed=11, backend=backend)
    assert first == again


def test_empty_graph_gives_empty_partition():
    p = partition([])
    assert p.membership == {}
    assert p.count == 0
    assert p.communities == []


def test_isolated_nodes_become_singletons_and_self_loops_are_ignored():
    p = partition([("x", "x", 3.0)], nodes=["y"])
    assert p.membership == {"x": 0, "y": 1}


def test_duplicate_edges_are_summed_and_labels_are_canonical():
    edges = [*_clique("b", 4), *_clique("a", 3), ("a0", "b0", 0.1), ("b0", "a0", 0.1)]
    p = partition(edges, seed=1)
    # the larger community gets label 0 whatever the algorithm numbered it
    assert {p.membership[f"b{i}"] for i in range(4)} == {0}
    assert {p.membership[f"a{i}"] for i in range(3)} == {1}


def test_higher_resolution_splits_more():
    edges = [
        *_clique("a", 5),
        *_clique("b", 5),
        *_clique("c", 5),
        ("a0", "b0", 2.0),
        ("b1", "c1", 2.0),
        ("a1", "c0", 2.0),
    ]
    low = partition(edges, resolution=0.05, seed=3)
    high = partition(edges, resolution=1.0, seed=3)
    assert low.count < high.count
