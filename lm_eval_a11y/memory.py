"""A memory watchdog for the evaluator's Chromium: one page may not take the machine with it.

V8's heap cap (``--max-old-space-size`` in :mod:`lm_eval_a11y.browser`) covers JavaScript
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

The browser's pid comes from the browser itself (CDP ``SystemInfo.getProcessInfo``) and its
processes are that pid and its descendants in ``/proc`` (the CDP call is not asked again: it
stalls while a GPU process restarts), so the watchdog never looks at, let alone touches, a process
that is not this browser's. What it cannot
do is stop an allocation between two readings: the overshoot is what a page allocates in one
interval (measured figures in docs/isolation.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable
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

    ``browser_pid`` answers the pid of the browser being watched (None while there is none).
    """

    browser_pid: Callable[[], int | None]
    renderer_bytes: int
    browser_bytes: int
    interval_s: float = 0.1
    # How often (in intervals) the list of processes is asked again; readings in between use the
    # last list, so a renderer started since is seen at most this many intervals later.
    refresh_every: int = 3
    kills: list[MemoryKill] = field(default_factory=list)
    peak_browser_bytes: int = 0
    _known: list[tuple[int, str]] = field(default_factory=list)
    _kinds: dict[int, str] = field(default_factory=dict)
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
            if kill.kind == "renderer" and kill.at >= since:
                return self.kills.pop(index)
        return None

    async def _run(self) -> None:
        tick = 0
        while True:
            if tick % self.refresh_every == 0:
                self._known = self._processes()
            tick += 1
            try:
                self.check()
            except Exception:  # noqa: BLE001 - a watchdog that stops watching would be worse than a missed tick
                _log.exception("memory watchdog: one reading failed")
            await asyncio.sleep(self.interval_s)

    def _processes(self) -> list[tuple[int, str]]:
        """The browser's process and its descendants, each with its Chromium ``--type``."""
        root = self.browser_pid()
        if root is None:
            return []
        children: dict[int, list[int]] = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_bytes()
            except OSError:
                continue
            children.setdefault(int(stat.rsplit(b")", 1)[1].split()[1]), []).append(int(entry.name))
        found: list[tuple[int, str]] = []
        todo = [root]
        seen: set[int] = set()
        while todo:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            found.append((pid, "browser" if pid == root else self._kind(pid)))
            todo.extend(children.get(pid, ()))
        self._kinds = {pid: kind for pid, kind in self._kinds.items() if pid in seen}
        return found

    def _kind(self, pid: int) -> str:
        if pid not in self._kinds:
            kind = "other"
            with contextlib.suppress(OSError):
                # Chromium's children rewrite their command line as one string, spaces between.
                for arg in Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").split():
                    if arg.startswith(b"--type="):
                        kind = {"renderer": "renderer", "gpu-process": "GPU"}.get(arg[7:].decode(), arg[7:].decode())
                        break
            self._kinds[pid] = kind
        return self._kinds[pid]

    def check(self) -> None:
        """One reading of every known process, and the kills it calls for."""
        held: dict[int, int] = {}
        killable: dict[int, str] = {}
        for pid, kind in self._known:
            size = process_bytes(pid)
            if size is None:
                continue
            held[pid] = size
            if kind in _KILLABLE:
                killable[pid] = kind
        total = sum(held.values())
        self.peak_browser_bytes = max(self.peak_browser_bytes, total)
        for pid, kind in killable.items():
            if held[pid] > self.renderer_bytes:
                self._kill(pid, kind, held[pid], f"the {_NAMES[kind]} held {held[pid] / 2**20:,.0f} MiB")
                total -= held.pop(pid)
        while total > self.browser_bytes:
            alive = [pid for pid in killable if pid in held]
            if not alive:
                break
            largest = max(alive, key=held.__getitem__)
            self._kill(
                largest,
                killable[largest],
                held[largest],
                f"the browser held {total / 2**20:,.0f} MiB; this {_NAMES[killable[largest]]} was its largest"
                f" process, {held[largest] / 2**20:,.0f} MiB",
            )
            total -= held.pop(largest)

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
