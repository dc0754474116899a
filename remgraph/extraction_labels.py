"""The labels of `remgraph eval extraction` and the history they label (pure reads; no engine).

A labels file (`bench/labels/<corpus>.json`) is written by a person reading a real history:

```json
{"corpus": "minsky", "file": "minsky.jsonl", "project": "minsky", "notes": "…",
 "items": [{"id": "rule-01", "kind": "rule", "text": "Use jq, not grep, for JSON output.",
            "evidence": [{"session": "2025-04-27_…", "quote": "never use grep, but rather jq"}],
            "current": true, "superseded_by": null, "slot": "json_tool"}],
 "questions": [{"id": "q01", "query": "how do I filter json output?", "answers": ["rule-01"],
                "expect_any": ["jq"], "expect_kind": "CORRECTION", "forbid_any": [], "top": 5,
                "after_session": null}]}
```

`kind` is one of `rule` (a standing instruction to the agent), `decision` (a choice that shapes
later work), `fact` (a durable project or personal fact) or `lesson` (a problem and its confirmed
fix, with `problem` and `fix`). Each evidence quote is a verbatim substring of one message of
that session: it is how an item's provenance is checked. A question is an `eval scenarios`
check (`remgraph.scenario_spec.CheckSpec`) plus the ids of the items that answer it.

The history is generic JSONL (`session_id`, `role`, `content`, `timestamp`), read as
`remgraph ingest FILE --format generic` reads it.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from remgraph.scenario_spec import CheckSpec

LabelKind = Literal["rule", "decision", "fact", "lesson"]
LABEL_KINDS: tuple[LabelKind, ...] = ("rule", "decision", "fact", "lesson")


class LabelsError(ValueError):
    """A labels file or a history that cannot be read as written (one line: what and where)."""


class Evidence(BaseModel):
    """Where an item was said: a session and a verbatim quote of one of its messages."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    session: str = Field(min_length=1)
    quote: str = Field(min_length=1)


class LabelItem(BaseModel):
    """One thing a person would keep from the history."""

    model_config = ConfigDict(frozen=True, extra="allow")

    id: str = Field(min_length=1)
    kind: LabelKind
    text: str = Field(min_length=1)
    evidence: tuple[Evidence, ...] = Field(min_length=1)
    current: bool = True
    """False when a later statement replaced or retracted it."""
    superseded_by: str | None = None
    slot: str | None = None
    problem: str = ""
    fix: str = ""

    @property
    def meaning(self) -> str:
        """The text matched against a distilled item's: the statement, and a lesson's fix."""
        return " ".join(p for p in (self.text, self.problem, self.fix) if p)


class Question(CheckSpec):
    """A check of the `eval scenarios` format, with the ids of the items that answer it."""

    id: str = Field(min_length=1)
    answers: tuple[str, ...] = ()


class Unanswerable(BaseModel):
    """A question a session could ask that the history does not answer (a known unknown).

    `answerable` should score it low: it is a negative of the AUC beside the labelled
    questions whose answer the top items miss.
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    id: str = Field(min_length=1)
    query: str = Field(min_length=1)


class Labels(BaseModel):
    """A whole labels file."""

    model_config = ConfigDict(frozen=True, extra="allow")

    corpus: str = Field(min_length=1)
    file: str = ""
    project: str = Field(min_length=1)
    notes: str = ""
    items: tuple[LabelItem, ...]
    questions: tuple[Question, ...] = ()
    unanswerable: tuple[Unanswerable, ...] = ()

    @model_validator(mode="after")
    def _ids(self) -> Labels:
        ids = [i.id for i in self.items]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"duplicate item ids: {', '.join(dup)}")
        known = set(ids)
        for i in self.items:
            if i.superseded_by is not None and i.superseded_by not in known:
                raise ValueError(f"item {i.id}: superseded_by {i.superseded_by!r} is no item id")
        for q in self.questions:
            missing = [a for a in q.answers if a not in known]
            if missing:
                raise ValueError(f"question {q.id}: answers {missing} are no item ids")
        return self

    def of_kind(self, kind: LabelKind) -> list[LabelItem]:
        return [i for i in self.items if i.kind == kind]

    def sessions(self) -> set[str]:
        return {e.session for i in self.items for e in i.evidence}


def load_labels(path: Path) -> Labels:
    """Read and validate a labels file.

    Raises:
        LabelsError: not JSON, or not the format above (the first problem, with its place).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise LabelsError(f"{path}: cannot read labels: {e}") from e
    try:
        return Labels.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise LabelsError(f"{path}: {where}: {first['msg']}") from e


@dataclass(frozen=True, slots=True)
class Message:
    """One message of the history, as written (its place in its session is `index`)."""

    session: str
    index: int
    role: str
    content: str
    timestamp: str


@dataclass(frozen=True, slots=True)
class History:
    """A generic-JSONL history, grouped by session in file order."""

    path: Path
    sessions: dict[str, list[Message]]
    project: str | None

    @property
    def messages(self) -> int:
        return sum(len(m) for m in self.sessions.values())

    def last_timestamp(self) -> str:
        return max((m.timestamp for ms in self.sessions.values() for m in ms), default="")


def read_history(path: Path, *, sessions: set[str] | None = None) -> History:
    """The history's messages by session (only `sessions` when given).

    Raises:
        LabelsError: the file cannot be read, or a line is not a JSON object with a
            `session_id` and `content` (file and line named).
    """
    by_session: dict[str, list[Message]] = defaultdict(list)
    projects: set[str] = set()
    try:
        with path.open(encoding="utf-8") as f:
            for n, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                rec = _record(path, n, line)
                sid = str(rec["session_id"])
                if sessions is not None and sid not in sessions:
                    continue
                if rec.get("project"):
                    projects.add(str(rec["project"]))
                msgs = by_session[sid]
                msgs.append(
                    Message(
                        sid,
                        len(msgs),
                        str(rec.get("role", "")),
                        str(rec.get("content") or ""),
                        str(rec.get("timestamp") or ""),
                    )
                )
    except (OSError, UnicodeDecodeError) as e:
        raise LabelsError(f"{path}: cannot read the history: {e}") from e
    return History(path, dict(by_session), next(iter(projects)) if len(projects) == 1 else None)


def _record(path: Path, n: int, line: str) -> dict[str, Any]:
    try:
        rec = json.loads(line)
    except json.JSONDecodeError as e:
        raise LabelsError(f"{path}:{n}: not JSON: {e.msg}") from e
    if not isinstance(rec, dict) or "session_id" not in rec:
        raise LabelsError(f"{path}:{n}: not a generic message (no session_id)")
    return rec


def squash(text: str) -> str:
    """Whitespace folded to single spaces and case folded: how quotes are found in messages."""
    return " ".join(text.split()).casefold()


def locate(labels: Labels, history: History) -> tuple[dict[str, set[tuple[str, int]]], list[str]]:
    """Each item's messages: `(session, index)` of every message that holds one of its quotes.

    Returns the places by item id and one problem line per quote found nowhere (an item whose
    quotes are all missing has no provenance and cannot be matched).
    """
    folded = {sid: [squash(m.content) for m in msgs] for sid, msgs in history.sessions.items()}
    places: dict[str, set[tuple[str, int]]] = {}
    problems: list[str] = []
    for item in labels.items:
        found: set[tuple[str, int]] = set()
        for ev in item.evidence:
            q = squash(ev.quote)
            hits = {(ev.session, i) for i, t in enumerate(folded.get(ev.session, [])) if q in t}
            if not hits:
                where = "no such session" if ev.session not in folded else "quote not found"
                problems.append(f"item {item.id}: {where}: {ev.session}: {ev.quote[:60]!r}")
            found |= hits
        places[item.id] = found
    return places, problems
