"""The page's own clock: Chromium's virtual time for a tab's page, paced to the wall clock while
the evaluator works with it, and run ahead on demand.

Chromium's ``Emulation.setVirtualTimePolicy`` gives a page a clock of its own: its timers,
``Date.now()``, ``performance.now()`` and the documents of its same-process frames follow a
virtual time that advances only by the budgets granted to it (as fast as the page's tasks run,
skipping idle time). Once a page is on virtual time it stays on it, across documents, and when a
budget runs out the page is paused: no timer fires, not even a zero-delay one, until the next
budget. So a :class:`PageClock`, once started on a page (Tab.page_clock), owns its policy until
the tab replaces the page:

- **paced** (between runs ahead): a background task grants slices of :data:`QUANTUM_MS`, each
  once the wall clock has caught up with the last, so that the page's time follows the wall
  clock within a quantum and every wait of the evaluator (a settle's timer, axe-core's own)
  works as on a page without virtual time;
- :meth:`PageClock.advance` runs the page ahead by a span of its own time in slices, as fast as
  its tasks run (a 30 s horizon of timers costs a fraction of a second), stopping early after a
  slice in which the page announced a change, so that the caller can look at each state;
- :meth:`PageClock.pause_input` keeps a person's cadence between key presses: it runs the page
  ahead until a given span of its time has passed since the last one.

What does not follow it: animation frames come from the compositor, and a paced page gets them
only while a slice runs (about half the frame rate, measured); CSS transitions and animations
run on the frame's time; input events' ``event.timeStamp`` is taken from the wall clock; and
time stands still inside a task, so a script that waits in a loop for ``Date.now()`` to move
never returns (a run ahead stops it: :data:`_STUCK_S`). Hence the page is put on virtual time
only for the run ahead of the late audit and for keyboard walks, and replaced afterwards; see
docs/trust.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["COARSE_QUANTUM_MS", "FIRST_SLICE_MS", "INPUT_GAP_MS", "MAX_SLICE_MS", "QUANTUM_MS", "PageClock"]

# The slice the pacer grants while the page follows the wall clock: the page's timers fire at most
# this late (a zero-delay timer queued while the page waits for its next slice waits for it).
# Smaller slices cost more round trips: each is about 2.5 ms of wall time and 0.7 ms of our CPU.
QUANTUM_MS = 16.0
# The slice of the slot's clock tab (Tab keeps_clock), which runs only a copy of the sample to
# its late-change horizon: its loads, settles, audits and its watch on the wall clock need the
# page's timers less promptly, and a third of the round trips saves CPU on every sample.
COARSE_QUANTUM_MS = 48.0

# Slices of a run ahead: the first after a change, doubled after each slice without one, up to
# the last. A state the page shows for less than MAX_SLICE_MS of its own time may fall inside one
# slice and not be looked at (the state after it is).
FIRST_SLICE_MS = 50.0
MAX_SLICE_MS = 500.0

# The least time of the page's clock between two input events of the checks (key presses, pointer
# moves, typed characters): a person's cadence (fast typists press keys 100-200 ms apart; a Tab
# walk is slower). A page that behaves only for input at machine speed is caught out.
INPUT_GAP_MS = 200.0

# A slice of a run ahead that has not ended after this long of wall time is stuck in one task of
# the page (see PageClock._grant). Our own long tasks (an axe run) never overlap a run ahead.
_STUCK_S = 2.0

# How many of the page's tasks may run at one virtual instant before its time moves on anyway
# (a page that posts messages to itself forever would otherwise never let a budget run out).
_STARVATION = 100


class PageClock:
    """The virtual clock of one tab's page (see the module's docstring).

    ``send`` is the tab's CDP session's ``send``; the tab passes each
    ``Emulation.virtualTimeBudgetExpired`` event to :meth:`expired`.
    """

    def __init__(
        self,
        send: Callable[[str, dict[str, Any]], Awaitable[Any]],
        unstick: Callable[[], Awaitable[None]],
        *,
        quantum_ms: float = QUANTUM_MS,
    ) -> None:
        self._send = send
        self._quantum_ms = quantum_ms
        self._unstick = unstick
        # Page scripts stopped because time stood still inside them during a run ahead.
        self.stopped_scripts = 0
        self._expired = asyncio.Event()
        # Held for each grant: a run ahead takes it between two of the pacer's slices.
        self._lock = asyncio.Lock()
        self._pacer: asyncio.Task[None] | None = None
        self._rebase = True
        # Milliseconds of virtual time granted and passed since the clock started.
        self.virtual_ms = 0.0
        # The virtual time of the last input event sent to the page (pause_input).
        self._last_input_ms: float | None = None
        # Virtual milliseconds run ahead, and their wall time, since the clock started.
        self.ahead_ms = 0.0
        self.ahead_wall_s = 0.0
        # The slice a run ahead would go on with (advance's first_slice_ms).
        self.next_slice_ms = FIRST_SLICE_MS

    async def start(self) -> None:
        """Put the page on virtual time (paused) and start pacing it."""
        await self._send("Emulation.setVirtualTimePolicy", {"policy": "pause"})
        self._pacer = asyncio.ensure_future(self._pace())

    def expired(self, _params: object = None) -> None:
        self._expired.set()

    def close(self) -> None:
        if self._pacer is not None:
            self._pacer.cancel()
            self._pacer = None

    async def hold(self) -> None:
        """Stop pacing: the page stays paused (no timer fires) until :meth:`resume`. A page kept
        on its clock between samples (Tab ``keeps_clock``) costs no round trips while idle."""
        if self._pacer is not None:
            async with self._lock:  # the slice in flight ends first
                self._pacer.cancel()
                self._pacer = None

    def resume(self) -> None:
        """Pace the page to the wall clock again after :meth:`hold`."""
        if self._pacer is None:
            self._rebase = True
            self._pacer = asyncio.ensure_future(self._pace())

    async def _grant(self, ms: float, *, guard: bool = False) -> None:
        policy = {"policy": "advance", "budget": ms, "maxVirtualTimeTaskStarvationCount": _STARVATION}
        self._expired.clear()
        sent = asyncio.ensure_future(self._send("Emulation.setVirtualTimePolicy", policy))
        try:
            # A renderer busy in a script answers no command: the grant itself waits for it too.
            while guard and not sent.done():
                if not (await asyncio.wait({sent}, timeout=_STUCK_S))[0]:
                    await self._stop_script()
            await sent
        finally:
            sent.cancel()
        while True:
            expired = asyncio.ensure_future(self._expired.wait())
            try:
                if (await asyncio.wait({expired}, timeout=_STUCK_S if guard else None))[0]:
                    break
            finally:
                expired.cancel()
            # No end of the budget for a while: a script holds the renderer (time stands still
            # inside it), or the budget went with a navigation that committed meanwhile. A renderer
            # that answers is running no script: the budget is granted again.
            if await self._answers():
                self._expired.clear()
                await self._send("Emulation.setVirtualTimePolicy", policy)
            else:
                await self._stop_script()
        self.virtual_ms += ms

    async def _answers(self) -> bool:
        """Whether the page's renderer evaluates a constant within a moment (no script of the
        page is holding it)."""
        try:
            await asyncio.wait_for(self._send("Runtime.evaluate", {"expression": "0", "returnByValue": True}), 0.5)
        except TimeoutError:
            return False
        return True

    async def _stop_script(self) -> None:
        """Time stands still inside a task: a page that waits for Date.now() or performance.now()
        to move in a loop never returns on virtual time. Its script is stopped
        (Runtime.terminateExecution); the page goes on with its next task."""
        self.stopped_scripts += 1
        await self._unstick()

    async def _pace(self) -> None:
        wall0 = virtual0 = 0.0
        with contextlib.suppress(Exception):  # the page closed or crashed: the clock ends with it
            while True:
                async with self._lock:
                    if self._rebase:
                        wall0, virtual0, self._rebase = time.perf_counter(), self.virtual_ms, False
                    # Behind the wall clock (the page was busy): catch up, a few quanta at a time.
                    lag = (time.perf_counter() - wall0) * 1000 - (self.virtual_ms - virtual0)
                    quantum = self._quantum_ms
                    await self._grant(min(max(quantum, lag + quantum), 4 * quantum), guard=True)
                lead = (self.virtual_ms - virtual0) / 1000 - (time.perf_counter() - wall0)
                if lead > 0:
                    await asyncio.sleep(lead)

    async def advance(
        self,
        ms: float,
        *,
        changed: asyncio.Event | None = None,
        wall_limit_s: float = 5.0,
        first_slice_ms: float = FIRST_SLICE_MS,
    ) -> float:
        """Run the page ahead by ``ms`` of its own time, as fast as its tasks run; return how far
        it went. With ``changed``, stop after the first slice during which it was set (the page
        announced a change); past ``wall_limit_s`` of wall time (a page whose timers work hard),
        stop where the page is. The first slice is ``first_slice_ms`` long; a caller that goes on
        running the page ahead after a stop without a change passes :attr:`next_slice_ms`, so the
        slices keep the length they had grown to."""
        done = 0.0
        started = time.perf_counter()
        stopped = self.stopped_scripts
        step = min(max(first_slice_ms, FIRST_SLICE_MS), MAX_SLICE_MS)
        async with self._lock:
            try:
                while done < ms:
                    grant = min(step, ms - done)
                    await self._grant(grant, guard=True)
                    done += grant
                    if self.stopped_scripts > stopped:
                        break  # the page is no longer the one it was: the caller decides
                    if changed is not None and changed.is_set():
                        step = FIRST_SLICE_MS
                        break
                    step = min(step * 2, MAX_SLICE_MS)
                    if time.perf_counter() - started > wall_limit_s:
                        break
            finally:
                self.next_slice_ms = step
                self._rebase = True
                self.ahead_ms += done
                self.ahead_wall_s += time.perf_counter() - started
        return done

    async def pause_input(self, gap_ms: float) -> None:
        """Before an input event: let at least ``gap_ms`` of the page's time pass since the last
        one (run ahead for what is missing), as between a person's key presses."""
        if self._last_input_ms is not None:
            missing = self._last_input_ms + gap_ms - self.virtual_ms
            if missing > 1:
                await self.advance(missing)
        self._last_input_ms = self.virtual_ms
