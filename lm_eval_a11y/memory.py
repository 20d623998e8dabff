"""A memory watchdog for the evaluator's Chromium: one page may not take the machine with it.

V8's heap cap (``--max-old-space-size`` in :mod:`lm_eval_a11y.browser`) covers JavaScript
objects only. Canvases, ``ArrayBuffer`` contents, decoded images, WebGL buffers and the DOM live
outside it: a page that allocates 8000x8000 canvases in a loop takes its renderer past 5 GiB in
seconds. Chromium has no switch that caps a renderer's memory, so the evaluator watches: every
``interval_s`` it reads, from ``/proc``, the memory each process of its browser holds on its own
(resident anonymous plus shared-memory pages), and

- kills a renderer (SIGKILL) holding more than ``renderer_bytes``; the page's tab sees a crash,
  and the evaluator reports the sample as ``error`` with "memory limit" in the reason;
- kills the largest renderer while the whole browser holds more than ``browser_bytes``.

The browser's processes come from the browser itself (CDP ``SystemInfo.getProcessInfo``), so the
watchdog never looks at, let alone touches, a process that is not this browser's. What it cannot
do is stop an allocation between two readings: the overshoot is what a page allocates in one
interval (measured figures in docs/isolation.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["MemoryKill", "MemoryWatchdog", "process_bytes"]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


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
    held_bytes: int
    reason: str
    at: float


@dataclass
class MemoryWatchdog:
    """Polls the memory of one browser's processes and kills renderers over the limits.

    ``processes`` answers the browser's current processes as ``(pid, type)`` pairs; the
    evaluator passes a call of CDP ``SystemInfo.getProcessInfo``.
    """

    processes: Callable[[], Awaitable[list[tuple[int, str]]]]
    renderer_bytes: int
    browser_bytes: int
    interval_s: float = 0.1
    # How often (in intervals) the list of processes is asked again; readings in between use the
    # last list, so a renderer started since is seen at most this many intervals later.
    refresh_every: int = 3
    kills: list[MemoryKill] = field(default_factory=list)
    peak_browser_bytes: int = 0
    _known: list[tuple[int, str]] = field(default_factory=list)
    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._run())

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
            if kill.at >= since:
                return self.kills.pop(index)
        return None

    async def _run(self) -> None:
        tick = 0
        while True:
            if tick % self.refresh_every == 0:
                with contextlib.suppress(Exception):  # the browser may be restarting
                    self._known = await asyncio.wait_for(self.processes(), 2)
            tick += 1
            self.check()
            await asyncio.sleep(self.interval_s)

    def check(self) -> None:
        """One reading of every known process, and the kills it calls for."""
        held: dict[int, int] = {}
        renderers: list[int] = []
        for pid, kind in self._known:
            size = process_bytes(pid)
            if size is None:
                continue
            held[pid] = size
            if kind == "renderer":
                renderers.append(pid)
        total = sum(held.values())
        self.peak_browser_bytes = max(self.peak_browser_bytes, total)
        for pid in renderers:
            if held[pid] > self.renderer_bytes:
                self._kill(pid, held[pid], f"the renderer held {held[pid] / 2**20:,.0f} MiB")
                total -= held.pop(pid)
        while total > self.browser_bytes:
            alive = [pid for pid in renderers if pid in held]
            if not alive:
                break
            largest = max(alive, key=held.__getitem__)
            self._kill(
                largest,
                held[largest],
                f"the browser held {total / 2**20:,.0f} MiB; this renderer was the largest,"
                f" {held[largest] / 2**20:,.0f} MiB",
            )
            total -= held.pop(largest)

    def _kill(self, pid: int, held_bytes: int, reason: str) -> None:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        self.kills.append(MemoryKill(pid, held_bytes, reason, time.monotonic()))
        self._known = [(p, kind) for p, kind in self._known if p != pid]


async def browser_processes(cdp: Any) -> list[tuple[int, str]]:
    """The browser's processes as ``(pid, type)`` pairs, from a browser-level CDP session."""
    info = await cdp.send("SystemInfo.getProcessInfo")
    return [(int(p["id"]), str(p["type"])) for p in info.get("processInfo", ())]
