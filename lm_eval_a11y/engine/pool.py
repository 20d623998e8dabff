"""The slot pool: browser contexts handed to evaluations, replaced when they misbehave or have
served ``recycle_after`` samples, and the order a batch's pages and a case's checks run in.

Admission (:mod:`~lm_eval_a11y.engine.admission`) decides how many evaluations work and wait at
once; this module gives each one a slot with a live :class:`~lm_eval_a11y.engine.tab.Tab`, and
guesses how long each page will take (longest first) and which checks only read the page
(:mod:`~lm_eval_a11y.engine.check_order`), learning both from the runs it has seen.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any

from lm_eval_a11y.cases import Case
from lm_eval_a11y.checks import Check
from lm_eval_a11y.engine.admission import Admission, SlotPool
from lm_eval_a11y.engine.browser import open_slot_context
from lm_eval_a11y.engine.check_order import guess_acts, guess_wait_ms
from lm_eval_a11y.engine.lifecycle import BrowserLifecycle
from lm_eval_a11y.engine.settings import EvaluatorSettings
from lm_eval_a11y.engine.tab import EventLog, RenderSettings, Tab
from lm_eval_a11y.resources import axe_path, probe_source

__all__ = ["Slot", "SlotScheduling"]

# How long leaving a sample's document may take before the slot gets a new renderer instead: an
# ordinary departure takes about 15 ms, one under heavy load a few hundred.
_DEPART_S = 2.0

# axe-core waits up to 10 s for the metadata of autoplaying media before its no-autoplay-audio
# rule, and media from the network never loads here (every request is refused): each axe run of
# such a page waited the whole 10 s. That rule only ever reports "needs review" (axe marks it
# reviewOnFail), which never counts against a sample, so media is not preloaded at all;
# stylesheets still are (css-orientation-lock reads them).
_AXE_PRELOAD = {"assets": ["cssom"]}


@dataclass
class Slot:
    context: Any = None
    tab: Tab | None = None
    # The browser the context belongs to: after a restart the context is dead, never used again.
    browser: Any = None
    uses: int = 0
    broken: bool = False

    @staticmethod
    def is_open(slot: Slot) -> bool:
        return slot.context is not None


# How many characters of HTML one slot gets through per second, all work included, with every
# core busy: a 690 KB page took 13 s in the benchmark at four slots on two cores. Only the order
# of a batch depends on it.
_CHARS_PER_SECOND = 55_000

# What a check that acts adds to an evaluation's wall time, before the case has run (a reload,
# the key presses and their settling: 0.1-0.3 s in the same benchmark).
_ACTING_CHECK_S = 0.2

# What one more open page adds to the browser's memory until the watchdog's next reading shows
# it: a small page's renderer with axe loaded held 55-65 MiB on the benchmark corpus.
_CONTEXT_BYTES = 64 * 2**20


class SlotScheduling(BrowserLifecycle):
    """Slots and their contexts, and the order work is handed out in."""

    def __init__(self, settings: EvaluatorSettings | None = None) -> None:
        super().__init__(settings)
        self._axe_source = axe_path().read_text(encoding="utf-8")
        self._probe_source = probe_source()
        self._slots: SlotPool[Slot] | None = None
        # At most `concurrency` evaluations work at once; those waiting out the late-change
        # horizon make room for others (admission.py) while keeping their slot.
        self._admission = Admission(self.settings.concurrency)
        # (case id, check id) -> whether the check acted on the page when it last ran.
        self._acted: dict[tuple[str, str], bool] = {}
        # (case id, check id) -> the guess from the check's code, for checks not run yet.
        self._guessed: dict[tuple[str, str], bool] = {}
        # case id -> seconds its checks took on its last page (of a model's size) or, until the
        # case has run, a guess from their code; see _expected_s.
        self._checks_seen: dict[str, float] = {}
        self._checks_guessed: dict[str, float] = {}
        self._waiting = 0
        self._render_settings = RenderSettings(
            viewport=self.settings.viewport,
            axe_source=self._axe_source,
            probe_source=self._probe_source,
            axe_options={
                "runOnly": {"type": "tag", "values": list(self.settings.axe_tags)},
                "resultTypes": ["violations", "incomplete"],
                "preload": _AXE_PRELOAD,
            },
            settle_ms=self.settings.settle_ms,
            paced_keys=self.settings.paced_keys,
        )

    def _browser_started(self) -> None:
        if self._slots is None:
            # Once only: after a browser restart, evaluations still hold slots of this queue
            # and wait on it; a new queue would strand them. A slot's context from the old
            # browser is replaced before its next use (_tab); one in use fails once.
            self._slots = SlotPool(
                [Slot() for _ in range(self.settings.slots)],
                always=self.settings.always_open,
                open=Slot.is_open,
                room=self._memory_to_spare,
            )

    def _browser_stopping(self) -> None:
        if self._slots is not None:
            for slot in self._slots.slots:
                if slot.tab is not None:
                    if slot.tab.clock is not None:
                        slot.tab.clock.close()
                    slot.tab.drop_clock_tab(close_context=False)
        self._slots = None  # their contexts die with the browser

    def _memory_to_spare(self) -> bool:
        """Whether the browser may open one more context for a waiting evaluation: its processes
        at the watchdog's last reading, plus what the contexts opened since will hold, stay below
        ``waiting_memory_mb`` (and half of ``browser_memory_mb``). Without a reading, no."""
        watchdog, pool = self._watchdog, self._slots
        if watchdog is None or pool is None or watchdog.last_browser_bytes is None:
            return False
        coming = pool.opened_since(watchdog.last_reading_at) * _CONTEXT_BYTES
        budget = min(self.settings.waiting_memory_mb, self.settings.browser_memory_mb // 2) * 2**20
        return watchdog.last_browser_bytes + coming + _CONTEXT_BYTES <= budget

    async def _tab(self, slot: Slot) -> Tab:
        crashed = slot.tab is not None and slot.tab.crashed.is_set()
        stale = slot.browser is not self._browser
        if slot.context is not None and (slot.broken or crashed or stale or slot.uses >= self.settings.recycle_after):
            # A renderer that died between samples (killed for memory after its sample ended)
            # is not the next sample's crash.
            self._drop_context(slot)
        if slot.context is None or slot.tab is None:
            if self._browser is None or not self._browser.is_connected():
                await self._restart_browser()
            slot.browser = self._browser
            slot.context = await open_slot_context(self._browser)
            tab = Tab(slot.context, self._render_settings)
            # Pages other than the slot's own (popups opened by a click) get no network either;
            # the tab's page-level route answers its own requests first.
            await slot.context.route("**/*", tab.refuse)
            await tab.start()
            if self._watchdog is not None:
                self._watchdog.refresh()  # the new context's renderer
            slot.tab = tab
            slot.uses = 0
            slot.broken = False
        slot.uses += 1
        slot.tab.events = EventLog()
        return slot.tab

    def _drop_context(self, slot: Slot) -> None:
        """Close the slot's context in the background: a context whose renderer is wedged can
        take seconds to close, and neither this slot's next sample nor the other slots should wait
        for it. Each context has its own renderer process, so nothing else shares its fate."""
        context, slot.context, tab, slot.tab = slot.context, None, slot.tab, None
        if tab is not None:
            if tab.clock is not None:
                tab.clock.close()  # its pacer would wait for a budget the closed page never ends
            tab.drop_clock_tab()
        if context is None:
            return
        task = asyncio.ensure_future(self._close_context(context))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    @staticmethod
    async def _close_context(context: Any) -> None:
        with contextlib.suppress(Exception):  # it is being dropped because it misbehaved
            await asyncio.wait_for(context.close(), 10)

    async def _leave(self, tab: Tab, slot: Slot) -> None:
        """Leave the sample's document (:meth:`Tab.depart`) within ``_DEPART_S``.

        A page that is running a script when we leave (a long task, a timer that spins) keeps
        the renderer from answering: rather than wait for it, or interrupt it and risk the
        interruption landing in the next document, the slot gets a new context and renderer.
        """
        try:
            await asyncio.wait_for(tab.depart(), _DEPART_S)
        except Exception:  # noqa: BLE001 - a page that will not leave takes its context with it
            slot.broken = True

    def _expected_s(self, case: Case | None, html: str) -> float:
        """A rough wall time of one evaluation, for ordering a batch: the page's size (rendering
        and axe-core grow with it) plus the time the case's checks take. That is the time they
        took when the case last ran on a page of a model's size; until then, a guess from their
        code: the delays they ask the page to wait (keeping a slot busy without using the CPU)
        and a fixed cost for each check that acts (a reload, key presses and their settling)."""
        seconds = len(html) / _CHARS_PER_SECOND
        if case is None:
            return seconds
        if case.id in self._checks_seen:
            return seconds + self._checks_seen[case.id]
        if case.id not in self._checks_guessed:
            waits_ms = sum(guess_wait_ms(check.func) for check in case.checks)
            acting = sum(self._acts(case, check) for check in case.checks)
            self._checks_guessed[case.id] = waits_ms / 1000 + acting * _ACTING_CHECK_S
        return seconds + self._checks_guessed[case.id]

    def _check_order(self, case: Case) -> list[int]:
        """The order to run the case's checks in: first those that only read the page last time.

        Each check starts on the page as first rendered: a check that acted (a key press, a
        click) costs a reload before the next one, a check that only read does not. Running the
        readers first saves the reloads between them; the outcomes do not depend on the order,
        and the observation lists the checks as the case declares them. A check not run yet is
        placed by a guess from its code (:mod:`lm_eval_a11y.engine.check_order`). Readers declared
        ``late`` come after the other readers, once the late audit has waited for the horizon,
        and before the checks that act (which reload the page, and with it the page's clock).
        Checks that share a page count as acting and run together, in declared order, where the
        first of them is declared.
        """
        anchors: dict[str, int] = {}
        for index, check in enumerate(case.checks):
            if check.shares_page is not None:
                anchors.setdefault(check.shares_page, index)

        def rank(index: int) -> tuple[int, int]:
            check = case.checks[index]
            if check.shares_page is not None:
                return 2, anchors[check.shares_page]
            if self._acts(case, check):
                return 2, index
            return (1 if check.late else 0), index

        return sorted(range(len(case.checks)), key=rank)

    def _acts(self, case: Case, check: Check) -> bool:
        key = (case.id, check.id)
        if key in self._acted:
            return self._acted[key]
        if key not in self._guessed:
            self._guessed[key] = guess_acts(check.func)
        return self._guessed[key]
