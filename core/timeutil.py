"""Time as the engines store it: UTC epoch milliseconds, with a sentinel for "still open".

Both engines compare and index integers identically, so every time property is an `int`. An open
interval end (`valid_to`, `expired_at`) is stored as `OPEN` (9999-12-31T23:59:59.999Z) rather than
null, which keeps "as of" predicates to two plain range comparisons.
"""

from __future__ import annotations

from datetime import UTC, datetime

OPEN = 253_402_300_799_999
"""Epoch ms of 9999-12-31T23:59:59.999Z: the stored value of an interval end that is still open."""


def now_ms() -> int:
    """Current UTC time in epoch milliseconds."""
    return to_ms(datetime.now(UTC))


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
