"""A deterministic stand-in for the model where only identity of vectors matters (crash tests).

Equal texts give equal unit vectors; different texts give unrelated ones. It lets a test that
SIGKILLs a process several times run in seconds instead of loading the model in each child.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from ai.embed import Vectors, normalize_rows


class HashEmbedder:
    """384-d vectors seeded by each text's BLAKE2b hash."""

    @property
    def dimensions(self) -> int:
        return 384

    @property
    def name(self) -> str:
        return "hash-384"

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        rows = [
            np.random.default_rng(
                int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little")
            ).standard_normal(384)
            for t in texts
        ]
        return normalize_rows(np.array(rows, dtype=np.float32).reshape(len(texts), 384))

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return self.embed_sync(texts)
