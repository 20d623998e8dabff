"""Benchmark the evaluator: the pooled browser against a new browser per page (naive) and
against the plain Playwright + axe-core script a user would write instead (scripts/plain_axe.py).

    .venv/bin/python scripts/bench_evaluator.py            # 48 case examples + 12 generated pages
    .venv/bin/python scripts/bench_evaluator.py --rounds 3 # every mode three times, medians
    .venv/bin/python scripts/bench_evaluator.py --json out.json
    .venv/bin/python scripts/bench_evaluator.py --examples 0 --generated 0 --pages DIR  # public pages

The corpus is fixed by construction: the cases' own example pages (taken round-robin over the
cases in id order, so every case's checks run), plus generated pages from about 20 KB to 1 MB
that each embed a disclosure widget and are evaluated with the ``disclosure`` case, so the large
pages run interactive checks too; ``--pages DIR`` adds saved pages, such as the public pages
scripts/public_pages.py writes, scored without a case. Every mode evaluates the same corpus in the same run, so the
ratios are measured under the same machine load. The ratio to the plain script is the script's
wall time over the pool's (above 1: the evaluator is faster), and the WCAG rules the script found
on each page are set against those the evaluator found. The timed runs measure wall-clock pages per second
and nothing else: reading the PSS of every Chromium process costs about 20 ms of CPU per sample
(the kernel walks each process's page tables), which on a two-core machine kept busy by the pool
took 5.5 % of its speed and 1.7 % of the naive mode's, which leaves a core idle. The peak PSS is
measured in a separate memory pass of the pool over the same corpus, sampled in a thread. On a
machine whose speed drifts (a shared virtual machine), ``--rounds N`` measures the two modes
alternately N times (the naive mode first in odd rounds, the pool first in even ones) and reports
each round and the medians, so one slow minute does not decide the figures. The CPU time of each
timed run is that of this process and every process under it (see TreeCpu).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import json
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import psutil
from plain_axe import CONCURRENCY as SCRIPT_CONCURRENCY
from plain_axe import PlainResult, audit_pages

from lm_eval_a11y.cases import Case, CaseError, load_case, load_examples
from lm_eval_a11y.contrast import CONTRAST_RULE
from lm_eval_a11y.engine.browser import DEFAULT_CONCURRENCY
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.resources import cases_dir
from lm_eval_a11y.scoring import decided_wcag_failures

Page = tuple[Case | None, str, str]  # case, html, name


def _generated(index: int, sections: int) -> str:
    """A long article with a form, a table, images and one disclosure widget near the top."""
    parts = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        f"<title>Generated page {index}</title>",
        "<style>.panel[hidden]{display:none} .trigger:focus-visible{outline:3px solid #b00}</style>",
        "</head><body><header><h1>Field notes</h1><nav aria-label='Sections'><ul>",
    ]
    parts += [f'<li><a href="#s{i}">Section {i}</a></li>' for i in range(min(sections, 40))]
    parts.append("</ul></nav></header><main>")
    parts.append(
        '<h2>Question</h2><button type="button" class="trigger" aria-expanded="false" aria-controls="a1">'
        'Why measure?</button><div id="a1" class="panel" hidden><p>Because guesses drift.</p></div>'
        "<script>const t=document.querySelector('.trigger'),p=document.getElementById('a1');"
        "t.addEventListener('click',()=>{const o=t.getAttribute('aria-expanded')==='true';"
        "t.setAttribute('aria-expanded',String(!o));p.hidden=o;});</script>"
    )
    for i in range(sections):
        parts.append(f'<section aria-labelledby="h{i}"><h2 id="h{i}">Section {i}</h2>')
        parts.append("<p>" + " ".join(f"Observation {i}.{j} holds steady under load." for j in range(12)) + "</p>")
        if i % 5 == 0:
            parts.append(
                f'<form><label for="f{i}">Note {i}</label><input id="f{i}" name="f{i}">'
                f'<button type="submit">Save {i}</button></form>'
            )
        if i % 7 == 0:
            rows = "".join(f"<tr><th scope='row'>Row {r}</th><td>{r * i}</td></tr>" for r in range(8))
            parts.append(
                f"<table><caption>Table {i}</caption><tr><th scope='col'>Row</th>"
                f"<th scope='col'>Value</th></tr>{rows}</table>"
            )
        if i % 3 == 0:
            parts.append(f'<img src="data:," alt="Figure {i}" width="40" height="20">')
        parts.append("</section>")
    parts.append("</main><footer><p>End of notes.</p></footer></body></html>")
    return "".join(parts)


def build_corpus(examples: int, generated: int, folders: Sequence[Path] = ()) -> tuple[list[Page], list[str]]:
    """Case examples round-robin over the cases, then generated pages of growing size, then every
    ``*.html`` page of each of ``folders`` (by name), scored without a case."""
    skipped: list[str] = []
    per_case: list[list[Page]] = []
    disclosure: Case | None = None
    for folder in sorted(p for p in cases_dir().iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        try:
            case = load_case(folder)
            pages: list[Page] = [(case, ex.html, f"{case.id}/{ex.name}") for ex in load_examples(case)]
        except CaseError as err:  # another author's case mid-edit must not stop the benchmark
            skipped.append(f"{folder.name}: {err}")
            continue
        if case.id == "disclosure":
            disclosure = case
        per_case.append(pages)
    corpus: list[Page] = []
    depth = 0
    while len(corpus) < examples and any(depth < len(p) for p in per_case):
        corpus += [pages[depth] for pages in per_case if depth < len(pages)][: examples - len(corpus)]
        depth += 1
    sizes = [10, 30, 80, 200, 500, 1000]  # sections, about 0.7 KB each: 8 KB to 700 KB
    for i in range(generated):
        html = _generated(i, sizes[i % len(sizes)])
        corpus.append((disclosure, html, f"generated/{i:02d}-{len(html) // 1024}KB"))
    for folder in folders:
        for path in sorted(folder.glob("*.html")):
            corpus.append((None, path.read_text(encoding="utf-8", errors="replace"), f"{folder.name}/{path.name}"))
    return corpus, skipped


class PeakPss:
    """Samples the PSS of every Chromium process under this Python process, in a thread.

    Every 0.25 s: one sample of all processes costs about 20 ms of CPU (the kernel walks every
    process's page tables to answer smaps), which is why the timed runs go without it; a
    renderer's peak lasts as long as the axe run or page load behind it, well over a sampling
    interval.
    """

    def __init__(self, interval_s: float = 0.25) -> None:
        self.interval_s = interval_s
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._me = psutil.Process()

    def _sample(self) -> int:
        total = 0
        for proc in self._me.children(recursive=True):
            try:
                if "chrom" in proc.name().lower() or "chrom" in " ".join(proc.cmdline()[:1]).lower():
                    total += proc.memory_full_info().pss
            except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                continue
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._sample())
            self._stop.wait(self.interval_s)

    def __enter__(self) -> PeakPss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


class TreeCpu:
    """The CPU time (user + system) of this process and of every process under it, over a block.

    Read from /proc before and after, so it costs nothing while the block runs. A process that
    ends within the block counts through the one that waits for it (its parent's children
    times), but Chromium leaves some of its processes (zygotes) to be reparented when the
    browser exits; while the block runs this process is their subreaper
    (``PR_SET_CHILD_SUBREAPER``), so they come back to it, and it reaps them before the last
    reading. Linux only: elsewhere ``seconds`` stays None.
    """

    def __init__(self) -> None:
        self.seconds: float | None = None
        self._me = psutil.Process()
        self._start: float | None = None
        self._prctl: Callable[..., int] | None = None
        if sys.platform == "linux":
            self._prctl = ctypes.CDLL(None, use_errno=True).prctl

    def _subreaper(self, on: bool) -> bool:
        return self._prctl is not None and self._prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0

    def _total(self) -> float:
        total = 0.0
        for proc in [self._me, *self._me.children(recursive=True)]:
            with contextlib.suppress(psutil.Error):
                used = proc.cpu_times()
                total += used.user + used.system + used.children_user + used.children_system
        return total

    def _reap_orphans(self, wait_s: float = 5.0) -> None:
        """Wait for the browser processes that came back to this one to end, and reap them
        (their times then count in this process's children times)."""
        deadline = time.monotonic() + wait_s
        while True:
            running = False
            for proc in self._me.children():
                with contextlib.suppress(psutil.Error, ChildProcessError):
                    if "chrom" not in proc.name().lower():
                        continue  # the Playwright drivers: their own waiters reap them
                    if proc.status() == psutil.STATUS_ZOMBIE:
                        os.waitpid(proc.pid, 0)
                    else:
                        running = True
            if not running or time.monotonic() > deadline:
                return
            time.sleep(0.05)

    def __enter__(self) -> TreeCpu:
        if self._subreaper(True):
            self._start = self._total()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._start is None:
            return
        self._reap_orphans()
        self.seconds = self._total() - self._start
        self._subreaper(False)


_PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h

Kind = Literal["naive", "script", "pool", "clock"]


@dataclass(frozen=True)
class Mode:
    name: str
    kind: Kind
    run: Callable[[list[Page]], Sequence[Observation | PlainResult]]  # what evaluates a corpus


@dataclass(frozen=True)
class ModeResult:
    name: str
    kind: Kind
    pages: int
    seconds: float
    cpu_s: float | None  # not measured in the memory pass
    peak_pss_bytes: int | None  # measured only in the memory pass
    statuses: dict[str, int]
    observations: tuple[Observation, ...] = ()  # the evaluator's modes
    script_results: tuple[PlainResult, ...] = ()  # the plain script's

    @property
    def pages_per_s(self) -> float:
        return self.pages / self.seconds

    @property
    def cpu_ms_per_page(self) -> float | None:
        return None if self.cpu_s is None else 1000 * self.cpu_s / self.pages

    @property
    def cpu_share(self) -> float | None:
        """How much of the machine's CPU the run used: 1.0 is every core busy all the time."""
        return None if self.cpu_s is None else self.cpu_s / (self.seconds * (os.cpu_count() or 1))


def _measure(mode: Mode, corpus: list[Page], *, memory: bool = False) -> ModeResult:
    sampler = PeakPss() if memory else None
    cpu = None if memory else TreeCpu()
    with sampler or contextlib.nullcontext(), cpu or contextlib.nullcontext():
        started = time.perf_counter()
        outcomes = mode.run(corpus)
        seconds = time.perf_counter() - started
    observations = tuple(o for o in outcomes if isinstance(o, Observation))
    script_results = tuple(o for o in outcomes if isinstance(o, PlainResult))
    statuses: dict[str, int] = {}
    for status in [o.status for o in observations] + ["ok" if r.error is None else "error" for r in script_results]:
        statuses[status] = statuses.get(status, 0) + 1
    return ModeResult(
        mode.name,
        mode.kind,
        len(corpus),
        seconds,
        cpu.seconds if cpu is not None else None,
        sampler.peak if sampler is not None else None,
        statuses,
        observations,
        script_results,
    )


def naive(corpus: list[Page], timeout_s: float) -> list[Observation]:
    """What a simple script does: launch a browser for each page, evaluate it, close it."""
    out = []
    for i, (case, html, page_name) in enumerate(corpus, 1):
        with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=timeout_s)) as ev:
            out.append(ev.evaluate(case, html, name=page_name))
        _progress(i, len(corpus))
    return out


def plain_script(corpus: list[Page], timeout_s: float) -> list[PlainResult]:
    """The script a user would write instead of the evaluator (plain_axe.py), on the same pages."""
    return asyncio.run(audit_pages([(name, html) for _, html, name in corpus], timeout_s=timeout_s))


def _progress(done: int, total: int) -> None:
    if done % 10 == 0 or done == total:
        print(f"  {done}/{total}", file=sys.stderr, flush=True)


def pooled(corpus: list[Page], concurrency: int, timeout_s: float, *, page_clock: bool = False) -> list[Observation]:
    settings = EvaluatorSettings(concurrency=concurrency, timeout_s=timeout_s, page_clock=page_clock)
    with Evaluator(settings) as ev:
        ev.start()
        return ev.evaluate_many([(c, h) for c, h, _ in corpus], names=[n for _, _, n in corpus], progress=_progress)


def _outcomes(obs: Observation) -> tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]:
    return obs.status, obs.axe.failing_rule_ids(), tuple((c.id, c.outcome) for c in obs.checks)


def _of_kind(results: list[ModeResult], kind: Kind) -> ModeResult | None:
    return next((r for r in results if r.kind == kind), None)


def _ratio(results: list[ModeResult]) -> float | None:
    """The pool's speed-up over the naive mode."""
    slow, pool = _of_kind(results, "naive"), _of_kind(results, "pool")
    return pool.pages_per_s / slow.pages_per_s if slow is not None and pool is not None else None


def _script_ratio(results: list[ModeResult]) -> float | None:
    """The plain script's wall time over the pool's: above 1, the evaluator is faster."""
    script, pool = _of_kind(results, "script"), _of_kind(results, "pool")
    return script.seconds / pool.seconds if script is not None and pool is not None else None


def _clock_ratio(results: list[ModeResult]) -> float | None:
    """The pool's speed with the page's own clock (``page_clock``) over its speed without."""
    clock, pool = _of_kind(results, "clock"), _of_kind(results, "pool")
    return clock.pages_per_s / pool.pages_per_s if clock is not None and pool is not None else None


def _differ(results: list[ModeResult], corpus: list[Page]) -> list[str]:
    slow, pool = _of_kind(results, "naive"), _of_kind(results, "pool")
    return _mismatches(slow, pool, corpus) if slow is not None and pool is not None else []


def _mismatches(a: ModeResult, b: ModeResult, corpus: list[Page]) -> list[str]:
    return [
        name
        for (_, _, name), x, y in zip(corpus, a.observations, b.observations, strict=True)
        if _outcomes(x) != _outcomes(y)
    ]


# Why the WCAG rules the plain script found on a page may differ from the evaluator's.
CONTRAST = "contrast decided from pixels"
CHECKED_STATE = "found in a state a check set"
LATE_CHANGE = "found after the page changed itself"
FRAMES = "frames or closed shadow roots"
OTHER = "other"


@dataclass(frozen=True)
class PageDifference:
    """One page on which the script and the evaluator found different WCAG rules failing."""

    name: str
    only_script: tuple[str, ...]
    only_evaluator: tuple[str, ...]
    reasons: tuple[str, ...]  # one per rule, in the order of only_script then only_evaluator


@dataclass(frozen=True)
class FindingsComparison:
    """The WCAG rule ids of the script against the evaluator's, on the pages both completed."""

    compared: int
    differing: tuple[PageDifference, ...]

    def by_reason(self) -> dict[str, int]:
        """How many differing rules each reason explains."""
        counts: dict[str, int] = {}
        for page in self.differing:
            for reason in page.reasons:
                counts[reason] = counts.get(reason, 0) + 1
        return counts

    def figures(self, examples: int = 10) -> dict[str, object]:
        return {
            "pages_compared": self.compared,
            "pages_differing": len(self.differing),
            "rules_by_reason": self.by_reason(),
            "examples": [asdict(page) for page in self.differing[:examples]],
        }


def _why(rule: str, by_script: bool, obs: Observation, axe_states: dict[str, set[str]]) -> str:
    """Why one rule is in one set and not the other: by the evaluator's record of the page."""
    states = axe_states.get(rule, set())  # where axe failed it: "initial", "late", "changing", a check's
    if not by_script and states and "initial" not in states:
        return LATE_CHANGE if states & {"late", "changing"} else CHECKED_STATE
    if rule == CONTRAST_RULE and obs.contrast is not None and by_script == ("initial" in states):
        return CONTRAST  # axe in the first state agreed with the script; the pixels decided otherwise
    if not by_script and (obs.audit.frames_audited or obs.audit.closed_shadow_roots):
        return FRAMES
    return OTHER


def compare_findings(script: ModeResult, pool: ModeResult, corpus: list[Page]) -> FindingsComparison:
    compared = 0
    differing = []
    for (_, _, name), plain, obs in zip(corpus, script.script_results, pool.observations, strict=True):
        if plain.error is not None or obs.status != "ok":
            continue
        compared += 1
        theirs = plain.wcag_rule_ids()
        ours = frozenset(f.rule_id for f in decided_wcag_failures(obs))
        if theirs == ours:
            continue
        axe_states: dict[str, set[str]] = {}
        for finding in obs.axe.wcag_failures:
            axe_states.setdefault(finding.rule_id, set()).update(finding.states)
        only_script, only_evaluator = tuple(sorted(theirs - ours)), tuple(sorted(ours - theirs))
        reasons = tuple(_why(r, True, obs, axe_states) for r in only_script) + tuple(
            _why(r, False, obs, axe_states) for r in only_evaluator
        )
        differing.append(PageDifference(name, only_script, only_evaluator, reasons))
    return FindingsComparison(compared, tuple(differing))


def _script_comparison(results: list[ModeResult], corpus: list[Page]) -> FindingsComparison | None:
    script, pool = _of_kind(results, "script"), _of_kind(results, "pool")
    return compare_findings(script, pool, corpus) if script is not None and pool is not None else None


def _report_round(results: list[ModeResult], corpus: list[Page]) -> None:
    for r in results:
        print(f"{r.name:28} {r.pages_per_s:6.2f} pages/s  {r.seconds:7.1f} s  statuses {r.statuses}")
        if r.cpu_s is not None and r.cpu_ms_per_page is not None and r.cpu_share is not None:
            print(
                f"    CPU of all its processes: {r.cpu_s:.1f} s, {r.cpu_ms_per_page:.0f} ms per page, "
                f"{100 * r.cpu_share:.0f} % of {os.cpu_count()} cores"
            )
        not_ok = _not_ok(r, corpus)
        if not_ok:
            more = f" and {len(not_ok) - 10} more" if len(not_ok) > 10 else ""
            print(f"    not ok: {', '.join(not_ok[:10])}{more}")
        if not r.observations:
            continue
        stages = {
            stage: sum(getattr(o.timings, f"{stage}_ms") for o in r.observations) / len(r.observations)
            for stage in ("render", "axe", "checks", "total")
        }
        print("    mean per page: " + ", ".join(f"{k} {v:.0f} ms" for k, v in stages.items()))
        slowest = sorted(zip(r.observations, corpus, strict=True), key=lambda pair: -pair[0].timings.total_ms)[:3]
        print(
            "    slowest: "
            + ", ".join(f"{name} {o.status} {o.timings.total_ms / 1000:.1f} s" for o, (_, _, name) in slowest)
        )
    ratio = _ratio(results)
    if ratio is not None:
        differ = _differ(results, corpus)
        print(f"speed-up of the pool: {ratio:.2f}x (target >= 4x)")
        print(f"pages whose outcomes differ between the modes: {len(differ)} {differ[:5]}")
    clock_ratio, clock = _clock_ratio(results), _of_kind(results, "clock")
    pool = _of_kind(results, "pool")
    if clock_ratio is not None and clock is not None and pool is not None:
        differ = _mismatches(pool, clock, corpus)
        print(f"speed of the page's clock against the wall clock's horizon: {clock_ratio:.2f}x")
        print(f"pages whose outcomes differ between the two clocks: {len(differ)} {differ[:5]}")
    script_ratio = _script_ratio(results)
    comparison = _script_comparison(results, corpus)
    if script_ratio is not None and comparison is not None:
        print(f"ratio to the plain script (its wall time / the pool's): {script_ratio:.2f}x (target >= 2x)")
        reasons = ", ".join(f"{why} {count}" for why, count in comparison.by_reason().items())
        print(
            f"WCAG rules found, plain script against the evaluator, on the {comparison.compared} pages both "
            f"completed: {len(comparison.differing)} differ" + (f" (rules: {reasons})" if reasons else "")
        )
        for page in comparison.differing[:5]:
            print(
                f"    {page.name}: script only {list(page.only_script)}, evaluator only "
                f"{list(page.only_evaluator)}: {', '.join(page.reasons)}"
            )


def _not_ok(result: ModeResult, corpus: list[Page]) -> list[str]:
    """The pages a mode did not complete, each with its status."""
    if result.observations:
        statuses = [o.status for o in result.observations]
    else:
        statuses = ["ok" if r.error is None else "error" for r in result.script_results]
    return [f"{name} ({status})" for (_, _, name), status in zip(corpus, statuses, strict=True) if status != "ok"]


def _round_figures(results: list[ModeResult], corpus: list[Page]) -> dict[str, object]:
    figures: dict[str, object] = {
        "modes": {
            r.name: {
                "kind": r.kind,
                "pages_per_s": r.pages_per_s,
                "seconds": r.seconds,
                "cpu_s": r.cpu_s,
                "cpu_ms_per_page": r.cpu_ms_per_page,
                "cpu_share": r.cpu_share,
                "statuses": r.statuses,
                "not_ok": _not_ok(r, corpus),
            }
            for r in results
        },
    }
    ratio = _ratio(results)
    if ratio is not None:
        figures["ratio"] = ratio
        figures["outcome_mismatches"] = _differ(results, corpus)
    clock_ratio, clock, pool = _clock_ratio(results), _of_kind(results, "clock"), _of_kind(results, "pool")
    if clock_ratio is not None and clock is not None and pool is not None:
        figures["clock_ratio"] = clock_ratio
        figures["clock_outcome_mismatches"] = _mismatches(pool, clock, corpus)
    script_ratio = _script_ratio(results)
    comparison = _script_comparison(results, corpus)
    if script_ratio is not None and comparison is not None:
        figures["script_ratio"] = script_ratio
        figures["script_findings"] = comparison.figures()
    return figures


def _medians(rounds: list[list[ModeResult]]) -> dict[str, object]:
    names = [r.name for r in rounds[0]]
    medians: dict[str, object] = {
        "median_pages_per_s": {
            name: statistics.median(results[i].pages_per_s for results in rounds) for i, name in enumerate(names)
        },
    }
    cpu = {
        name: [ms for results in rounds if (ms := results[i].cpu_ms_per_page) is not None]
        for i, name in enumerate(names)
    }
    medians["median_cpu_ms_per_page"] = {name: statistics.median(values) for name, values in cpu.items() if values}
    for key, ratio_of in (("ratio", _ratio), ("script_ratio", _script_ratio), ("clock_ratio", _clock_ratio)):
        ratios = [ratio for results in rounds if (ratio := ratio_of(results)) is not None]
        if ratios:
            medians[f"median_{key}"] = statistics.median(ratios)
            medians[f"{key}_range"] = [min(ratios), max(ratios)]
    return medians


def _report_medians(count: int, medians: dict[str, object]) -> None:
    print(f"over {count} rounds:")
    speeds, cpu = medians["median_pages_per_s"], medians["median_cpu_ms_per_page"]
    if isinstance(speeds, dict) and isinstance(cpu, dict):
        for name, value in speeds.items():
            per_page = f", CPU {cpu[name]:.0f} ms per page" if name in cpu else ""
            print(f"  {name:28} median {value:6.2f} pages/s{per_page}")
    for key, label in (
        ("ratio", "speed-up of the pool"),
        ("script_ratio", "ratio to the plain script"),
        ("clock_ratio", "page's clock against the wall clock"),
    ):
        ratio, spread = medians.get(f"median_{key}"), medians.get(f"{key}_range")
        if isinstance(ratio, float) and isinstance(spread, list):
            print(f"  {label}: median {ratio:.2f}x (range {spread[0]:.2f}x-{spread[1]:.2f}x)")


def _memory_pass(corpus: list[Page], pool: Mode, timed: ModeResult) -> dict[str, Any]:
    """The pool once more over the corpus, with the PSS sampler on."""
    result = _measure(pool, corpus, memory=True)
    assert result.peak_pss_bytes is not None
    differ = _mismatches(timed, result, corpus)
    print(
        f"memory pass, {result.name}, PSS sampled every 0.25 s: peak browser PSS "
        f"{result.peak_pss_bytes / 2**20:.0f} MiB (target < 1024 MiB); {result.pages_per_s:.2f} pages/s "
        f"with the sampler; statuses {result.statuses}; outcomes differing from the timed pool: {len(differ)}"
    )
    return {
        "mode": result.name,
        "peak_pss_mib": result.peak_pss_bytes / 2**20,
        "pages_per_s_sampled": result.pages_per_s,
        "statuses": result.statuses,
        "outcome_mismatches": differ,
    }


def add_pages_argument(parser: argparse.ArgumentParser) -> None:
    """``--pages DIR`` (repeatable): saved pages scored without a case (:func:`build_corpus`)."""
    parser.add_argument(
        "--pages",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="also every *.html page of DIR, scored without a case (repeatable; the public pages: "
        "scripts/public_pages.py)",
    )


def check_pages(parser: argparse.ArgumentParser, folders: Sequence[Path]) -> None:
    """Refuse a ``--pages`` folder that holds no page, as a usage error."""
    for folder in folders:
        if not folder.is_dir() or not any(folder.glob("*.html")):
            parser.error(f"--pages {folder}: no *.html pages there (scripts/public_pages.py {folder} writes some)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=48, help="case example pages (default 48)")
    parser.add_argument("--generated", type=int, default=12, help="generated larger pages (default 12)")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        help=f"pool slots (default {DEFAULT_CONCURRENCY}, the evaluator's: two per CPU core, at most 8)",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="time budget per page (default 30 s)")
    parser.add_argument("--skip-naive", action="store_true", help="no naive mode (a new browser per page)")
    parser.add_argument(
        "--skip-baseline",
        action="store_true",
        help="no plain script (scripts/plain_axe.py: the Playwright + axe-core script a user would write instead)",
    )
    parser.add_argument(
        "--skip-memory", action="store_true", help="no memory pass (peak PSS of the pool) after the timed rounds"
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="measure the modes alternately this many times (default 1)"
    )
    parser.add_argument(
        "--page-clock",
        action="store_true",
        help="also run the pool with the page's own clock (EvaluatorSettings(page_clock=True)) and print its "
        "speed against the wall clock's horizon",
    )
    add_pages_argument(parser)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    check_pages(parser, args.pages)
    corpus, skipped = build_corpus(args.examples, args.generated, args.pages)
    if not corpus:
        parser.error("no pages to measure: give --examples, --generated or --pages")
    for line in skipped:
        print(f"skipped case: {line}", file=sys.stderr)
    for folder in args.pages:
        manifest = folder / "MANIFEST.json"
        if manifest.is_file():
            packages = json.loads(manifest.read_text(encoding="utf-8")).get("packages", {})
            print(f"pages of {folder}: from " + ", ".join(f"{name} {version}" for name, version in packages.items()))
    kb = sorted(len(h.encode()) // 1024 for _, h, _ in corpus)
    with_checks = sum(1 for c, _, _ in corpus if c is not None and c.checks)
    print(
        f"corpus: {len(corpus)} pages ({with_checks} with case checks), {kb[0]}-{kb[-1]} KB, "
        f"median {kb[len(kb) // 2]} KB"
    )
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at start")

    pool = Mode(f"pool (concurrency {args.concurrency})", "pool", lambda c: pooled(c, args.concurrency, args.timeout))
    modes: list[Mode] = [pool]
    if args.page_clock:
        modes.append(
            Mode(
                f"pool, page clock ({args.concurrency})",
                "clock",
                lambda c: pooled(c, args.concurrency, args.timeout, page_clock=True),
            )
        )
    if not args.skip_baseline:
        modes.insert(
            0, Mode(f"plain script ({SCRIPT_CONCURRENCY} at once)", "script", lambda c: plain_script(c, args.timeout))
        )
    if not args.skip_naive:
        modes.insert(0, Mode("naive (browser per page)", "naive", lambda c: naive(c, args.timeout)))
    rounds: list[list[ModeResult]] = []
    for number in range(1, args.rounds + 1):
        if args.rounds > 1:
            print(f"round {number} of {args.rounds}")
        # Every other round runs the modes in reverse, so that none always follows another
        # (what the one before leaves behind, or a drift of the machine's speed within a round,
        # then favours neither); the figures are listed in the same order every round.
        order = list(range(len(modes))) if number % 2 else list(reversed(range(len(modes))))
        measured = {index: _measure(modes[index], corpus) for index in order}
        results = [measured[index] for index in range(len(modes))]
        _report_round(results, corpus)
        rounds.append(results)
    per_round = [_round_figures(results, corpus) for results in rounds]
    figures: dict[str, object] = {
        "pages": len(corpus),
        "load_average_start": load,
        "rounds": per_round,
    }
    if len(rounds) == 1:
        figures.update(per_round[0])  # one round: its figures at the top level, as before --rounds
    else:
        medians = _medians(rounds)
        figures.update(medians)
        _report_medians(len(rounds), medians)
    if not args.skip_memory:
        memory = _memory_pass(corpus, pool, rounds[-1][-1])
        figures["memory_pass"] = memory
        figures["peak_pss_mib"] = memory["peak_pss_mib"]
    figures["load_average_end"] = os.getloadavg()
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
