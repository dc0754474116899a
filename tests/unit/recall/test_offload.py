"""`recall.offload.Offload`: a request's CPU steps on the loop when alone, else in a worker."""

from __future__ import annotations

import asyncio
import threading

import pytest

from recall.offload import Offload


def _where() -> int:
    return threading.get_ident()


async def test_the_only_request_in_flight_runs_its_steps_on_the_event_loops_thread() -> None:
    offload = Offload()
    loop_thread = threading.get_ident()
    with offload.request():
        assert offload.in_flight == 1
        assert await offload.run(_where) == loop_thread
        assert await offload.run(pow, 2, 10) == 1024
    assert offload.in_flight == 0


async def test_steps_move_to_a_worker_thread_while_other_requests_are_in_flight() -> None:
    offload = Offload()
    loop_thread = threading.get_ident()
    first_in = asyncio.Event()
    second_done = asyncio.Event()
    seen: dict[str, int] = {}

    async def first() -> None:
        with offload.request():
            first_in.set()
            await second_done.wait()  # still in flight while the second one runs
            seen["first"] = await offload.run(_where)

    async def second() -> None:
        await first_in.wait()
        with offload.request():
            seen["second"] = await offload.run(_where)
        second_done.set()

    await asyncio.gather(first(), second())
    assert seen["second"] != loop_thread  # two in flight: a worker
    assert seen["first"] == loop_thread  # alone again once the second left
    assert offload.in_flight == 0


async def test_a_step_whose_lock_another_thread_holds_waits_in_a_worker_not_on_the_loop() -> None:
    offload = Offload()
    loop_thread = threading.get_ident()
    lock = threading.Lock()
    release = threading.Timer(0.05, lock.release)
    lock.acquire()
    release.start()

    def locked_step() -> int:
        with lock:
            return threading.get_ident()

    with offload.request():
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while lock.locked():
                ticks += 1
                await asyncio.sleep(0.005)

        ran_in, _ = await asyncio.gather(offload.run(locked_step, lock=lock), tick())
    assert ran_in != loop_thread
    assert ticks > 0  # the loop kept running while the step waited for the lock


async def test_steps_outside_a_marked_request_run_in_a_worker_as_before() -> None:
    offload = Offload()
    assert await offload.run(_where) != threading.get_ident()


async def test_a_failing_request_leaves_the_count_as_it_found_it() -> None:
    offload = Offload()

    def fail() -> None:
        raise ValueError("step failed")

    with pytest.raises(ValueError, match="step failed"), offload.request():
        await offload.run(fail)
    assert offload.in_flight == 0


async def test_a_request_marked_too_long_for_the_loop_runs_in_a_worker_even_alone() -> None:
    offload = Offload()
    loop_thread = threading.get_ident()
    with offload.request(inline=False):
        assert await offload.run(_where) != loop_thread
    with offload.request():
        # the mark belongs to the request: tasks it starts (`gather`) carry it
        got = await asyncio.gather(offload.run(_where), offload.run(_where))
    assert got == [loop_thread, loop_thread]
