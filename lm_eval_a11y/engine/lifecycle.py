"""The browser's lifecycle: Chromium started lazily, watched for memory, held in a memory cgroup
where one can be made, restarted when it misbehaves, and closed.

:class:`BrowserLifecycle` is the base of the evaluator; the slot pool
(:mod:`~lm_eval_a11y.engine.pool`) builds on it and hears of a start and a stop through
:meth:`BrowserLifecycle._browser_started` and :meth:`BrowserLifecycle._browser_stopping`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any

from lm_eval_a11y.engine.browser import CHROMIUM_ARGS, IGNORED_DEFAULT_ARGS, find_chromium
from lm_eval_a11y.engine.jail import MemoryJail, open_jail
from lm_eval_a11y.engine.memory import MemoryWatchdog, browser_processes
from lm_eval_a11y.engine.settings import CEILING_HEADROOM_MB, EvaluatorSettings

__all__ = ["BrowserLifecycle"]

_log = logging.getLogger(__name__)


class BrowserLifecycle:
    """The browser, its memory watchdog and its memory cgroup, from first use to :meth:`close`."""

    def __init__(self, settings: EvaluatorSettings | None = None) -> None:
        self.settings = settings or EvaluatorSettings()
        self._playwright: Any = None
        self._browser: Any = None
        self._start_lock: asyncio.Lock | None = None
        # What the record names of the browser and axe-core (axe's version is read from the first page).
        self._axe_version = ""
        self._chromium_version = ""
        # Work that closes a dropped context; the browser waits for it before it closes.
        self._background: set[asyncio.Future[Any]] = set()
        self._watchdog: MemoryWatchdog | None = None
        self._browser_cdp: Any = None
        # The memory cgroup the browser runs in (jail.py), once made; why none could be, if so.
        self._jail: MemoryJail | None = None
        self._jail_folder: Path | None = None
        self._jail_missing = ""
        self._jail_kills_taken = 0
        self._memory_ceiling = "watchdog"

    def _browser_started(self) -> None:
        """Called once a browser has started (under the start lock, before anyone uses it)."""

    def _browser_stopping(self) -> None:
        """Called as the browser closes: whatever lived in it is gone."""

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
            self._browser_started()

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
        self._browser_stopping()
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
