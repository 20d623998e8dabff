"""Benchmark the evaluator: a new browser per page (naive) against the pooled browser.

    .venv/bin/python scripts/bench_evaluator.py            # 48 case examples + 12 generated pages
    .venv/bin/python scripts/bench_evaluator.py --rounds 3 # both modes three times, medians
    .venv/bin/python scripts/bench_evaluator.py --json out.json

The corpus is fixed by construction: the cases' own example pages (taken round-robin over the
cases in id order, so every case's checks run), plus generated pages from about 20 KB to 1 MB
that each embed a disclosure widget and are evaluated with the ``disclosure`` case, so the large
pages run interactive checks too. Both modes evaluate the same corpus in the same run, so the
ratio is measured under the same machine load. The timed runs measure wall-clock pages per second
and nothing else: reading the PSS of every Chromium process costs about 20 ms of CPU per sample
(the kernel walks each process's page tables), which on a two-core machine kept busy by the pool
took 5.5 % of its speed and 1.7 % of the naive mode's, which leaves a core idle. The peak PSS is
measured in a separate memory pass of the pool over the same corpus, sampled in a thread. On a
machine whose speed drifts (a shared virtual machine), ``--rounds N`` measures the two modes
alternately N times (the naive mode first in odd rounds, the pool first in even ones) and reports
each round and the medians, so one slow minute does not decide the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from lm_eval_a11y.cases import Case, CaseError, load_case, load_examples
from lm_eval_a11y.engine.browser import DEFAULT_CONCURRENCY
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.resources import cases_dir

Page = tuple[Case | None, str, str]  # case, html, name
Mode = tuple[str, Callable[[list[Page]], list[Observation]]]  # its name, and what evaluates a corpus


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


def build_corpus(examples: int, generated: int) -> tuple[list[Page], list[str]]:
    """Case examples round-robin over the cases, then generated pages of growing size."""
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


@dataclass(frozen=True)
class ModeResult:
    name: str
    pages: int
    seconds: float
    peak_pss_bytes: int | None  # measured only in the memory pass
    statuses: dict[str, int]
    observations: tuple[Observation, ...]

    @property
    def pages_per_s(self) -> float:
        return self.pages / self.seconds


def _measure(
    name: str, corpus: list[Page], run: Callable[[list[Page]], list[Observation]], *, memory: bool = False
) -> ModeResult:
    sampler = PeakPss() if memory else None
    with sampler or contextlib.nullcontext():
        started = time.perf_counter()
        observations = run(corpus)
        seconds = time.perf_counter() - started
    statuses: dict[str, int] = {}
    for obs in observations:
        statuses[obs.status] = statuses.get(obs.status, 0) + 1
    peak = sampler.peak if sampler is not None else None
    return ModeResult(name, len(corpus), seconds, peak, statuses, tuple(observations))


def naive(corpus: list[Page], timeout_s: float) -> list[Observation]:
    """What a simple script does: launch a browser for each page, evaluate it, close it."""
    out = []
    for i, (case, html, page_name) in enumerate(corpus, 1):
        with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=timeout_s)) as ev:
            out.append(ev.evaluate(case, html, name=page_name))
        _progress(i, len(corpus))
    return out


def _progress(done: int, total: int) -> None:
    if done % 10 == 0 or done == total:
        print(f"  {done}/{total}", file=sys.stderr, flush=True)


def pooled(corpus: list[Page], concurrency: int, timeout_s: float) -> list[Observation]:
    with Evaluator(EvaluatorSettings(concurrency=concurrency, timeout_s=timeout_s)) as ev:
        ev.start()
        return ev.evaluate_many([(c, h) for c, h, _ in corpus], names=[n for _, _, n in corpus], progress=_progress)


def _outcomes(obs: Observation) -> tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]]:
    return obs.status, obs.axe.failing_rule_ids(), tuple((c.id, c.outcome) for c in obs.checks)


def _ratio(results: list[ModeResult]) -> float | None:
    return results[1].pages_per_s / results[0].pages_per_s if len(results) == 2 else None


def _differ(results: list[ModeResult], corpus: list[Page]) -> list[str]:
    if len(results) != 2:
        return []
    return _mismatches(results[0], results[1], corpus)


def _mismatches(a: ModeResult, b: ModeResult, corpus: list[Page]) -> list[str]:
    return [
        name
        for (_, _, name), x, y in zip(corpus, a.observations, b.observations, strict=True)
        if _outcomes(x) != _outcomes(y)
    ]


def _report_round(results: list[ModeResult], corpus: list[Page]) -> None:
    for r in results:
        print(f"{r.name:28} {r.pages_per_s:6.2f} pages/s  {r.seconds:7.1f} s  statuses {r.statuses}")
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


def _round_figures(results: list[ModeResult], corpus: list[Page]) -> dict[str, object]:
    figures: dict[str, object] = {
        "modes": {
            r.name: {
                "pages_per_s": r.pages_per_s,
                "seconds": r.seconds,
                "statuses": r.statuses,
            }
            for r in results
        },
    }
    ratio = _ratio(results)
    if ratio is not None:
        figures["ratio"] = ratio
        figures["outcome_mismatches"] = _differ(results, corpus)
    return figures


def _medians(rounds: list[list[ModeResult]]) -> dict[str, object]:
    names = [r.name for r in rounds[0]]
    medians: dict[str, object] = {
        "median_pages_per_s": {
            name: statistics.median(results[i].pages_per_s for results in rounds) for i, name in enumerate(names)
        },
    }
    ratios = [ratio for results in rounds if (ratio := _ratio(results)) is not None]
    if ratios:
        medians["median_ratio"] = statistics.median(ratios)
        medians["ratio_range"] = [min(ratios), max(ratios)]
    return medians


def _report_medians(count: int, medians: dict[str, object]) -> None:
    print(f"over {count} rounds:")
    speeds = medians["median_pages_per_s"]
    if isinstance(speeds, dict):
        for name, value in speeds.items():
            print(f"  {name:28} median {value:6.2f} pages/s")
    ratio, spread = medians.get("median_ratio"), medians.get("ratio_range")
    if isinstance(ratio, float) and isinstance(spread, list):
        print(f"  speed-up of the pool: median {ratio:.2f}x (range {spread[0]:.2f}x-{spread[1]:.2f}x)")


def _memory_pass(corpus: list[Page], pool: Mode, timed: ModeResult) -> dict[str, Any]:
    """The pool once more over the corpus, with the PSS sampler on."""
    name, run = pool
    result = _measure(name, corpus, run, memory=True)
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
    parser.add_argument("--skip-naive", action="store_true", help="measure the pool only")
    parser.add_argument(
        "--skip-memory", action="store_true", help="no memory pass (peak PSS of the pool) after the timed rounds"
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="measure the modes alternately this many times (default 1)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")

    corpus, skipped = build_corpus(args.examples, args.generated)
    for line in skipped:
        print(f"skipped case: {line}", file=sys.stderr)
    kb = sorted(len(h.encode()) // 1024 for _, h, _ in corpus)
    with_checks = sum(1 for c, _, _ in corpus if c is not None and c.checks)
    print(
        f"corpus: {len(corpus)} pages ({with_checks} with case checks), {kb[0]}-{kb[-1]} KB, "
        f"median {kb[len(kb) // 2]} KB"
    )
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at start")

    pool: Mode = (f"pool (concurrency {args.concurrency})", lambda c: pooled(c, args.concurrency, args.timeout))
    modes: list[Mode] = [pool]
    if not args.skip_naive:
        modes.insert(0, ("naive (browser per page)", lambda c: naive(c, args.timeout)))
    rounds: list[list[ModeResult]] = []
    for number in range(1, args.rounds + 1):
        if args.rounds > 1:
            print(f"round {number} of {args.rounds}")
        # Every other round runs the pool first, so that neither mode always follows the other
        # (what the one before leaves behind, or a drift of the machine's speed within a round,
        # then favours neither); the figures are listed in the same order every round.
        order = list(range(len(modes))) if number % 2 else list(reversed(range(len(modes))))
        measured = {index: _measure(modes[index][0], corpus, modes[index][1]) for index in order}
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
