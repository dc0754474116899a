"""Start-up: the query embedder is loaded before serving, then start-up objects are frozen."""

from __future__ import annotations

import gc
from collections.abc import Sequence

import numpy as np

from ai.embed import WrappingEmbedder
from api.app import create_app
from api.config import ApiSettings
from api.services import ApiServices
from knowledge.vocabulary import vocabulary
from tests.shared_embedder import shared_local_embedder


class _Recording(WrappingEmbedder):
    """The shared real embedder, remembering what it was asked to embed."""

    def __init__(self) -> None:
        super().__init__(shared_local_embedder())
        self.calls: list[list[str]] = []

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return await self.inner.embed(texts)

    def embed_sync(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return self.inner.embed_sync(texts)


async def _start(graph_db, **api: object) -> _Recording:
    emb = _Recording()
    app = create_app(ApiSettings(env="test", api=api), ApiServices(db=graph_db, embedder=emb))
    async with app.router.lifespan_context(app):
        pass
    return emb


async def test_start_up_embeds_once_and_freezes_what_is_alive(graph_db) -> None:
    gc.unfreeze()
    try:
        emb = await _start(graph_db)
        # the model is loaded, and the vocabulary's slot tasks embedded, before the first request
        tasks = [t for slot in vocabulary().slots for t in slot.tasks]
        assert emb.calls == [["warm up"], tasks]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


async def test_both_can_be_turned_off(graph_db) -> None:
    gc.unfreeze()
    emb = await _start(graph_db, warm_start=False, gc_freeze=False)
    assert emb.calls == []
    assert gc.get_freeze_count() == 0
