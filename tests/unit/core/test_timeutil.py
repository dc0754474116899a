"""`core.timeutil`: the one clock, and `frozen_clock`, which replays history in evaluations."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from core.timeutil import (
    OPEN,
    end_from_ms,
    end_to_ms,
    from_ms,
    frozen_clock,
    now_ms,
    parse_deadline,
    to_ms,
    utc_now,
)
from graph import models
from recall.understand import understand

JAN = datetime(2026, 1, 12, 9, 0, tzinfo=UTC)
JUL = datetime(2026, 7, 1, 12, 30, 15, 123_000, tzinfo=UTC)


def _wall_ms() -> int:
    return int(datetime.now(UTC).timestamp() * 1000)


def test_outside_a_frozen_block_the_clock_is_the_wall_clock() -> None:
    before = _wall_ms()
    got = now_ms()
    after = _wall_ms()
    assert before <= got <= after
    assert abs(to_ms(utc_now()) - now_ms()) < 5_000
    assert utc_now().tzinfo is UTC


def test_frozen_clock_fixes_now_ms_and_utc_now_and_restores_them() -> None:
    with frozen_clock(JUL) as ms:
        assert ms == to_ms(JUL)
        assert now_ms() == to_ms(JUL)
        assert utc_now() == JUL
        assert models.utc_now() == JUL  # the models' default timestamps use the same clock
    assert abs(now_ms() - _wall_ms()) < 5_000


def test_frozen_clock_takes_epoch_ms_and_nests_innermost_first() -> None:
    with frozen_clock(to_ms(JAN)):
        assert utc_now() == JAN
        with frozen_clock(JUL):
            assert utc_now() == JUL
        assert utc_now() == JAN
    assert abs(now_ms() - _wall_ms()) < 5_000


def test_frozen_clock_is_restored_when_the_block_raises() -> None:
    with pytest.raises(RuntimeError), frozen_clock(JAN):
        raise RuntimeError("boom")
    assert abs(now_ms() - _wall_ms()) < 5_000


def test_model_defaults_take_the_frozen_time() -> None:
    with frozen_clock(JAN):
        t = models.Turn(
            id="t1",
            project="p",
            session_id="s",
            ordinal=0,
            role="user",
            text="hello",
        )
    assert t.recorded_at == JAN
    assert t.valid_from == JAN
    assert t.expired_at is None


def test_relative_times_in_queries_are_read_against_the_frozen_clock() -> None:
    with frozen_clock(JUL):
        intent = understand("what did we decide last year?")
    assert [(from_ms(t.start_ms), from_ms(t.end_ms)) for t in intent.times] == [
        (datetime(2025, 1, 1, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC))
    ]


async def test_tasks_and_threads_started_inside_the_block_see_the_frozen_time() -> None:
    started = asyncio.Event()
    release = asyncio.Event()
    seen: dict[str, int] = {}

    async def early() -> None:  # created before the block: keeps the wall clock
        started.set()
        await release.wait()
        seen["early"] = now_ms()

    task = asyncio.create_task(early())
    await started.wait()
    with frozen_clock(JAN):

        async def inner() -> int:
            await asyncio.sleep(0)
            return now_ms()

        seen["task"] = await asyncio.create_task(inner())
        seen["gather"] = (await asyncio.gather(inner(), inner()))[1]
        seen["thread"] = await asyncio.to_thread(now_ms)
        release.set()
        await task
    assert seen["task"] == seen["gather"] == seen["thread"] == to_ms(JAN)
    assert abs(seen["early"] - _wall_ms()) < 5_000


async def test_concurrent_tasks_keep_their_own_frozen_times() -> None:
    async def at(when: datetime) -> list[int]:
        out = []
        with frozen_clock(when):
            for _ in range(3):
                await asyncio.sleep(0)
                out.append(now_ms())
        return out

    a, b = await asyncio.gather(at(JAN), at(JAN + timedelta(days=1)))
    assert a == [to_ms(JAN)] * 3
    assert b == [to_ms(JAN + timedelta(days=1))] * 3


def test_conversions_round_trip_and_refuse_naive_datetimes() -> None:
    assert from_ms(to_ms(JUL)) == JUL
    assert end_to_ms(None) == OPEN
    assert end_from_ms(OPEN) is None
    assert end_from_ms(to_ms(JUL)) == JUL
    with pytest.raises(ValueError, match="no time zone"):
        to_ms(datetime(2026, 1, 1))  # noqa: DTZ001  # the naive datetime is the point


def test_a_deadline_is_a_span_ahead_or_a_time():
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    assert parse_deadline("90m", now) == now + timedelta(minutes=90)
    assert parse_deadline(" 30D ", now) == now + timedelta(days=30)
    assert parse_deadline("2w", now) == now + timedelta(weeks=2)
    assert parse_deadline("2027-01-01", now) == datetime(2027, 1, 1, tzinfo=UTC)
    for bad in ("soon", "30", "-3d", "3y", ""):
        assert parse_deadline(bad, now) is None, bad
