"""Admission of evaluations to the browser: how many work at once, and how many may wait.

An evaluation spends part of its time waiting with nothing to do (the late-change horizon: a page
with scripts is audited again 2 s after its navigation). A slot that sits idle through that wait
leaves the CPU idle too. So the evaluator separates two limits:

- ``working``: evaluations admitted and not waiting (``concurrency``). A new evaluation is
  admitted only while fewer than this many work.
- ``live``: evaluations holding a browser context (``working`` plus those waiting), bounded by
  the number of slots.

An evaluation that starts waiting (:meth:`Admission.idle`) makes room for the next one at once; one
whose wait is over carries on without queueing again (:meth:`Admission.busy`), even if that puts
more than ``working`` at work for a moment. Making it queue would charge the wait for a turn to
its own time budget, and its verdict would then depend on what else is in the batch.

Waiters are admitted in the order they asked (first come, first served), so a batch sorted
longest-first starts in that order.

How many evaluations may wait at once depends on memory, not on a fixed count: each open page
holds a renderer (about 60 MiB for a small page with axe loaded), and on small pages the waits,
not the CPU, bound the pool's speed. :class:`SlotPool` hands out browser contexts ("slots"): a
slot that already holds a context is handed out at once; a slot without one (its context is made
on first use) only while fewer than ``always`` contexts are open or while ``room()`` says the
browser has memory to spare. An evaluation asks for a slot after it is admitted, so at most
``working`` ever wait for one.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Generic, TypeVar

__all__ = ["Admission", "SlotPool"]

S = TypeVar("S")


@dataclass
class Admission:
    """First-come, first-served admission of at most ``working`` busy evaluations at once."""

    working: int
    busy_now: int = 0
    _queue: deque[asyncio.Future[None]] = field(default_factory=deque)

    def __post_init__(self) -> None:
        if self.working < 1:
            raise ValueError(f"working must be at least 1, got {self.working}")

    async def enter(self) -> None:
        """Wait for a turn: until fewer than ``working`` evaluations are busy and every earlier
        waiter has been admitted."""
        if self.busy_now < self.working and not self._queue:
            self.busy_now += 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(turn)
        try:
            await turn
        except BaseException:
            if turn.done() and not turn.cancelled():
                # Admitted just as it was cancelled: hand the turn on.
                self.busy_now -= 1
                self._wake()
            else:
                self._queue.remove(turn)
            raise

    def leave(self) -> None:
        """An admitted evaluation is done (or starts to wait: :meth:`idle`)."""
        self.busy_now -= 1
        assert self.busy_now >= 0, "left more often than entered"
        self._wake()

    def back(self) -> None:
        """An evaluation's wait is over; it works again without queueing."""
        self.busy_now += 1

    @asynccontextmanager
    async def idle(self) -> AsyncIterator[None]:
        """Around a wait with nothing to do: the evaluation's turn goes to the next waiter."""
        self.leave()
        try:
            yield
        finally:
            self.back()

    def _wake(self) -> None:
        while self._queue and self.busy_now < self.working:
            turn = self._queue.popleft()
            if turn.done():
                continue
            self.busy_now += 1
            turn.set_result(None)


@dataclass
class SlotPool(Generic[S]):
    """First-come, first-served hand-out of slots, opening a slot's context only when memory allows.

    ``open(slot)`` says whether the slot holds a live context; ``room()`` whether the browser may
    take another one. The first ``always`` contexts are allowed whatever the memory: the evaluations
    admitted to work need them, or nothing would ever run (the watchdog and the memory cgroup, not
    this, bound what their pages take).
    """

    slots: list[S]
    always: int
    open: Callable[[S], bool]
    room: Callable[[], bool]
    _free: list[S] = field(default_factory=list)
    _queue: deque[asyncio.Future[S]] = field(default_factory=deque)
    _opened: deque[float] = field(default_factory=deque)

    def __post_init__(self) -> None:
        if not 1 <= self.always <= len(self.slots):
            raise ValueError(f"always must be between 1 and the {len(self.slots)} slots, got {self.always}")
        self._free = list(self.slots)

    @property
    def open_now(self) -> int:
        """Slots in use (each has or is about to make a context) and free slots with a context."""
        return len(self.slots) - sum(1 for slot in self._free if not self.open(slot))

    def opened_since(self, moment: float) -> int:
        """How many slots without a context were handed out at or after ``moment``
        (``time.monotonic()``): contexts a reading of the browser's memory taken then cannot show."""
        while self._opened and self._opened[0] < moment - 60:
            self._opened.popleft()
        return sum(1 for at in self._opened if at >= moment)

    async def take(self) -> S:
        """A slot: a free one with a context at once, else a new context when memory allows, else
        the next slot given back."""
        if not self._queue and (slot := self._pick()) is not None:
            return slot
        turn: asyncio.Future[S] = asyncio.get_running_loop().create_future()
        self._queue.append(turn)
        try:
            return await turn
        except BaseException:
            if turn.done() and not turn.cancelled():
                self.give(turn.result())  # handed over just as it was cancelled: pass it on
            else:
                self._queue.remove(turn)
            raise

    def crowded(self) -> bool:
        """Whether a slot given back should close its context: more than ``always`` are open and
        the browser has no memory to spare."""
        return self.open_now > self.always and not self.room()

    def give(self, slot: S) -> None:
        """A slot is free again (with its context, or without it if it was closed)."""
        self._free.append(slot)
        while self._queue:
            if self._queue[0].done():
                self._queue.popleft()
                continue
            picked = self._pick()
            if picked is None:
                return
            self._queue.popleft().set_result(picked)

    def _pick(self) -> S | None:
        for index, slot in enumerate(self._free):
            if self.open(slot):
                return self._free.pop(index)
        closed = next((i for i, slot in enumerate(self._free) if not self.open(slot)), None)
        if closed is not None and (self.open_now < self.always or self.room()):
            self._opened.append(time.monotonic())
            return self._free.pop(closed)
        return None
