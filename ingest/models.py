"""Pipeline DTOs: what parsers produce and what a run reports.

These are deliberately separate from the domain models in `graph/models.py`: a parser knows source
keys, line numbers and partial statistics; the writer maps them to the graph's shapes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "FileOutcome",
    "FileReport",
    "IngestReport",
    "ParseIssue",
    "ParsedSession",
    "ParsedTurn",
    "Role",
    "SessionStats",
    "Severity",
    "ToolCounts",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

Role = Literal["user", "assistant", "system", "tool"]
Severity = Literal["error", "warning", "info"]
FileOutcome = Literal["new", "appended", "changed", "unchanged", "failed", "dry-run"]


class ParseIssue(BaseModel):
    """Something a parser could not take as it was: the record is skipped or repaired, not fatal."""

    model_config = _FROZEN

    file: str
    """Path of the source file."""
    line: int | None = None
    """1-based line (JSONL) or record position; None when the issue concerns the whole file."""
    reason: str
    """What went wrong, in words a person can act on."""
    severity: Severity = "error"
    """`error`: a record was lost; `warning`: repaired or skipped on purpose; `info`: noted."""


class ToolCounts(BaseModel):
    """Calls and failures of one tool within a session."""

    model_config = _FROZEN

    calls: int = 0
    """How often the tool was called."""
    failures: int = 0
    """How many of those calls failed."""


class SessionStats(BaseModel):
    """Aggregates over every turn of a session seen so far (carried across incremental runs)."""

    model_config = _FROZEN

    started_at: datetime | None = None
    """Earliest turn timestamp."""
    ended_at: datetime | None = None
    """Latest turn timestamp."""
    messages: dict[str, int] = Field(default_factory=dict)
    """Turn counts per role."""
    tool_calls: int = 0
    """Tool calls the assistant made."""
    tool_failures: int = 0
    """Tool calls whose result was an error."""
    tools: dict[str, ToolCounts] = Field(default_factory=dict)
    """Per-tool calls and failures."""
    input_tokens: int = 0
    """Input tokens reported by the source."""
    output_tokens: int = 0
    """Output tokens reported by the source."""
    compactions: int = 0
    """Context compactions (compaction summaries)."""
    models: tuple[str, ...] = ()
    """Model names, in order of first use."""
    turns: int = 0
    """Turns in the session."""

    @property
    def duration_s(self) -> float:
        """Seconds between the first and the last turn."""
        if self.started_at is None or self.ended_at is None:
            return 0.0
        return max(0.0, (self.ended_at - self.started_at).total_seconds())


class ParsedTurn(BaseModel):
    """One message as a parser read it (after `normalize`, text is clean and bounded)."""

    model_config = _FROZEN

    key: str
    """The source's own id for the message (uuid, node id, `dia_id`) or a stable substitute."""
    ordinal: int
    """0-based position within its session."""
    role: Role
    """Who produced it."""
    speaker: str = ""
    """Display name (LoCoMo speaker, model name, tool name)."""
    text: str
    """Message text; tool payloads are already summarised/truncated."""
    timestamp: datetime
    """Event time (aware UTC)."""
    full_size: int = 0
    """Characters of the content before any truncation."""
    truncated: bool = False
    """Whether some of the content was cut."""
    tool_name: str | None = None
    """Tool called (assistant) or answered (tool result)."""
    tool_ok: bool | None = None
    """Whether the tool call succeeded (tool results only)."""
    parent_key: str | None = None
    """The parent message's key, where the source threads messages."""
    is_sidechain: bool = False
    """Sub-agent (sidechain) message."""
    model: str | None = None
    """Model that produced it (assistant turns)."""
    line: int | None = None
    """1-based line (or record position) in the source file."""
    content_hash: str = ""
    """Hash of the full cleaned content (set by `normalize`)."""
    token_estimate: int = 0
    """Approximate tokens of `text` (set by `normalize`)."""


class ParsedSession(BaseModel):
    """A session's turns from one parse (all of them, or only the newly appended tail)."""

    model_config = _FROZEN

    key: str
    """The source's session id."""
    project: str
    """Project slug the session belongs to."""
    source: str
    """Format name: a registered parser's `name` (`ingest.sources.detect.PARSERS`), or `api`."""
    source_file: str
    """Path of the transcript."""
    title: str = ""
    """Title from the source or the first user message."""
    turns: tuple[ParsedTurn, ...] = ()
    """Turns read in this parse, in ordinal order."""
    complete: bool = True
    """True when `turns` is the whole session; False for an appended tail."""
    previous_turn_key: str | None = None
    """Key of the turn before `turns[0]` when resuming (links the `NEXT` chain)."""
    stats: SessionStats = Field(default_factory=SessionStats)
    """Aggregates over the whole session so far."""
    meta: dict[str, str] = Field(default_factory=dict)
    """Source metadata (cwd, git branch, CLI version...)."""
    date: datetime | None = None
    """The session's event date (LoCoMo `session_<n>_date_time`, else the first turn)."""


class FileReport(BaseModel):
    """What happened to one source file."""

    model_config = _FROZEN

    path: str
    """Source file."""
    format: str
    """Detected or forced format."""
    outcome: FileOutcome
    """`new`, `appended`, `changed`, `unchanged`, `failed` or `dry-run`."""
    sessions: int = 0
    """Sessions touched."""
    turns_new: int = 0
    """Turns written this run."""
    turns_closed: int = 0
    """Turns that disappeared from an edited file and were closed."""
    issues: int = 0
    """Parse issues reported for this file."""
    projects: dict[str, int] = Field(default_factory=dict)
    """How many of its sessions went to each project."""


class IngestReport(BaseModel):
    """The outcome of one ingest run; `model_dump(mode="json")` is the `--json` output."""

    model_config = _FROZEN

    files: tuple[FileReport, ...] = ()
    """Per-file outcomes."""
    sessions: int = 0
    """Sessions written or updated."""
    turns_new: int = 0
    """Turns written."""
    turns_unchanged: int = 0
    """Turns already ingested (files or prefixes skipped as unchanged)."""
    turns_skipped: int = 0
    """Records skipped on purpose (unknown types, empty messages)."""
    turns_failed: int = 0
    """Records lost to errors (malformed lines, bad values)."""
    turns_closed: int = 0
    """Turns closed because they disappeared from an edited file."""
    timings: dict[str, float] = Field(default_factory=dict)
    """Seconds per stage: `parse`, `normalize`, `embed`, `write`, `hooks`, `total`."""
    issues: tuple[ParseIssue, ...] = ()
    """Every parse issue, with file and line."""
    dry_run: bool = False
    """Nothing was written."""
    hook_errors: tuple[str, ...] = ()
    """Post-session hooks that raised (session key and message)."""
    extraction: dict[str, Any] = Field(default_factory=dict)
    """Knowledge extraction of the run: `extractor`, `sessions`, the LLM's token/cost ledger
    (`llm_usage`) and the sessions that fell back to the offline rules (`fallbacks`)."""

    @property
    def extraction_fell_back(self) -> bool:
        """True when LLM extraction failed for some session and the offline rules stood in."""
        return bool(self.extraction.get("fallbacks"))

    @property
    def failed(self) -> bool:
        """True when any record or file failed (the CLI exits 1)."""
        return (
            self.turns_failed > 0
            or any(f.outcome == "failed" for f in self.files)
            or any(i.severity == "error" for i in self.issues)
            or bool(self.hook_errors)
        )

    @property
    def turns_per_s(self) -> float:
        """New turns per second of total wall time."""
        total = self.timings.get("total", 0.0)
        return self.turns_new / total if total > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict including the derived `failed` and `turns_per_s`."""
        out = self.model_dump(mode="json")
        out["failed"] = self.failed
        out["turns_per_s"] = round(self.turns_per_s, 1)
        return out
