"""Time as the engines store it: UTC epoch milliseconds, with a sentinel for "still open".

Both engines compare and index integers identically, so every time property is an `int`. An open
interval end (`valid_to`, `expired_at`) is stored as `OPEN` (9999-12-31T23:59:59.999Z) rather than
null, which keeps "as of" predicates to two plain range comparisons.

Every read of the current time goes through `now_ms()` / `utc_now()` here. `frozen_clock(at)`
overrides both for the code that runs inside it (a `contextvars` value, so it follows the asyncio
tasks and `asyncio.to_thread` calls started inside it and nothing else): `remgraph eval scenarios`
replays history with it, so record time (`recorded_at`, `expired_at`) is the scenario's time, not
the wall clock of the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime

OPEN = 253_402_300_799_999
"""Epoch ms of 9999-12-31T23:59:59.999Z: the stored value of an interval end that is still open."""


_FROZEN: ContextVar[int | None] = ContextVar("remgraph_frozen_clock_ms", default=None)


def now_ms() -> int:
    """Current UTC time in epoch milliseconds (the frozen time inside `frozen_clock`)."""
    frozen = _FROZEN.get()
    return to_ms(datetime.now(UTC)) if frozen is None else frozen


def utc_now() -> datetime:
    """Current time as an aware UTC datetime with millisecond precision (honours `frozen_clock`)."""
    return from_ms(now_ms())


@contextmanager
def frozen_clock(at: datetime | int) -> Iterator[int]:
    """Make `now_ms()` and `utc_now()` return `at` for the code run inside the block.

    Args:
        at: an aware datetime or epoch milliseconds.

    Yields:
        The frozen time in epoch milliseconds.

    Blocks nest (the innermost wins) and restore the previous clock on exit, also on error. Tasks
    created inside the block keep the frozen time (they copy the context when created); tasks
    created before it, and other threads, keep reading the wall clock.
    """
    ms = at if isinstance(at, int) else to_ms(at)
    token = _FROZEN.set(ms)
    try:
        yield ms
    finally:
        _FROZEN.reset(token)


def to_ms(dt: datetime) -> int:
    """Epoch milliseconds of an aware datetime; naive datetimes are refused."""
    if dt.tzinfo is None:
        raise ValueError(f"naive datetime {dt.isoformat()} has no time zone; use UTC")
    return int(dt.timestamp() * 1000)


def from_ms(ms: int) -> datetime:
    """Aware UTC datetime from epoch milliseconds."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def end_to_ms(dt: datetime | None) -> int:
    """Stored value of an interval end: `OPEN` for None."""
    return OPEN if dt is None else to_ms(dt)


def end_from_ms(ms: int | None) -> datetime | None:
    """Domain value of a stored interval end: None for `OPEN` (or a missing property)."""
    return None if ms is None or ms >= OPEN else from_ms(ms)
