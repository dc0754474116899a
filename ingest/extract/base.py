"""The `Extractor` interface every knowledge extractor implements."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ingest.extract.models import ExtractionResult, SessionInput

__all__ = ["Extractor"]


@runtime_checkable
class Extractor(Protocol):
    """Turns one session's turns into candidate knowledge; never writes to the graph."""

    name: str

    async def extract(self, session: SessionInput) -> ExtractionResult:
        """Propose topics, corrections, facts and lessons (with provenance) for `session`."""
        ...
