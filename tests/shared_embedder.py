"""One real local embedder per test process, shared by every test folder that needs it."""

from __future__ import annotations

from functools import cache

from ai.embed import CachedEmbedder, LocalEmbedder


@cache
def shared_local_embedder() -> CachedEmbedder:
    """The all-MiniLM-L6-v2 embedder behind a cache; the model loads once per test session."""
    return CachedEmbedder(LocalEmbedder(batch_size=64), size=100_000)
