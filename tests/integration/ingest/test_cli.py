"""The `ingest` command end to end: exit codes, JSON report, and `--watch` tailing a file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from graph.config import GraphSettings
from graph.cypher import Q
from ingest.cli import register, run_ingest
from ingest.config import IngestSettings
from tests.engines import set_engine_env

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"
_STATS = Q("admin.stats")


@pytest.fixture
def env(graph_settings: GraphSettings, monkeypatch: pytest.MonkeyPatch) -> None:
    set_engine_env(monkeypatch, graph_settings)
    monkeypatch.setenv("REMGRAPH_INGEST__EMBED", "false")


def test_cli_json_report_and_exit_codes(env: None) -> None:
    app = typer.Typer()
    register(app)

    @app.command("noop")
    def noop() -> None:  # a second command keeps `ingest` a named sub-command
        """Nothing."""

    runner = CliRunner()
    ok = runner.invoke(app, ["ingest", str(FIX / "generic"), "--json", "--no-extract"])
    assert ok.exit_code == 0, ok.output
    rep = json.loads(ok.stdout)
    assert rep["turns_new"] == 8
    assert rep["failed"] is False
    again = runner.invoke(app, ["ingest", str(FIX / "generic"), "--json"])
    assert json.loads(again.stdout)["turns_unchanged"] == 8
    bad = runner.invoke(app, ["ingest", str(FIX / "claude-code" / "edge_cases.jsonl")])
    assert bad.exit_code == 1  # the malformed line
    assert "edge_cases.jsonl:11" in bad.output
    wrong = runner.invoke(app, ["ingest", str(FIX), "--format", "nope"])
    assert wrong.exit_code == 2
    again_text = runner.invoke(app, ["ingest", str(FIX / "generic"), "--no-extract"])
    assert "nothing new: every file was already ingested" in again_text.output


def test_an_empty_folder_is_not_reported_as_already_ingested(env: None, tmp_path: Path) -> None:
    app = typer.Typer()
    register(app)

    @app.command("noop")
    def noop() -> None:
        """Nothing."""

    out = CliRunner().invoke(app, ["ingest", str(tmp_path), "--no-extract"])
    assert "no transcript found" in out.output
    assert "already ingested" not in out.output


async def test_watch_tails_appended_lines(
    graph_db, graph_settings: GraphSettings, tmp_path: Path
) -> None:
    settings = IngestSettings.model_validate(
        graph_settings.model_dump() | {"ingest": {"embed": False, "watch_interval_s": 0.05}}
    )
    log = tmp_path / "live.jsonl"

    def line(i: int) -> str:
        return (
            json.dumps(
                {
                    "session_id": "live",
                    "project": "w",
                    "role": "user",
                    "content": f"line {i}",
                    "id": f"l{i}",
                    "timestamp": i,
                }
            )
            + "\n"
        )

    log.write_text(line(0))
    stop = asyncio.Event()
    task = asyncio.create_task(
        run_ingest(
            settings,
            [tmp_path],
            fmt="auto",
            project=None,
            dry_run=False,
            as_json=True,
            extract=False,
            watch=True,
            hooks=None,
            console=Console(quiet=True),
            stop=stop,
        )
    )

    async def turns() -> int:
        rows = await graph_db.read(_STATS)
        return sum(int(r["count"]) for r in rows if r["label"] == "Turn")

    async def wait_for(n: int) -> None:
        for _ in range(400):
            if await turns() == n:
                return
            await asyncio.sleep(0.025)
        raise AssertionError(f"expected {n} turns, have {await turns()}")

    await wait_for(1)
    with log.open("a") as f:
        f.write(line(1) + line(2))
    await wait_for(3)
    with log.open("a") as f:
        f.write(line(3))
    await wait_for(4)
    stop.set()
    assert await asyncio.wait_for(task, timeout=10) == 0


def test_cli_hooks_run_unless_no_extract(env: None, tmp_path: Path) -> None:
    calls: list[str] = []

    async def hook(db, session, turn_ids) -> None:
        calls.append(session.key)

    def factory(db, settings, embedder):
        assert embedder is None  # REMGRAPH_INGEST__EMBED=false
        return [hook]

    app = typer.Typer()
    register(app, hooks=factory)

    @app.command("noop")
    def noop() -> None:
        """Nothing."""

    log = tmp_path / "a.jsonl"
    log.write_text(
        json.dumps({"session_id": "x", "role": "user", "content": "hi", "timestamp": 0}) + "\n"
    )
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(log), "--no-extract"]).exit_code == 0
    assert calls == []
    with log.open("a") as f:
        f.write(
            json.dumps({"session_id": "x", "role": "assistant", "content": "hello", "timestamp": 1})
            + "\n"
        )
    assert runner.invoke(app, ["ingest", str(log)]).exit_code == 0
    assert calls == ["x"]


def test_cli_shows_the_ledger_and_exits_3_when_extraction_falls_back(
    env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ingest.extract.service import ExtractionHook
    from tests.openai_stub import run_stub

    def down(path, body):
        return 503, {"error": {"message": "model is loading"}}

    def factory(db, settings, embedder):
        return [ExtractionHook(settings, embedder=embedder)]

    app = typer.Typer()
    register(app, hooks=factory)

    @app.command("noop")
    def noop() -> None:
        """Nothing."""

    log = tmp_path / "b.jsonl"
    log.write_text(
        json.dumps({"session_id": "y", "role": "user", "content": "No, use pnpm not npm."}) + "\n"
    )
    with run_stub(down) as stub:
        monkeypatch.setenv("REMGRAPH_EXTRACT__USE_LLM", "true")
        monkeypatch.setenv("REMGRAPH_LLM__BASE_URL", stub.base_url)
        monkeypatch.setenv("REMGRAPH_LLM__MODEL", "stub")
        monkeypatch.setenv("REMGRAPH_LLM__MAX_RETRIES", "0")
        res = CliRunner().invoke(app, ["ingest", str(log)])
    assert res.exit_code == 3, res.output
    assert "extraction: llm, 1 sessions; LLM 0 calls (0 retries, 1 failed)" in res.output
    assert "fell back to the offline rules for 1 sessions" in res.output
    assert "LLM failed" in res.output


def _jsonl(path: Path, session_id: str, lines: list[tuple[str, str]]) -> Path:
    path.write_text(
        "".join(
            json.dumps(
                {
                    "session_id": session_id,
                    "project": "demo",
                    "role": role,
                    "content": text,
                    "timestamp": f"2026-03-01T09:0{i}:00Z",
                }
            )
            + "\n"
            for i, (role, text) in enumerate(lines)
        )
    )
    return path


def test_remgraph_ingest_prints_the_llm_ledger_and_exits_3_on_a_fallback(
    env: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`remgraph ingest` with LLM extraction against the stub: ledger, issues, fallback, exit."""
    from remgraph.cli import app
    from tests.integration.extract.test_llm_path import LINES, OTHER, loose_script
    from tests.openai_stub import chat_completion, run_stub

    key = "sk-cli-test-9f8e7d6c5b4a"

    def script(path: str, body: dict) -> tuple[int, dict]:
        prompt = str(next(m for m in body["messages"] if m["role"] == "user")["content"])
        if "Deploy the worker" in prompt:  # this session's key is refused, and echoed
            return 401, {"error": {"message": f"Incorrect API key provided: {key}"}}
        status, reply = loose_script(path, body)
        usage = reply["usage"]
        return status, chat_completion(
            reply["choices"][0]["message"]["content"],
            prompt_tokens=usage["prompt_tokens"],
            completion_tokens=usage["completion_tokens"],
        )

    good = _jsonl(tmp_path / "good.jsonl", "good", LINES)
    other = _jsonl(tmp_path / "other.jsonl", "other", OTHER)
    runner = CliRunner()
    with run_stub(script) as stub:
        for name, value in {
            "REMGRAPH_EXTRACT__USE_LLM": "true",
            "REMGRAPH_INGEST__DEFER_EMBEDDINGS": "false",
            "REMGRAPH_LLM__BASE_URL": stub.base_url,
            "REMGRAPH_LLM__MODEL": "stub",
            "REMGRAPH_LLM__API_KEY": key,
            "REMGRAPH_LLM__INPUT_COST_PER_MTOK": "1.0",
            "REMGRAPH_LLM__OUTPUT_COST_PER_MTOK": "5.0",
            "COLUMNS": "400",  # one summary line per line
        }.items():
            monkeypatch.setenv(name, value)
        ok = runner.invoke(app, ["ingest", str(good)])
        fell_back = runner.invoke(app, ["ingest", str(other), "--json"])
        prompts = [b["messages"][-1]["content"] for _, b in stub.requests]
    assert ok.exit_code == 0, ok.output
    # three passes of 300 + 40 tokens at $1 / $5 per million
    assert (
        "extraction: llm, 1 sessions; LLM 3 calls (0 retries, 0 failed), 900 prompt + 120 "
        "completion tokens, $0.0015" in ok.output
    )
    assert "1 extracted records left out or repaired:" in ok.output
    assert "pass 2 decisions[1] left out: object: Field required" in ok.output
    assert "fell back" not in ok.output
    # the turns reached the model with their times, transcript first
    assert prompts[0].startswith("<transcript>\n[0] 2026-03-01 09:00 user: Set up the database")
    assert fell_back.exit_code == 3, fell_back.output
    x = json.loads(fell_back.stdout)["extraction"]
    assert x["llm_usage"]["failures"] == 1
    [note] = x["fallbacks"]
    assert note.endswith(
        "LLM failed (LLM endpoint "
        f"{stub.base_url} refused the request (HTTP 401): Error code: 401 - "
        "Incorrect API key provided: ***); used offline rules"
    )
    assert key not in ok.output + fell_back.output + caplog.text
