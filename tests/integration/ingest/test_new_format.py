"""A new transcript format is one parser plus one registry line: it ingests end to end."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ai.embed import Embedder
from graph.db import GraphDB
from graph.models import SOURCE_PATTERN
from graph.repositories import SessionRepository
from ingest.config import IngestSettings
from ingest.models import ParseIssue
from ingest.pipeline import ingest_paths
from ingest.sources import detect
from ingest.sources.base import Builders, ParseCursor, ParseOptions, ParseResult
from ingest.writer import session_id


class MemoParser:
    """A made-up format: `# memo <project>` then one `speaker: text` line per turn."""

    name = "memo"
    incremental = False

    def sniff(self, path: Path, head: str) -> int:
        return 90 if head.startswith("# memo ") else 0

    def parse(self, data: bytes, cursor: ParseCursor | None, opts: ParseOptions) -> ParseResult:
        lines = data.decode("utf-8").splitlines()
        project = opts.project or lines[0].removeprefix("# memo ").strip()
        builders = Builders(None, self.name, opts.file, opts.tool_payload_chars)
        b = builders.get(Path(opts.file).stem, project)
        issues: list[ParseIssue] = []
        t0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
        for n, line in enumerate(lines[1:], start=2):
            speaker, sep, text = line.partition(": ")
            if not sep:
                issues.append(ParseIssue(file=opts.file, line=n, reason="no `speaker: text`"))
                continue
            role = "user" if speaker == "me" else "assistant"
            b.add_turn(
                key=str(n),
                role=role,
                text=text,
                timestamp=t0 + timedelta(minutes=n),
                line=n,
                speaker=speaker,
            )
        res = builders.result(issues, offset=len(data), line=len(lines), skipped=0, failed=0)
        res.resumable = False
        return res


async def test_a_registered_format_is_detected_parsed_and_stored(
    graph_db: GraphDB,
    ingest_settings: IngestSettings,
    embedder: Embedder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(detect.PARSERS, "memo", MemoParser)  # the one registry line
    f = tmp_path / "standup.jsonl"
    f.write_text("# memo team\nme: we ship friday\nbot: noted, friday\nnot a turn\n")
    assert detect.detect_format(f) == "memo"
    report = await ingest_paths(graph_db, ingest_settings, [f], run_hooks=False, embedder=embedder)
    assert report.turns_new == 2
    assert [i.reason for i in report.issues] == ["no `speaker: text`"]
    [s] = await SessionRepository(graph_db).get_many([session_id("team", "standup")])
    assert s is not None
    assert (s.source, s.project, s.turn_count) == ("memo", "team", 2)


def test_every_registered_parser_is_named_like_its_key() -> None:
    for name, cls in detect.PARSERS.items():
        assert cls.name == name
        assert re.fullmatch(SOURCE_PATTERN, name)
