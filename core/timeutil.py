"""Time as remgraph reads and stores it: the one owner of time parsing and conversion.

Stored times are UTC epoch milliseconds: both engines compare and index integers identically, so
every time property is an `int`. An open interval end (`valid_to`, `expired_at`) is stored as
`OPEN` (9999-12-31T23:59:59.999Z) rather than null, which keeps "as of" predicates to two plain
range comparisons.

Parsing, in one place: `parse_time` reads what transcripts and the API hand in (a datetime, ISO
8601 text, epoch seconds or milliseconds; a time without a zone is UTC), and `relative_range`
turns "yesterday", "last month" or "two weeks ago" into a range around a reference time;
`parse_deadline` reads a moment given as a span ahead ("30d") or a time.

Every read of the current time goes through `now_ms()` / `utc_now()` here. `frozen_clock(at)`
overrides both for the code that runs inside it (a `contextvars` value, so it follows the asyncio
tasks and `asyncio.to_thread` calls started inside it and nothing else): `remgraph eval scenarios`
replays history with it, so record time (`recorded_at`, `expired_at`) is the scenario's time, not
the wall clock of the run.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta
from typing import Any

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


DAY_MS = 86_400_000
"""Milliseconds per day."""

MONTHS: dict[str, int] = {
    **{m.lower(): i for i, m in enumerate(calendar.month_name) if m},
    **{m.lower(): i for i, m in enumerate(calendar.month_abbr) if m},
}
"""English month names and abbreviations (lower case) → month number."""

WEEKDAYS: frozenset[str] = frozenset(
    d.lower() for d in (*calendar.day_name, *calendar.day_abbr, "tues", "thur", "thurs")
)
"""English weekday names and abbreviations (lower case)."""

RELATIVE_TIME = re.compile(
    r"\b(yesterday|today|last\s+(?:week|month|year)|this\s+(?:week|month|year)|"
    r"(?:a|one|two|three|few)\s+(?:days?|weeks?|months?|years?)\s+ago)\b",
    re.IGNORECASE,
)
"""The relative time expressions `relative_range` understands."""


def days_between(earlier_ms: int, later_ms: int) -> float:
    """Days from `earlier_ms` to `later_ms` (epoch ms), never negative."""
    return max(0.0, (later_ms - earlier_ms) / DAY_MS)


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


def parse_time(value: Any) -> datetime | None:
    """Aware UTC datetime from a datetime, ISO 8601 text or epoch seconds/milliseconds.

    A value without a zone is UTC. Returns None for None, booleans, empty or unreadable values.
    """
    if value is None or isinstance(value, bool):
        return None
    try:
        if isinstance(value, datetime):
            return _utc(value)
        if isinstance(value, int | float):
            secs = float(value)
            if secs > 1e11:  # milliseconds
                secs /= 1000.0
            return datetime.fromtimestamp(secs, tz=UTC)
        if isinstance(value, str) and value.strip():
            s = value.strip()
            if s.endswith(("Z", "z")):
                s = s[:-1] + "+00:00"
            return _utc(datetime.fromisoformat(s))
    except (ValueError, OverflowError, OSError):
        return None
    return None


_SPAN = re.compile(r"^\s*(\d{1,6})\s*([mhdw])\s*$", re.IGNORECASE)
_SPAN_UNIT = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1)}
_SPAN_UNIT["w"] = timedelta(weeks=1)


def parse_deadline(value: str, now: datetime) -> datetime | None:
    """A moment given as a span from `now` ("90m", "12h", "30d", "2w") or as a time (`parse_time`).

    Returns None when `value` is neither.
    """
    m = _SPAN.match(value)
    if m:
        return now + int(m.group(1)) * _SPAN_UNIT[m.group(2).lower()]
    return parse_time(value)


def parse_ms(value: Any) -> int | None:
    """`parse_time` in epoch milliseconds (None when there is no usable time)."""
    dt = parse_time(value)
    return None if dt is None else to_ms(dt)


def _utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def month_range(year: int, month: int) -> tuple[int, int]:
    """`[start, end)` of a calendar month in epoch ms (UTC)."""
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return to_ms(start), to_ms(end)


def year_range(year: int) -> tuple[int, int]:
    """`[start, end)` of a calendar year in epoch ms (UTC)."""
    return to_ms(datetime(year, 1, 1, tzinfo=UTC)), to_ms(datetime(year + 1, 1, 1, tzinfo=UTC))


_COUNT_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "few": 3}
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}


def relative_range(expr: str, now: datetime) -> tuple[int, int]:
    """`[start, end)` in epoch ms of a `RELATIVE_TIME` expression, seen from aware `now`.

    "today", "yesterday", "this/last week" (from Monday), "this/last month", "this/last year" are
    calendar ranges; "<n> <unit>s ago" is a window of half a unit (at least a day) either side of
    that point.
    """
    e = " ".join(expr.lower().split())
    day = datetime(now.year, now.month, now.day, tzinfo=UTC)
    if e == "today":
        return to_ms(day), to_ms(day + timedelta(days=1))
    if e == "yesterday":
        return to_ms(day - timedelta(days=1)), to_ms(day)
    if e in {"this week", "last week"}:
        monday = day - timedelta(days=day.weekday() + (7 if e == "last week" else 0))
        return to_ms(monday), to_ms(monday + timedelta(days=7))
    if e in {"this month", "last month"}:
        y, m = now.year, now.month
        if e == "last month":
            y, m = (y - 1, 12) if m == 1 else (y, m - 1)
        return month_range(y, m)
    if e in {"this year", "last year"}:
        return year_range(now.year - (e == "last year"))
    n_word, unit = e.split()[:2]
    days = _UNIT_DAYS[unit.rstrip("s")]
    centre = now - timedelta(days=_COUNT_WORDS.get(n_word, 1) * days)
    half = timedelta(days=max(1, days // 2))
    return to_ms(centre - half), to_ms(centre + half)
