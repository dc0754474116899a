"""The scenario format and the pass rule of `remgraph eval scenarios`, on hand-built inputs."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from remgraph.scenario_spec import (
    KIND_NAMES,
    CheckSpec,
    InvalidFile,
    Item,
    LoadedScenario,
    judge,
    load_scenarios,
    parse_scenario,
)

# --- the pass rule ---------------------------------------------------------------------------

ITEMS = [
    Item("TURN", "Let's switch the installs to Yarn, npm keeps breaking."),
    Item("CORRECTION", "Use yarn instead of npm for installing dependencies."),
    Item("FACT", "user lives in Straße 5, Berlin"),
    Item("LESSON", "Run the linter before committing: CI fails otherwise."),
    Item("TURN", "never npm again, I said"),
    Item("CORRECTION", "Never use npm in this repo."),
]


def check(**kw: Any) -> CheckSpec:
    return CheckSpec.model_validate({"query": "q", **kw})


@pytest.mark.parametrize(
    ("spec", "passed", "matched"),
    [
        # positive requirement, any kind, case-insensitive both ways
        ({"expect_any": ["YARN"]}, True, (1, 2)),
        ({"expect_any": ["yarn"], "expect_kind": "CORRECTION"}, True, (2,)),
        ({"expect_any": ["Yarn"], "expect_kind": "FACT"}, False, ()),
        # any of the strings will do
        ({"expect_any": ["pnpm", "linter"]}, True, (4,)),
        ({"expect_any": ["pnpm", "bun"]}, False, ()),
        # a list of kinds: the item must be of one of them
        ({"expect_any": ["linter"], "expect_kind": ["CORRECTION", "LESSON"]}, True, (4,)),
        ({"expect_any": ["berlin"], "expect_kind": ["CORRECTION", "LESSON"]}, False, ()),
        # case folding, not just lower(): ß matches ss
        ({"expect_any": ["STRASSE"]}, True, (3,)),
        # only the first `top` items count
        ({"expect_any": ["never use npm"]}, False, ()),
        ({"expect_any": ["never use npm"], "top": 6}, True, (6,)),
        # defaults: no requirement at all passes, even on nothing
        ({}, True, ()),
        # "" is contained in every text: "some item of this kind is in the top"
        ({"expect_any": [""], "expect_kind": "LESSON"}, True, (4,)),
        ({"expect_any": [""], "expect_kind": "TOPIC"}, False, ()),
    ],
)
def test_positive_requirement(spec: dict[str, Any], passed: bool, matched: tuple[int, ...]) -> None:
    v = judge(check(**spec), ITEMS)
    assert (v.passed, v.matched) == (passed, matched)
    assert bool(v.reasons) is not passed


@pytest.mark.parametrize(
    ("spec", "forbidden"),
    [
        # no kind: any item in the top may not contain it
        ({"forbid_any": ["NPM KEEPS"]}, ((1, "NPM KEEPS"),)),
        ({"forbid_any": ["never npm"]}, ((5, "never npm"),)),
        ({"forbid_any": ["bun", "Berlin"]}, ((3, "Berlin"),)),
        # beyond the top it does not count
        ({"forbid_any": ["never use npm"]}, ()),
        ({"forbid_any": ["never use npm"], "top": 6}, ((6, "never use npm"),)),
        # with a kind, only items of that kind are checked: the stale turn is fine
        ({"forbid_any": ["never npm"], "expect_kind": "CORRECTION"}, ()),
        ({"forbid_any": ["npm"], "expect_kind": "CORRECTION"}, ((2, "npm"),)),
        ({"forbid_any": ["npm"], "expect_kind": ["FACT", "LESSON"]}, ()),
        # every hit is reported
        (
            {"forbid_any": ["npm", "yarn"]},
            ((1, "npm"), (1, "yarn"), (2, "npm"), (2, "yarn"), (5, "npm")),
        ),
    ],
)
def test_forbidden_strings(spec: dict[str, Any], forbidden: tuple[tuple[int, str], ...]) -> None:
    v = judge(check(**spec), ITEMS)
    assert v.forbidden == forbidden
    assert v.passed is (not forbidden)
    assert len(v.reasons) == len(forbidden)


def test_both_requirements_must_hold() -> None:
    spec = {"expect_any": ["yarn"], "expect_kind": "CORRECTION", "forbid_any": ["npm"]}
    v = judge(check(**spec), ITEMS)
    assert v.matched == (2,)
    assert not v.passed
    assert v.reasons == ("#2 (CORRECTION) contains forbidden 'npm'",)
    v = judge(check(expect_any=["pnpm"], forbid_any=["bun"]), ITEMS)
    assert v.reasons == ("no item of any kind in the top 5 contains any of ['pnpm']",)


def test_an_empty_answer_fails_a_positive_check_and_passes_a_negative_one() -> None:
    assert not judge(check(expect_any=["x"]), []).passed
    assert judge(check(forbid_any=["x"]), []).passed


# --- the format ------------------------------------------------------------------------------

MINIMAL: dict[str, Any] = {
    "name": "residence",
    "project": "assistant",
    "sessions": [
        {
            "id": "s1",
            "start": "2026-01-12T09:00:00Z",
            "turns": [
                {"role": "user", "content": "I live in Berlin."},
                {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": "Thanks."},
            ],
        },
        {
            "id": "s2",
            "start": "2026-07-01T18:30:00+02:00",
            "rem": True,
            "turns": [{"role": "user", "content": "I moved to Lisbon."}],
        },
    ],
    "checks": [
        {"after_session": "s1", "query": "Where does the user live?", "expect_any": ["Berlin"]},
        {"query": "Where does the user live now?"},
    ],
}


def parse(data: Any, name: str = "x.json") -> LoadedScenario | InvalidFile:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return parse_scenario(Path(name), raw)


def valid(data: Any) -> LoadedScenario:
    got = parse(data)
    assert isinstance(got, LoadedScenario), got
    return got


def errors(data: Any) -> dict[str, str]:
    got = parse(data)
    assert isinstance(got, InvalidFile), got
    return {e.field: e.message for e in got.errors}


def with_(path: str, value: Any, base: dict[str, Any] = MINIMAL) -> dict[str, Any]:
    """A deep copy of `base` with one value set (`None` deletes the key when `value` is ...)."""
    data = json.loads(json.dumps(base))
    *parents, last = path.split(".")
    node: Any = data
    for p in parents:
        node = node[int(p)] if p.isdigit() else node[p]
    if value is ...:
        del node[int(last) if last.isdigit() else last]
    elif last.isdigit():
        node[int(last)] = value
    else:
        node[last] = value
    return data


def test_defaults_times_and_order() -> None:
    got = valid(MINIMAL)
    sc = got.scenario
    assert got.warnings == ()
    assert len(got.digest) == 64
    s1, s2 = sc.sessions
    assert (s1.rem, s2.rem) == (False, True)
    assert s1.turn_time(0) == datetime(2026, 1, 12, 9, 0, tzinfo=UTC)
    assert s1.turn_time(2) == s1.end == datetime(2026, 1, 12, 9, 2, tzinfo=UTC)
    assert s2.start == s2.end == datetime(2026, 7, 1, 16, 30, tzinfo=UTC)  # converted to UTC
    c1, c2 = sc.checks
    assert (c1.after_session, c1.expect_any) == ("s1", ("Berlin",))
    assert (c2.after_session, c2.as_of, c2.known_at, c2.top) == (None, None, None, 5)
    assert (c2.expect_any, c2.expect_kind, c2.forbid_any) == ((), None, ())
    assert [i for i, _ in sc.checks_after("s1")] == [0]
    assert [i for i, _ in sc.checks_after("s2")] == [1]  # no after_session: after the last


def test_nulls_take_defaults_and_single_strings_become_lists() -> None:
    data = with_(
        "checks.1",
        {
            "query": "q",
            "after_session": None,
            "as_of": None,
            "known_at": None,
            "top": None,
            "expect_any": "Lisbon",
            "expect_kind": None,
            "forbid_any": None,
        },
    )
    data["sessions"][0]["rem"] = None
    c = valid(data).scenario.checks[1]
    assert (c.top, c.expect_any, c.expect_kind, c.forbid_any) == (5, ("Lisbon",), None, ())
    assert valid(data).scenario.sessions[0].rem is False


def test_kinds_are_context_kinds_in_any_case() -> None:
    assert "CORRECTION" in KIND_NAMES
    assert "REFERENCE_LAYER" in KIND_NAMES
    c = valid(with_("checks.1.expect_kind", ["correction", " Lesson ", "CORRECTION"]))
    assert c.scenario.checks[1].expect_kind == ("CORRECTION", "LESSON")
    assert valid(with_("checks.1.expect_kind", [])).scenario.checks[1].expect_kind is None
    bad = errors(with_("checks.1.expect_kind", "RULE"))
    assert list(bad) == ["checks[1].expect_kind"]
    assert "unknown kind 'RULE'" in bad["checks[1].expect_kind"]
    assert "checks[1].expect_kind" in errors(with_("checks.1.expect_kind", 3))


def test_missing_name_takes_the_file_name_and_naive_times_are_utc() -> None:
    data = with_("name", ...)
    data["sessions"][0]["start"] = "2026-01-12T09:00:00"
    data["checks"][1]["as_of"] = "2026-03-01"
    got = parse(data, "berlin_lisbon.json")
    assert isinstance(got, LoadedScenario)
    assert got.scenario.name == "berlin_lisbon"
    assert got.scenario.sessions[0].start == datetime(2026, 1, 12, 9, 0, tzinfo=UTC)
    assert got.scenario.checks[1].as_of == datetime(2026, 3, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        ("checks.1.query", ..., "checks[1].query"),
        ("checks.1.query", "   ", "checks[1].query"),
        ("checks.1.top", 0, "checks[1].top"),
        ("checks.1.top", 201, "checks[1].top"),
        ("checks.1.as_of", "the day after", "checks[1].as_of"),
        ("checks.1.forbid_any", [1, 2], "checks[1].forbid_any[0]"),
        ("checks.0.after_session", "s9", "checks[0].after_session"),
        ("checks", [], "checks"),
        ("sessions", [], "sessions"),
        ("sessions.0.turns", [], "sessions[0].turns"),
        ("sessions.0.turns.1.role", "robot", "sessions[0].turns[1].role"),
        ("sessions.0.turns.1.content", "", "sessions[0].turns[1].content"),
        ("sessions.0.turns.1.content", ..., "sessions[0].turns[1].content"),
        ("sessions.1.id", "s1", "sessions[1].id"),
        ("sessions.1.start", "2026-01-12T09:01:00Z", "sessions[1].start"),
        ("sessions.0.start", ..., "sessions[0].start"),
        ("project", "  ", "project"),
    ],
)
def test_a_bad_field_is_named(path: str, value: Any, field: str) -> None:
    found = errors(with_(path, value))
    assert field in found, found


def test_sessions_may_start_when_the_previous_one_ends() -> None:
    assert isinstance(parse(with_("sessions.1.start", "2026-01-12T09:02:00Z")), LoadedScenario)


def test_unknown_fields_are_ignored_with_a_warning_naming_them() -> None:
    data = with_("description", "why this scenario")
    data["sessions"][1]["turns"][0]["speaker"] = "Ana"
    data["checks"][0]["expect_kinds"] = ["FACT"]  # a typo: reported, not silently dropped
    got = valid(data)
    assert got.warnings == (
        "description: unknown field, ignored",
        "sessions[1].turns[0].speaker: unknown field, ignored",
        "checks[0].expect_kinds: unknown field, ignored",
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{not json", "not JSON: Expecting property name enclosed in double quotes at line 1"),
        (b"[1, 2]", "must hold one JSON object"),
        (b"\xff\xfe", "not UTF-8 text"),
    ],
)
def test_a_file_that_is_not_a_scenario_object(raw: bytes, message: str) -> None:
    got = errors(raw)
    assert list(got) == ["(file)"]
    assert got["(file)"].startswith(message)


def test_a_bad_file_is_reported_and_the_others_still_load(tmp_path: Path) -> None:
    (tmp_path / "a_good.json").write_text(json.dumps(MINIMAL))
    (tmp_path / "b_bad.json").write_text(json.dumps(with_("checks.1.top", -1)))
    (tmp_path / "c_good.json").write_text(json.dumps(with_("name", "other")))
    (tmp_path / "notes.txt").write_text("not a scenario")
    good, bad = load_scenarios(tmp_path)
    assert [g.path.name for g in good] == ["a_good.json", "c_good.json"]
    assert [(b.path.name, [e.field for e in b.errors]) for b in bad] == [
        ("b_bad.json", ["checks[1].top"])
    ]
    one, none = load_scenarios(tmp_path / "c_good.json")
    assert [g.scenario.name for g in one] == ["other"]
    assert none == []
