"""Matrix products of the recall indexes run on one BLAS thread.

numpy's OpenBLAS splits a large enough product over every core and leaves its helper threads
spinning for a while after it returns. A request-serving process already keeps both cores busy
with requests, so the split buys no wall time and the spinning is pure cost: a 25K x 384 product
took twice the CPU with a second thread (45 vs 22 CPU-ms per `context` request at 100K turns,
`bench/bench_context.py`), and a 2.5K x 384 one, the size of a project's knowledge index in that
bench, ~1.8 CPU-ms more per call than on one thread when called in a loop (2 cores). Every
product the knowledge index makes is taken inside `one_thread()` (the turn index makes none:
`recall.scan` scans its codes and takes exact cosines in compiled loops).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from threadpoolctl import ThreadpoolController

_CONTROLLER = ThreadpoolController()


def one_thread() -> AbstractContextManager[Any]:
    """A context in which numpy's BLAS uses one thread (~16 µs to enter and leave)."""
    limiter: AbstractContextManager[Any] = _CONTROLLER.limit(limits=1, user_api="blas")
    return limiter
