"""Property tests: no input crashes a parser; every lost record is reported."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest.models import ParseIssue
from ingest.sources.base import ParseOptions
from ingest.sources.detect import FORMATS, parser_for

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
keys = st.sampled_from(
    [
        "type",
        "role",
        "content",
        "message",
        "sessionId",
        "session_id",
        "timestamp",
        "payload",
        "uuid",
        "mapping",
        "conversation",
        "text",
    ]
)
records = st.dictionaries(keys, json_values, max_size=6)
lines = st.lists(
    st.one_of(
        records.map(json.dumps),
        st.text(max_size=40),
        st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
    ),
    max_size=8,
)


def _check(fmt: str, data: bytes) -> None:
    r = parser_for(fmt).parse(data, None, ParseOptions(file="fuzz.jsonl"))
    assert all(isinstance(i, ParseIssue) and i.file == "fuzz.jsonl" for i in r.issues)
    assert r.failed <= len(r.issues) + data.count(b"\n") + 1
    if r.failed:
        assert any(i.severity == "error" for i in r.issues)
    assert 0 <= r.cursor.offset <= len(data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FORMATS), lines)
def test_parsers_never_crash_on_jsonl(fmt: str, ls: list[str]) -> None:
    _check(fmt, "\n".join(ls).encode("utf-8", "surrogatepass"))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(FORMATS), st.binary(max_size=300))
def test_parsers_never_crash_on_bytes(fmt: str, data: bytes) -> None:
    _check(fmt, data)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(FORMATS), st.lists(records, max_size=5))
def test_parsers_never_crash_on_json_documents(fmt: str, docs: list[dict]) -> None:
    _check(fmt, json.dumps(docs).encode())
