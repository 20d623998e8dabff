"""Admission: at most `working` evaluations busy, first come first served, and a waiting one
makes room without queueing again when its wait is over."""

from __future__ import annotations

import asyncio

import pytest

from lm_eval_a11y.admission import Admission


def test_admits_at_most_working_in_arrival_order() -> None:
    async def scenario() -> list[str]:
        admission = Admission(2)
        log: list[str] = []
        release = asyncio.Event()

        async def one(name: str) -> None:
            await admission.enter()
            log.append(f"in {name}")
            await release.wait()
            admission.leave()

        tasks = [asyncio.ensure_future(one(n)) for n in "abcd"]
        await asyncio.sleep(0.01)
        assert admission.busy_now == 2
        log.append("release")
        release.set()
        await asyncio.gather(*tasks)
        assert admission.busy_now == 0
        return log

    assert asyncio.run(scenario()) == ["in a", "in b", "release", "in c", "in d"]


def test_an_idle_evaluation_makes_room_and_comes_back_without_queueing() -> None:
    async def scenario() -> None:
        admission = Admission(1)
        await admission.enter()
        second = asyncio.ensure_future(admission.enter())
        await asyncio.sleep(0.01)
        assert not second.done()
        async with admission.idle():
            await asyncio.sleep(0.01)
            assert second.done(), "the waiting evaluation's turn went to nobody"
        # Back from its wait while the other works: both are busy for a moment.
        assert admission.busy_now == 2
        third = asyncio.ensure_future(admission.enter())
        admission.leave()
        await asyncio.sleep(0.01)
        assert not third.done(), "admitted while one was still busy"
        admission.leave()
        await asyncio.sleep(0.01)
        assert third.done()
        admission.leave()
        assert admission.busy_now == 0

    asyncio.run(scenario())


def test_a_cancelled_waiter_gives_its_place_up() -> None:
    async def scenario() -> None:
        admission = Admission(1)
        await admission.enter()
        doomed = asyncio.ensure_future(admission.enter())
        after = asyncio.ensure_future(admission.enter())
        await asyncio.sleep(0.01)
        doomed.cancel()
        await asyncio.sleep(0.01)
        admission.leave()
        await asyncio.sleep(0.01)
        assert after.done() and not after.cancelled()
        assert admission.busy_now == 1

    asyncio.run(scenario())


def test_a_waiter_cancelled_as_it_is_admitted_hands_the_turn_on() -> None:
    async def scenario() -> None:
        admission = Admission(1)
        await admission.enter()
        doomed = asyncio.ensure_future(admission.enter())
        after = asyncio.ensure_future(admission.enter())
        await asyncio.sleep(0.01)
        admission.leave()  # admits `doomed` ...
        doomed.cancel()  # ... which is cancelled before it runs again
        await asyncio.sleep(0.01)
        assert doomed.cancelled()
        assert after.done() and not after.cancelled()
        assert admission.busy_now == 1

    asyncio.run(scenario())


def test_refuses_a_limit_below_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Admission(0)
