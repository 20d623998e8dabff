"""The part of a tab (engine/tab.py) that puts its page on its own clock (engine/clock.py): a
page on virtual time stays on it across its documents, so a tab whose page went on its clock for
a keyboard walk replaces the page afterwards with a spare made and warmed beforehand; the slot's
clock tab (``keeps_clock``) keeps its page on its clock from one sample to the next instead.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from typing import Self

from playwright.async_api import BrowserContext, CDPSession, Page, Route

from lm_eval_a11y.engine.browser import open_slot_context
from lm_eval_a11y.engine.clock import COARSE_QUANTUM_MS, QUANTUM_MS, PageClock
from lm_eval_a11y.engine.disguise import Origins

__all__ = ["ClockedPage", "ProbeError"]

# Contexts of clock tabs being closed in the background (Tab.drop_clock_tab): kept referenced.
_CLOSING: set[asyncio.Future[None]] = set()


async def _close_quietly(context: BrowserContext) -> None:
    with contextlib.suppress(Exception):  # it is being dropped: it may be wedged or gone already
        await asyncio.wait_for(context.close(), 10)


# What a spare page loads to warm its renderer (Tab._open_spare): no script, nothing to fetch.
_WARM_UP_HTML = "<!doctype html><html lang=en><title>.</title><p>.</p></html>"


class ProbeError(RuntimeError):
    """The probe could not answer (bad selector, stale element, page gone)."""


class ClockedPage:
    """The part of a :class:`Tab` that puts its page on its own clock (clock.py) and replaces the
    page afterwards, since a page stays on virtual time across its documents."""

    _page: Page | None
    _cdp: CDPSession | None
    _world: int | None
    _frame_id: str | None
    _committed_loaders: collections.deque[str]
    _navigated_at: float
    _clock_started_at_page_ms: float
    _spare: asyncio.Future[tuple[Page, CDPSession]] | None
    _origins: Origins
    _pending: dict[str, str]
    clock: PageClock | None
    pointer_on_page: bool
    keeps_clock: bool
    _navigated_at_virtual_ms: float
    _context: BrowserContext
    _clock_tab: Self | None
    crashed: asyncio.Event

    async def _open(self) -> tuple[Page, CDPSession]:
        raise NotImplementedError

    async def start(self) -> None:
        raise NotImplementedError

    @property
    def page(self) -> Page:
        raise NotImplementedError

    @property
    def context(self) -> BrowserContext:
        return self._context

    def _companion(self, context: BrowserContext) -> Self:
        """A tab of the same kind in ``context`` that keeps its clock."""
        raise NotImplementedError

    def share_origins(self, other: Self) -> None:
        raise NotImplementedError

    async def refuse(self, route: Route) -> None:
        raise NotImplementedError

    async def terminate_scripts(self) -> None:
        raise NotImplementedError

    async def page_clock(self) -> PageClock:
        """The page's own clock (clock.py), started on first use: from then on the page runs on
        virtual time, paced to the wall clock, until the tab replaces the page (the policy holds
        across the page's documents), which the next :meth:`load` or :meth:`depart` does."""
        if self.clock is None:
            if self._cdp is None:
                raise ProbeError("the page is not open")
            quantum = COARSE_QUANTUM_MS if self.keeps_clock else QUANTUM_MS
            clock = PageClock(self._cdp.send, self.terminate_scripts, quantum_ms=quantum)
            self._cdp.on("Emulation.virtualTimeBudgetExpired", clock.expired)
            self._clock_started_at_page_ms = self.page_time_ms
            await clock.start()
            self.clock = clock
            if not self.keeps_clock:
                # The page that will replace this one is made meanwhile, off the sample's path.
                self._make_spare()
        return self.clock

    def _make_spare(self) -> None:
        """Start making the page that will replace this one (:meth:`_open_spare`), unless one
        is being made."""
        if self._spare is None:
            self._spare = asyncio.ensure_future(self._open_spare())
            # Retrieved here too: a spare of a context dropped meanwhile fails unawaited.
            self._spare.add_done_callback(lambda done: done.cancelled() or done.exception())

    async def _open_spare(self) -> tuple[Page, CDPSession]:
        """A page to replace this one with (:meth:`_replace_page`), warmed: it has loaded a
        blank document of the slot's site and gone back to ``about:blank``, so that the renderer
        process the next document commits in is running and has compiled the probe (a
        replacement page that was not warmed took 1.6-2.3 s to load a modal dialog example under
        load, a warmed one 0.2-0.7 s, the page itself 0.25-0.7 s)."""
        page, cdp = await self._open()
        url = self._origins.next()
        self._pending[url] = _WARM_UP_HTML
        try:
            await page.goto(url, wait_until="load")
        finally:
            self._pending.pop(url, None)
        await page.goto("about:blank")
        return page, cdp

    @property
    def page_time_ms(self) -> float:
        """How long the sample's document has lived on its own clock since the navigation to it:
        the wall clock until its clock started, then the clock's virtual time (on a tab that keeps
        its clock, the clock's time since the navigation)."""
        if self.clock is None:
            return (time.perf_counter() - self._navigated_at) * 1000
        if self.keeps_clock:
            return self.clock.virtual_ms - self._navigated_at_virtual_ms
        return self._clock_started_at_page_ms + self.clock.virtual_ms

    async def _replace_page(self) -> None:
        """A new page for the tab, in the same context, on the wall clock again: leaves the old
        document without running any more of its scripts (the page is closed)."""
        clock, self.clock = self.clock, None
        if clock is not None:
            clock.close()
        page, self._page, self._cdp = self._page, None, None
        self._world = None
        self._frame_id = None
        self._committed_loaders.clear()
        self.pointer_on_page = False
        if page is not None and not page.is_closed():
            await page.close(run_before_unload=False)
        spare, self._spare = self._spare, None
        opened: tuple[Page, CDPSession] | None = None
        if spare is not None:
            with contextlib.suppress(Exception):  # made in the background: made again if it failed
                opened = await spare
        self._page, self._cdp = opened if opened is not None else await self._open()
        # A page that went on its clock once will again (the next keyboard walk): the next spare
        # is made at once, so that it is warm by the time it is needed.
        self._make_spare()

    async def clock_tab(self) -> Self:
        """The slot's clock tab, made on first use: a tab whose page lives on its own clock from
        its start and is never replaced (``keeps_clock``), in a browser context of its own, so
        that a copy of the sample loaded there shares no cookie, storage or channel with the
        sample's document in this tab (engine/late.py runs the page's clock ahead there)."""
        companion = self._clock_tab
        if companion is not None and not companion.crashed.is_set() and not companion.page.is_closed():
            return companion
        self.drop_clock_tab()
        browser = self._context.browser
        if browser is None:
            raise ProbeError("the browser is gone")
        context = await open_slot_context(browser)
        companion = self._companion(context)
        # One origin generator for every tab of the slot: no origin is ever served twice.
        companion.share_origins(self)
        # Pages other than the tab's own (a popup) get no network either.
        await context.route("**/*", companion.refuse)
        try:
            await companion.start()
        except BaseException:
            await _close_quietly(context)
            raise
        self._clock_tab = companion
        return companion

    def drop_clock_tab(self, *, close_context: bool = True) -> None:
        """Stop the clock tab's pacer and close its context in the background, if there is a
        clock tab (not its context when the browser is closing anyway: ``close_context``)."""
        companion, self._clock_tab = self._clock_tab, None
        if companion is None:
            return
        if companion.clock is not None:
            companion.clock.close()
        if not close_context:
            return
        task = asyncio.ensure_future(_close_quietly(companion.context))
        _CLOSING.add(task)
        task.add_done_callback(_CLOSING.discard)
