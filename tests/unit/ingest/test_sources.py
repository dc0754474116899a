"""Every source parser on its fixture: counts, threading, timestamps, token totals, tool stats."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ingest.models import ParsedSession
from ingest.normalize import normalize_session
from ingest.sources.base import ParseCursor, ParseOptions, ParseResult
from ingest.sources.detect import detect_format, parser_for

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"
CODEX = FIX / "codex" / "rollout-2025-09-14T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"


def parse(path: Path, fmt: str | None = None, **kw) -> ParseResult:
    fmt = fmt or detect_format(path)
    assert fmt is not None
    return parser_for(fmt).parse(path.read_bytes(), None, ParseOptions(file=str(path), **kw))


def only(result: ParseResult) -> ParsedSession:
    assert len(result.sessions) == 1
    return result.sessions[0]


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        (FIX / "claude-code" / "representative_messages.jsonl", "claude-code"),
        (FIX / "claude-code" / "edge_cases.jsonl", "claude-code"),
        (CODEX, "codex"),
        (FIX / "chatgpt" / "conversations.json", "chatgpt"),
        (FIX / "generic" / "messages.jsonl", "generic"),
        (FIX / "generic" / "single.json", "generic"),
    ],
)
def test_detect_format(path: Path, fmt: str) -> None:
    assert detect_format(path) == fmt


def test_claude_code_sample() -> None:
    s = only(parse(FIX / "claude-code" / "representative_messages.jsonl"))
    assert s.key == "test_session"
    assert s.project == "tmp"  # from cwd
    assert [t.ordinal for t in s.turns] == list(range(12))
    assert s.turns[0].key == "msg_001"
    assert s.turns[0].timestamp == datetime(2025, 6, 14, 10, 0, tzinfo=UTC)
    assert s.stats.messages == {"user": 4, "assistant": 5, "tool": 2, "system": 1}
    assert s.stats.input_tokens == 25 + 45 + 78 + 25 + 45
    assert s.stats.output_tokens == 120 + 85 + 95 + 35 + 110
    assert s.stats.tool_calls == 2
    assert {k: (v.calls, v.failures) for k, v in s.stats.tools.items()} == {
        "Bash": (1, 0),
        "Edit": (1, 0),
    }
    assert s.stats.compactions == 1  # the `summary` record
    assert s.stats.models == ("claude-3-sonnet-20240229",)
    assert s.stats.started_at == datetime(2025, 6, 14, 10, 0, tzinfo=UTC)
    assert s.stats.ended_at == datetime(2025, 6, 14, 10, 4, tzinfo=UTC)
    assert s.stats.duration_s == 240.0
    tool = s.turns[4]
    assert (tool.role, tool.tool_name, tool.tool_ok) == ("tool", "Edit", True)


def test_claude_code_edge_cases() -> None:
    r = parse(FIX / "claude-code" / "edge_cases.jsonl")
    s = only(r)
    assert s.project == "widget"
    assert s.meta["git_branch"] == "main"
    keys = [t.key for t in s.turns]
    assert keys == [
        "summary:u-010",
        "u-001",
        "a-002",
        "a-003",
        "u-004",
        "a-005",
        "s-006",
        "s-007",
        "s-008",
        "u-009",
        "u-010",
        "a-011",
    ]
    by = {t.key: t for t in s.turns}
    assert by["a-003"].parent_key == "a-002"
    assert [t.key for t in s.turns if t.is_sidechain] == ["s-006", "s-007", "s-008"]
    assert by["a-002"].text.startswith("[thinking] ")
    # split records of one message count its usage once (input includes cache tokens)
    assert s.stats.input_tokens == 1150 + 200 + 300 + 400
    assert s.stats.output_tokens == 40 + 60 + 20 + 30
    assert by["u-004"].tool_ok is False
    assert by["u-004"].tool_name == "Bash"
    assert by["u-004"].truncated
    assert by["u-004"].full_size > 5000 > len(by["u-004"].text)
    assert s.stats.tool_failures == 1
    assert {k: (v.calls, v.failures) for k, v in s.stats.tools.items()} == {
        "Bash": (1, 1),
        "Read": (1, 0),
        "Task": (1, 0),
    }
    assert s.stats.compactions == 2  # summary record + isCompactSummary
    assert by["u-010"].role == "system"
    assert s.stats.models == ("claude-opus-4-1-20250805", "claude-sonnet-4-20250514")
    issues = sorted((i.line, i.severity) for i in r.issues)
    assert issues == [(11, "error"), (14, "warning")]
    assert r.failed == 1
    assert r.cursor.line == 15
    assert r.cursor.offset == len((FIX / "claude-code" / "edge_cases.jsonl").read_bytes())


def test_codex_rollout() -> None:
    s = only(parse(CODEX))
    assert s.key == "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
    assert s.project == "billing"
    assert s.meta["git_branch"] == "main"
    assert s.meta["cli_version"] == "0.36.0"
    assert [t.role for t in s.turns] == [
        "system",
        "user",
        "assistant",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
        "system",
    ]
    assert s.stats.input_tokens == 12000
    assert s.stats.output_tokens == 650
    assert {k: (v.calls, v.failures) for k, v in s.stats.tools.items()} == {
        "apply_patch": (1, 0),
        "shell": (2, 1),
    }
    assert s.stats.compactions == 1
    assert s.stats.models == ("gpt-5-codex",)
    assert s.turns[8].tool_ok is False
    assert s.turns[8].text.startswith("[tool_result shell ERROR]")
    assert s.turns[1].timestamp == datetime(2025, 9, 14, 10, 0, 1, 500000, tzinfo=UTC)


def test_chatgpt_follows_current_branch() -> None:
    r = parse(FIX / "chatgpt" / "conversations.json")
    assert [s.title for s in r.sessions] == ["Billing CLI name", "Chart question"]
    s = r.sessions[0]
    assert [t.key for t in s.turns] == ["u1", "a1", "u2", "a2", "t1", "a3"]  # not u2old/a2old
    assert s.turns[2].parent_key == "a1"
    assert s.stats.tools["browser"].calls == 1
    assert s.turns[0].timestamp == datetime.fromtimestamp(1726300001.0, tz=UTC)
    second = r.sessions[1]
    assert second.turns[0].text.startswith("[image]")
    assert second.turns[1].timestamp > second.turns[0].timestamp  # undated: after the previous
    assert r.skipped == 1  # the hidden system message


def test_generic_jsonl_and_json() -> None:
    r = parse(FIX / "generic" / "messages.jsonl")
    assert [(s.key, s.stats.turns) for s in r.sessions] == [("g1", 4), ("g2", 2)]
    g1, g2 = r.sessions
    assert g1.project == "notes"
    assert g1.stats.tools["read_file"].failures == 1
    assert g1.stats.input_tokens == 20
    assert [t.role for t in g2.turns] == ["user", "assistant"]
    assert g2.turns[0].timestamp == datetime(2024, 10, 1, 9, 0, tzinfo=UTC)  # epoch seconds
    assert g2.turns[1].timestamp == datetime(2024, 10, 1, 9, 1, tzinfo=UTC)  # epoch ms
    doc = only(parse(FIX / "generic" / "single.json"))
    assert (doc.key, doc.stats.turns) == ("doc1", 2)


def test_locomo_sample_one(shared_dir: Path) -> None:
    path = shared_dir / "benchmarks" / "locomo" / "locomo-dev.json"
    r = parse(path, "locomo")
    assert len(r.sessions) == 128
    assert sum(len(s.turns) for s in r.sessions) == 2760
    first = [s for s in r.sessions if s.project == "locomo-conv-26"]
    assert sum(len(s.turns) for s in first) == 419
    s1 = first[0]
    assert s1.key == "session_1"
    assert s1.date == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # "1:56 pm on 8 May, 2023"
    assert [t.key for t in s1.turns[:3]] == ["D1:1", "D1:2", "D1:3"]
    assert s1.turns[0].speaker == "Caroline"
    assert s1.turns[0].role == "user"
    assert s1.turns[1].speaker == "Melanie"
    assert s1.turns[1].role == "assistant"
    assert s1.turns[5].timestamp == datetime(2023, 5, 8, 13, 56, 5, tzinfo=UTC)
    assert r.issues == []


def test_resume_from_cursor_matches_one_pass(tmp_path: Path) -> None:
    data = CODEX.read_bytes()
    cut = data.index(b"\n", len(data) // 2) + 1
    p = parser_for("codex")
    opts = ParseOptions(file=str(CODEX))
    first = p.parse(data[:cut], None, opts)
    cursor = ParseCursor.model_validate_json(first.cursor.model_dump_json())
    second = p.parse(data[cut:], cursor, opts)
    whole = p.parse(data, None, opts)
    keys = [t.key for t in first.sessions[0].turns] + [t.key for t in second.sessions[0].turns]
    assert keys == [t.key for t in whole.sessions[0].turns]
    assert second.sessions[0].stats == whole.sessions[0].stats
    assert second.sessions[0].complete is False
    assert second.sessions[0].previous_turn_key == first.sessions[0].turns[-1].key
    # the function output in the second half is matched to its call from the first half
    assert next(t.ordinal for t in second.sessions[0].turns) == len(first.sessions[0].turns)


def test_unterminated_last_line_is_left_for_later() -> None:
    line = b'{"session_id": "s", "role": "user", "content": "hi", "timestamp": 0}'
    data = line + b"\n" + line[:30]
    r = parser_for("generic").parse(data, None, ParseOptions(file="x.jsonl"))
    assert r.cursor.offset == len(line) + 1
    assert [(i.line, i.severity) for i in r.issues] == [(2, "warning")]
    assert r.sessions[0].stats.turns == 1


def test_bad_encoding_is_reported_and_the_line_kept() -> None:
    good = b'{"session_id": "s", "role": "user", "content": "caf\xe9", "timestamp": 0}\n'
    r = parser_for("generic").parse(good, None, ParseOptions(file="x.jsonl"))
    assert [i.severity for i in r.issues] == ["warning"]
    assert "U+FFFD" in r.issues[0].reason
    assert r.sessions[0].turns[0].text == "caf\ufffd"


def test_truncated_json_document_is_one_error() -> None:
    data = (FIX / "chatgpt" / "conversations.json").read_bytes()[:500]
    r = parser_for("chatgpt").parse(data, None, ParseOptions(file="c.json"))
    assert r.sessions == []
    assert r.failed == 1
    assert [i.severity for i in r.issues] == ["error"]
    assert "not valid JSON" in r.issues[0].reason


def test_huge_tool_payload_is_cut_and_sized() -> None:
    big = "y" * 5_000_000
    rec = {
        "type": "user",
        "sessionId": "s",
        "uuid": "u1",
        "timestamp": "2025-01-01T00:00:00Z",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t", "content": big}],
        },
    }
    r = parser_for("claude-code").parse(
        (json.dumps(rec) + "\n").encode(),
        None,
        ParseOptions(file="big.jsonl", tool_payload_chars=1000),
    )
    t = r.sessions[0].turns[0]
    assert t.truncated
    assert t.full_size >= 5_000_000
    assert len(t.text) < 1100


def test_escaped_nul_and_lone_surrogates_and_crlf_survive() -> None:
    rec = '{"session_id": "s", "role": "user", "content": "a\\u0000b\\ud800c", "timestamp": 0}'
    r = parser_for("generic").parse(
        (rec + "\r\n" + rec + "\r\n").encode(), None, ParseOptions(file="x.jsonl")
    )
    assert r.issues == []
    s = normalize_session(r.sessions[0], max_chars=100)
    assert [t.text for t in s.turns] == ["ab\ufffdc", "ab\ufffdc"]
    assert s.turns[0].content_hash == s.turns[1].content_hash


def test_claude_code_agent_file_is_its_own_session() -> None:
    def rec(i: int, kind: str, text: str) -> str:
        return json.dumps(
            {
                "type": kind,
                "sessionId": "main-1",
                "agentId": "a7",
                "isSidechain": True,
                "uuid": f"x{i}",
                "parentUuid": f"x{i - 1}" if i else None,
                "timestamp": f"2025-09-01T10:00:0{i}Z",
                "message": {"role": kind, "content": [{"type": "text", "text": text}]},
            }
        )

    data = "\n".join([rec(0, "user", "find the bug"), rec(1, "assistant", "found it")]) + "\n"
    r = parser_for("claude-code").parse(data.encode(), None, ParseOptions(file="agent-a7.jsonl"))
    s = only(r)
    assert s.key == "main-1/agent-a7"
    assert s.meta["parent_session"] == "main-1"
    assert [t.is_sidechain for t in s.turns] == [True, True]


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize(
    "path",
    [
        FIX / "claude-code" / "representative_messages.jsonl",
        CODEX,
        FIX / "chatgpt" / "conversations.json",
        FIX / "generic" / "messages.jsonl",
        FIX / "generic" / "single.json",
    ],
)
def test_a_utf8_bom_loses_no_record(path: Path, tmp_path: Path) -> None:
    bommed = tmp_path / path.name
    bommed.write_bytes(BOM + path.read_bytes())
    plain, with_bom = parse(path), parse(bommed)
    assert detect_format(bommed) == detect_format(path)
    assert [len(s.turns) for s in with_bom.sessions] == [len(s.turns) for s in plain.sessions]
    assert [i.reason for i in with_bom.issues] == [i.reason for i in plain.issues]


def test_a_bommed_json_array_of_messages_keeps_every_record(tmp_path: Path) -> None:
    msgs = [
        {"session_id": "arr", "project": "notes", "role": r, "content": f"message {i}"}
        for i, r in enumerate(["user", "assistant"] * 2 + ["user"])
    ]
    path = tmp_path / "array.json"
    path.write_bytes(BOM + json.dumps(msgs).encode())
    assert sum(len(s.turns) for s in parse(path, "generic").sessions) == 5
