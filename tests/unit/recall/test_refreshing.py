"""The statistics cache behind `context`: stale values are served while one refresh runs."""

from __future__ import annotations

import asyncio

from graph.errors import GraphUnavailableError
from recall.retrieval import _Refreshing


async def test_first_get_waits_later_ones_get_the_stale_value_while_one_refresh_runs() -> None:
    calls: list[str] = []
    release = asyncio.Event()

    async def load(key: str) -> int:
        calls.append(key)
        if len(calls) > 1:
            await release.wait()  # the refresh is slow
        return len(calls)

    cache: _Refreshing[str, int] = _Refreshing(0.0, load)  # every value is due at once
    assert await cache.get("p") == 1
    assert await cache.get("p") == 1  # stale, refresh started
    await asyncio.sleep(0)  # the refresh task starts and waits
    assert await cache.get("p") == 1  # still stale, no second refresh
    await asyncio.sleep(0)
    assert calls == ["p", "p"]
    release.set()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert await cache.get("p") == 2


async def test_fresh_values_are_not_reloaded_and_clear_forgets() -> None:
    n = 0

    async def load(key: str) -> int:
        nonlocal n
        n += 1
        return n

    cache: _Refreshing[str, int] = _Refreshing(60.0, load)
    assert [await cache.get("p") for _ in range(3)] == [1, 1, 1]
    cache.clear()
    assert await cache.get("p") == 2


async def test_a_failed_refresh_keeps_serving_the_old_value() -> None:
    n = 0

    async def load(key: str) -> int:
        nonlocal n
        n += 1
        if n == 2:
            raise GraphUnavailableError("unix:///x.sock", "engine down")
        return n

    cache: _Refreshing[str, int] = _Refreshing(0.0, load)
    assert await cache.get("p") == 1
    assert await cache.get("p") == 1  # refresh fails in the background
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert await cache.get("p") == 1  # stale value kept; this call starts another refresh
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert await cache.get("p") == 3
