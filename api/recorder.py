"""Records `context` requests off the request path: a bounded buffer flushed by a background task.

A request hands its record to `ContextQueryRecorder.submit` (no I/O, never blocks, never raises);
a task started with the app writes everything pending every `interval_s` seconds, or as soon as
`batch_size` records wait, with one `context_query.record_many` write per batch. When the buffer
is full, new records are dropped and counted; a batch whose write fails is written again record
by record, so only the records that cannot be stored are lost, each logged and counted, and the
API keeps serving. `stop()` (the app's shutdown) writes what is left.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from dataclasses import dataclass

from graph.errors import GraphUnavailableError
from graph.repositories.context_queries import ContextQueryRecord, ContextQueryRepository

log = logging.getLogger("remgraph.api")

DEFAULT_INTERVAL_S = 0.25
DEFAULT_BATCH_SIZE = 200
DEFAULT_CAPACITY = 10_000


@dataclass(frozen=True)
class RecorderStats:
    """Counters since start: records written, lost to failed writes, dropped when full, pending.

    `pending` counts every record submitted and not yet written or failed, including a batch
    whose write is under way, so `pending + written + failed` only grows with submissions.
    """

    written: int
    failed: int
    dropped: int
    pending: int


class ContextQueryRecorder:
    """Batches `ContextQuery` records and writes them in the background.

    Args:
        repo: where records go (`ContextQueryRepository.record_many`).
        interval_s: the longest a record waits before a flush starts.
        batch_size: records per write; a full batch wakes the flusher early.
        capacity: records the buffer holds; beyond it, `submit` drops (and counts) them.
    """

    def __init__(
        self,
        repo: ContextQueryRepository,
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        batch_size: int = DEFAULT_BATCH_SIZE,
        capacity: int = DEFAULT_CAPACITY,
    ) -> None:
        if interval_s <= 0 or batch_size < 1 or capacity < 1:
            raise ValueError("interval_s must be > 0, batch_size and capacity >= 1")
        self._repo = repo
        self.interval_s = interval_s
        self.batch_size = batch_size
        self.capacity = capacity
        self._pending: deque[ContextQueryRecord] = deque()
        self._wake = asyncio.Event()
        self._flushing = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._written = self._failed = self._dropped = 0
        self._writing = 0  # records taken from the buffer whose write has not returned yet

    @property
    def stats(self) -> RecorderStats:
        """The counters now."""
        pending = len(self._pending) + self._writing
        return RecorderStats(self._written, self._failed, self._dropped, pending)

    @property
    def running(self) -> bool:
        """Whether the background flusher is alive."""
        return self._task is not None and not self._task.done()

    def submit(self, record: ContextQueryRecord) -> bool:
        """Queue `record` for the next flush; False (and counted) when the buffer is full."""
        if len(self._pending) >= self.capacity:
            self._dropped += 1
            if self._dropped == 1 or self._dropped % 1000 == 0:
                log.warning(
                    "context query recorder is full (%d pending): dropped %d record(s) so far",
                    len(self._pending),
                    self._dropped,
                )
            return False
        self._pending.append(record)
        if len(self._pending) >= self.batch_size:
            self._wake.set()
        return True

    async def flush(self) -> int:
        """Write every record submitted so far; returns how many were written.

        Waits for a flush already under way, so when it returns, everything submitted before the
        call is in the graph or counted as failed (tests and shutdown rely on this).
        """
        written = 0
        async with self._flushing:
            while self._pending:
                n = min(len(self._pending), self.batch_size)
                batch = [self._pending.popleft() for _ in range(n)]
                self._writing = n
                try:
                    written += await self._write(batch)
                finally:
                    self._writing = 0
        return written

    async def _write(self, batch: list[ContextQueryRecord]) -> int:
        """Write `batch` in one write, or record by record if that fails; returns how many.

        One bad record (one tenant's odd input) then loses only itself; an outage fails the
        batch at once, with one warning.
        """
        try:
            await self._repo.record_many(batch)
        except Exception as e:  # a failed write (any kind) must never stop the API
            if len(batch) == 1 or isinstance(e, GraphUnavailableError):  # an outage: no retries
                self._failed += len(batch)
                self._warn(batch, e)
                return 0
            return sum([await self._write([r]) for r in batch])
        self._written += len(batch)
        return len(batch)

    @staticmethod
    def _warn(batch: list[ContextQueryRecord], e: Exception) -> None:
        n = len(batch)
        log.warning(
            "could not record %d context quer%s (requests %s): %s: %s",
            n,
            "y" if n == 1 else "ies",
            ",".join(r.request_id for r in batch[:3]) + (",..." if n > 3 else ""),
            type(e).__name__,
            e,
        )

    def start(self) -> None:
        """Start the background flusher (inside a running event loop)."""
        if self._task is None:
            self._stopping = False
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name="context-query-recorder"
            )

    async def stop(self) -> None:
        """Stop the flusher after its current write, then write what is left."""
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            await self._task
            self._task = None
        await self.flush()

    async def _run(self) -> None:
        while not self._stopping:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.interval_s):
                    await self._wake.wait()
            self._wake.clear()
            await self.flush()
