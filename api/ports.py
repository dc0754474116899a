"""The API's ports: what it needs from ingest and the REM cycle, owned by the API (its consumer).

`api/` may not import `ingest/` or `consolidate/` (import-linter). It states here what it needs, as
Protocols and the one value it builds (`TurnInput`); `ingest.service.IngestService` and
`consolidate.service.RemService` fit them structurally with their own types (neither imports this
module), and the composition root (`remgraph/wiring.py`) hands them to the API, where mypy checks
the fit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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


class IngestTurnsOutcome(Protocol):
    """What appending turns did."""

    @property
    def session_id(self) -> str:
        """The session the turns landed in."""
        ...

    @property
    def turn_ids(self) -> tuple[str, ...]:
        """Ids of the stored turns, in input order."""
        ...

    @property
    def added(self) -> int:
        """Turns that were new (a repeated call adds none)."""
        ...

    @property
    def failures(self) -> tuple[str, ...]:
        """One reason per turn that could not be stored."""
        ...


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
