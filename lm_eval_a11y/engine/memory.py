"""A memory watchdog for the evaluator's Chromium: one page may not take the machine with it.

V8's heap cap (``--max-old-space-size`` in :mod:`lm_eval_a11y.engine.browser`) covers JavaScript
objects only. Canvases, ``ArrayBuffer`` contents, decoded images, WebGL buffers and the DOM live
outside it: a page that allocates 8000x8000 canvases in a loop takes its renderer past 5 GiB in
seconds. Chromium has no switch that caps a renderer's memory, so the evaluator watches: every
``interval_s`` it reads, from ``/proc``, the memory each process of its browser holds on its own
(resident anonymous plus shared-memory pages), and

- kills a renderer (SIGKILL) holding more than ``renderer_bytes``; the page's tab sees a crash,
  and the evaluator reports the sample as ``error`` with "memory limit" in the reason;
- kills the GPU process (software WebGL keeps a page's textures there) over the same limit;
- kills the largest renderer or GPU process while the whole browser holds more than
  ``browser_bytes``.

A limit is also enforced ahead of time: a process that grew since the last reading is expected to
grow as fast until the next one, and one that would then be over its limit is killed now (and the
largest processes while the browser would be over its limit). Without that, several pages that
each allocate a few hundred MiB between two readings took the browser well past its limit before
the watchdog saw them.

The browser's processes come from the browser itself (CDP ``SystemInfo.getProcessInfo``), so
the watchdog never looks at, let alone touches, a process that is not this browser's. What it
cannot do is stop an allocation faster than its own growth so far between two readings (one
3 GiB buffer written at once): the overshoot is what a page allocates beyond that in one
interval (measured figures in docs/isolation.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["MemoryKill", "MemoryWatchdog", "browser_processes", "process_bytes"]

_log = logging.getLogger(__name__)

# Processes the watchdog may kill: a renderer (its pages crash; the sample is an error) and the
# GPU process, where software WebGL keeps a page's textures and buffers (Chromium starts a new
# one; pages lose their WebGL contexts). The browser and its services are never touched.
_KILLABLE = ("renderer", "GPU")
_NAMES = {"renderer": "renderer", "GPU": "GPU process"}


def process_bytes(pid: int) -> int | None:
    """Memory the process holds on its own: resident anonymous and shared-memory pages.

    Pages of mapped files (the Chromium binary, fonts) are left out: they are shared by every
    process and the kernel can drop them. None when the process is gone.
    """
    try:
        text = Path(f"/proc/{pid}/status").read_bytes()
    except OSError:
        return None
    total = 0
    for line in text.splitlines():
        if line.startswith((b"RssAnon:", b"RssShmem:")):
            total += int(line.split()[1]) * 1024
    return total


@dataclass(frozen=True)
class MemoryKill:
    """One renderer the watchdog killed, and why."""

    pid: int
    kind: str
    held_bytes: int
    reason: str
    at: float


@dataclass
class MemoryWatchdog:
    """Polls the memory of one browser's processes and kills renderers over the limits.

    ``processes`` answers the browser's processes as ``(pid, type)`` pairs (the evaluator asks
    the browser: CDP ``SystemInfo.getProcessInfo``). It is asked every ``refresh_s`` and after
    :meth:`refresh` (a new context means a new renderer); the memory of the known processes is
    read every ``interval_s``, or every ``close_interval_s`` while a process or the browser is
    above half its limit, so that a page growing towards a limit is stopped close to it.
    Measured cost on the development machine (a gVisor sandbox, where each /proc read takes
    about 0.1-0.2 ms): 0.7 ms per reading of nine processes, so about 3 ms of CPU per second
    at rest.
    """

    processes: Callable[[], Awaitable[list[tuple[int, str]]]]
    renderer_bytes: int
    browser_bytes: int
    interval_s: float = 0.25
    close_interval_s: float = 0.05
    refresh_s: float = 1.0
    # How the memory of one process is read (process_bytes; a test passes its own).
    read: Callable[[int], int | None] = process_bytes
    kills: list[MemoryKill] = field(default_factory=list)
    peak_browser_bytes: int = 0
    # The browser's total at the last reading, and when (time.monotonic()); None before the first.
    last_browser_bytes: int | None = None
    last_reading_at: float = 0.0
    _known: list[tuple[int, str]] = field(default_factory=list)
    # pid -> (bytes held, time.monotonic()) at the last reading, for the growth of each process.
    _last: dict[int, tuple[int, float]] = field(default_factory=dict)
    _refresh_at: float = 0.0
    _close: bool = False
    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.refresh()
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._run())

    def refresh(self) -> None:
        """Ask for the list of processes again before the next reading."""
        self._refresh_at = 0.0

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    def take_kill(self, since: float) -> MemoryKill | None:
        """The oldest kill at or after ``since`` not yet reported, removed from the list.

        Each killed renderer was one slot's: its page crashes once, and the sample that sees the
        crash takes the kill that caused it. (Which slot a renderer serves is not known to the
        browser's process list, so a renderer that crashed by itself at the very moment another
        was killed could take the other's reason; both reasons name memory in practice.)
        """
        for index, kill in enumerate(self.kills):
            if kill.kind == "renderer" and kill.at >= since:
                return self.kills.pop(index)
        return None

    async def _run(self) -> None:
        while True:
            if time.monotonic() >= self._refresh_at:
                self._refresh_at = time.monotonic() + self.refresh_s
                with contextlib.suppress(Exception):  # the browser may be restarting; keep the last list
                    self._known = await asyncio.wait_for(self.processes(), 2)
            try:
                self.check()
            except Exception:  # noqa: BLE001 - a watchdog that stops watching would be worse than a missed reading
                _log.exception("memory watchdog: one reading failed")
            await asyncio.sleep(self.close_interval_s if self._close else self.interval_s)

    def check(self) -> None:
        """One reading of every known process, and the kills it calls for."""
        now = time.monotonic()
        # The next reading comes this long from now, at the pace the last reading set.
        ahead = self.close_interval_s if self._close else self.interval_s
        held: dict[int, int] = {}
        expected: dict[int, int] = {}
        killable: dict[int, str] = {}
        last: dict[int, tuple[int, float]] = {}
        for pid, kind in self._known:
            size = self.read(pid)
            if size is None:
                continue
            held[pid] = size
            last[pid] = (size, now)
            before = self._last.get(pid)
            growth = 0.0
            if before is not None and size > before[0] and now > before[1]:
                growth = (size - before[0]) / (now - before[1]) * ahead
            expected[pid] = size + int(growth)
            if kind in _KILLABLE:
                killable[pid] = kind
        self._last = last
        total = sum(held.values())
        total_expected = sum(expected.values())
        self.peak_browser_bytes = max(self.peak_browser_bytes, total)
        if held:
            self.last_browser_bytes, self.last_reading_at = total, now
        self._close = 2 * total_expected > self.browser_bytes or any(
            2 * expected[pid] > self.renderer_bytes for pid in killable
        )
        for pid, kind in killable.items():
            if expected[pid] > self.renderer_bytes:
                self._kill(pid, kind, held[pid], self._why(kind, held[pid], expected[pid], self.renderer_bytes))
                total_expected -= expected.pop(pid)
                held.pop(pid)
        while total_expected > self.browser_bytes:
            alive = [pid for pid in killable if pid in held]
            if not alive:
                break
            largest = max(alive, key=expected.__getitem__)
            total_now = sum(held.values())
            self._kill(
                largest,
                killable[largest],
                held[largest],
                f"the browser held {total_now / 2**20:,.0f} MiB"
                + ("" if total_now > self.browser_bytes else f", on course for {total_expected / 2**20:,.0f} MiB")
                + f"; this {_NAMES[killable[largest]]} was its largest process, {held[largest] / 2**20:,.0f} MiB",
            )
            total_expected -= expected.pop(largest)
            held.pop(largest)

    def _why(self, kind: str, held: int, expected: int, limit: int) -> str:
        reason = f"the {_NAMES[kind]} held {held / 2**20:,.0f} MiB"
        if held <= limit:
            reason += f" and was growing fast enough to pass {limit / 2**20:,.0f} MiB before the next reading"
        return reason

    def _kill(self, pid: int, kind: str, held_bytes: int, reason: str) -> None:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        self.kills.append(MemoryKill(pid, kind, held_bytes, reason, time.monotonic()))
        self._known = [(p, kind) for p, kind in self._known if p != pid]


async def browser_processes(cdp: Any) -> list[tuple[int, str]]:
    """The browser's processes as ``(pid, type)`` pairs, from a browser-level CDP session."""
    info = await cdp.send("SystemInfo.getProcessInfo")
    return [(int(p["id"]), str(p["type"])) for p in info.get("processInfo", ())]
