"""The typed rows of `RecallRepository` match the shared Cypher column lists, declared once.

A new knowledge column is added in `cypher/recall/knowledge_columns.cypher` and in `KnowledgeHit`
(plus its mapping), never in the six dialect files that search by text and by embedding.
"""

from __future__ import annotations

import dataclasses
import re

import pytest

from graph.cypher import Dialect, registry
from graph.repositories.recall import KnowledgeHit, TurnFacts

_RETURNS_LINE = re.compile(r"^//\s*returns\s*:", re.MULTILINE)


@pytest.mark.parametrize(
    ("row", "fragment", "queries"),
    [
        (
            KnowledgeHit,
            "recall.knowledge_columns",
            ("recall.knowledge_fulltext", "recall.knowledge_vector", "recall.knowledge_of_turns"),
        ),
        (TurnFacts, "recall.turn_columns", ("recall.turns_fetch",)),
    ],
)
def test_row_fields_are_the_fragment_columns_and_only_it_declares_them(
    row: type, fragment: str, queries: tuple[str, ...]
) -> None:
    reg = registry()
    [frag] = [f for f in reg.fragments() if f.name == fragment]
    assert tuple(f.name for f in dataclasses.fields(row)) == frag.returns
    for name in queries:
        for d in Dialect:
            q = reg.get(name, d)
            assert fragment in q.includes, f"{q.path} does not end in {fragment}"
            assert q.returns == frag.returns
            header = q.path.read_text(encoding="utf-8")
            assert not _RETURNS_LINE.search(header), f"{q.path}: columns belong to {fragment}"
    declaring = [
        q.path
        for d in Dialect
        for n in reg.names(d)
        if (q := reg.get(n, d)).returns == frag.returns
        and _RETURNS_LINE.search(q.path.read_text(encoding="utf-8"))
    ]
    assert declaring == []
