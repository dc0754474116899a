"""Hypothesis over `/graphql`: random and malformed documents, wrong variable types, huge strings
and limits, unknown and foreign ids, random bytes. Never a 5xx, every error has a message, an
`alpha` key never gets `beta` data back, oversize bodies get 413 naming the limit."""

from __future__ import annotations

from pathlib import Path

from tests.shared_embedder import shared_local_embedder
from tests.support.fuzz import fuzz_api


def test_graphql_fuzz_never_fails_or_leaks(tmp_path: Path):
    r = fuzz_api(tmp_path, max_examples=400, embedder=shared_local_embedder())
    assert r["failures"] == []
    assert r["inputs_tried"] >= 400
    # the fuzzer reached every kind of input and the resolvers themselves, not only the parser
    assert set(r["by_kind"]) >= {"template", "built", "raw-document", "raw-body", "deep"}
    assert r["answered_with_data"] >= 50
    assert r["fixed_cases"]["no-key"]["status"] == 401
    assert r["fixed_cases"]["bad-key"]["status"] == 401
    # JSON that is not an object, and bytes that are not UTF-8, are the client's error
    raw = {k: v["status"] for k, v in r["fixed_cases"].items() if k.startswith("raw-json")}
    assert len(raw) == 6
    assert set(raw.values()) == {400}, raw
    assert r["oversize_rejected"]
    assert "REMGRAPH_API__MAX_BODY_BYTES" in r["fixed_cases"]["oversize"]["body"]
