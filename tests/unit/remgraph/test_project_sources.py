"""`remgraph up` says which of the files it ingested became which project."""

from __future__ import annotations

from ingest.models import FileReport, IngestReport
from remgraph.serve import project_sources


def test_each_project_names_its_files_and_sessions() -> None:
    report = IngestReport(
        files=(
            FileReport(
                path="/abs/x/claude.jsonl",
                format="claude-code",
                outcome="new",
                sessions=2,
                projects={"billing": 2},
            ),
            FileReport(
                path="/abs/x/codex.jsonl",
                format="codex",
                outcome="new",
                sessions=2,
                projects={"billing": 1, "webapp": 1},
            ),
            FileReport(path="/abs/x/old.jsonl", format="generic", outcome="unchanged"),
        )
    )
    assert project_sources(report) == [
        "project billing: 3 sessions from /abs/x/claude.jsonl, /abs/x/codex.jsonl",
        "project webapp: 1 sessions from /abs/x/codex.jsonl",
    ]
