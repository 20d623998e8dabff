"""The slices a run ahead grants the page's clock (engine/clock.py), with a stand-in for Chromium:
each grant's budget runs out at once. A run ahead that goes on after a stop without a change keeps
the slices' length (each slice is a CDP round trip and a wait for its end); a change starts them
short again, so that the state after it is looked at soon."""

from __future__ import annotations

import asyncio
from typing import Any

from lm_eval_a11y.engine.clock import FIRST_SLICE_MS, MAX_SLICE_MS, PageClock


class _Chromium:
    """Records each budget granted and ends it at once; sets ``change`` during the grant numbered
    ``change_at`` (from 0), as a page announcing a change in that slice."""

    def __init__(self, change: asyncio.Event | None = None, change_at: int = -1) -> None:
        self.budgets: list[float] = []
        self.clock: PageClock | None = None
        self._change = change
        self._change_at = change_at

    async def send(self, method: str, params: dict[str, Any]) -> None:
        assert method == "Emulation.setVirtualTimePolicy"
        assert self.clock is not None
        if params["policy"] != "advance":
            return
        if len(self.budgets) == self._change_at and self._change is not None:
            self._change.set()
        self.budgets.append(params["budget"])
        asyncio.get_running_loop().call_soon(self.clock.expired)


async def _unstick() -> None:
    raise AssertionError("no slice of these runs is stuck")


def _clock(chromium: _Chromium) -> PageClock:
    clock = PageClock(chromium.send, _unstick)
    chromium.clock = clock
    return clock


def test_slices_double_from_the_first_to_the_longest() -> None:
    async def run() -> tuple[list[float], float, float]:
        chromium = _Chromium()
        clock = _clock(chromium)
        done = await clock.advance(2000)
        return chromium.budgets, done, clock.next_slice_ms

    budgets, done, next_slice = asyncio.run(run())
    assert budgets == [FIRST_SLICE_MS, 100, 200, 400, MAX_SLICE_MS, MAX_SLICE_MS, 250]
    assert done == 2000 and sum(budgets) == 2000
    assert next_slice == MAX_SLICE_MS


def test_a_run_ahead_that_goes_on_without_a_change_keeps_the_slices_long() -> None:
    async def run() -> tuple[list[float], list[float]]:
        chromium = _Chromium()
        clock = _clock(chromium)
        await clock.advance(1000)
        first = list(chromium.budgets)
        chromium.budgets.clear()
        await clock.advance(1000, first_slice_ms=clock.next_slice_ms)
        return first, chromium.budgets

    first, then = asyncio.run(run())
    assert first == [50, 100, 200, 400, 250]
    # Two round trips for the next second of the page's life, not five.
    assert then == [MAX_SLICE_MS, MAX_SLICE_MS]


def test_a_change_stops_the_run_ahead_and_starts_the_slices_short_again() -> None:
    async def run() -> tuple[list[float], float, float]:
        changed = asyncio.Event()
        chromium = _Chromium(changed, change_at=1)
        clock = _clock(chromium)
        done = await clock.advance(5000, changed=changed, first_slice_ms=MAX_SLICE_MS)
        return chromium.budgets, done, clock.next_slice_ms

    budgets, done, next_slice = asyncio.run(run())
    assert budgets == [MAX_SLICE_MS, MAX_SLICE_MS]
    assert done == 2 * MAX_SLICE_MS
    assert next_slice == FIRST_SLICE_MS


def test_a_first_slice_out_of_bounds_is_held_within_them() -> None:
    async def run() -> list[float]:
        chromium = _Chromium()
        clock = _clock(chromium)
        await clock.advance(3000, first_slice_ms=10_000)
        await clock.advance(10, first_slice_ms=0)
        return chromium.budgets

    budgets = asyncio.run(run())
    assert budgets[:6] == [MAX_SLICE_MS] * 6
    assert budgets[6:] == [10]


def test_a_held_clock_grants_nothing_until_it_is_resumed() -> None:
    """The slot's clock tab is held between samples: no slice (a CDP round trip) while idle; the
    pacer grants again once resumed, and a run ahead still works after a hold."""

    async def run() -> tuple[int, int, int, float]:
        chromium = _Chromium()
        clock = _clock(chromium)
        await clock.start()
        await asyncio.sleep(0.1)
        paced = len(chromium.budgets)
        await clock.hold()
        held_at = len(chromium.budgets)
        await asyncio.sleep(0.2)
        while_held = len(chromium.budgets) - held_at
        clock.resume()
        await asyncio.sleep(0.1)
        resumed = len(chromium.budgets) - held_at - while_held
        done = await clock.advance(100)
        clock.close()
        return paced, while_held, resumed, done

    paced, while_held, resumed, done = asyncio.run(run())
    assert paced > 0 and resumed > 0
    assert while_held == 0
    assert done == 100
