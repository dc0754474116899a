from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np
import pytest

from ai.config import EmbeddingSettings
from ai.embed import (
    BatchingEmbedder,
    CachedEmbedder,
    Embedder,
    LocalEmbedder,
    OpenAIEmbedder,
    Vectors,
    cosine,
    make_embedder,
    normalize_rows,
)
from tests.openai_stub import embeddings_handler, hash_embedding, run_stub
from tests.shared_embedder import shared_local_embedder


@pytest.fixture(scope="session")
def local() -> LocalEmbedder:
    inner = shared_local_embedder().inner
    assert isinstance(inner, LocalEmbedder)
    return inner


class CountingEmbedder:
    """A real (tiny, deterministic) embedder that counts how many texts it computed."""

    def __init__(self) -> None:
        self.computed: list[str] = []

    @property
    def dimensions(self) -> int:
        return 8

    @property
    def name(self) -> str:
        return "counting"

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        self.computed.extend(texts)
        return normalize_rows([hash_embedding(t, 8) for t in texts])

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return self.embed_sync(texts)


def test_local_embedder_is_lazy() -> None:
    e = LocalEmbedder()
    assert e._model is None
    assert e.dimensions == 384
    assert isinstance(e, Embedder)


def test_local_shape_dtype_and_normalised(local: LocalEmbedder) -> None:
    v = local.embed_sync(["hello world", "graph databases store nodes", "x"])
    assert v.shape == (3, 384)
    assert v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)


def test_local_empty_input(local: LocalEmbedder) -> None:
    assert local.embed_sync([]).shape == (0, 384)


async def test_local_similar_sentences_are_closer(local: LocalEmbedder) -> None:
    v = await local.embed(
        [
            "The cat sat on the mat.",
            "A kitten is sitting on the rug.",
            "Quarterly revenue grew by eight percent.",
        ]
    )
    assert cosine(v[0], v[1]) > cosine(v[0], v[2]) + 0.2


async def test_local_async_matches_sync(local: LocalEmbedder) -> None:
    a = await local.embed(["use pytest fixtures"])
    b = local.embed_sync(["use pytest fixtures"])
    np.testing.assert_allclose(a, b, atol=1e-5)


async def test_cache_hit_avoids_recompute() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, size=10)
    first = await cached.embed(["a", "b", "a"])
    assert inner.computed == ["a", "b"]  # duplicates within a call are computed once
    second = await cached.embed(["b", "c"])
    assert inner.computed == ["a", "b", "c"]
    np.testing.assert_array_equal(first[1], second[0])
    np.testing.assert_array_equal(first[0], first[2])
    assert cached.hits == 1
    assert cached.embed_sync(["a"]).shape == (1, 8)
    assert inner.computed == ["a", "b", "c"]


def test_cache_evicts_least_recently_used() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, size=2)
    cached.embed_sync(["a", "b"])
    cached.embed_sync(["a"])  # a becomes most recent
    cached.embed_sync(["c"])  # evicts b
    cached.embed_sync(["a", "b"])
    assert inner.computed == ["a", "b", "c", "b"]


def test_cache_over_real_model_returns_same_vectors(local: LocalEmbedder) -> None:
    cached = CachedEmbedder(local, size=4)
    a = cached.embed_sync(["remember the milk"])
    b = cached.embed_sync(["remember the milk"])
    np.testing.assert_array_equal(a, b)
    assert cached.hits == 1


async def test_openai_embedder_against_stub() -> None:
    with run_stub(embeddings_handler(16)) as stub:
        settings = EmbeddingSettings(
            provider="openai",
            model="stub-embed",
            dimensions=16,
            base_url=stub.base_url,
            batch_size=2,
        )
        e = OpenAIEmbedder(settings, max_retries=0)
        v = await e.embed(["one", "two", "three"])
        vs = await asyncio.to_thread(e.embed_sync, ["two"])
        await e.aclose()
    assert v.shape == (3, 16)
    assert v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(v[1], normalize_rows(hash_embedding("two", 16))[0], atol=1e-6)
    np.testing.assert_allclose(vs[0], v[1], atol=1e-6)
    assert [p for p, _ in stub.requests] == ["/v1/embeddings"] * 3  # 2 + 1 batched, then sync
    assert stub.requests[0][1]["input"] == ["one", "two"]


async def test_openai_embedder_retries_then_succeeds() -> None:
    with run_stub(embeddings_handler(8)) as stub:
        stub.reply(429, {"error": {"message": "slow down"}})
        stub.reply(500, {"error": {"message": "boom"}})
        e = OpenAIEmbedder(
            EmbeddingSettings(provider="openai", dimensions=8, base_url=stub.base_url),
            max_retries=3,
        )
        v = await e.embed(["x"])
        await e.aclose()
    assert v.shape == (1, 8)
    assert len(stub.requests) == 3


async def test_openai_embedder_rejects_wrong_dimensions() -> None:
    with run_stub(embeddings_handler(8)) as stub:
        e = OpenAIEmbedder(
            EmbeddingSettings(provider="openai", dimensions=16, base_url=stub.base_url),
            max_retries=0,
        )
        with pytest.raises(ValueError, match="8-d vectors"):
            await e.embed(["x"])
        await e.aclose()


def test_make_embedder_choices() -> None:
    e = make_embedder(EmbeddingSettings())
    assert isinstance(e, CachedEmbedder)
    assert isinstance(e.inner, LocalEmbedder)
    assert isinstance(make_embedder(EmbeddingSettings(cache_size=0)), LocalEmbedder)
    o = make_embedder(EmbeddingSettings(provider="openai", base_url="http://127.0.0.1:1/v1"))
    assert isinstance(o, CachedEmbedder)
    assert isinstance(o.inner, OpenAIEmbedder)
    with pytest.raises(ValueError, match="BASE_URL"):
        make_embedder(EmbeddingSettings(provider="openai"))
    with pytest.raises(ValueError, match="384-d"):
        make_embedder(EmbeddingSettings(dimensions=768))


class SlowEmbedder(CountingEmbedder):
    """CountingEmbedder whose passes take a while (so calls pile up) and fail on "boom"."""

    def __init__(self) -> None:
        super().__init__()
        self.passes: list[list[str]] = []

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.passes.append(list(texts))
        await asyncio.sleep(0.02)
        if "boom" in texts:
            raise RuntimeError("model failed")
        return self.embed_sync(texts)


async def test_batching_concurrent_calls_share_passes_with_the_real_model(
    local: LocalEmbedder,
) -> None:
    texts = [f"how do we deploy service {i}" for i in range(8)]
    batching = BatchingEmbedder(local)
    got = await asyncio.gather(*(batching.embed([t]) for t in texts))
    alone = local.embed_sync(texts)
    for i, v in enumerate(got):
        assert v.shape == (1, 384)
        np.testing.assert_allclose(v[0], alone[i], atol=1e-5)
    # all eight were waiting when the pass started: one forward pass instead of eight
    assert batching.passes == 1


async def test_batching_bounds_a_pass_and_fails_only_the_callers_of_the_failed_pass() -> None:
    inner = SlowEmbedder()
    batching = BatchingEmbedder(inner, max_texts=3)
    first = asyncio.create_task(batching.embed(["a"]))
    await asyncio.sleep(0)  # the first pass starts
    rest = [asyncio.create_task(batching.embed(t)) for t in (["b", "c"], ["boom"], ["d", "e"])]
    results = await asyncio.gather(first, *rest, return_exceptions=True)
    assert inner.passes == [["a"], ["b", "c", "boom"], ["d", "e"]]
    assert isinstance(results[2], RuntimeError)  # "boom" fails its whole pass: b, c and boom
    assert isinstance(results[1], RuntimeError)
    assert isinstance(results[0], np.ndarray)
    assert isinstance(results[3], np.ndarray)
    assert results[3].shape == (2, 8)
    np.testing.assert_array_equal(results[3], inner.embed_sync(["d", "e"]))
