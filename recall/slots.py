"""Which slots of the declared vocabulary a request concerns (`knowledge.vocabulary`).

A request concerns a slot when it names one of the slot's values ("is yarn set up?")
or when its meaning is close to one of the slot's tasks ("install a new package" for "how do I
add a dependency?"): the cosine of the local embedding model between the request and the task,
from `RankingSection.slot_task_similarity`. The task vectors are embedded once per process and
model, on the first request that needs them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from ai.embed import Embedder
from knowledge.vocabulary import Vocabulary, vocabulary


class SlotIndex:
    """The vocabulary's task vectors, and the slots a request concerns."""

    def __init__(self, embedder: Embedder | None, vocab: Vocabulary | None = None) -> None:
        self._embedder = embedder
        self.vocab = vocab or vocabulary()
        self._owner = np.asarray(
            [i for i, s in enumerate(self.vocab.slots) for _ in s.tasks], dtype=np.int32
        )
        self._vectors: np.ndarray | None = None
        self._lock = asyncio.Lock()

    async def _task_vectors(self) -> np.ndarray | None:
        if self._embedder is None:
            return None
        if self._vectors is None:
            async with self._lock:
                if self._vectors is None:
                    tasks = [t for s in self.vocab.slots for t in s.tasks]
                    v = np.asarray(await self._embedder.embed(tasks), dtype=np.float32)
                    v /= np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)
                    self._vectors = v
        return self._vectors

    async def warm(self) -> None:
        """Embed the tasks now (a server's start-up) rather than in the first request."""
        await self._task_vectors()

    async def of_query(
        self, text: str, vector: Sequence[float] | None, min_similarity: float
    ) -> frozenset[str]:
        """The slots whose values `text` names, and those whose tasks its `vector` is close to."""
        return self.subjects(text, await self.by_task(vector, min_similarity))

    def subjects(self, text: str, by_task: frozenset[str]) -> frozenset[str]:
        """`of_query` from the slots `by_task` already found: those plus the values named."""
        return self.vocab.valued_in(text) | by_task

    async def by_task(
        self, vector: Sequence[float] | None, min_similarity: float
    ) -> frozenset[str]:
        """The slots one of whose tasks a request's `vector` is close to: what it asks to do.

        Naming a value is weaker evidence ("bun tests hang" names bun, and asks nothing about
        which package manager to use), so what opens an answer (`recall.opening`) asks this.
        """
        tasks = await self._task_vectors() if vector is not None else None
        if tasks is None or vector is None:
            return frozenset()
        q = np.asarray(vector, dtype=np.float32)
        q /= max(float(np.linalg.norm(q)), 1e-9)
        close = self._owner[(tasks @ q) >= min_similarity]
        return frozenset(self.vocab.slots[i].name for i in set(close.tolist()))

    def of_item(self, text: str) -> frozenset[str]:
        """The slots whose values a distilled item's text names ("use yarn" → package manager).

        A generic word of a broad slot ("command", "tests") does not count: every item of a
        project about commands would concern every request about them.
        """
        return self.vocab.valued_in(text)
