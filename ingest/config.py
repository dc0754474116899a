"""Ingest settings: the `ingest` section, read from `REMGRAPH_INGEST__*`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ai.config import AISettings
from ingest.extract.config import ExtractSettings
from knowledge.config import KnowledgeSettings

__all__ = ["IngestSection", "IngestSettings"]


class IngestSection(BaseModel):
    """How transcripts are parsed, embedded and written."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    batch_size: int = Field(default=256, ge=1, le=10_000)
    """Turns per embed + write batch (one UNWIND round trip per query per batch)."""
    tool_payload_chars: int = Field(default=2000, ge=0)
    """Tool inputs/outputs are cut to this many characters (head + tail); 0 keeps them whole."""
    max_turn_chars: int = Field(default=20_000, ge=0)
    """Any turn's text is cut to this many characters; 0 keeps it whole."""
    date_prefix: bool = True
    """Embed `[8 May 2023] speaker: text` rather than the bare text (helps date questions)."""
    embed: bool = True
    """Compute turn embeddings (off: turns land without vectors)."""
    overlap: bool = True
    """Embed the next batch while the previous one is written."""
    defer_embeddings: bool = True
    """Write turns without vectors (searchable by text at once, marked pending) with their
    sessions' extraction queued, and let the backlog drain fill the vectors and run the queued
    extractions afterwards (inside `ingest` unless `--no-wait-embeddings`, in `remgraph worker`,
    in `serve` when idle). False embeds each batch before it is written and extracts each session
    as it is written (the behaviour before the backlog existed)."""
    backlog_batch: int = Field(default=256, ge=1, le=10_000)
    """Turns per forward pass of the backlog embedder (a page of 4 batches is read at once)."""
    backlog_nice: int = Field(default=10, ge=0, le=19)
    """Niceness `remgraph ingest` and `worker` add to themselves before draining the backlog, so
    a running API keeps the CPU (no effect on an idle machine)."""
    backlog_pause_s: float = Field(default=0.0, ge=0)
    """Pause between backlog batches in `ingest` and `worker` (`serve` pauses while busy)."""
    watch_interval_s: float = Field(default=1.0, gt=0)
    """Polling period of `--watch`."""


class IngestSettings(AISettings, KnowledgeSettings):
    """Graph, model and knowledge-rule settings plus the `ingest` and `extract` sections."""

    ingest: IngestSection = Field(default_factory=IngestSection)
    extract: ExtractSettings = Field(default_factory=ExtractSettings)
    """Knowledge extraction (`REMGRAPH_EXTRACT__*`)."""
