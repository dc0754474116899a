"""`remgraph db status` with the embedded engine down says it is down and what starts it."""

from __future__ import annotations

from typer.testing import CliRunner

from remgraph.cli import app


def test_status_of_a_stopped_embedded_engine_says_the_commands_start_it(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("REMGRAPH_ENGINE", "embedded")
    monkeypatch.setenv("REMGRAPH_EMBEDDED__DATA_DIR", str(tmp_path / "remgraph"))
    r = CliRunner().invoke(app, ["db", "status"], env={"COLUMNS": "200"})
    assert r.exit_code == 1
    assert "running" in r.output
    assert "the embedded engine is not running: `remgraph up`, `serve`, `ingest`" in r.output
