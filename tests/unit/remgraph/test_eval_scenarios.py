"""`remgraph eval scenarios` without an engine: its GraphQL documents, totals and exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphql import parse, validate
from rich.console import Console

from api.config import ApiSettings
from api.schema import build_schema
from remgraph.eval_scenarios import (
    _INGEST,
    CONTEXT_DEFAULT_LIMIT,
    EXIT_BELOW,
    EXIT_ERRORS,
    CheckResult,
    ScenarioOutcome,
    ScenarioResult,
    _context_document,
    exit_code,
    markdown,
    print_outcome,
)
from remgraph.scenario_spec import FieldError, InvalidFile


@pytest.fixture(scope="module")
def schema():  # the graphql-core schema the app serves
    return build_schema(ApiSettings(_env_file=None))._schema


@pytest.mark.parametrize(
    "flags",
    [(False, False, False), (True, False, False), (False, True, True), (True, True, True)],
)
def test_context_document_is_valid_and_passes_only_what_the_check_sets(schema, flags) -> None:
    doc = _context_document(*flags)
    assert validate(schema, parse(doc)) == []
    for on, name in zip(flags, ("asOf", "knownAt", "limit"), strict=True):
        assert (f"{name}: ${name}" in doc) is on


def test_ingest_document_is_valid(schema) -> None:
    assert validate(schema, parse(_INGEST)) == []


def test_default_limit_is_the_schema_default(schema) -> None:
    # a check with top <= the default leaves `limit` out, so it gets exactly this many items
    limit = schema.query_type.fields["context"].args["limit"]
    assert limit.default_value == CONTEXT_DEFAULT_LIMIT


def _check(index: int, passed: bool, **kw) -> CheckResult:
    base = {
        "index": index,
        "after_session": "s1",
        "query": "Where | does the user live?",
        "scenario_now": "2026-01-12T09:02:00Z",
        "as_of": None,
        "known_at": None,
        "top": 5,
        "expect_any": ["Lisbon"],
        "expect_kind": ["FACT"],
        "forbid_any": ["Berlin"],
        "passed": passed,
    }
    return CheckResult(**(base | kw))


def _outcome(*results: ScenarioResult, invalid: list[InvalidFile] | None = None) -> ScenarioOutcome:
    meta = {
        "target": "bench/scenarios",
        "engine": "embedded",
        "extractor": "offline",
        "embedding": "local:all-MiniLM-L6-v2",
        "git_commit": "abc",
        "started_at": "2026-11-24T00:00:00+00:00",
        "duration_s": 1.0,
    }
    return ScenarioOutcome(list(results), invalid or [], meta)


def _scenario(name: str, *checks: CheckResult, errors: list[str] | None = None) -> ScenarioResult:
    return ScenarioResult(
        file=f"{name}.json",
        name=name,
        project="p",
        namespace="p",
        sessions=1,
        turns=3,
        checks=list(checks),
        errors=errors or [],
    )


def test_totals_count_checks_and_whole_scenarios() -> None:
    out = _outcome(
        _scenario("a|b", _check(1, True), _check(2, False, reasons=["no item ..."])),
        _scenario("c", _check(1, True)),
        _scenario("d", _check(1, True), errors=["REM job x failed"]),
    )
    assert out.totals == {
        "scenarios": 3,
        "scenarios_passed": 1,
        "scenario_pass_rate": 0.3333,
        "checks": 4,
        "checks_passed": 3,
        "check_pass_rate": 0.75,
        "scenarios_with_errors": 1,
        "invalid_files": 0,
    }
    js = out.to_json()
    assert [s["pass_rate"] for s in js["scenarios"]] == [0.5, 1.0, 1.0]
    assert [s["passed"] for s in js["scenarios"]] == [False, True, False]
    md = markdown(out)
    assert "**Checks passed: 3/4 (75.0%)**" in md
    assert "| a\\|b | `a\\|b.json` | 1/2 | 50% | 0 |" in md
    assert "- FAIL · check 2 (after s1)" in md


def test_exit_codes() -> None:
    ran = _outcome(_scenario("a", _check(1, True), _check(2, False)))
    assert exit_code(ran, None) == 0
    assert exit_code(ran, 0.5) == 0
    assert exit_code(ran, 0.51) == EXIT_BELOW
    bad = InvalidFile(Path("x.json"), (FieldError("checks[0].top", "too big"),))
    assert exit_code(_outcome(invalid=[bad]), None) == EXIT_ERRORS
    errored = _outcome(_scenario("a", _check(1, True), errors=["engine went away"]))
    assert exit_code(errored, 0.0) == EXIT_ERRORS
    assert _outcome().totals["check_pass_rate"] == 0.0


def test_terminal_output_names_failed_checks_items_and_invalid_files() -> None:
    items = [{"rank": 1, "kind": "TURN", "score": 1.0, "text": "I live in Berlin. " * 10}]
    bad = InvalidFile(Path("x.json"), (FieldError("checks[0].top", "too big"),))
    out = _outcome(_scenario("a", _check(2, False, items=items, reasons=["why"])), invalid=[bad])
    console = Console(record=True, width=200)
    print_outcome(out, console)
    text = console.export_text()
    assert "FAIL a · check 2 (after s1): 'Where | does the user live?'" in text
    assert "expected any of ['Lisbon']; kind FACT; none of ['Berlin']" in text
    assert "#1 TURN       I live in Berlin. I live in Berlin." in text
    assert len(next(ln for ln in text.splitlines() if "#1 TURN" in ln)) < 100  # 80 chars of text
    assert "invalid x.json: checks[0].top: too big" in text
