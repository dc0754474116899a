"""`remgraph eval scenarios DIR`: scripted multi-session histories, checked through `context`.

Each scenario (format and pass rule: `remgraph.scenario_spec`) is replayed on a graph that holds
nothing else, exactly as an agent would live it:

- every session goes through the GraphQL `ingestTurns` mutation of the real app (the ingest
  pipeline with knowledge extraction as configured), sent with an API key scoped to the scenario's
  project; `rem: true` then runs every REM job (`consolidate.runner.run_job`, registry order) for
  that project;
- every check asks the same app's GraphQL `context(query, project, asOf, knownAt)`;
- record time is the scenario's time: `core.timeutil.frozen_clock` holds the clock at the end of
  the session (its last turn) while it is ingested, extracted and consolidated, and at the end of
  `after_session` (the check's "scenario now") while a check runs.

Isolation (`remgraph/eval_isolation.py`, the rule every eval shares): every scenario runs alone. On
FalkorDB each scenario gets a scratch graph, dropped afterwards. On Neo4j (one database in the
Community edition) a project that already has data is refused, and so is a database that holds
any other project: topics are per project now and every read names the scenario's project, but the
fulltext index's BM25 statistics cover every project and the vector and fulltext candidate pools
are cut before the project filter, so other projects would still move the ranks that checks judge
on a project of a few turns. The project is purged afterwards, with a fingerprint of the whole
graph proving the database is as it was found. Since nothing else can be in the graph, the project
keeps the scenario's own name: a suffix would show in item texts (a fact's subject can be the
project) and change their ranking.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import platform
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
from rich.console import Console
from rich.table import Table

import remgraph
from ai.embed import Embedder, make_embedder
from api.app import create_app
from api.services import ApiServices
from consolidate.jobs import JOBS
from consolidate.runner import run_job
from consolidate.service import RemService
from core.timeutil import frozen_clock
from graph.db import GraphDB
from graph.errors import GraphError
from graph.repositories.api_keys import ApiKeyRepository
from ingest.service import IngestService
from remgraph.eval_isolation import DatabaseInUseError, EvalIsolation
from remgraph.scenario_spec import (
    DEFAULT_TOP,
    CheckSpec,
    InvalidFile,
    Item,
    LoadedScenario,
    SessionSpec,
    judge,
    load_scenarios,
)
from remgraph.settings import Settings
from remgraph.wiring import extraction_hooks

EXIT_ERRORS = 1
"""Bad input (an invalid scenario file) or an engine/product error while running."""
EXIT_BELOW = 3
"""The check pass rate is below `--fail-under`."""
TEXT_CHARS = 300
"""Characters of each item's text kept in the JSON results."""
CONTEXT_DEFAULT_LIMIT = 20
"""`context(limit:)`'s default in the schema: a check whose `top` is larger passes `limit: top`."""

_INGEST = """
mutation Ingest($input: IngestTurnsInput!) {
  ingestTurns(input: $input) {
    __typename
    ... on IngestTurnsPayload { sessionId added failures }
    ... on InvalidInput { field message }
    ... on Forbidden { message }
    ... on Unavailable { message }
  }
}
"""


class ScenarioError(Exception):
    """A scenario could not run as written (refused, engine or product error)."""


ALONE = (
    "Every read names the scenario's project, but the fulltext index's BM25 statistics span "
    "every project and candidate pools are cut before the project filter, so other projects "
    "would move the ranks a check judges; run the scenarios on an empty database"
)


# --- results ---------------------------------------------------------------------------------


@dataclass
class CheckResult:
    """One check as run: what it asked, what came back, and the verdict."""

    index: int
    after_session: str
    query: str
    scenario_now: str
    as_of: str | None
    known_at: str | None
    top: int
    expect_any: list[str]
    expect_kind: list[str] | None
    forbid_any: list[str]
    passed: bool = False
    reasons: list[str] = field(default_factory=list)
    matched_ranks: list[int] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None


@dataclass
class ScenarioResult:
    """One scenario as run."""

    file: str
    name: str
    project: str
    namespace: str
    sessions: int
    turns: int
    sha256: str = ""
    """Of the scenario file, so a result names exactly what was run."""
    rem_cycles: int = 0
    checks: list[CheckResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    duration_s: float = 0.0

    @property
    def checks_passed(self) -> int:
        return sum(c.passed for c in self.checks)

    @property
    def passed(self) -> bool:
        return not self.errors and all(c.passed for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        n = len(self.checks)
        out |= {
            "checks_total": n,
            "checks_passed": self.checks_passed,
            "pass_rate": round(self.checks_passed / n, 4) if n else 0.0,
            "passed": self.passed,
        }
        return out


@dataclass
class ScenarioOutcome:
    """A whole run: results per scenario, invalid files, totals and metadata."""

    results: list[ScenarioResult]
    invalid: list[InvalidFile]
    meta: dict[str, Any]

    @property
    def totals(self) -> dict[str, Any]:
        checks = [c for r in self.results for c in r.checks]
        passed = sum(c.passed for c in checks)
        ok = sum(r.passed for r in self.results)
        return {
            "scenarios": len(self.results),
            "scenarios_passed": ok,
            "scenario_pass_rate": round(ok / len(self.results), 4) if self.results else 0.0,
            "checks": len(checks),
            "checks_passed": passed,
            "check_pass_rate": round(passed / len(checks), 4) if checks else 0.0,
            "scenarios_with_errors": sum(bool(r.errors) for r in self.results),
            "invalid_files": len(self.invalid),
        }

    @property
    def has_errors(self) -> bool:
        return bool(self.invalid) or any(r.errors for r in self.results)

    def to_json(self) -> dict[str, Any]:
        return {
            "meta": self.meta,
            "totals": self.totals,
            "scenarios": [r.to_json() for r in self.results],
            "invalid_files": [
                {"file": str(i.path), "errors": [asdict(e) for e in i.errors]} for i in self.invalid
            ],
        }


# --- running ---------------------------------------------------------------------------------


def namespace(loaded: LoadedScenario) -> str:
    """The project a scenario runs in: its own, alone in the graph (see the module docstring)."""
    return loaded.scenario.project


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _context_document(with_as_of: bool, with_known_at: bool, with_limit: bool) -> str:
    """The `context` call with only the arguments a check sets (the API's defaults otherwise)."""
    params = ["$query: String!", "$project: String!"]
    args = ["query: $query", "project: $project"]
    for on, name, typ in (
        (with_as_of, "asOf", "DateTime"),
        (with_known_at, "knownAt", "DateTime"),
        (with_limit, "limit", "Int!"),
    ):
        if on:
            params.append(f"${name}: {typ}")
            args.append(f"{name}: ${name}")
    return (
        f"query Check({', '.join(params)}) {{ context({', '.join(args)}) {{ __typename "
        "... on ContextPayload { items { id kind text score } } "
        "... on InvalidInput { field message } ... on Forbidden { message } } }"
    )


class GraphQLClient:
    """GraphQL over the app's ASGI interface, with the scenario's API key."""

    def __init__(self, http: httpx.AsyncClient, secret: str) -> None:
        self._http = http
        self._headers = {"Authorization": f"Bearer {secret}"}

    async def call(self, document: str, variables: dict[str, Any], field_name: str) -> Any:
        r = await self._http.post(
            "/graphql", json={"query": document, "variables": variables}, headers=self._headers
        )
        try:
            body = r.json()
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        if r.status_code != 200 or body.get("errors") or not body.get("data"):
            errors = body.get("errors") or [{"message": r.text[:300]}]
            raise ScenarioError(
                f"{field_name}: HTTP {r.status_code}: "
                + "; ".join(str(e.get("message")) for e in errors)
            )
        data = body["data"][field_name]
        if data["__typename"] not in ("IngestTurnsPayload", "ContextPayload"):
            detail = data.get("message") or data
            raise ScenarioError(f"{field_name}: {data['__typename']}: {detail}")
        return data


async def _ingest(
    client: GraphQLClient, ns: str, session: SessionSpec, max_turns: int
) -> list[str]:
    """Send one session through `ingestTurns`; returns the problems it reported.

    Turns that did not land or an extraction that failed are reported and the scenario goes on;
    a request that fails altogether stops it (`ScenarioError`).
    """
    if len(session.turns) > max_turns:
        raise ScenarioError(
            f"session {session.id!r} has {len(session.turns)} turns; one ingestTurns call takes "
            f"at most {max_turns} (REMGRAPH_API__MAX_INGEST_TURNS)"
        )
    turns = [
        {"role": t.role, "text": t.content, "timestamp": _iso(session.turn_time(i))}
        for i, t in enumerate(session.turns)
    ]
    data = await client.call(
        _INGEST,
        {"input": {"project": ns, "sessionKey": session.id, "turns": turns}},
        "ingestTurns",
    )
    problems = [f"session {session.id!r}: {f}" for f in data["failures"]]
    if data["added"] != len(turns):
        problems.append(f"session {session.id!r}: {data['added']} of {len(turns)} turns stored")
    return problems


async def rem_cycle(db: GraphDB, settings: Settings, ns: str, now: datetime) -> list[str]:
    """Run every REM job for the project; returns one line per job that failed."""
    failed = []
    for name in JOBS:
        report = await run_job(name, db=db, settings=settings, now=now, project=ns)
        if report.status != "succeeded":
            failed.append(f"REM job {name} {report.status}: {report.error or report.reason}")
    return failed


def _result(
    index: int, check: CheckSpec, after: str, now: str, error: str | None = None
) -> CheckResult:
    """A check's result before it runs (or, with `error`, one that could not run)."""
    return CheckResult(
        index=index + 1,
        after_session=after,
        query=check.query,
        scenario_now=now,
        as_of=None if check.as_of is None else _iso(check.as_of),
        known_at=None if check.known_at is None else _iso(check.known_at),
        top=check.top,
        expect_any=list(check.expect_any),
        expect_kind=None if check.expect_kind is None else list(check.expect_kind),
        forbid_any=list(check.forbid_any),
        error=error,
        reasons=[] if error is None else [f"error: {error}"],
    )


async def _check(
    client: GraphQLClient, ns: str, index: int, check: CheckSpec, after: SessionSpec
) -> CheckResult:
    res = _result(index, check, after.id, _iso(after.end))
    variables: dict[str, Any] = {"query": check.query, "project": ns}
    if res.as_of is not None:
        variables["asOf"] = res.as_of
    if res.known_at is not None:
        variables["knownAt"] = res.known_at
    if check.top > CONTEXT_DEFAULT_LIMIT:
        variables["limit"] = check.top
    doc = _context_document("asOf" in variables, "knownAt" in variables, "limit" in variables)
    data = await client.call(doc, variables, "context")
    items = [
        Item(kind=str(i["kind"]), text=str(i["text"]), score=float(i["score"]), id=str(i["id"]))
        for i in data["items"]
    ]
    verdict = judge(check, items)
    res.passed = verdict.passed
    res.reasons = list(verdict.reasons)
    res.matched_ranks = list(verdict.matched)
    res.items = [
        {"rank": r, "kind": i.kind, "score": round(i.score, 4), "text": i.text[:TEXT_CHARS]}
        for r, i in enumerate(items[: check.top], start=1)
    ]
    return res


@contextlib.asynccontextmanager
async def served_app(
    db: GraphDB, settings: Settings, embedder: Embedder, project: str, name: str, at: datetime
) -> AsyncIterator[tuple[GraphQLClient, Any]]:
    """The real app on `db` (ingest with extraction, REM, `context`) and a client for it.

    The client sends an API key named `name`, scoped to `project`, created at `at`; the second
    value is the app's context-query recorder (`flush()` writes what the agent asked).
    """
    services = ApiServices(
        ingestor=IngestService(
            db, settings, embedder=embedder, hooks=extraction_hooks(db, settings, embedder)
        ),
        consolidator=RemService(db, settings),
        embedder=embedder,
        db=db,
    )
    app = create_app(settings, services)
    with frozen_clock(at):
        _, secret = await ApiKeyRepository(db).create(name[:80], [project])
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://eval") as http,
    ):
        yield GraphQLClient(http, secret), app.state.resources.recorder


async def _replay(
    db: GraphDB,
    settings: Settings,
    embedder: Embedder,
    loaded: LoadedScenario,
    result: ScenarioResult,
) -> None:
    """Ingest, consolidate and check one scenario on `db`, appending to `result`."""
    sc = loaded.scenario
    ns = result.namespace
    key = f"eval scenarios: {sc.name}"
    async with served_app(db, settings, embedder, ns, key, sc.sessions[0].start) as (
        client,
        recorder,
    ):
        for session in sc.sessions:
            with frozen_clock(session.end):
                result.errors += await _ingest(client, ns, session, settings.api.max_ingest_turns)
                if session.rem:
                    failed = await rem_cycle(db, settings, ns, session.end)
                    result.rem_cycles += 1
                    result.errors += [f"after session {session.id!r}: {f}" for f in failed]
            for index, check in sc.checks_after(session.id):
                with frozen_clock(session.end):
                    try:
                        res = await _check(client, ns, index, check, session)
                    except ScenarioError as e:
                        res = _result(index, check, session.id, _iso(session.end), str(e))
                        result.errors.append(f"check {index + 1}: {e}")
                    # What the agent asked is recorded like any request; written before going on.
                    await recorder.flush()
                result.checks.append(res)
        result.checks.sort(key=lambda c: c.index)


async def _run_one(
    loaded: LoadedScenario, iso: EvalIsolation[Settings], embedder: Embedder
) -> ScenarioResult:
    sc = loaded.scenario
    ns = namespace(loaded)
    result = ScenarioResult(
        file=loaded.path.name,
        name=sc.name,
        project=sc.project,
        namespace=ns,
        sessions=len(sc.sessions),
        turns=sum(len(s.turns) for s in sc.sessions),
        sha256=loaded.digest,
        warnings=list(loaded.warnings),
    )
    t0 = time.perf_counter()
    problems = len(iso.problems)
    try:
        async with iso.namespace(ns) as space:
            await _replay(space.db, space.settings, embedder, loaded, result)
    except DatabaseInUseError:
        raise
    except (ScenarioError, GraphError) as e:
        result.errors.append(str(e))
    except Exception as e:  # an unexpected failure of one scenario must not stop the others
        result.errors.append(f"{type(e).__name__}: {e}")
    result.errors.extend(iso.problems[problems:])
    result.duration_s = round(time.perf_counter() - t0, 2)
    missing = set(range(len(sc.checks))) - {c.index - 1 for c in result.checks}
    for i in sorted(missing):  # checks never reached because the scenario stopped early
        c = sc.checks[i]
        at = c.after_session or sc.sessions[-1].id
        result.checks.append(_result(i, c, at, "", "not run: the scenario stopped before it"))
    result.checks.sort(key=lambda c: c.index)
    return result


def git_commit() -> str | None:
    """The commit the evaluated code is at (`-dirty` with uncommitted changes), if known."""
    root = Path(remgraph.__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{head}{'-dirty' if dirty else ''}" if head else None


def eval_settings(base: Settings | None = None) -> Settings:
    """The environment's settings with extraction on and the API's process tweaks off."""
    s = base or Settings()
    return s.model_copy(
        update={
            "extract": s.extract.model_copy(update={"enabled": True}),
            "api": s.api.model_copy(update={"gc_freeze": False, "warm_start": False}),
        }
    )


async def run_scenarios(
    target: Path,
    *,
    settings: Settings | None = None,
    embedder: Embedder | None = None,
    console: Console | None = None,
) -> ScenarioOutcome:
    """Load every scenario of `target` and run the valid ones, one after another.

    Raises:
        DatabaseInUseError: the database (Neo4j) holds other projects.
        GraphError: the engine cannot be reached.
    """
    cfg = eval_settings(settings)
    loaded, invalid = load_scenarios(target)
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    emb = embedder or make_embedder(cfg.embedding)
    results: list[ScenarioResult] = []
    async with EvalIsolation.open(cfg, prefix="scenario", alone=True, why_alone=ALONE) as iso:
        for sc in loaded:
            r = await _run_one(sc, iso, emb)
            results.append(r)
            if console is not None:
                mark = (
                    "[green]ok[/]"
                    if r.passed
                    else ("[red]error[/]" if r.errors else "[yellow]fail[/]")
                )
                console.print(
                    f"{mark} {r.name}: {r.checks_passed}/{len(r.checks)} checks ({r.duration_s} s)",
                    highlight=False,
                )
    meta = {
        "target": str(target),
        "files": len(loaded) + len(invalid),
        "engine": cfg.engine.value,
        "isolation": iso.facts(),
        "extractor": "llm" if cfg.extract.use_llm else "offline",
        "embedding": f"{cfg.embedding.provider}:{cfg.embedding.model}",
        "remgraph_version": remgraph.__version__,
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "started_at": started.isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - t0, 2),
        "defaults": {
            "top": DEFAULT_TOP,
            "context_limit": CONTEXT_DEFAULT_LIMIT,
            "token_budget": cfg.api.default_token_budget,
        },
    }
    return ScenarioOutcome(results, invalid, meta)


# --- output ----------------------------------------------------------------------------------


def _expected(c: CheckResult) -> str:
    parts = []
    if c.expect_any:
        parts.append(f"any of {c.expect_any}")
    if c.expect_kind:
        parts.append(f"kind {'|'.join(c.expect_kind)}")
    if c.forbid_any:
        parts.append(f"none of {c.forbid_any}")
    return "; ".join(parts) or "(no requirement)"


def _when(c: CheckResult) -> str:
    s = f"after {c.after_session}"
    if c.as_of:
        s += f", asOf {c.as_of}"
    if c.known_at:
        s += f", knownAt {c.known_at}"
    return s


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def _short(text: str, n: int = 80) -> str:
    one = " ".join(text.split())
    return one if len(one) <= n else one[: n - 1] + "…"


def write_results(
    outcome: ScenarioOutcome, out_dir: Path, stem: str = "scenarios"
) -> tuple[Path, Path]:
    """Write `<stem>.json` and `<stem>.md` under `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    jp, mp = out_dir / f"{stem}.json", out_dir / f"{stem}.md"
    jp.write_text(json.dumps(outcome.to_json(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    mp.write_text(markdown(outcome), encoding="utf-8")
    return jp, mp


def markdown(outcome: ScenarioOutcome) -> str:
    """The results as a Markdown report."""
    t, m = outcome.totals, outcome.meta
    lines = [
        f"# Scenario evaluation: {m['target']}",
        "",
        f"Engine `{m['engine']}`, {m['extractor']} extraction, embedding `{m['embedding']}`, "
        f"commit `{m['git_commit']}`, {m['started_at']}, {m['duration_s']} s.",
        "",
        f"**Checks passed: {t['checks_passed']}/{t['checks']} ({t['check_pass_rate']:.1%})**; "
        f"scenarios with every check passed: {t['scenarios_passed']}/{t['scenarios']} "
        f"({t['scenario_pass_rate']:.1%}); scenarios with errors: {t['scenarios_with_errors']}; "
        f"invalid files: {t['invalid_files']}.",
        "",
        "| Scenario | File | Checks passed | Pass rate | Errors |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in outcome.results:
        n = len(r.checks)
        rate = r.checks_passed / n if n else 0.0
        lines.append(
            f"| {_cell(r.name)} | `{_cell(r.file)}` | {r.checks_passed}/{n} | {rate:.0%} "
            f"| {len(r.errors)} |"
        )
    lines += ["", "## Checks", ""]
    for r in outcome.results:
        lines.append(f"### {r.name}")
        lines.append("")
        for e in r.errors:
            lines.append(f"- **error**: {e}")
        for c in r.checks:
            mark = "pass" if c.passed else "FAIL"
            lines.append(f"- {mark} · check {c.index} ({_when(c)}): “{c.query}” — {_expected(c)}")
            if not c.passed:
                for reason in c.reasons:
                    lines.append(f"  - {reason}")
                for i in c.items:
                    lines.append(
                        f"  - #{i['rank']} {i['kind']} {i['score']:.3f}: {_short(i['text'])}"
                    )
        lines.append("")
    if outcome.invalid:
        lines += ["## Invalid files", ""]
        for bad in outcome.invalid:
            for fe in bad.errors:
                lines.append(f"- `{bad.path}` {fe.field}: {fe.message}")
        lines.append("")
    return "\n".join(lines)


def print_outcome(outcome: ScenarioOutcome, console: Console) -> None:
    """The per-scenario table, the failed checks with what came back, and invalid files."""
    table = Table(title="Scenario evaluation", show_lines=False)
    for col in ("Scenario", "Checks", "Rate", "Errors"):
        table.add_column(col, justify="right" if col != "Scenario" else "left")
    for r in outcome.results:
        n = len(r.checks)
        table.add_row(
            r.name,
            f"{r.checks_passed}/{n}",
            f"{r.checks_passed / n:.0%}" if n else "-",
            str(len(r.errors)) if r.errors else "",
        )
    t = outcome.totals
    table.add_row(
        "[bold]total[/]",
        f"[bold]{t['checks_passed']}/{t['checks']}[/]",
        f"[bold]{t['check_pass_rate']:.0%}[/]",
        str(t["scenarios_with_errors"]) if t["scenarios_with_errors"] else "",
    )
    console.print(table)
    for r in outcome.results:
        for e in r.errors:
            console.print(f"[red]error[/] {r.name}: {e}", highlight=False)
        for w in r.warnings:
            console.print(f"[yellow]warning[/] {r.name} ({r.file}): {w}", highlight=False)
        for c in r.checks:
            if c.passed:
                continue
            console.print(
                f"[yellow]FAIL[/] {r.name} · check {c.index} ({_when(c)}): {c.query!r}\n"
                f"  expected {_expected(c)}",
                highlight=False,
            )
            for reason in c.reasons:
                console.print(f"  - {reason}", highlight=False)
            for i in c.items:
                console.print(
                    f"    #{i['rank']} {i['kind']:<10} {_short(i['text'])}", highlight=False
                )
    for bad in outcome.invalid:
        for fe in bad.errors:
            console.print(f"[red]invalid[/] {bad.path}: {fe.field}: {fe.message}", highlight=False)
    console.print(
        f"checks passed {t['checks_passed']}/{t['checks']} ({t['check_pass_rate']:.1%}); "
        f"scenarios passed {t['scenarios_passed']}/{t['scenarios']} "
        f"({t['scenario_pass_rate']:.1%})",
        highlight=False,
    )


def exit_code(outcome: ScenarioOutcome, fail_under: float | None) -> int:
    """0: it ran; 1: invalid files or errors; 3: check pass rate below `fail_under`."""
    if outcome.has_errors:
        return EXIT_ERRORS
    if fail_under is not None and outcome.totals["check_pass_rate"] < fail_under:
        return EXIT_BELOW
    return 0


def scenarios_command(
    target: Annotated[
        Path, typer.Argument(metavar="DIR", help="A folder of scenario JSON files (or one file)")
    ],
    out: Annotated[
        Path | None, typer.Option(help="Write <stem>.json and <stem>.md into this folder")
    ] = None,
    stem: Annotated[str, typer.Option(help="Result file name stem")] = "scenarios",
    fail_under: Annotated[
        float | None,
        typer.Option(min=0.0, max=1.0, help="Exit 3 when the check pass rate is below this"),
    ] = None,
) -> None:
    """Replay scripted multi-session scenarios through ingest, REM and `context`; score checks."""
    if not target.exists():
        raise typer.BadParameter(f"{target} does not exist", param_hint="DIR")
    console = Console()
    err = Console(stderr=True)
    outcome = asyncio.run(run_scenarios(target, console=err))
    if not outcome.results and not outcome.invalid:
        err.print(f"[red]error:[/] no scenario files (*.json) in {target}")
        raise typer.Exit(EXIT_ERRORS)
    print_outcome(outcome, console)
    if out is not None:
        jp, mp = write_results(outcome, out, stem)
        console.print(f"wrote {jp} and {mp}", highlight=False)
    code = exit_code(outcome, fail_under)
    if code:
        raise typer.Exit(code)
