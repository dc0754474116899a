"""Property tests: no input crashes a parser; every lost record is reported."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest.models import ParseIssue
from ingest.sources.base import ParseOptions
from ingest.sources.detect import formats, parser_for

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


def _check(fmt: str, data: bytes, file: str = "fuzz.jsonl") -> None:
    r = parser_for(fmt).parse(data, None, ParseOptions(file=file))
    assert all(isinstance(i, ParseIssue) and i.file == file for i in r.issues)
    assert r.failed <= len(r.issues) + data.count(b"\n") + 1
    if r.failed:
        assert any(i.severity == "error" for i in r.issues)
    assert 0 <= r.cursor.offset <= len(data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(formats()), lines)
def test_parsers_never_crash_on_jsonl(fmt: str, ls: list[str]) -> None:
    _check(fmt, "\n".join(ls).encode("utf-8", "surrogatepass"))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(formats()), st.binary(max_size=300))
def test_parsers_never_crash_on_bytes(fmt: str, data: bytes) -> None:
    _check(fmt, data)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(formats()), st.lists(records, max_size=5))
def test_parsers_never_crash_on_json_documents(fmt: str, docs: list[dict[str, object]]) -> None:
    _check(fmt, json.dumps(docs).encode(), "fuzz.json")
    _check(fmt, json.dumps({"messages": docs}).encode(), "fuzz.json")


blocks = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "thinking", "tool_use", "tool_result", "image", "x"])},
    optional={
        "text": json_values,
        "thinking": json_values,
        "id": json_values,
        "name": json_values,
        "input": json_values,
        "tool_use_id": json_values,
        "content": json_values,
        "is_error": json_values,
    },
)
claude_records = st.fixed_dictionaries(
    {"type": st.sampled_from(["user", "assistant", "summary", "system", "weird"])},
    optional={
        "sessionId": json_values,
        "uuid": json_values,
        "parentUuid": json_values,
        "timestamp": json_values,
        "isSidechain": json_values,
        "isCompactSummary": json_values,
        "cwd": json_values,
        "summary": json_values,
        "leafUuid": json_values,
        "message": st.fixed_dictionaries(
            {},
            optional={
                "role": json_values,
                "content": st.one_of(json_values, st.lists(blocks, max_size=3)),
                "model": json_values,
                "id": json_values,
                "usage": st.one_of(
                    json_values,
                    st.dictionaries(
                        st.sampled_from(["input_tokens", "output_tokens"]), json_values
                    ),
                ),
            },
        ),
    },
)
codex_records = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["session_meta", "response_item", "event_msg", "turn_context", "compacted", "x"]
        ),
        "payload": st.one_of(
            json_values,
            st.fixed_dictionaries(
                {
                    "type": st.sampled_from(
                        [
                            "message",
                            "function_call",
                            "function_call_output",
                            "reasoning",
                            "token_count",
                            "custom_tool_call",
                            "web_search_call",
                            "zzz",
                        ]
                    )
                },
                optional=dict.fromkeys(
                    (
                        "role",
                        "content",
                        "name",
                        "arguments",
                        "call_id",
                        "output",
                        "summary",
                        "info",
                        "model",
                        "id",
                        "cwd",
                        "action",
                        "input",
                        "message",
                    ),
                    json_values,
                ),
            ),
        ),
    },
    optional={"timestamp": json_values},
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(claude_records, max_size=6))
def test_claude_parser_survives_shaped_garbage(recs: list[dict[str, object]]) -> None:
    _check("claude-code", "\n".join(json.dumps(r) for r in recs).encode())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(codex_records, max_size=6))
def test_codex_parser_survives_shaped_garbage(recs: list[dict[str, object]]) -> None:
    _check("codex", "\n".join(json.dumps(r) for r in recs).encode())


generic_records = st.fixed_dictionaries(
    {"role": st.one_of(st.sampled_from(["user", "ai", "tool", "function", "nobody"]), json_values)},
    optional=dict.fromkeys(
        (
            "session_id",
            "project",
            "content",
            "text",
            "timestamp",
            "id",
            "speaker",
            "tool_name",
            "tool_ok",
            "is_error",
            "model",
            "input_tokens",
            "output_tokens",
            "parent_id",
            "title",
        ),
        json_values,
    ),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(generic_records, max_size=6))
def test_generic_parser_survives_shaped_garbage(recs: list[dict[str, object]]) -> None:
    _check("generic", "\n".join(json.dumps(r) for r in recs).encode())
    _check("generic", json.dumps(recs).encode(), "fuzz.json")
