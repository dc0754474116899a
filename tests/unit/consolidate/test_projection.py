from typing import Any

import numpy as np

from consolidate.projection import (
    build_edges,
    compare,
    describe,
    similar_pairs,
)
from graph.rows import KnowledgeLink, KnowledgeNode, Provenance


def _n(id: str, kind: str = "lesson", **kw: Any) -> KnowledgeNode:
    return KnowledgeNode(id=id, kind=kind, **kw)


def test_shared_turns_sessions_links_and_similarity_sum_into_one_edge():
    nodes = [
        _n("a", turn_ids=("t1",), session_ids=("s",)),
        _n("b", turn_ids=("t1",)),
        _n("c", session_ids=("s",)),
    ]
    prov = [Provenance(item_id="b", turn_id="t9", session_id="s")]
    links = [
        KnowledgeLink(source_id="a", target_id="c", type="RELATED_TO", weight=0.4),
        KnowledgeLink(source_id="a", target_id="zzz", type="DUPLICATE_OF", weight=None),
    ]
    edges = build_edges(nodes, prov, links, [("b", "c", 0.8)])
    # session s holds a, b, c: each pair gets 0.5 / (3 - 1) = 0.25
    assert edges == [("a", "b", 1.25), ("a", "c", 0.65), ("b", "c", 1.05)]


def test_similar_pairs_keeps_only_neighbours_above_threshold():
    v = np.eye(4, dtype=np.float32)
    v[1] = [0.95, 0.31, 0, 0]
    pairs = similar_pairs(["a", "b", "c", "d"], v, threshold=0.9, k=2)
    assert [(a, b) for a, b, _ in pairs] == [("a", "b")]
    assert pairs[0][2] > 0.9


def test_describe_is_extractive_and_deterministic():
    members = [
        _n("l1", title="use the graph index", keywords=("graph", "index"), weight=0.9),
        _n("c1", kind="correction", title="never scan labels", weight=0.5),
        _n("l2", title="graph index for lookups", keywords=("graph",), weight=0.2),
    ]
    d = describe(members)
    assert d.keywords[:2] == ("graph", "index")
    assert d.title == "graph, index, labels"
    assert d.summary.startswith("lesson: use the graph index; correction: never scan labels")
    assert describe(list(reversed(members))) == d


def test_compare_classifies_new_kept_merged_split_dissolved():
    prev = {"p1": {"a", "b", "c"}, "p2": {"d", "e"}, "p3": {"f", "g", "h", "i"}, "p4": {"z"}}
    cur = [{"a", "b", "c", "d", "e"}, {"f", "g"}, {"h", "i"}, {"x", "y"}]
    d = compare(prev, cur)
    assert d.merged == (0,)
    assert d.split == ("p3",)
    assert d.dissolved == ("p4",)
    assert d.new == (3,)
    assert d.as_dict() == {"new": 1, "kept": 2, "merged": 1, "split": 1, "dissolved": 1}
