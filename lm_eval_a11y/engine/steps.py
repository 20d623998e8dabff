"""What every step of a sample's audit shares: the run's scratch space (:class:`SampleRun`), the
crash-aware wait, and the axe run that belongs to no check."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from lm_eval_a11y.engine.pool import SlotScheduling
from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.engine.states import StateAudits
from lm_eval_a11y.engine.tab import EventLog
from lm_eval_a11y.observation import CheckResult, ContrastAudit

__all__ = ["PageCrashedError", "SampleRun", "SampleSteps", "consume"]

T = TypeVar("T")


@dataclass
class SampleRun:
    """Mutable scratch space of one evaluation; frozen into an Observation at the end."""

    events: EventLog = field(default_factory=EventLog)
    checks: list[CheckResult] = field(default_factory=list)
    render_ms: float = 0.0
    axe_ms: float = 0.0
    checks_ms: float = 0.0
    session: Session | None = None
    screenshot: str | None = None
    # The late-change horizon that applied (see AuditCoverage) and what the late audit did.
    horizon_ms: float | None = None
    # The clock the late audit ran on ("virtual": the page's own, run ahead; "none": no late audit
    # ran) and the wall time of its real-time window for the frame clock.
    clock: str = "none"
    frames_ms: float = 0.0
    input_gap_ms: float = 0.0
    late_audit: str = "none"
    states_audited: int = 0
    # Until when the watch rests after its last audit of a changing state (time.perf_counter).
    watch_rests_until: float = 0.0
    # When the first audit of the first-rendered document ended (None: that document was replaced).
    first_audit_end: float | None = None
    # When the evaluation began (time.monotonic), to find the memory kill that ended it.
    began: float = 0.0
    contrast: ContrastAudit | None = None
    contrast_ms: float = 0.0
    # Content that could not be audited for a reason of the whole document (not of one axe run).
    unaudited: list[str] = field(default_factory=list)
    # The steps not run because the page had already failed (stop_at_first_failure, early_stop.py).
    skipped: list[str] = field(default_factory=list)
    # The states the checks' actions showed, audited by _audit_state (engine/states.py).
    state_audits: StateAudits | None = None
    # Characters of text the first-rendered document shows (probe text.js; None: not read).
    text_chars: int | None = None

    def budget_s(self, timeout_s: float) -> float:
        """The sample's time budget: ``timeout_s``, plus the time the evaluator spent reloading
        the page for its own steps (a fresh page for a check, a condition, the walk), by at most
        ``timeout_s`` again. A page that is slow to load (a framework compiled in the browser)
        pays its load once, as a visitor does, not once per reload; a page cannot stretch its
        sample past twice the budget."""
        reloads_s = self.session.reloads_s if self.session is not None else 0.0
        return timeout_s + min(reloads_s, timeout_s)


class PageCrashedError(Exception):
    pass


def consume(task: asyncio.Future[Any]) -> None:
    """Retrieve a finished task's exception so abandoned work never logs 'never retrieved'."""
    if not task.cancelled():
        task.exception()


class SampleSteps(SlotScheduling):
    """The steps' shared means: waiting on page work that a renderer crash may cut short, and
    recording an axe run that belongs to no check."""

    async def _audit_unchecked(
        self, session: Session, run: SampleRun, state: str, *, settle: bool = False, disable: tuple[str, ...] = ()
    ) -> None:
        """An axe run that belongs to no check (listed before the checks' own), counted in the
        sample's axe time; ``settle`` first lets the page settle."""
        position, session.position = session.position, -1
        t0 = time.perf_counter()
        if settle:
            await self._crash_aware(session, session.settle())
        await self._crash_aware(session, session.run_axe(state, disable=disable))
        run.axe_ms += (time.perf_counter() - t0) * 1000
        session.position = position

    async def _crash_aware(self, session: Session, work: Awaitable[T]) -> T:
        task = asyncio.ensure_future(work)
        task.add_done_callback(consume)
        crash = asyncio.ensure_future(session.crashed.wait())
        try:
            await asyncio.wait({task, crash}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            crash.cancel()
            if not task.done():
                task.cancel()
        if not task.done() or (session.crashed.is_set() and task.exception() is not None):
            raise PageCrashedError()
        return task.result()
