"""The FalkorDB adapter's compact-reply decoder, on replies captured from the embedded engine."""

from __future__ import annotations

import pytest

from graph.engines.falkordb import _NeedsEntitiesError, decode_compact

# `RETURN 'a' AS s, 1 AS i, 1.5 AS f, true AS b, null AS n, [1,'x'] AS l, {k: 1, m: [false]} AS m,
#  point({latitude:1.0, longitude:2.0}) AS p, vecf32([0.5, 1.0]) AS v` as FalkorDB 4.x sent it.
EVERY_SCALAR = [
    [[1, "s"], [1, "i"], [1, "f"], [1, "b"], [1, "n"], [1, "l"], [1, "m"], [1, "p"], [1, "v"]],
    [
        [
            [2, "a"],
            [3, 1],
            [5, "1.5"],
            [4, "true"],
            [1, None],
            [6, [[3, 1], [2, "x"]]],
            [10, ["k", [3, 1], "m", [6, [[4, "false"]]]]],
            [11, ["1", "2"]],
            [12, [0.5, 1.0]],
        ]
    ],
    ["Cached execution: 0", "Query internal execution time: 0.380694 milliseconds"],
]


def test_every_scalar_type_decodes_to_plain_python() -> None:
    cols, rows = decode_compact(EVERY_SCALAR)
    assert cols == ["s", "i", "f", "b", "n", "l", "m", "p", "v"]
    assert rows == [
        [
            "a",
            1,
            1.5,
            True,
            None,
            [1, "x"],
            {"k": 1, "m": [False]},
            {"latitude": 1.0, "longitude": 2.0},
            [0.5, 1.0],
        ]
    ]
    assert type(rows[0][2]) is float
    assert type(rows[0][1]) is int


def test_empty_result_keeps_its_columns_and_statistics_only_has_none() -> None:
    assert decode_compact([[[1, "id"]], [], ["Cached execution: 0"]]) == (["id"], [])
    assert decode_compact([["Nodes created: 1"]]) == ([], [])


def test_graph_entities_are_left_to_the_schema_aware_parser() -> None:
    node_reply = [[[1, "t"]], [[[8, [0, [0], [[0, 2, "x"]]]]]], ["Cached execution: 0"]]
    with pytest.raises(_NeedsEntitiesError):
        decode_compact(node_reply)
