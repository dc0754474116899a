"""The scenario format of `remgraph eval scenarios` and what makes a check pass (pure; no I/O).

One JSON file per scenario (the format of issue 14, kept exactly):

```json
{"name": "…", "project": "…",
 "sessions": [{"id": "s1", "start": "2026-01-12T09:00:00Z", "rem": false,
               "turns": [{"role": "user", "content": "…"}, {"role": "assistant", "content": "…"}]}],
 "checks": [{"after_session": "s3", "query": "…", "as_of": null, "known_at": null, "top": 5,
             "expect_any": ["yarn"], "expect_kind": "CORRECTION", "forbid_any": ["never npm"]}]}
```

Turn `i` (0-based) of a session is said at `start + i minutes`; a session ends at its last turn.
A check passes when, among the first `top` items `context` returns, (1) at least one item of an
`expect_kind` (any kind when none is given) contains one of the `expect_any` strings, and (2) no
item of an `expect_kind` (any item when none is given) contains one of the `forbid_any` strings.
Containment ignores case (Unicode case folding). Defaults: `top` 5; `expect_any` empty = no
positive requirement; `forbid_any` empty = nothing forbidden; `expect_kind` null (or `[]`) = any
kind; `after_session` null = after the last session; `as_of`/`known_at` null = the scenario's now.
A field given as JSON `null` takes its default; an unknown field is ignored with a warning.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from api.types.context import ContextKind

KIND_NAMES: tuple[str, ...] = tuple(k.name for k in ContextKind)
"""The kinds `expect_kind` may name: `context`'s item kinds as the GraphQL enum spells them."""
DEFAULT_TOP = 5
MAX_TOP = 200
"""`context` serves at most this many items (`REMGRAPH_API__MAX_LIMIT`'s default)."""
TURN_SPACING = timedelta(minutes=1)

Role = Literal["user", "assistant", "system", "tool"]


def _utc(value: datetime) -> datetime:
    """Naive times are read as UTC; aware ones are converted to UTC (millisecond precision)."""
    dt = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return dt.replace(microsecond=dt.microsecond - dt.microsecond % 1000)


class _Spec(BaseModel):
    """Base of the format's objects.

    Unknown fields are kept (and reported as ignored) rather than refused: scenario sets written
    elsewhere may carry notes, and a typo shows up as a warning.
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    @model_validator(mode="before")
    @classmethod
    def _nulls_take_defaults(cls, data: Any) -> Any:
        if isinstance(data, dict):
            optional = {n for n, f in cls.model_fields.items() if not f.is_required()}
            return {k: v for k, v in data.items() if not (v is None and k in optional)}
        return data


class TurnSpec(_Spec):
    """One message."""

    role: Role
    content: str

    @field_validator("content")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v


class SessionSpec(_Spec):
    """One session, ingested as a whole."""

    id: str
    start: datetime
    rem: bool = False
    turns: list[TurnSpec] = Field(min_length=1)

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v

    @field_validator("start")
    @classmethod
    def _start(cls, v: datetime) -> datetime:
        return _utc(v)

    def turn_time(self, i: int) -> datetime:
        """When turn `i` (0-based) is said: the session start plus one minute per turn."""
        return self.start + i * TURN_SPACING

    @property
    def end(self) -> datetime:
        """When the session ends: its last turn's time."""
        return self.turn_time(len(self.turns) - 1)


class CheckSpec(_Spec):
    """One question asked of `context` at a point of the scenario."""

    query: str
    after_session: str | None = None
    as_of: datetime | None = None
    known_at: datetime | None = None
    top: int = Field(default=DEFAULT_TOP, ge=1, le=MAX_TOP)
    expect_any: tuple[str, ...] = ()
    expect_kind: tuple[str, ...] | None = None
    forbid_any: tuple[str, ...] = ()

    @field_validator("query")
    @classmethod
    def _query(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v

    @field_validator("as_of", "known_at")
    @classmethod
    def _times(cls, v: datetime | None) -> datetime | None:
        return None if v is None else _utc(v)

    @field_validator("expect_any", "forbid_any", mode="before")
    @classmethod
    def _one_or_many(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v

    @field_validator("expect_kind", mode="before")
    @classmethod
    def _kinds(cls, v: Any) -> Any:
        names = [v] if isinstance(v, str) else v
        if not isinstance(names, list | tuple):
            raise ValueError(f"must be a kind name or a list of them: {', '.join(KIND_NAMES)}")
        out = []
        for n in names:
            if not isinstance(n, str) or n.strip().upper() not in KIND_NAMES:
                raise ValueError(f"unknown kind {n!r}; one of {', '.join(KIND_NAMES)}")
            out.append(n.strip().upper())
        return tuple(dict.fromkeys(out)) or None


class Scenario(_Spec):
    """A scripted history and the questions to ask of it."""

    name: str = ""
    project: str = "scenario"
    sessions: list[SessionSpec] = Field(min_length=1)
    checks: list[CheckSpec] = Field(min_length=1)

    @field_validator("project")
    @classmethod
    def _project(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v.strip()

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        seen: dict[str, int] = {}
        for i, s in enumerate(self.sessions):
            if s.id in seen:
                raise ValueError(f"sessions[{i}].id: {s.id!r} repeats sessions[{seen[s.id]}].id")
            seen[s.id] = i
            if i and s.start < self.sessions[i - 1].end:
                prev = self.sessions[i - 1]
                raise ValueError(
                    f"sessions[{i}].start: {s.start.isoformat()} is before the end of session "
                    f"{prev.id!r} ({prev.end.isoformat()}); sessions are replayed in order"
                )
        for i, c in enumerate(self.checks):
            if c.after_session is not None and c.after_session not in seen:
                raise ValueError(
                    f"checks[{i}].after_session: no session {c.after_session!r} "
                    f"(sessions: {', '.join(seen)})"
                )
        return self

    def checks_after(self, session_id: str) -> list[tuple[int, CheckSpec]]:
        """(0-based index, check) of the checks that run right after `session_id`, in order."""
        last = self.sessions[-1].id
        return [
            (i, c) for i, c in enumerate(self.checks) if (c.after_session or last) == session_id
        ]


# --- loading ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldError:
    """One problem of a scenario file: where (a JSON path) and what."""

    field: str
    message: str


@dataclass(frozen=True)
class LoadedScenario:
    """A valid scenario file."""

    path: Path
    scenario: Scenario
    digest: str
    """SHA-256 of the file's bytes (recorded with the results)."""
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class InvalidFile:
    """A file that is not a valid scenario, with every problem found."""

    path: Path
    errors: tuple[FieldError, ...]


def _loc(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(file)"


def _unknown_fields(model: BaseModel, path: str = "") -> list[str]:
    found = [f"{path}{'.' if path else ''}{k}" for k in (model.model_extra or {})]
    for name in type(model).model_fields:
        value = getattr(model, name)
        items = value if isinstance(value, list) else [value]
        for i, v in enumerate(items):
            if isinstance(v, BaseModel):
                sub = f"{path}{'.' if path else ''}{name}" + (
                    f"[{i}]" if isinstance(value, list) else ""
                )
                found += _unknown_fields(v, sub)
    return found


def parse_scenario(path: Path, raw: bytes) -> LoadedScenario | InvalidFile:
    """Validate one file's bytes; never raises for bad content."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        return InvalidFile(path, (FieldError("(file)", f"not UTF-8 text: {e.reason}"),))
    except json.JSONDecodeError as e:
        return InvalidFile(
            path, (FieldError("(file)", f"not JSON: {e.msg} at line {e.lineno} column {e.colno}"),)
        )
    if not isinstance(data, dict):
        return InvalidFile(path, (FieldError("(file)", "must hold one JSON object"),))
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as e:
        errors = []
        for err in e.errors(include_url=False):
            msg = str(err["msg"]).removeprefix("Value error, ")
            loc = _loc(err["loc"])
            if loc == "(file)" and ": " in msg and msg.split(": ", 1)[0][:1].isalpha():
                loc, msg = msg.split(": ", 1)  # a cross-field error names its own field
            errors.append(FieldError(loc, msg))
        return InvalidFile(path, tuple(errors))
    if not scenario.name.strip():
        scenario = scenario.model_copy(update={"name": path.stem})
    warnings = tuple(f"{f}: unknown field, ignored" for f in _unknown_fields(scenario))
    return LoadedScenario(path, scenario, hashlib.sha256(raw).hexdigest(), warnings)


def scenario_files(target: Path) -> list[Path]:
    """The scenario files of `target`: the file itself, or a directory's `*.json`, sorted."""
    if target.is_file():
        return [target]
    return sorted(p for p in target.glob("*.json") if p.is_file())


def load_scenarios(target: Path) -> tuple[list[LoadedScenario], list[InvalidFile]]:
    """Every valid scenario of `target` and every invalid file, each reported on its own."""
    good: list[LoadedScenario] = []
    bad: list[InvalidFile] = []
    for p in scenario_files(target):
        try:
            raw = p.read_bytes()
        except OSError as e:
            bad.append(InvalidFile(p, (FieldError("(file)", f"cannot read: {e.strerror}"),)))
            continue
        got = parse_scenario(p, raw)
        if isinstance(got, LoadedScenario):
            good.append(got)
        else:
            bad.append(got)
    return good, bad


# --- judging a check -------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    """One `context` item as the check sees it."""

    kind: str
    """The GraphQL `ContextKind` name (`TURN`, `CORRECTION`, ...)."""
    text: str
    score: float = 0.0
    id: str = ""


@dataclass(frozen=True)
class Verdict:
    """Whether a check passed, and why."""

    passed: bool
    matched: tuple[int, ...] = ()
    """1-based ranks of the items that meet the positive requirement."""
    forbidden: tuple[tuple[int, str], ...] = ()
    """(rank, string) of each forbidden string found in an item the check covers."""
    reasons: tuple[str, ...] = field(default=())


def _fold(s: str) -> str:
    return unicodedata.normalize("NFC", s).casefold()


def _kinds_text(kinds: tuple[str, ...] | None) -> str:
    return "any kind" if kinds is None else "kind " + "|".join(kinds)


def judge(check: CheckSpec, items: Sequence[Item]) -> Verdict:
    """Apply the pass rule to the items `context` returned (only the first `top` count)."""
    top = list(items[: check.top])
    kinds = check.expect_kind

    def covered(i: Item) -> bool:
        return kinds is None or i.kind in kinds

    matched: list[int] = []
    forbidden: list[tuple[int, str]] = []
    expect = [_fold(s) for s in check.expect_any]
    for rank, item in enumerate(top, start=1):
        if not covered(item):
            continue
        text = _fold(item.text)
        if any(e in text for e in expect):
            matched.append(rank)
        forbidden.extend((rank, f) for f in check.forbid_any if _fold(f) in text)
    reasons = []
    if check.expect_any and not matched:
        reasons.append(
            f"no item of {_kinds_text(kinds)} in the top {check.top} contains any of "
            f"{list(check.expect_any)}"
        )
    for rank, f in forbidden:
        reasons.append(f"#{rank} ({top[rank - 1].kind}) contains forbidden {f!r}")
    return Verdict(
        passed=not reasons,
        matched=tuple(matched) if check.expect_any else (),
        forbidden=tuple(forbidden),
        reasons=tuple(reasons),
    )
