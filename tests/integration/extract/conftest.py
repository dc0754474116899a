from __future__ import annotations

import pytest

from ai.embed import CachedEmbedder
from tests.shared_embedder import shared_local_embedder


@pytest.fixture(scope="session")
def embedder() -> CachedEmbedder:
    """The real local model, loaded once per test session."""
    return shared_local_embedder()
