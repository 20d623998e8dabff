"""Where an evaluation's time goes: the wall time and the CPU time of each step of a sample, and
the plain Playwright + axe-core script's CPU per page on the same pages in the same run.

    .venv/bin/python scripts/profile_guarantees.py                # the 40 model-sized case examples
    .venv/bin/python scripts/profile_guarantees.py --examples 10 --json steps.json
    .venv/bin/python scripts/profile_guarantees.py --examples 0 --pages DIR   # saved pages, no case

The pages are those of ``scripts/bench_evaluator.py --examples N --generated 0 [--pages DIR]``
(its ``build_corpus``). The evaluator runs them one sample at a time (concurrency 1), so that all the
CPU the browser uses while a sample runs is that sample's, and each step of the sample is timed
by wrapping, at run time, the engine's method or function that does it (:data:`STEPS`); the
engine itself is not changed. At every entry into and exit from a step the script reads the
clock, its own CPU time (``time.process_time``) and the CPU time (user + system, with that of
reaped children) of every process under it from ``/proc/<pid>/stat``: Chromium's (the tree under
the browser process the engine reports, ``browser_processes``) and Playwright's driver (the rest).
What passed since the previous reading goes to the innermost step running (a state audit inside a
check is the state audit's, the reload before a check the reload's), so the rows add up to the
whole run; what falls outside every named step of a sample is its own row, and so are the gaps
between samples. Reading ``/proc`` costs this process CPU; that cost is measured and left out of
the rows (printed as the profiler's own). "Idle wall" is the wall time no process used a CPU
for: at concurrency 1, waiting (the late-change horizon, settles, a person's pace).

Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import psutil
from bench_evaluator import Mode, Page, _measure, add_pages_argument, build_corpus, check_pages, plain_script

from lm_eval_a11y.engine import conditions, late, pool, sample, session_base, walk
from lm_eval_a11y.engine.evaluator import AsyncEvaluator
from lm_eval_a11y.engine.settings import EvaluatorSettings

_TICK_S = 1 / os.sysconf("SC_CLK_TCK")
# Chromium rewrites its processes' command lines into one string: the type is found in it.
_TYPE = re.compile(rb"--type=([\w.-]+)")

SAMPLE = "sample: rest (probes, check order, observation)"
BETWEEN = "between samples"


@dataclass
class Totals:
    """What one row of the table adds up."""

    wall_s: float = 0.0
    browser_cpu_s: float = 0.0  # every Chromium process; of that:
    renderer_cpu_s: float = 0.0  # the renderers (with those the zygote reaped)
    browser_main_cpu_s: float = 0.0  # the browser process itself
    driver_cpu_s: float = 0.0
    python_cpu_s: float = 0.0
    idle_wall_s: float = 0.0
    count: int = 0

    @property
    def cpu_s(self) -> float:
        return self.browser_cpu_s + self.driver_cpu_s + self.python_cpu_s

    def add(self, other: Totals) -> None:
        self.wall_s += other.wall_s
        self.browser_cpu_s += other.browser_cpu_s
        self.renderer_cpu_s += other.renderer_cpu_s
        self.browser_main_cpu_s += other.browser_main_cpu_s
        self.driver_cpu_s += other.driver_cpu_s
        self.python_cpu_s += other.python_cpu_s
        self.idle_wall_s += other.idle_wall_s


@dataclass(frozen=True)
class Reading:
    wall: float
    python: float
    browser: float
    driver: float
    renderer: float
    browser_main: float


@dataclass
class Frame:
    """One step running; ``label`` may be settled only when it ends (a check that acted)."""

    label: str
    kind: str
    totals: Totals = field(default_factory=Totals)
    relabel: Callable[[], str] | None = None


def _stat(pid: str) -> tuple[int, float, float] | None:
    """The parent, the CPU seconds and its reaped children's CPU seconds of one process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:  # noqa: PTH123 - the hot path: no Path objects
            text = handle.read()
    except OSError:
        return None
    fields = text.rsplit(b")", 1)[1].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) * _TICK_S, (int(fields[13]) + int(fields[14])) * _TICK_S


class StepClock:
    """Attributes wall and CPU time to the innermost step running (one sample at a time)."""

    def __init__(self) -> None:
        self.me = os.getpid()
        self.browser_pid: int | None = None
        self.rows: dict[str, Totals] = {}
        self.details: dict[str, Totals] = {}  # per check id
        self.stack: list[Frame] = []
        self.overhead_s = 0.0
        self._foreign: set[int] = set()
        self._kinds: dict[int, str | None] = {}
        self._carried = 0.0  # the CPU the last reading cost, which shows in the next interval
        self._last: Reading | None = None
        self.first: Reading | None = None

    def _kind(self, pid: int) -> str | None:
        """Chromium's ``--type`` of a process ("" for a browser process; None: not Chromium's),
        read once."""
        if pid not in self._kinds:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as handle:  # noqa: PTH123 - the hot path
                    line = handle.read()
            except OSError:
                line = b""
            found = _TYPE.search(line)
            chromium = b"chrom" in line.split(b"\0", 1)[0].split(b" ", 1)[0].lower()
            self._kinds[pid] = found.group(1).decode() if found is not None else ("" if chromium else None)
        return self._kinds[pid]

    def _tree_cpu(self) -> tuple[float, float, float, float]:
        """CPU seconds of the browser's process tree and of the other processes under this one,
        and of the browser's renderers and of its browser process.

        A process once found outside this one's tree stays outside (its parent can only become
        init), so only the tree's processes and new ones are read each time."""
        parents: dict[int, int] = {}
        cpu: dict[int, float] = {}
        reaped: dict[int, float] = {}
        for entry in os.listdir("/proc"):  # noqa: PTH208 - the hot path: no Path objects
            if not entry.isdigit() or int(entry) in self._foreign:
                continue
            found = _stat(entry)
            if found is not None:
                parents[int(entry)], own, children = found
                cpu[int(entry)] = own + children
                reaped[int(entry)] = children
                if int(entry) == self.me:
                    # This process's own CPU is time.process_time's; that of the children it
                    # reaped goes with the other processes under it.
                    cpu[self.me] = children
        browser = driver = renderer = main = 0.0
        for pid, seconds in cpu.items():
            if pid == self.me:
                driver += seconds
                continue
            ancestor, under_browser, under_me = pid, False, False
            while ancestor > 1:
                if ancestor == self.browser_pid:
                    under_browser = True
                if ancestor == self.me:
                    under_me = True
                    break
                ancestor = parents.get(ancestor, 0)
            kind = self._kind(pid) if under_me else None
            # Chromium's processes: those under the browser the engine reported, and those of a
            # browser it started again after a sample broke the first.
            if under_browser or kind is not None:
                browser += seconds
                if kind == "renderer":
                    renderer += seconds
                elif kind == "zygote":
                    renderer += reaped[pid]  # a zygote reaps the renderers it forked
                elif pid == self.browser_pid or kind == "":
                    main += seconds - reaped[pid]
            elif under_me:
                driver += seconds
            else:
                self._foreign.add(pid)
        return browser, driver, renderer, main

    def read(self) -> tuple[Reading, float]:
        """The reading, and the CPU this process spent taking it (after its own CPU was read)."""
        before = time.process_time()
        wall = time.perf_counter()
        browser, driver, renderer, main = self._tree_cpu()
        return Reading(wall, before, browser, driver, renderer, main), time.process_time() - before

    def switch(self) -> None:
        """Give what passed since the last reading to the innermost step (or to the gap)."""
        now, cost = self.read()
        if self._last is None:
            self.first = now
        else:
            last = self._last
            python = now.python - last.python
            spent = min(self._carried, python)
            self.overhead_s += spent
            python -= spent
            delta = Totals(
                wall_s=now.wall - last.wall,
                browser_cpu_s=now.browser - last.browser,
                renderer_cpu_s=now.renderer - last.renderer,
                browser_main_cpu_s=now.browser_main - last.browser_main,
                driver_cpu_s=now.driver - last.driver,
                python_cpu_s=python,
            )
            delta.idle_wall_s = max(0.0, delta.wall_s - delta.cpu_s)
            if self.stack:
                self.stack[-1].totals.add(delta)
            else:
                self.rows.setdefault(BETWEEN, Totals()).add(delta)
        self._last = now
        self._carried = cost

    @contextmanager
    def step(self, label: str, kind: str, relabel: Callable[[], str] | None = None) -> Iterator[None]:
        self.switch()
        frame = Frame(label, kind, relabel=relabel)
        self.stack.append(frame)
        try:
            yield
        finally:
            self.switch()
            self.stack.remove(frame)
            final = frame.relabel() if frame.relabel is not None else frame.label
            row = self.rows.setdefault(final, Totals())
            row.add(frame.totals)
            row.count += 1
            if frame.kind.startswith("check "):
                detail = self.details.setdefault(frame.kind.removeprefix("check "), Totals())
                detail.add(frame.totals)
                detail.count += 1

    def parent_kind(self) -> str | None:
        return self.stack[-1].kind if self.stack else None

    def total(self) -> Totals:
        out = Totals()
        for row in self.rows.values():
            out.add(row)
        return out


# The probe functions sample.py calls between its steps (SampleAudit._evaluate_in).
_SAMPLE_PROBES = frozenset({"axeVersion", "renderedTextChars", "scrollThrough"})

# Under which row a reload goes: by the step that asked for it.
_RELOAD_FOR = {
    "sample": "reload: fresh page before a check that follows one that acted",
    "late": "reload: fresh page for the late audit",
    "conditions": "reload: fresh page for the conditions",
    "phone": "conditions: phone tab load (390x844, coarse pointer)",
    "walk": "reload: fresh page for the visitor's walk",
}


def _patch(
    target: Any, name: str, make: Callable[[Callable[..., Awaitable[Any]]], Callable[..., Awaitable[Any]]]
) -> Callable[[], None]:
    original = getattr(target, name)
    setattr(target, name, make(original))
    return lambda: setattr(target, name, original)


@contextmanager
def instrumented(clock: StepClock) -> Iterator[None]:
    """The engine's steps wrapped with ``clock`` for as long as the block runs."""

    def plain(label: str, kind: str, *, only_in: tuple[str, ...] | None = None) -> Callable[..., Any]:
        """A step named ``label``; with ``only_in``, only when the step running is of those kinds
        (elsewhere the call is part of the step that made it)."""

        def make(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
            async def wrapper(*args: Any, **kwargs: Any) -> Any:
                if only_in is not None and clock.parent_kind() not in only_in:
                    return await original(*args, **kwargs)
                with clock.step(label, kind):
                    return await original(*args, **kwargs)

            return wrapper

        return make

    def reload(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            parent = clock.parent_kind() or "sample"
            label = _RELOAD_FOR.get(parent, f"reload: asked for within {parent}")
            if parent.startswith("check "):
                label = "reload: within a check"
            with clock.step(label, "reload"):
                return await original(*args, **kwargs)

        return wrapper

    def probe(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        """Only the probe calls sample.py makes itself are rows of their own: any other at the
        sample's level belongs to a step not wrapped here, and shows in the sample's rest."""

        async def wrapper(self: Any, function: str, *args: Any) -> Any:
            if clock.parent_kind() != "sample" or function not in _SAMPLE_PROBES:
                return await original(self, function, *args)
            with clock.step(f"sample: probe {function}", "probe"):
                return await original(self, function, *args)

        return wrapper

    def first_axe(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def wrapper(self: Any, state: str, **kwargs: Any) -> Any:
            if clock.parent_kind() != "sample" or state != "initial":
                return await original(self, state, **kwargs)
            with clock.step("first axe audit (frames, closed shadow roots)", "axe"):
                return await original(self, state, **kwargs)

        return wrapper

    def run_check(original: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def wrapper(self: Any, session: Any, check: Any) -> Any:
            def settled() -> str:
                return "check that acted (its own work)" if session.dirty else "check that only read"

            with clock.step("check", f"check {check.id} ({check.type})", relabel=settled):
                return await original(self, session, check)

        return wrapper

    undo = [
        _patch(AsyncEvaluator, "evaluate", plain(SAMPLE, "sample")),
        _patch(pool.SlotScheduling, "_tab", plain("sample: context and tab (pool)", "tab")),
        _patch(pool.SlotScheduling, "_leave", plain("sample: leave the document (pool)", "leave")),
        _patch(session_base.SessionBase, "open", plain("load (first render)", "load", only_in=("sample",))),
        _patch(session_base.SessionBase, "reset", reload),
        _patch(session_base.SessionBase, "probe", probe),
        _patch(session_base.SessionBase, "run_axe", first_axe),
        _patch(sample, "audit_contrast", plain("pixel contrast (first screen)", "contrast", only_in=("sample",))),
        _patch(late.LateAudit, "_late_audit", plain("late audit (horizon wait, watched states, re-audit)", "late")),
        _patch(sample.SampleAudit, "_run_check", run_check),
        _patch(sample.SampleAudit, "_audit_state", plain("state audits (axe + pixels of opened states)", "state")),
        _patch(
            sample,
            "audit_conditions",
            plain("conditions: dark scheme + reduced motion (prints, settles, audits)", "conditions"),
        ),
        _patch(conditions, "_audit_phone", plain("conditions: phone tab (print, audit, depart)", "phone")),
        _patch(walk, "visitor_walk", plain("visitor's walk (keyboard, pointer, opens)", "walk")),
    ]
    try:
        yield
    finally:
        for restore in reversed(undo):
            restore()


def _whole_tree_cpu() -> float:
    """The CPU seconds of this process and every process under it, by psutil: a reading
    independent of :class:`StepClock`'s, to check that its rows add up to the whole."""
    me = psutil.Process()
    total = 0.0
    for proc in [me, *me.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            used = proc.cpu_times()
            total += used.user + used.system + used.children_user + used.children_system
    return total


@dataclass(frozen=True)
class Whole:
    """The evaluation loop's wall and CPU time, read around it without the clock."""

    wall_s: float
    cpu_s: float


async def _profile(corpus: list[Page], timeout_s: float) -> tuple[StepClock, list[str], Whole]:
    clock = StepClock()
    settings = EvaluatorSettings(concurrency=1, timeout_s=timeout_s)
    ev = AsyncEvaluator(settings)
    statuses: list[str] = []
    try:
        await ev.start()
        browsers = [pid for pid, kind in await ev.browser_processes() if kind == "browser"]
        if len(browsers) != 1:
            raise RuntimeError(f"the engine reports {len(browsers)} browser processes, not one")
        clock.browser_pid = browsers[0]
        with instrumented(clock):
            wall, cpu = time.perf_counter(), _whole_tree_cpu()
            clock.switch()
            for i, (case, html, name) in enumerate(corpus, 1):
                observation = await ev.evaluate(case, html, name=name)
                statuses.append(observation.status)
                if i % 10 == 0 or i == len(corpus):
                    print(f"  {i}/{len(corpus)}", file=sys.stderr, flush=True)
            clock.switch()
            whole = Whole(time.perf_counter() - wall, _whole_tree_cpu() - cpu)
    finally:
        await ev.close()
    return clock, statuses, whole


def _row(label: str, row: Totals, total_cpu: float, pages: int) -> dict[str, Any]:
    return {
        "step": label,
        "wall_s": row.wall_s,
        "idle_wall_s": row.idle_wall_s,
        "browser_cpu_s": row.browser_cpu_s,
        "renderer_cpu_s": row.renderer_cpu_s,
        "browser_main_cpu_s": row.browser_main_cpu_s,
        "driver_cpu_s": row.driver_cpu_s,
        "python_cpu_s": row.python_cpu_s,
        "cpu_share": row.cpu_s / total_cpu if total_cpu else 0.0,
        "cpu_ms_per_page": 1000 * row.cpu_s / pages,
        "count": row.count,
    }


def report(clock: StepClock, pages: int, whole: Whole) -> dict[str, Any]:
    total = clock.total()
    rows = sorted(clock.rows.items(), key=lambda item: -item[1].cpu_s)
    table = [_row(label, row, total.cpu_s, pages) for label, row in rows]
    header = (
        f"{'step':66} {'wall s':>7} {'idle s':>7} {'browser':>8} {'render':>7} {'b.proc':>7} {'driver':>7} {'ours':>6} "
        f"{'CPU %':>6} {'ms/page':>8} {'count':>5}"
    )
    print(header)
    print("-" * len(header))
    total.count = pages
    for r in [*table, _row("total (count: pages)", total, total.cpu_s, pages)]:
        print(
            f"{r['step']:66} {r['wall_s']:7.1f} {r['idle_wall_s']:7.1f} {r['browser_cpu_s']:8.2f} "
            f"{r['renderer_cpu_s']:7.2f} {r['browser_main_cpu_s']:7.2f} "
            f"{r['driver_cpu_s']:7.2f} {r['python_cpu_s']:6.2f} {100 * r['cpu_share']:5.1f}% "
            f"{r['cpu_ms_per_page']:8.0f} {r['count']:5d}"
        )
    print(
        f"idle wall (no process of the run on a CPU): {total.idle_wall_s:.1f} s of {total.wall_s:.1f} s; "
        f"the profiler's own reading of /proc: {clock.overhead_s:.2f} s of CPU, left out of the rows"
    )
    print(
        f"read around the loop without the profiler: wall {whole.wall_s:.1f} s, CPU of every process "
        f"{whole.cpu_s:.2f} s (the rows plus the profiler's own: {total.cpu_s + clock.overhead_s:.2f} s)"
    )
    details = sorted(clock.details.items(), key=lambda item: -item[1].cpu_s)
    return {
        "pages": pages,
        "whole": asdict(whole),
        "profiler_overhead_cpu_s": clock.overhead_s,
        "steps": table,
        "total": _row("total (count: pages)", total, total.cpu_s, pages),
        "checks": [_row(label, row, total.cpu_s, pages) for label, row in details],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=40, help="case example pages (default 40)")
    parser.add_argument("--timeout", type=float, default=30.0, help="time budget per page (default 30 s)")
    parser.add_argument("--skip-baseline", action="store_true", help="no plain script")
    add_pages_argument(parser)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    check_pages(parser, args.pages)
    corpus, skipped = build_corpus(args.examples, 0, args.pages)
    if not corpus:
        parser.error("no pages to profile: give --examples or --pages")
    for line in skipped:
        print(f"skipped case: {line}", file=sys.stderr)
    load = os.getloadavg()
    print(f"{len(corpus)} pages, one at a time; {os.cpu_count()} cores, load average {load[0]:.1f} at start")
    clock, statuses, whole = asyncio.run(_profile(corpus, args.timeout))
    figures = report(clock, len(corpus), whole)
    figures["statuses"] = {status: statuses.count(status) for status in sorted(set(statuses))}
    print(f"statuses: {figures['statuses']}")
    evaluator_ms = figures["total"]["cpu_ms_per_page"]
    if not args.skip_baseline:
        script = _measure(Mode("plain script", "script", lambda c: plain_script(c, args.timeout)), corpus)
        assert script.cpu_ms_per_page is not None
        figures["plain_script"] = asdict(script) | {"cpu_ms_per_page": script.cpu_ms_per_page}
        figures["plain_script"].pop("script_results")
        figures["plain_script"].pop("observations")
        print(
            f"plain script on the same pages: {script.cpu_ms_per_page:.0f} ms of CPU a page (its whole run, browser "
            f"start included); the evaluator's steps: {evaluator_ms:.0f} ms a page, "
            f"{evaluator_ms / script.cpu_ms_per_page:.2f}x; at 2x the script's speed the evaluator would "
            f"use {script.cpu_ms_per_page / 2:.0f} ms a page"
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
