"""What the pixel contrast check costs as axe's "can't tell" nodes grow: a page of N readable lines
over a gradient (axe cannot tell on any) and one pale line, evaluated one sample at a time.

    .venv/bin/python scripts/bench_contrast_limit.py                          # limits in force
    .venv/bin/python scripts/bench_contrast_limit.py --lines 320,2000 --unlimited --timeout 600

Per run it prints the wall time of the sample, the pixel check's time (``timings.contrast_ms``),
the nodes measured, the nodes left unmeasured past the limit and not audited, and the pale line's
outcome; with ``--split`` also the time of the check's captures, its probe calls and numpy per
node, by wrapping the engine's functions at run time (the engine itself is not changed).
``--unlimited`` lifts the node and screen limits (engine/contrast.py ``MAX_NODES``,
``MAX_SCREENS``); the check still stops at a quarter of ``--timeout``.
"""

from __future__ import annotations

import argparse
import collections
import functools
import time
from collections.abc import Callable
from typing import Any

from lm_eval_a11y.engine import contrast as engine_contrast
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.engine.tab import Tab


def page(lines: int) -> str:
    body = "".join(f'<p class="g">Readable line {i}</p>' for i in range(lines))
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Lines</title><style>'
        "body { margin: 0; padding: 20px; font: 16px sans-serif; background: #fff; color: #000; }"
        ".g { margin: 0; background: linear-gradient(90deg, #fff, #fefefe); color: #000 } #t { color: #dcdcdc }"
        f'</style></head><body><main><h1>Lines</h1>{body}<p class="g" id="t">The pale line.</p></main></body></html>'
    )


def _timed(totals: dict[str, list[float]], name: Callable[..., str], func: Any) -> Any:
    @functools.wraps(func)
    async def run(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return await func(*args, **kwargs)
        finally:
            entry = totals[name(*args)]
            entry[0] += 1
            entry[1] += time.perf_counter() - began

    return run


def _timed_sync(totals: dict[str, list[float]], key: str, func: Any) -> Any:
    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            totals[key][0] += 1
            totals[key][1] += time.perf_counter() - began

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", default="320,2000", help="readable lines per page, comma-separated")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=20.0, help="the sample's budget in seconds")
    parser.add_argument("--unlimited", action="store_true", help="lift MAX_NODES and MAX_SCREENS")
    parser.add_argument("--split", action="store_true", help="time the check's captures, probe calls and numpy")
    args = parser.parse_args()
    if args.unlimited:
        engine_contrast.MAX_NODES, engine_contrast.MAX_SCREENS = 100_000, 1_000
    totals: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
    if args.split:
        Session.probe = _timed(totals, lambda _s, name, *_: f"probe {name}", Session.probe)  # type: ignore[method-assign]
        Tab.capture_png = _timed(totals, lambda *_: "capture", Tab.capture_png)  # type: ignore[method-assign]
        for name in ("measure_text", "measure_painted"):
            setattr(engine_contrast, name, _timed_sync(totals, name, getattr(engine_contrast, name)))
    evaluator = Evaluator(EvaluatorSettings(concurrency=1, timeout_s=args.timeout))
    evaluator.start()
    try:
        for lines in (int(n) for n in args.lines.split(",")):
            for run in range(args.runs):
                began = time.perf_counter()
                (obs,) = evaluator.evaluate_many([(None, page(lines))])
                wall = time.perf_counter() - began
                audit = obs.contrast
                nodes = audit.nodes if audit is not None else ()
                measured = sum(n.pixel != "unmeasurable" for n in nodes)
                pale = [n.decided for n in nodes if n.target == ("#t",)]
                print(
                    f"lines={lines} run={run} status={obs.status} wall={wall:.2f}s"
                    f" contrast={obs.timings.contrast_ms / 1000:.2f}s measured={measured}/{lines + 1}"
                    f" past_limit={audit.unmeasured_incomplete if audit else 0}"
                    f" not_audited={audit.unaudited_incomplete if audit else 0} pale_line={pale or 'not measured'}",
                    flush=True,
                )
    finally:
        evaluator.close()
    for key, (count, seconds) in sorted(totals.items(), key=lambda item: -item[1][1]):
        print(f"{key:32s} calls={int(count):6d} {seconds * 1000:9.0f} ms")


if __name__ == "__main__":
    main()
