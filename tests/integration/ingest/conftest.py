from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ai.embed import CachedEmbedder, LocalEmbedder
from graph.config import GraphSettings
from ingest.config import IngestSettings

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"


@pytest.fixture(scope="session")
def embedder() -> CachedEmbedder:
    """The real local model, loaded once for the whole session (cached by content hash)."""
    return CachedEmbedder(LocalEmbedder(batch_size=64), size=20_000)


@pytest.fixture
def ingest_settings(graph_settings: GraphSettings) -> IngestSettings:
    return IngestSettings.model_validate(
        graph_settings.model_dump() | {"ingest": {"batch_size": 16}}
    )


@pytest.fixture
def fixtures(tmp_path: Path) -> Path:
    """A writable copy of the transcript fixtures."""
    dst = tmp_path / "transcripts"
    shutil.copytree(FIX, dst)
    return dst
