"""What every source parser shares.

The parser protocol, the resumable cursor, JSONL reading with per-line issues (times are read by
`core.timeutil.parse_time`) and a session builder that keeps the statistics.

Parsers are pure: they get the file's bytes (from the cursor's offset for JSONL formats) and return
sessions, issues and the cursor to resume from. The pipeline does the file I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from core.timeutil import parse_time
from ingest.models import ParsedSession, ParsedTurn, ParseIssue, Role, SessionStats, ToolCounts
from ingest.normalize import truncate

__all__ = [
    "EPOCH",
    "JsonlLine",
    "ParseCursor",
    "ParseOptions",
    "ParseResult",
    "SessionBuilder",
    "SessionCursor",
    "SourceParser",
    "as_text",
    "iter_jsonl",
]

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MAX_LINE_BYTES = 256 * 1024 * 1024
"""Lines longer than this are reported and skipped rather than parsed."""


class SessionCursor(BaseModel):
    """Where one session stands after a parse, so an appended tail continues it exactly."""

    model_config = ConfigDict(extra="forbid")

    key: str
    project: str
    title: str = ""
    next_ordinal: int = 0
    last_turn_key: str | None = None
    last_timestamp: datetime | None = None
    stats: SessionStats = Field(default_factory=SessionStats)
    meta: dict[str, str] = Field(default_factory=dict)
    date: datetime | None = None
    pending_tools: dict[str, str] = Field(default_factory=dict)
    """Open tool calls: call id → tool name (a result may arrive in a later chunk)."""
    last_usage_id: str | None = None
    """Message id whose token usage was counted last (split records repeat it)."""


class ParseCursor(BaseModel):
    """Resume point of a JSONL file: bytes and lines consumed plus per-session state."""

    model_config = ConfigDict(extra="forbid")

    offset: int = 0
    line: int = 0
    sessions: dict[str, SessionCursor] = Field(default_factory=dict)
    current_session: str | None = None
    extra: dict[str, str] = Field(default_factory=dict)


class ParseOptions(BaseModel):
    """Knobs every parser honours."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    file: str
    """Path used in issues and provenance."""
    project: str | None = None
    """Project slug forced by the caller (`--project`)."""
    tool_payload_chars: int = 2000
    """Tool inputs/outputs longer than this are truncated (head + tail), full size kept."""


@dataclass
class ParseResult:
    """What one parse produced."""

    sessions: list[ParsedSession]
    issues: list[ParseIssue]
    cursor: ParseCursor
    skipped: int = 0
    """Records skipped on purpose (non-message record types, empty messages)."""
    failed: int = 0
    """Records lost to errors."""
    resumable: bool = True
    """False when the data was read as one document (an append cannot resume from the cursor)."""


class SourceParser(Protocol):
    """One transcript format."""

    name: str
    """Format name used by `--format`."""
    incremental: bool
    """True for append-only JSONL formats that can resume from a byte offset."""

    def sniff(self, path: Path, head: str) -> int:
        """Confidence 0–100 that the file (first KiB decoded in `head`) is in this format."""
        ...

    def parse(self, data: bytes, cursor: ParseCursor | None, opts: ParseOptions) -> ParseResult:
        """Parse `data` (the file from `cursor.offset`, or all of it) into sessions and issues."""
        ...


@dataclass(frozen=True)
class JsonlLine:
    """One decoded JSONL record."""

    line: int
    """1-based line number in the file."""
    obj: dict[str, Any]
    """The record."""
    end: int
    """Absolute byte offset just after the line (its newline included)."""


def iter_jsonl(
    data: bytes,
    *,
    start_offset: int,
    start_line: int,
    file: str,
    issues: list[ParseIssue],
    counters: dict[str, int],
) -> Iterator[JsonlLine]:
    """Yield each JSON object line of `data`; report anything else as a `ParseIssue` and go on.

    `counters["consumed"]` ends as the absolute offset up to which the data was consumed: a last
    line without a newline that does not parse is left for the next run (it is probably still
    being written), anything else is consumed. `counters["failed"]` counts lost lines.
    """
    pos = 0
    line_no = start_line
    counters.setdefault("failed", 0)
    counters["consumed"] = start_offset
    n = len(data)
    while pos < n:
        nl = data.find(b"\n", pos)
        complete = nl >= 0
        end = nl + 1 if complete else n
        raw = data[pos:nl] if complete else data[pos:]
        line_no += 1
        pos = end
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw.strip():
            counters["consumed"] = start_offset + end
            counters["lines"] = line_no
            continue
        if len(raw) > MAX_LINE_BYTES:
            issues.append(
                ParseIssue(
                    file=file,
                    line=line_no,
                    reason=f"line of {len(raw)} bytes exceeds the "
                    f"{MAX_LINE_BYTES}-byte limit; skipped",
                )
            )
            counters["failed"] += 1
            counters["consumed"] = start_offset + end
            counters["lines"] = line_no
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            text = raw.decode("utf-8", errors="replace")
            issues.append(
                ParseIssue(
                    file=file,
                    line=line_no,
                    severity="warning",
                    reason=f"invalid UTF-8 at byte {e.start} of the line; "
                    "undecodable bytes replaced with U+FFFD",
                )
            )
        # A UTF-8 byte-order mark (editors on Windows write one) opens the file's first line.
        text = text.removeprefix("\ufeff")
        try:
            obj = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as e:
            if not complete:
                issues.append(
                    ParseIssue(
                        file=file,
                        line=line_no,
                        severity="warning",
                        reason="truncated last line (no newline, not valid JSON);"
                        " left for the next run",
                    )
                )
                return
            issues.append(
                ParseIssue(
                    file=file,
                    line=line_no,
                    reason=f"malformed JSON: {getattr(e, 'msg', str(e))}"
                    f" at column {getattr(e, 'colno', '?')}",
                )
            )
            counters["failed"] += 1
            counters["consumed"] = start_offset + end
            counters["lines"] = line_no
            continue
        counters["consumed"] = start_offset + end
        counters["lines"] = line_no
        if not isinstance(obj, dict):
            issues.append(
                ParseIssue(
                    file=file,
                    line=line_no,
                    reason=f"expected a JSON object, got {type(obj).__name__}",
                )
            )
            counters["failed"] += 1
            continue
        yield JsonlLine(line=line_no, obj=obj, end=start_offset + end)


def unknown_record(file: str, line: int, kind: str | None) -> ParseIssue:
    """The warning for a record of a type the parser does not know (the record is skipped)."""
    return ParseIssue(
        file=file,
        line=line,
        severity="warning",
        reason=f"unknown record type {kind!r}; skipped",
    )


def record_failed(
    issues: list[ParseIssue],
    counters: dict[str, int],
    file: str,
    line: int,
    kind: str | None,
    error: Exception,
) -> None:
    """Count a record whose handling raised in `counters["failed"]` and report it."""
    counters["failed"] = counters.get("failed", 0) + 1
    issues.append(ParseIssue(file=file, line=line, reason=f"bad {kind!r} record: {error}"))


def as_text(value: Any) -> str:
    """Best-effort text of a content value: strings, lists of blocks/strings, or JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = []
        for item in value:
            if isinstance(item, str):
                parts.append(item)
            elif isinstance(item, dict):
                t = item.get("text")
                if isinstance(t, str):
                    parts.append(t)
                elif item.get("type") == "image" or "image" in str(item.get("type", "")):
                    parts.append("[image]")
                else:
                    parts.append(json.dumps(item, ensure_ascii=False, sort_keys=True))
            else:
                parts.append(json.dumps(item, ensure_ascii=False))
        return "\n".join(p for p in parts if p)
    if isinstance(value, dict):
        t = value.get("text")
        if isinstance(t, str):
            return t
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


@dataclass
class SessionBuilder:
    """Accumulates one session's turns and statistics on top of its cursor."""

    cursor: SessionCursor
    source: str
    file: str
    complete: bool
    turns: list[ParsedTurn] = field(default_factory=list)
    previous_turn_key: str | None = None
    _roles: dict[str, int] = field(default_factory=dict)
    _tools: dict[str, list[int]] = field(default_factory=dict)
    _models: list[str] = field(default_factory=list)
    _totals: dict[str, int] = field(default_factory=dict)
    _started: datetime | None = None
    _ended: datetime | None = None

    def __post_init__(self) -> None:
        s = self.cursor.stats
        self.previous_turn_key = self.cursor.last_turn_key
        self._roles = dict(s.messages)
        self._tools = {k: [v.calls, v.failures] for k, v in s.tools.items()}
        self._models = list(s.models)
        self._totals = {
            "tool_calls": s.tool_calls,
            "tool_failures": s.tool_failures,
            "input_tokens": s.input_tokens,
            "output_tokens": s.output_tokens,
            "compactions": s.compactions,
            "turns": s.turns,
        }
        self._started, self._ended = s.started_at, s.ended_at

    def timestamp(self, value: Any) -> datetime:
        """Parse a record's timestamp, falling back to the session's last known time."""
        ts = parse_time(value)
        if ts is None:
            ts = self.cursor.last_timestamp or self.cursor.date or EPOCH
        return ts

    def add_turn(
        self,
        *,
        key: str,
        role: Role,
        text: str,
        timestamp: datetime,
        line: int | None,
        speaker: str = "",
        tool_name: str | None = None,
        tool_ok: bool | None = None,
        parent_key: str | None = None,
        is_sidechain: bool = False,
        model: str | None = None,
        full_size: int | None = None,
        truncated: bool = False,
    ) -> ParsedTurn:
        """Append a turn with the next ordinal and count it."""
        turn = ParsedTurn(
            key=key,
            ordinal=self.cursor.next_ordinal,
            role=role,
            speaker=speaker,
            text=text,
            timestamp=timestamp,
            full_size=len(text) if full_size is None else full_size,
            truncated=truncated,
            tool_name=tool_name,
            tool_ok=tool_ok,
            parent_key=parent_key,
            is_sidechain=is_sidechain,
            model=model,
            line=line,
        )
        self.turns.append(turn)
        self.cursor.next_ordinal += 1
        self.cursor.last_turn_key = key
        self.cursor.last_timestamp = timestamp
        self._roles[role] = self._roles.get(role, 0) + 1
        self._totals["turns"] += 1
        if timestamp != EPOCH:
            self._started = timestamp if self._started is None else min(self._started, timestamp)
            self._ended = timestamp if self._ended is None else max(self._ended, timestamp)
        if model:
            self.add_model(model)
        if not self.cursor.title and role == "user" and text.strip():
            self.cursor.title = text.strip().splitlines()[0][:120]
        return turn

    def add_tool_call(self, name: str, call_id: str | None = None) -> None:
        """Count a tool call (and remember its id until the result arrives)."""
        self._tools.setdefault(name, [0, 0])[0] += 1
        self._totals["tool_calls"] += 1
        if call_id:
            self.cursor.pending_tools[call_id] = name

    def add_tool_result(self, call_id: str | None, ok: bool, name: str | None = None) -> str | None:
        """Close a pending call; count a failure; return the tool's name if known."""
        pending = self.cursor.pending_tools.pop(call_id, None) if call_id else None
        name = pending or name
        if not ok:
            self._totals["tool_failures"] += 1
            if name is not None:
                self._tools.setdefault(name, [0, 0])[1] += 1
        return name

    def add_tokens(self, input_tokens: int, output_tokens: int) -> None:
        """Add reported token usage."""
        self._totals["input_tokens"] += max(0, int(input_tokens))
        self._totals["output_tokens"] += max(0, int(output_tokens))

    def set_tokens(self, input_tokens: int, output_tokens: int) -> None:
        """Set cumulative token usage (sources that report running totals)."""
        self._totals["input_tokens"] = max(0, int(input_tokens))
        self._totals["output_tokens"] = max(0, int(output_tokens))

    def add_compaction(self) -> None:
        """Count a context compaction."""
        self._totals["compactions"] += 1

    def add_model(self, name: str) -> None:
        """Remember a model name (first-use order)."""
        if name and name not in self._models:
            self._models.append(name)

    def stats(self) -> SessionStats:
        """Frozen statistics of the session so far."""
        return SessionStats(
            started_at=self._started,
            ended_at=self._ended,
            messages=dict(self._roles),
            tool_calls=self._totals["tool_calls"],
            tool_failures=self._totals["tool_failures"],
            tools={k: ToolCounts(calls=c, failures=f) for k, (c, f) in sorted(self._tools.items())},
            input_tokens=self._totals["input_tokens"],
            output_tokens=self._totals["output_tokens"],
            compactions=self._totals["compactions"],
            models=tuple(self._models),
            turns=self._totals["turns"],
        )

    def build(self) -> ParsedSession:
        """The session as parsed so far; also refreshes the cursor's statistics."""
        stats = self.stats()
        self.cursor.stats = stats
        return ParsedSession(
            key=self.cursor.key,
            project=self.cursor.project,
            source=self.source,
            source_file=self.file,
            title=self.cursor.title,
            turns=tuple(self.turns),
            complete=self.complete,
            previous_turn_key=self.previous_turn_key,
            stats=stats,
            meta=dict(self.cursor.meta),
            date=self.cursor.date or stats.started_at,
        )


def payload(text: str, limit: int) -> tuple[str, int, bool]:
    """Truncate a tool payload: (text, full size, truncated)."""
    short, cut = truncate(text, limit)
    return short, len(text), cut


class Builders:
    """The sessions one parse touches, resumed from a cursor, in first-touch order."""

    def __init__(
        self, cursor: ParseCursor | None, source: str, file: str, limit: int = 2000
    ) -> None:
        self.limit = limit
        self.cursor = cursor.model_copy(deep=True) if cursor else ParseCursor()
        self.resumed = cursor is not None and cursor.offset > 0
        self.source = source
        self.file = file
        self.open: dict[str, SessionBuilder] = {}

    def get(self, key: str, project: str) -> SessionBuilder:
        """The builder of session `key`, created (or resumed from the cursor) on first use."""
        slot = f"{project}/{key}"
        b = self.open.get(slot)
        if b is not None:
            return b
        sc = self.cursor.sessions.get(slot)
        complete = sc is None
        if sc is None:
            sc = SessionCursor(key=key, project=project)
            self.cursor.sessions[slot] = sc
        b = SessionBuilder(cursor=sc, source=self.source, file=self.file, complete=complete)
        self.open[slot] = b
        return b

    def result(
        self, issues: list[ParseIssue], *, offset: int, line: int, skipped: int, failed: int
    ) -> ParseResult:
        """Sessions with at least one new turn or changed stats, plus the advanced cursor."""
        sessions = [b.build() for b in self.open.values()]
        self.cursor.offset = offset
        self.cursor.line = line
        return ParseResult(
            sessions=[s for s in sessions if s.stats.turns > 0],
            issues=issues,
            cursor=self.cursor,
            skipped=skipped,
            failed=failed,
        )

    def jsonl_result(
        self,
        issues: list[ParseIssue],
        counters: dict[str, int],
        start: ParseCursor,
        *,
        skipped: int,
    ) -> ParseResult:
        """`result` after an `iter_jsonl` pass from `start`: the cursor moves past what it read."""
        return self.result(
            issues,
            offset=counters.get("consumed", start.offset),
            line=counters.get("lines", start.line),
            skipped=skipped,
            failed=counters.get("failed", 0),
        )
