"""Where a `context` request's CPU-bound steps run: on the event loop or in a worker thread.

A worker thread keeps the loop serving other requests while one is ranked, and lets numpy's
products (which release the interpreter lock) overlap another request's Python. When no other
request is in flight there is nothing to overlap, and the hop itself costs: the same 150 `context`
requests ran at 13.1 / 13.1 / 14.6 CPU-ms each with every step on the loop against 15.2 / 15.9 /
16.1 with the worker threads (in process, 100K turns + 10K items, 8-10 alternating rounds each,
medians; identical results), likely because each hop moves the request's data to the other
core's caches.

So a step runs on the loop while its request is the only one in flight and in a worker thread
once others are, and always in a worker when it would wait for a lock another thread holds (an
index update), which would stall the loop. A request marks itself (`request()`) and says whether
its steps are short enough to hold the loop: `context` does for queries up to
`INLINE_MAX_QUERY_CHARS` (a 4,000-character query costs ~70 CPU-ms a field, `bench/
bench_hostile_load.py`, and would hold every other caller's request that long). Steps of
callers that do not mark their requests run in a worker as they always did.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")

INLINE_MAX_QUERY_CHARS = 500
"""The longest query whose `context` steps may run on the event loop (~80 words; the bench's
queries and LoCoMo's questions are far shorter)."""

_INLINE: ContextVar[bool] = ContextVar("offload_inline", default=False)
"""Whether the request this task serves may run its steps on the loop (`Offload.request`)."""


class Offload:
    """Counts the requests in flight and runs their CPU-bound steps where they cost least."""

    def __init__(self) -> None:
        self._in_flight = 0

    @property
    def in_flight(self) -> int:
        """Requests inside `request()` now."""
        return self._in_flight

    @contextlib.contextmanager
    def request(self, *, inline: bool = True) -> Iterator[None]:
        """Mark one request in flight for the duration (on the event loop's thread).

        `inline`: its steps are short enough to run on the loop when it is alone.
        """
        self._in_flight += 1
        token = _INLINE.set(inline)
        try:
            yield
        finally:
            _INLINE.reset(token)
            self._in_flight -= 1

    async def run(
        self, fn: Callable[..., T], /, *args: object, lock: threading.Lock | None = None
    ) -> T:
        """`fn(*args)`, on the loop or in a worker thread (`asyncio.to_thread`).

        On the loop when the request this task serves is the only one in flight and marked
        `inline`, and `lock`, the one `fn` takes, is free; else in a worker (as outside any
        `request()`).
        """
        if self._in_flight == 1 and _INLINE.get() and (lock is None or not lock.locked()):
            return fn(*args)
        return await asyncio.to_thread(fn, *args)
