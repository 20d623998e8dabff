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
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

__all__ = ["Admission"]


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
