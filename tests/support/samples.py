"""The bundled samples as a project with knowledge: what report and export tests look at."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ingest.models import IngestReport
from ingest.pipeline import ingest_paths
from remgraph.settings import Settings
from remgraph.wiring import extraction_hooks
from tests.shared_embedder import shared_local_embedder

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_PATHS = (ROOT / "samples" / "generic" / "webapp.jsonl", ROOT / "samples" / "claude-code")
"""The webapp project's generic transcript and the Claude Code sessions (a second project)."""


async def ingest_samples(db: Any, graph_settings: Any) -> tuple[Settings, IngestReport]:
    """Ingest `SAMPLE_PATHS` with offline extraction and local embeddings into `db`."""
    settings = Settings(**graph_settings.model_dump())
    emb = shared_local_embedder()
    report = await ingest_paths(
        db,
        settings,
        list(SAMPLE_PATHS),
        hooks=extraction_hooks(db, settings, emb),
        embedder=emb,
    )
    assert report.turns_new > 0
    return settings, report
