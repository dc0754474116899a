"""Ports: small Protocols through which one app package uses another's capability.

`api/` may not import `ingest/` or `consolidate/` (import-linter). Where it needs them it depends on
a Protocol defined here, and the composition root (`remgraph/`) injects the real implementation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

# --- api → ingest ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnInput:
    """One message an agent appends to a session."""

    role: str
    """`user`, `assistant`, `system` or `tool`."""
    text: str
    """The message text."""
    speaker: str = ""
    """Display name of the speaker."""
    timestamp: datetime | None = None
    """When it was said (aware UTC); None means now."""
    tool_name: str | None = None
    """Tool called or answered, for tool turns."""


@dataclass(frozen=True)
class IngestTurnsOutcome:
    """What appending turns did."""

    session_id: str
    """The session the turns landed in."""
    turn_ids: tuple[str, ...]
    """Ids of the stored turns, in input order."""
    added: int
    """Turns that were new (a repeated call adds none)."""
    failures: tuple[str, ...] = field(default=())
    """One reason per turn that could not be stored."""


@runtime_checkable
class TurnIngestor(Protocol):
    """Appends turns to a session through the same pipeline as `remgraph ingest`."""

    async def ingest_turns(
        self,
        *,
        project: str,
        session_key: str,
        turns: Sequence[TurnInput],
        title: str = "",
    ) -> IngestTurnsOutcome:
        """Append `turns` to the session `session_key` of `project` (created if new)."""
        ...


# --- api → consolidate ----------------------------------------------------------------------------


@runtime_checkable
class Consolidator(Protocol):
    """Runs REM-cycle jobs and reviews their findings on behalf of the API."""

    async def run_job(self, *, name: str, project: str) -> Mapping[str, Any]:
        """Run job `name` for `project` now and return its report as JSON-able data."""
        ...

    async def rem_status(self, *, project: str) -> Sequence[Mapping[str, Any]]:
        """One JSON-able status entry per job for `project` (last run, next due...)."""
        ...

    async def findings(
        self, *, project: str, status: str | None = None
    ) -> Sequence[Mapping[str, Any]]:
        """Findings of `project`, optionally only those with `status`."""
        ...

    async def review_finding(
        self, *, project: str, finding_id: str, status: str
    ) -> Mapping[str, Any]:
        """Set a finding's review status (`approved`, `rejected`, `skipped`) and return it."""
        ...
