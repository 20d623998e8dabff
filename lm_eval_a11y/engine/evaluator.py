"""The evaluator: render (case, html) pairs in one pooled Chromium and observe them.

It owns the browser and never decides whether a sample passes (that is :mod:`scoring`).

    with Evaluator(concurrency=2) as ev:
        observations = ev.evaluate_many([(case, html), ...])

Lifecycle: Chromium starts lazily on the first evaluation and stops in :meth:`close` (also
registered with ``atexit``). Each concurrent slot has its own browser context, so a page that
hangs its renderer cannot stall the others; contexts are replaced after ``recycle_after``
evaluations and after any timeout or crash. Each evaluation gets a brand-new page.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import hashlib
import logging
import math
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from lm_eval_a11y import __version__
from lm_eval_a11y.cases import Case
from lm_eval_a11y.checks import Check, Outcome
from lm_eval_a11y.engine.admission import Admission, SlotPool
from lm_eval_a11y.engine.audit import may_change_itself
from lm_eval_a11y.engine.browser import (
    CHROMIUM_ARGS,
    DEFAULT_CONCURRENCY,
    IGNORED_DEFAULT_ARGS,
    SCREEN_SIZE,
    find_chromium,
)
from lm_eval_a11y.engine.check_order import guess_acts, guess_wait_ms
from lm_eval_a11y.engine.contrast import audit_contrast
from lm_eval_a11y.engine.jail import MemoryJail, open_jail
from lm_eval_a11y.engine.memory import MemoryWatchdog, browser_processes
from lm_eval_a11y.engine.observe import findings_from_probe
from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.engine.tab import EventLog, ProbeError, RenderSettings, Tab
from lm_eval_a11y.engine.unicode import repair_text
from lm_eval_a11y.observation import (
    AuditCoverage,
    AxeFinding,
    AxeResult,
    CheckResult,
    ContrastAudit,
    Environment,
    Observation,
    PageEvents,
    Timings,
)
from lm_eval_a11y.resources import axe_path, probe_path

__all__ = ["AXE_TAGS", "AsyncEvaluator", "Evaluator", "EvaluatorSettings"]

AXE_TAGS: tuple[str, ...] = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice")

_log = logging.getLogger(__name__)

T = TypeVar("T")

_CRASHED = "the page crashed the renderer (out of memory or a renderer fault)"
# How long leaving a sample's document may take before the slot gets a new renderer instead: an
# ordinary departure takes about 15 ms, one under heavy load a few hundred.
_DEPART_S = 2.0
# axe-core waits up to 10 s for the metadata of autoplaying media before its no-autoplay-audio
# rule, and media from the network never loads here (every request is refused): each axe run of
# such a page waited the whole 10 s. That rule only ever reports "needs review" (axe marks it
# reviewOnFail), which never counts against a sample, so media is not preloaded at all;
# stylesheets still are (css-orientation-lock reads them).
_AXE_PRELOAD = {"assets": ["cssom"]}
_SURROGATE = re.compile("[\ud800-\udfff]")

# The late-change horizon: what a page changes within this long after the navigation to it is
# audited (see AsyncEvaluator._late_audit; its cost is measured in docs/trust.md). A timer of
# 1.5 s set by a script as the page loads fires well inside it.
LATE_HORIZON_MS = 2000
# The horizon never takes more than this share of the evaluation's time budget, so a short budget
# is not spent waiting (the observation records the horizon that applied).
_HORIZON_SHARE_OF_BUDGET = 0.25
# How many states a page that keeps changing itself before the horizon is audited in, beyond the
# first audit and the late one (_watch_states), at most; the share of the watch those audits may
# take (after each, the watch waits three times as long as it took before it looks again); and
# the rules those audits leave out.
_CHANGING_STATES = 12
_CHANGING_DUTY = 0.25
# A page is watched at least this long after its first audit, within this share of its budget.
_MIN_WATCH_S = 1.0
_WATCH_SHARE_OF_BUDGET = 0.5
_MID_CHANGE_RULES = ("color-contrast", "color-contrast-enhanced")

# The hard ceiling of the browser's memory above browser_memory_mb, where the watchdog starts
# killing: room for the watchdog to act first, and for what the kernel counts that the watchdog
# does not (the page cache of Chromium's own files, kernel memory).
CEILING_HEADROOM_MB = 256


@dataclass(frozen=True)
class EvaluatorSettings:
    """How the evaluator runs. Refused when a value could not bound what it is meant to bound.

    ``renderer_memory_mb``: a renderer holding more is killed and its sample is an ``error``
    ("memory limit"). ``browser_memory_mb``: while the whole browser holds more, its largest
    renderer is killed. ``memory_cgroup``: the browser also runs in a memory cgroup limited to
    ``browser_memory_mb`` + :data:`CEILING_HEADROOM_MB`, where one can be made. See
    :mod:`lm_eval_a11y.engine.memory`, :mod:`lm_eval_a11y.engine.jail` and docs/isolation.md.
    """

    concurrency: int = DEFAULT_CONCURRENCY
    timeout_s: float = 20.0
    viewport: tuple[int, int] = (1280, 800)
    recycle_after: int = 50
    max_html_bytes: int = 3_000_000
    settle_ms: int = 50
    screenshots: Path | None = None
    # How long after the navigation to a sample its own changes are still audited (_late_audit).
    late_horizon_ms: int = LATE_HORIZON_MS
    # Browser contexts for evaluations waiting out that horizon, beyond the ``concurrency`` that
    # work at once: at most this many (None: three times ``concurrency``; 0: a waiting evaluation
    # keeps its turn). Up to ``concurrency`` of them are always open; more only while the
    # browser's processes hold less than ``waiting_memory_mb``, and less than half of
    # ``browser_memory_mb`` (admission.SlotPool), so that waiting pages never crowd the working
    # ones into the watchdog's kills.
    waiting_slots: int | None = None
    waiting_memory_mb: int = 768
    renderer_memory_mb: int = 1024
    browser_memory_mb: int = 3072
    # Run the browser in a memory cgroup of its own limited to browser_memory_mb +
    # CEILING_HEADROOM_MB, where this machine lets us make one (jail.py): the kernel then holds
    # the ceiling whatever the pages do. Off, or where no cgroup can be made: the watchdog only.
    memory_cgroup: bool = True

    @property
    def slots(self) -> int:
        """Browser contexts at most: those at work and those waiting (see admission.py)."""
        return self.concurrency + (3 * self.concurrency if self.waiting_slots is None else self.waiting_slots)

    @property
    def always_open(self) -> int:
        """Browser contexts opened whatever the browser's memory: those at work, and as many waiting."""
        return min(2 * self.concurrency, self.slots)

    def __post_init__(self) -> None:
        _require_int("concurrency", self.concurrency, 1)
        # A NaN budget compares false with everything (every page failed "budget of nan s") and
        # an infinite one lets a hanging page hang forever.
        if isinstance(self.timeout_s, bool) or not isinstance(self.timeout_s, (int, float)):
            raise ValueError(f"timeout_s must be a number of seconds, got {self.timeout_s!r}")
        if not math.isfinite(self.timeout_s) or self.timeout_s <= 0:
            raise ValueError(f"timeout_s must be a finite number of seconds above 0, got {self.timeout_s!r}")
        _require_int("recycle_after", self.recycle_after, 1)
        _require_int("max_html_bytes", self.max_html_bytes, 1)
        _require_int("settle_ms", self.settle_ms, 0)
        _require_int("late_horizon_ms", self.late_horizon_ms, 0)
        if self.waiting_slots is not None:
            _require_int("waiting_slots", self.waiting_slots, 0)
        _require_int("renderer_memory_mb", self.renderer_memory_mb, 64)
        _require_int("browser_memory_mb", self.browser_memory_mb, self.renderer_memory_mb)
        _require_int("waiting_memory_mb", self.waiting_memory_mb, 0)
        if len(self.viewport) != 2:
            raise ValueError(f"viewport must be (width, height), got {self.viewport!r}")
        for side in self.viewport:
            _require_int("each side of viewport", side, 1)


def _require_int(name: str, value: object, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if value < least:
        raise ValueError(f"{name} must be at least {least}, got {value}")


@dataclass
class _Slot:
    context: Any = None
    tab: Tab | None = None
    # The browser the context belongs to: after a restart the context is dead, never used again.
    browser: Any = None
    uses: int = 0
    broken: bool = False

    @staticmethod
    def is_open(slot: _Slot) -> bool:
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
# Below this size the time of a case's checks hardly depends on the page, so it is remembered.
_SIZE_FREE_CHARS = 50_000


@dataclass
class _Run:
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


def _html_digest(html: str) -> tuple[str, int]:
    data = html.encode("utf-8", errors="replace")
    return hashlib.sha256(data).hexdigest(), len(data)


def _merge_axe(runs: Sequence[tuple[str, dict[str, Any]]]) -> AxeResult:
    """Merge the axe runs of one sample: a node counts once per rule, whatever state showed it."""
    violations: dict[str, AxeFinding] = {}
    incomplete: dict[str, AxeFinding] = {}
    for state, result in runs:
        for target, items in ((violations, result["violations"]), (incomplete, result["incomplete"])):
            for finding in findings_from_probe(items, state):
                known = target.get(finding.rule_id)
                if known is None:
                    target[finding.rule_id] = finding
                    continue
                seen = {n.target for n in known.nodes}
                extra = tuple(n for n in finding.nodes if n.target not in seen)
                if extra:
                    target[finding.rule_id] = AxeFinding(
                        rule_id=known.rule_id,
                        impact=known.impact,
                        tags=known.tags,
                        help=known.help,
                        help_url=known.help_url,
                        nodes=known.nodes + extra,
                        node_count=known.node_count + len(extra),
                        state=known.state if known.state == state else f"{known.state},{state}",
                    )
    return AxeResult(
        violations=tuple(sorted(violations.values(), key=lambda f: f.rule_id)),
        incomplete=tuple(sorted(incomplete.values(), key=lambda f: f.rule_id)),
        states=tuple(dict.fromkeys(state for state, _ in runs)),
    )


class AsyncEvaluator:
    """The async core. Use from one event loop; :class:`Evaluator` is the thread-safe facade."""

    def __init__(self, settings: EvaluatorSettings | None = None) -> None:
        self.settings = settings or EvaluatorSettings()
        self._axe_source = axe_path().read_text(encoding="utf-8")
        self._probe_source = probe_path().read_text(encoding="utf-8")
        self._playwright: Any = None
        self._browser: Any = None
        self._slots: SlotPool[_Slot] | None = None
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
        self._start_lock: asyncio.Lock | None = None
        self._axe_version = ""
        self._chromium_version = ""
        self._waiting = 0
        self._background: set[asyncio.Future[Any]] = set()
        self._watchdog: MemoryWatchdog | None = None
        self._browser_cdp: Any = None
        # The memory cgroup the browser runs in (jail.py), once made; why none could be, if so.
        self._jail: MemoryJail | None = None
        self._jail_folder: Path | None = None
        self._jail_missing = ""
        self._jail_kills_taken = 0
        self._memory_ceiling = "watchdog"
        self._render_settings = RenderSettings(
            viewport=self.settings.viewport,
            axe_source=self._axe_source,
            probe_source=self._probe_source,
            axe_options={
                "runOnly": {"type": "tag", "values": list(AXE_TAGS)},
                "resultTypes": ["violations", "incomplete"],
                "preload": _AXE_PRELOAD,
            },
            settle_ms=self.settings.settle_ms,
        )

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        if self._start_lock is None:
            self._start_lock = asyncio.Lock()
        async with self._start_lock:
            if self._browser is not None and self._browser.is_connected():
                return
            executable = self._launch_path(find_chromium())
            from playwright.async_api import async_playwright

            if self._playwright is None:
                self._playwright = await async_playwright().start()
            self._browser = await self._playwright.chromium.launch(
                executable_path=str(executable),
                headless=True,
                args=list(CHROMIUM_ARGS),
                # Playwright's defaults that the page could notice (see browser.py).
                ignore_default_args=list(IGNORED_DEFAULT_ARGS),
            )
            self._chromium_version = self._browser.version
            await self._watch_memory()
            await self._check_jail()
            if self._slots is None:
                # Once only: after a browser restart, evaluations still hold slots of this queue
                # and wait on it; a new queue would strand them. A slot's context from the old
                # browser is replaced before its next use (_tab); one in use fails once.
                self._slots = SlotPool(
                    [_Slot() for _ in range(self.settings.slots)],
                    always=self.settings.always_open,
                    open=_Slot.is_open,
                    room=self._memory_to_spare,
                )

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

    def _launch_path(self, executable: Path) -> Path:
        """Chromium itself, or a script that starts it inside the evaluator's memory cgroup."""
        if not self.settings.memory_cgroup or self._jail_missing:
            return executable
        if self._jail is None:
            limit = (self.settings.browser_memory_mb + CEILING_HEADROOM_MB) * 2**20
            self._jail, self._jail_missing = open_jail(limit)
            if self._jail is None:
                _log.info("no memory cgroup for the browser (%s); the watchdog alone keeps it", self._jail_missing)
                return executable
            self._jail_folder = Path(tempfile.mkdtemp(prefix="lm-eval-a11y-"))
        assert self._jail_folder is not None
        return self._jail.launcher(executable, self._jail_folder)

    async def _check_jail(self) -> None:
        """Say which ceiling applies: the kernel's only if the browser really runs in the cgroup."""
        self._memory_ceiling = "watchdog"
        if self._jail is None:
            return
        browsers = [pid for pid, kind in await self.browser_processes() if kind == "browser"]
        if browsers and all(self._jail.holds(pid) for pid in browsers):
            self._memory_ceiling = f"cgroup v{self._jail.version}"
        else:
            _log.warning("the browser is not in its memory cgroup %s; the watchdog alone keeps it", self._jail.path)

    @property
    def memory_ceiling(self) -> str:
        """What holds the browser's memory ceiling: ``cgroup v1``/``cgroup v2`` or ``watchdog``."""
        return self._memory_ceiling

    @property
    def memory_jail(self) -> MemoryJail | None:
        """The memory cgroup the browser runs in, if any (its peak and kills, for tests and reports)."""
        return self._jail if self._memory_ceiling != "watchdog" else None

    async def _watch_memory(self) -> None:
        """Start (or point at the new browser) the watchdog that bounds the browser's memory."""
        self._browser_cdp = await self._browser.new_browser_cdp_session()
        if self._watchdog is None:
            self._watchdog = MemoryWatchdog(
                processes=lambda: browser_processes(self._browser_cdp),
                renderer_bytes=self.settings.renderer_memory_mb * 2**20,
                browser_bytes=self.settings.browser_memory_mb * 2**20,
            )
        self._watchdog.start()

    async def browser_processes(self) -> list[tuple[int, str]]:
        """The running browser's processes as ``(pid, type)`` pairs; empty when none runs."""
        if self._browser is None or self._browser_cdp is None:
            return []
        return await browser_processes(self._browser_cdp)

    async def close(self) -> None:
        if self._watchdog is not None:
            await self._watchdog.stop()
        if self._background:
            await asyncio.wait(set(self._background), timeout=10)
        browser, self._browser = self._browser, None
        playwright, self._playwright = self._playwright, None
        self._slots = None  # their contexts die with the browser
        if browser is not None:
            with contextlib.suppress(Exception):  # closing a dead browser is fine
                await asyncio.wait_for(browser.close(), 10)
        if playwright is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(playwright.stop(), 10)
        await self._release_jail()

    async def _release_jail(self) -> None:
        jail, self._jail = self._jail, None
        folder, self._jail_folder = self._jail_folder, None
        self._jail_missing = ""
        self._memory_ceiling = "watchdog"
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        if jail is None:
            return
        # The browser's last processes may take a moment to go; the cgroup can only go after them.
        for _ in range(20):
            if jail.remove():
                return
            await asyncio.sleep(0.1)

    async def _restart_browser(self) -> None:
        old, self._browser = self._browser, None
        if old is not None:
            with contextlib.suppress(Exception):  # it is being replaced because it misbehaved
                await asyncio.wait_for(old.close(), 5)
        await self.start()

    async def _tab(self, slot: _Slot) -> Tab:
        crashed = slot.tab is not None and slot.tab.crashed.is_set()
        stale = slot.browser is not self._browser
        if slot.context is not None and (slot.broken or crashed or stale or slot.uses >= self.settings.recycle_after):
            # A renderer that died between samples (killed for memory after its sample ended)
            # is not the next sample's crash.
            self._drop_context(slot)
        if slot.context is None or slot.tab is None:
            if self._browser is None or not self._browser.is_connected():
                await self._restart_browser()
            width, height = self.settings.viewport
            slot.browser = self._browser
            slot.context = await self._browser.new_context(
                viewport={"width": width, "height": height},
                screen={"width": SCREEN_SIZE[0], "height": SCREEN_SIZE[1]},
                java_script_enabled=True,
                service_workers="block",
                accept_downloads=False,
                reduced_motion="no-preference",
                color_scheme="light",
            )
            tab = Tab(slot.context, self._render_settings)
            # Pages other than the slot's own (popups opened by a click) get no network either;
            # the tab's page-level route answers its own requests first.
            await slot.context.route("**/*", lambda route: self._refuse(tab, route))
            await tab.start()
            if self._watchdog is not None:
                self._watchdog.refresh()  # the new context's renderer
            slot.tab = tab
            slot.uses = 0
            slot.broken = False
        slot.uses += 1
        slot.tab.events = EventLog()
        return slot.tab

    @staticmethod
    async def _refuse(tab: Tab, route: Any) -> None:
        EventLog._add(tab.events.blocked_requests, route.request.url)
        with contextlib.suppress(Exception):  # the popup may already be gone
            await route.abort("blockedbyclient")

    def _drop_context(self, slot: _Slot) -> None:
        """Close the slot's context in the background: a context whose renderer is wedged can
        take seconds to close, and neither this slot's next sample nor the other slots should wait
        for it. Each context has its own renderer process, so nothing else shares its fate."""
        context, slot.context, slot.tab = slot.context, None, None
        if context is None:
            return
        task = asyncio.ensure_future(self._close_context(context))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    @staticmethod
    async def _close_context(context: Any) -> None:
        with contextlib.suppress(Exception):  # it is being dropped because it misbehaved
            await asyncio.wait_for(context.close(), 10)

    # ------------------------------------------------------------------ evaluation

    async def evaluate(self, case: Case | None, html: str, *, name: str | None = None) -> Observation:
        """Evaluate one page. Never raises for anything the page does; the outcome says it."""
        await self.start()
        assert self._slots is not None
        html, lone_surrogates = repair_text(html)
        repairs: tuple[str, ...] = ()
        if lone_surrogates:
            # Unicode that no browser or UTF-8 writer accepts: half of a surrogate pair. The
            # page a browser would make of such bytes has U+FFFD in their place.
            repairs = (f"{lone_surrogates} lone surrogate code points replaced with U+FFFD",)
        digest, size = _html_digest(html)
        if size > self.settings.max_html_bytes:
            return self._observation(
                case,
                digest,
                size,
                _Run(),
                "error",
                f"the HTML is {size:,} bytes, above the limit of {self.settings.max_html_bytes:,} bytes"
                " (max_html_bytes)",
                0.0,
            )
        self._waiting += 1
        try:
            await self._admission.enter()
        finally:
            self._waiting -= 1
        try:
            slot = await self._slots.take()
        except BaseException:
            self._admission.leave()
            raise
        run = _Run(began=time.monotonic())
        started = time.perf_counter()
        finished = 0.0
        try:
            try:
                # A fresh context takes well under a second; one that never comes means the
                # browser itself is wedged, and only a new browser helps.
                tab = await asyncio.wait_for(self._tab(slot), max(10.0, self.settings.timeout_s))
            except TimeoutError:
                slot.context = slot.tab = None
                await self._restart_browser()
                raise
            run.events = tab.events
            status, error = await self._guarded(case, html, tab, run, name or digest[:12])
            finished = time.perf_counter()
            if status != "ok":
                slot.broken = True
            else:
                # Leave the document now, on this sample's time: its departure handlers never
                # run, and one that would hold the renderer costs this slot its renderer, not
                # the next sample its budget.
                await self._leave(tab, slot)
        except Exception as err:  # noqa: BLE001 - infrastructure trouble becomes this sample's outcome
            slot.broken = True
            status, error = "error", f"evaluator failure: {type(err).__name__}: {err}"
        finally:
            # A context beyond those always open goes while the browser has no memory to spare.
            if slot.broken or self._slots.crowded():
                self._drop_context(slot)
            self._slots.give(slot)
            self._admission.leave()
        total_ms = ((finished or time.perf_counter()) - started) * 1000
        return self._observation(case, digest, size, run, status, error, total_ms, repairs)

    async def evaluate_many(
        self,
        pairs: Iterable[tuple[Case | None, str]],
        *,
        names: Sequence[str] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[Observation]:
        """Evaluate pairs concurrently; observations come back in input order.

        The pages expected to take longest are started first: one started last would keep a
        single slot busy while the others sit idle at the end of the batch (see
        :meth:`_expected_s`).
        """
        items = list(pairs)
        done = 0
        results: list[Observation | None] = [None] * len(items)

        async def one(index: int) -> None:
            nonlocal done
            case, html = items[index]
            results[index] = await self.evaluate(case, html, name=names[index] if names else None)
            done += 1
            if progress is not None:
                progress(done, len(items))

        await self.start()
        # Slots are handed out in the order the evaluations ask for them, which is this order.
        expected = [self._expected_s(case, html) for case, html in items]
        longest_first = sorted(range(len(items)), key=lambda i: -expected[i])
        await asyncio.gather(*(one(i) for i in longest_first))
        observations = [r for r in results if r is not None]
        assert len(observations) == len(items)
        return observations

    async def _guarded(self, case: Case | None, html: str, tab: Tab, run: _Run, name: str) -> tuple[str, str | None]:
        work = asyncio.ensure_future(self._evaluate_in(case, html, tab, run, name))
        work.add_done_callback(_consume)
        try:
            await asyncio.wait_for(asyncio.shield(work), self.settings.timeout_s)
            return "ok", None
        except TimeoutError:
            work.cancel()
            if run.session is not None and run.session.crashed.is_set():
                return "error", self._crash_reason(run)
            # Stop a runaway script so the renderer is free again; the context is dropped anyway,
            # so this gets only a short wait and the sample's outcome does not depend on it.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(tab.terminate_scripts(), 0.25)
            return "timeout", self._timeout_reason(run)
        except _PageCrashedError:
            return "error", self._crash_reason(run)
        except ProbeError as err:
            if run.session is not None and run.session.crashed.is_set():
                return "error", self._crash_reason(run)
            return "error", f"the page could not be observed: {err}"
        except Exception as err:  # noqa: BLE001 - Playwright raises plain Error for page faults
            if run.session is not None and run.session.crashed.is_set():
                return "error", self._crash_reason(run)
            return "error", f"the page could not be evaluated: {type(err).__name__}: {str(err).splitlines()[0]}"
        finally:
            if not work.done():
                work.cancel()

    def _crash_reason(self, run: _Run) -> str:
        kill = self._watchdog.take_kill(run.began) if self._watchdog is not None else None
        settings = self.settings
        limits = f"{settings.renderer_memory_mb} MiB per renderer, {settings.browser_memory_mb} MiB for the browser"
        if kill is None and self._jail is not None and self._jail.oom_kills() > self._jail_kills_taken:
            # The kernel stopped a renderer at the cgroup's ceiling; it was this page's.
            self._jail_kills_taken += 1
            return (
                "the page went over the memory limit: the browser reached its ceiling of"
                f" {self._jail.limit_bytes // 2**20} MiB and the kernel stopped the page's renderer (limits: {limits})"
            )
        if kill is None:
            return _CRASHED
        return f"the page went over the memory limit and its renderer was killed ({kill.reason}; limits: {limits})"

    def _timeout_reason(self, run: _Run) -> str:
        reason = f"the evaluation took longer than its budget of {self.settings.timeout_s:g} s"
        stage = "rendering" if run.render_ms == 0 else ("running axe" if run.axe_ms == 0 else "running checks")
        reason += f" while {stage}"
        if run.events.dialogs:
            reason += f"; the page opened {run.events.dialogs} dialogs"
        if run.events.popups:
            reason += f"; the page tried to open {run.events.popups} windows"
        return reason

    async def _evaluate_in(self, case: Case | None, html: str, tab: Tab, run: _Run, name: str) -> None:
        session = Session(tab, html)
        run.session = session
        t0 = time.perf_counter()
        await self._crash_aware(session, session.open())
        run.render_ms = (time.perf_counter() - t0) * 1000
        if tab.cut_short is not None:
            # What was never parsed cannot be audited; the sample fails on that, and nothing
            # else runs (a document without a body never draws the frames a settle waits for).
            run.unaudited.append(tab.cut_short)
            return
        if not self._axe_version:
            self._axe_version = str(await session.probe("axeVersion"))
        t1 = time.perf_counter()
        initial = await self._crash_aware(session, session.run_axe("initial"))
        run.axe_ms = (time.perf_counter() - t1) * 1000
        run.first_audit_end = time.perf_counter()
        # The pixel check of colour contrast (contrast.py): only pages axe failed or could not
        # decide on, or that style a dark scheme, pay for it.
        run.contrast, run.contrast_ms = await self._crash_aware(
            session, audit_contrast(session, tab, initial, self.settings.viewport, self.settings.timeout_s / 4)
        )
        if self.settings.screenshots is not None:
            run.screenshot = await self._screenshot(tab, name)
        if may_change_itself(html):
            # Scrolled as a reader would: content the page adds on scroll is then late content.
            await self._crash_aware(session, session.probe("scrollThrough"))
        t2 = time.perf_counter()
        late_done = False
        if case is not None:
            shared: str | None = None
            for index in self._check_order(case):
                check = case.checks[index]
                if not late_done and (session.dirty or check.late or self._acts(case, check)):
                    # The first-rendered document is about to be read late, acted on or replaced.
                    await self._late_audit_untouched(session, run, started_at=t0)
                    late_done = True
                # Checks that share a page take it as the one before them left it (checks.py).
                if session.dirty and not (check.shares_page is not None and check.shares_page == shared):
                    await self._crash_aware(session, session.reset())
                shared = check.shares_page
                session.position = index
                run.checks.append(await self._run_check(session, check))
                self._acted[(case.id, check.id)] = session.dirty
        if not late_done:
            await self._late_audit_untouched(session, run, started_at=t0)
        run.checks_ms = (time.perf_counter() - t2) * 1000
        if case is not None and len(html) < _SIZE_FREE_CHARS:
            self._checks_seen[case.id] = run.checks_ms / 1000

    async def _late_audit_untouched(self, session: Session, run: _Run, *, started_at: float) -> None:
        """The late audit of a document no check has acted on.

        A check expected only to read (from its last run on another page) may have acted on this
        one: auditing that document would audit the check's state (a menu it opened), not the
        page's own late changes, and the verdict would depend on which pages ran before. Such a
        document is replaced by a fresh one first, and the horizon counts from that navigation.
        """
        if session.dirty:
            started_at = time.perf_counter()
            run.first_audit_end = None
            await self._crash_aware(session, session.reset())
        await self._late_audit(session, run, started_at=started_at)

    async def _late_audit(self, session: Session, run: _Run, *, started_at: float) -> None:
        """Audit the first-rendered document again once the late-change horizon has passed since
        the navigation to it, if it changed meanwhile or could have changed unseen.

        A page can add failures after the first audit (timers, animation frames, idle callbacks,
        a MutationObserver reacting to its own change, a style sheet edited through the CSSOM,
        content added on scroll: the page was scrolled through after the first audit). A second
        axe run at the horizon sees them. It runs only when the DOM changed, an animation or
        transition runs, a style sheet changed, or the page has frames or shadow trees (their
        changes are not observed); otherwise the first audit stands, and the page pays only the
        wait. The wait overlaps with the checks that only read the page, which run before it.
        Markup that cannot change the page by itself (no script, no animation) is not waited for.

        Chromium's virtual time would run a page's timers ahead in milliseconds, but once turned
        on it cannot be turned off for the page (it stays paused across documents), and axe-core
        itself needs zero-delay timers; see docs/trust.md.
        """
        if not may_change_itself(session.html):
            run.late_audit = "static"
            return
        horizon_s = min(self.settings.late_horizon_ms / 1000, self.settings.timeout_s * _HORIZON_SHARE_OF_BUDGET)
        # The horizon counts from the navigation to the sample (its scripts start just after). The
        # page is watched for at least a while after its first audit, however late a loaded
        # machine finished that audit: past the horizon, a page audited late would otherwise not
        # be watched at all. Never past half the sample's budget, which the rest of it needs.
        watched_until = min(
            (run.first_audit_end or started_at) + min(_MIN_WATCH_S, horizon_s),
            started_at + self.settings.timeout_s * _WATCH_SHARE_OF_BUDGET,
        )
        await self._watch_states(session, run, deadline=max(started_at + horizon_s, watched_until))
        signals = await self._crash_aware(session, session.probe("lateSignals"))
        run.horizon_ms = (time.perf_counter() - started_at) * 1000
        coverage = session.coverage[-1] if session.coverage else None
        unseen = coverage is not None and (coverage.frames_audited > 0 or coverage.closed_shadow_roots > 0)
        if not (
            signals["mutated"]
            or signals["animations"]
            or signals["styles_changed"]
            or signals["shadow_roots"]
            or unseen
        ):
            run.late_audit = "unchanged"
            return
        # What the page changed late may still be fading or sliding in (posts loaded on scroll):
        # audited mid-fade, its text would fail colour contrast in some runs and not in others.
        await self._audit_unchecked(session, run, "late", settle=True)
        run.late_audit = "re-audited"

    async def _audit_unchecked(
        self, session: Session, run: _Run, state: str, *, settle: bool = False, disable: tuple[str, ...] = ()
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

    async def _watch_states(self, session: Session, run: _Run, *, deadline: float) -> None:
        """Wait until ``deadline``, auditing each new state the page puts itself in meanwhile.

        Waiting, the evaluation lets another one work (admission.py). When the page changes its
        document or its style sheets, it is settled and, in a state no audit has seen whole,
        audited (content a timer shows and hides again is otherwise seen only if it happens to be
        there at one of the two audits). These audits may take :data:`_CHANGING_DUTY` of the
        watch: after each, the watch rests three times as long as it took, then looks at the
        state the page is in. A page that changes all the time (a clock, a ticker) costs that
        share, never a fixed number of audits a page could spend on changes of no consequence
        before it shows a failure. :data:`_CHANGING_STATES` bounds the count. They leave out
        colour contrast, which a page caught mid-change would fail in some runs and not in others.
        """
        # The page may have changed since the last audit, before the watch began: look first.
        look = True
        while (remaining := deadline - time.perf_counter()) > 0:
            if run.states_audited >= _CHANGING_STATES:
                async with self._admission.idle():
                    await asyncio.sleep(remaining)
                return
            if (rest := run.watch_rests_until - time.perf_counter()) > 0:
                async with self._admission.idle():
                    await asyncio.sleep(min(rest, remaining))
                look = True
                continue
            position, session.position = session.position, -1
            async with self._admission.idle():
                state = await self._crash_aware(
                    session,
                    session.next_state(int(remaining * 1000), look=look, audit="changing", disable=_MID_CHANGE_RULES),
                )
            session.position = position
            look = False
            if state == "audited":
                took = session.inline_audit_ms / 1000
                run.axe_ms += session.inline_audit_ms
            elif state == "new":
                started = time.perf_counter()
                await self._audit_unchecked(session, run, "changing", disable=_MID_CHANGE_RULES)
                took = time.perf_counter() - started
            else:
                continue
            run.states_audited += 1
            run.watch_rests_until = time.perf_counter() + took * (1 - _CHANGING_DUTY) / _CHANGING_DUTY

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

    async def _crash_aware(self, session: Session, work: Awaitable[T]) -> T:
        task = asyncio.ensure_future(work)
        task.add_done_callback(_consume)
        crash = asyncio.ensure_future(session.crashed.wait())
        try:
            await asyncio.wait({task, crash}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            crash.cancel()
            if not task.done():
                task.cancel()
        if not task.done() or (session.crashed.is_set() and task.exception() is not None):
            raise _PageCrashedError()
        return task.result()

    async def _run_check(self, session: Session, check: Check) -> CheckResult:
        t0 = time.perf_counter()
        try:
            outcome = await self._crash_aware(session, check(session))
            if not isinstance(outcome, Outcome):
                outcome = Outcome("error", f"the check returned {type(outcome).__name__}, not an Outcome")
            elif outcome.status == "na" and not check.na_allowed:
                outcome = Outcome(
                    "fail", f"{outcome.message} (absence fails this check: it does not allow 'not applicable')"
                )
        except _PageCrashedError:
            raise
        except Exception as err:
            if session.crashed.is_set():
                raise _PageCrashedError() from err
            outcome = Outcome("error", f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")
        return CheckResult(
            id=check.id,
            type=check.type,
            description=check.description,
            outcome=outcome.status,
            message=outcome.message,
            duration_ms=round((time.perf_counter() - t0) * 1000, 1),
        )

    async def _screenshot(self, tab: Tab, name: str) -> str | None:
        folder = self.settings.screenshots
        assert folder is not None
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.png"
        # Through the tab: the session's page would count as a check acting on the page.
        await tab.page.screenshot(path=str(path), full_page=True, animations="disabled", caret="hide")
        return str(path)

    async def _leave(self, tab: Tab, slot: _Slot) -> None:
        """Leave the sample's document (:meth:`Tab.depart`) within ``_DEPART_S``.

        A page that is running a script when we leave (a long task, a timer that spins) keeps
        the renderer from answering: rather than wait for it, or interrupt it and risk the
        interruption landing in the next document, the slot gets a new context and renderer.
        """
        try:
            await asyncio.wait_for(tab.depart(), _DEPART_S)
        except Exception:  # noqa: BLE001 - a page that will not leave takes its context with it
            slot.broken = True

    def _observation(
        self,
        case: Case | None,
        digest: str,
        size: int,
        run: _Run,
        status: str,
        error: str | None,
        total_ms: float,
        repairs: tuple[str, ...] = (),
    ) -> Observation:
        runs: list[tuple[str, dict[str, Any]]] = []
        if run.session is not None:
            # In the order of the checks as declared (a stable sort keeps each check's own
            # runs in order), so the merged result does not depend on the order they ran in.
            ordered = sorted(
                zip(run.session.axe_positions, run.session.axe_runs, strict=True), key=lambda pair: pair[0]
            )
            runs = [axe_run for _, axe_run in ordered]
        checks = list(run.checks)
        if case is not None:
            # Declared order; checks that never ran are errors with the evaluation's reason, so
            # every check of the case appears in every observation.
            ran = {c.id: c for c in checks}
            checks = [
                ran.get(c.id) or CheckResult(c.id, c.type, c.description, "error", f"not run: {error}")
                for c in case.checks
            ]
        events = run.events
        observation = Observation(
            case_id=case.id if case is not None else None,
            case_version=case.version if case is not None else None,
            status=status,  # type: ignore[arg-type]
            error=error,
            html_sha256=digest,
            html_bytes=size,
            axe=_merge_axe(runs),
            checks=tuple(checks),
            environment=Environment(
                axe_version=self._axe_version or "unknown",
                chromium_version=self._chromium_version or "unknown",
                viewport=self.settings.viewport,
                axe_tags=AXE_TAGS,
                evaluator_version=__version__,
                timeout_s=self.settings.timeout_s,
                prefers_color_scheme="light",
                memory_ceiling=self._memory_ceiling,
            ),
            timings=Timings(
                render_ms=round(run.render_ms, 1),
                axe_ms=round(run.axe_ms, 1),
                checks_ms=round(run.checks_ms, 1),
                total_ms=round(total_ms, 1),
                contrast_ms=round(run.contrast_ms, 1),
                settle_stalls=run.session.settle_stalls if run.session is not None else 0,
            ),
            events=PageEvents(
                console_errors=tuple(events.console_errors),
                page_errors=tuple(events.page_errors),
                blocked_requests=tuple(events.blocked_requests),
                blocked_navigations=tuple(events.blocked_navigations),
                popup_urls=tuple(events.popup_urls),
                dialogs=events.dialogs,
                popups=events.popups,
                input_repairs=repairs,
            ),
            screenshot=run.screenshot,
            audit=_coverage(run),
            contrast=run.contrast,
        )
        return _valid_unicode(observation)


def _coverage(run: _Run) -> AuditCoverage:
    """What the sample's axe runs reached, merged: the most of each kind any run saw, and every
    kind of content some run could not audit."""
    parts = run.session.coverage if run.session is not None else []
    unaudited: dict[str, None] = dict.fromkeys(run.unaudited)
    for part in parts:
        unaudited.update(dict.fromkeys(part.unaudited))
    return AuditCoverage(
        recorded=True,
        frames_audited=max((p.frames_audited for p in parts), default=0),
        closed_shadow_roots=max((p.closed_shadow_roots for p in parts), default=0),
        unaudited=tuple(unaudited),
        horizon_ms=None if run.horizon_ms is None else round(run.horizon_ms, 1),
        late_audit=run.late_audit,
        states_audited=run.states_audited,
    )


class _PageCrashedError(Exception):
    pass


def _valid_unicode(observation: Observation) -> Observation:
    """The observation with every lone surrogate replaced, so that its record can be written.

    A page's own script can put half a surrogate pair in the DOM, a check message or an axe
    node's HTML. Only the text that can come from the page is searched (0.08 ms for an
    ordinary observation); the observation is rebuilt only when one is found.
    """
    if not any(_SURROGATE.search(text) for text in _page_text(observation)):
        return observation
    return Observation.from_dict(_repaired(observation.to_dict()))


def _page_text(observation: Observation) -> Iterable[str]:
    """Every string of an observation that the page's content or scripts can shape."""
    if observation.error:
        yield observation.error
    for check in observation.checks:
        yield check.message
    for finding in (*observation.axe.violations, *observation.axe.incomplete):
        for node in finding.nodes:
            yield node.html
            yield node.failure_summary
            yield from node.target
    events = observation.events
    for texts in (
        events.console_errors,
        events.page_errors,
        events.blocked_requests,
        events.blocked_navigations,
        events.popup_urls,
    ):
        yield from texts


def _repaired(value: Any) -> Any:
    if isinstance(value, str):
        return repair_text(value)[0]
    if isinstance(value, dict):
        return {_repaired(k): _repaired(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_repaired(v) for v in value)
    return value


def _consume(task: asyncio.Future[Any]) -> None:
    """Retrieve a finished task's exception so abandoned work never logs 'never retrieved'."""
    if not task.cancelled():
        task.exception()


class Evaluator:
    """Synchronous facade: runs an :class:`AsyncEvaluator` on a private event-loop thread.

    Safe to call from code that has its own event loop running (a notebook, lm-eval).
    """

    def __init__(self, settings: EvaluatorSettings | None = None, **overrides: Any) -> None:
        if overrides:
            base = settings or EvaluatorSettings()
            settings = EvaluatorSettings(**{**base.__dict__, **overrides})
        self._core = AsyncEvaluator(settings)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        atexit.register(self.close)

    @property
    def settings(self) -> EvaluatorSettings:
        return self._core.settings

    def _submit(self, coro: Awaitable[T]) -> T:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="lm-eval-a11y-browser", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            loop = self._loop
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, loop)  # type: ignore[arg-type]
        return future.result()

    def start(self) -> None:
        """Launch Chromium now (it starts lazily otherwise); raises if it cannot."""
        self._submit(self._core.start())

    def evaluate(self, case: Case | None, html: str, *, name: str | None = None) -> Observation:
        return self._submit(self._core.evaluate(case, html, name=name))

    def browser_processes(self) -> list[tuple[int, str]]:
        """The running browser's processes as ``(pid, type)`` pairs; empty when none runs."""
        return self._submit(self._core.browser_processes())

    def evaluate_many(
        self,
        pairs: Iterable[tuple[Case | None, str]],
        *,
        names: Sequence[str] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> list[Observation]:
        return self._submit(self._core.evaluate_many(list(pairs), names=names, progress=progress))

    def close(self) -> None:
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None:
            return
        with contextlib.suppress(Exception):  # best effort at shutdown
            asyncio.run_coroutine_threadsafe(self._core.close(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            thread.join(timeout=10)
        loop.close()

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
