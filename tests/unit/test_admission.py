"""Admission: at most `working` evaluations busy, first come first served, and a waiting one
makes room without queueing again when its wait is over; slots open contexts beyond the
always-open ones only while memory allows."""

from __future__ import annotations

import asyncio

import pytest

from lm_eval_a11y.engine.admission import Admission, SlotPool


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


class _Slot:
    def __init__(self, name: str) -> None:
        self.name = name
        self.context = False


def _pool(count: int, always: int, room: list[bool]) -> SlotPool[_Slot]:
    slots = [_Slot(str(i)) for i in range(count)]
    return SlotPool(slots, always=always, open=lambda s: s.context, room=lambda: room[0])


def test_contexts_beyond_the_always_open_ones_wait_for_memory() -> None:
    async def scenario() -> None:
        room = [False]
        pool = _pool(4, 2, room)
        first, second = await pool.take(), await pool.take()
        first.context = second.context = True
        third = asyncio.ensure_future(pool.take())
        await asyncio.sleep(0.01)
        assert not third.done(), "a third context opened with no memory to spare"
        assert pool.open_now == 2
        # Memory frees up, but only a slot given back lets the pool look again.
        room[0] = True
        pool.give(first)
        await asyncio.sleep(0.01)
        assert third.result() is first, "a free slot with its context goes first"
        fourth = await pool.take()
        assert fourth not in (first, second) and not fourth.context
        assert pool.open_now == 3
        assert pool.opened_since(0.0) == 3

    asyncio.run(scenario())


def test_a_crowded_pool_closes_contexts_given_back_down_to_the_always_open_ones() -> None:
    async def scenario() -> None:
        room = [True]
        pool = _pool(5, 2, room)
        taken = [await pool.take() for _ in range(4)]
        for slot in taken:
            slot.context = True
        room[0] = False
        closed = 0
        for slot in taken:
            if pool.crowded():
                slot.context = False
                closed += 1
            pool.give(slot)
        assert closed == 2
        assert pool.open_now == 2

    asyncio.run(scenario())


def test_slot_waiters_are_served_in_order_and_a_cancelled_one_passes_its_slot_on() -> None:
    async def scenario() -> None:
        pool = _pool(1, 1, [False])
        only = await pool.take()
        only.context = True
        waiters = [asyncio.ensure_future(pool.take()) for _ in range(3)]
        await asyncio.sleep(0.01)
        waiters[0].cancel()
        await asyncio.sleep(0.01)
        pool.give(only)
        await asyncio.sleep(0.01)
        assert waiters[1].result() is only
        assert not waiters[2].done()
        pool.give(waiters[1].result())
        await asyncio.sleep(0.01)
        assert waiters[2].result() is only

    asyncio.run(scenario())


@pytest.mark.parametrize("always", [0, 3])
def test_always_open_must_fit_the_slots(always: int) -> None:
    with pytest.raises(ValueError, match="always must be between 1 and the 2 slots"):
        _pool(2, always, [True])
