"""When is a job due? Pure functions over a `Schedule`, the job's `RemState` and the session count.

Strategies:
- `cron`: wall clock (UTC); due once the next fire time after the last run has passed.
- `linear`: every `every` new sessions.
- `fibonacci`: when the session count reaches the next Fibonacci number ≥ `start` (5, 8, 13, 21…),
  so runs thin out as the history grows.
- `logarithmic`: after a run at n sessions, wait ceil(scale × ln n) more: gaps grow slowly.

A failed run is retried after an exponential backoff whatever the strategy, until `max_attempts`
consecutive failures; then the job is flagged and waits for a manual run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from croniter import croniter

from consolidate.config import Schedule


@dataclass(frozen=True)
class Due:
    """Whether a job is due now and why.

    Attributes:
        due: run it now.
        reason: human-readable reason (shown by `remgraph rem status`).
        next_at: the next wall-clock time it becomes due (cron and retries), if known.
        next_sessions: the session count at which it becomes due (session triggers), if known.
        flagged: the job failed `max_attempts` times in a row and needs attention.
    """

    due: bool
    reason: str
    next_at: datetime | None = None
    next_sessions: int | None = None
    flagged: bool = False


def fibonacci_at_least(n: int) -> int:
    """Smallest Fibonacci number ≥ n (1, 2, 3, 5, 8, …)."""
    a, b = 1, 2
    while a < n:
        a, b = b, a + b
    return a


def next_session_threshold(schedule: Schedule, sessions_at_last_run: int | None) -> int:
    """The session count at which a session-triggered job is next due."""
    last = sessions_at_last_run
    if schedule.kind == "linear":
        return schedule.every if last is None else last + schedule.every
    if schedule.kind == "fibonacci":
        return fibonacci_at_least(schedule.start if last is None else max(schedule.start, last + 1))
    if schedule.kind == "logarithmic":
        if last is None or last < schedule.start:
            return schedule.start
        return last + max(1, math.ceil(schedule.scale * math.log(last)))
    raise ValueError(f"schedule kind {schedule.kind!r} is not session-triggered")


def next_cron(expr: str, after: datetime) -> datetime:
    """Next fire time of a cron expression strictly after `after` (UTC-aware)."""
    nxt: datetime = croniter(expr, after).get_next(datetime)
    return nxt


def backoff(attempts: int, base_s: float) -> timedelta:
    """Delay before retry number `attempts` (1 → base, 2 → 2×base, 3 → 4×base…)."""
    return timedelta(seconds=base_s * 2 ** max(0, attempts - 1))


def is_due(
    schedule: Schedule,
    *,
    now: datetime,
    sessions: int,
    last_run_at: datetime | None,
    last_status: str | None,
    sessions_at_last_run: int | None,
    attempts: int = 0,
    max_attempts: int = 3,
    backoff_s: float = 300.0,
) -> Due:
    """Decide whether a job is due.

    Args:
        schedule: the job's schedule.
        now: the current time (aware UTC).
        sessions: current session count (of the project, or all).
        last_run_at: when the job last ran (None: never).
        last_status: how it last ended (`succeeded`, `failed`, …).
        sessions_at_last_run: session count at the last successful run (None: never).
        attempts: consecutive failed attempts.
        max_attempts: failures after which the job is flagged instead of retried.
        backoff_s: first retry delay.

    Returns:
        A `Due` with the decision and the reason.
    """
    if last_status == "failed" and attempts > 0:
        if attempts >= max_attempts:
            return Due(False, f"failed {attempts} times; flagged, run it by hand", flagged=True)
        retry_at = (last_run_at or now) + backoff(attempts, backoff_s)
        if now >= retry_at:
            return Due(
                True, f"retry {attempts + 1} of {max_attempts} after failure", next_at=retry_at
            )
        return Due(False, f"waiting to retry at {retry_at.isoformat()}", next_at=retry_at)
    if schedule.kind == "cron":
        if last_run_at is None:
            return Due(True, "never ran", next_at=now)
        fire = next_cron(schedule.cron, last_run_at)
        if now >= fire:
            return Due(True, f"cron {schedule.cron!r} fired at {fire.isoformat()}", next_at=fire)
        return Due(False, f"next cron fire {fire.isoformat()}", next_at=fire)
    threshold = next_session_threshold(schedule, sessions_at_last_run)
    if sessions >= threshold:
        return Due(
            True,
            f"{sessions} sessions ≥ {schedule.kind} threshold {threshold}",
            next_sessions=threshold,
        )
    return Due(
        False, f"{sessions} of {threshold} sessions ({schedule.kind})", next_sessions=threshold
    )
