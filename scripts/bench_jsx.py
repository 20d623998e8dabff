"""What Babel standalone costs a React example page, and what a compiled-JSX cache could save.

    .venv/bin/python scripts/bench_jsx.py              # 3 React examples and their vanilla twins, 7 rounds
    .venv/bin/python scripts/bench_jsx.py --rounds 11 --json out.json

Each React example (docs/cdn-mirror.md) is loaded in real Chromium with its CDN requests answered
from the local mirror (engine/cdn_mirror.py), in four forms, alternately in every round, so the
forms share the machine's load:

- ``vanilla``: the example's vanilla twin;
- ``react``: the React page as written (Babel standalone compiles its ``text/babel`` script);
- ``cached``: the page with Babel still loaded, but its JSX replaced by the compiled script, which
  is what a cache of compiled output that keeps the page's view (a ``Babel`` global) could save
  at best: only the compilation;
- ``compiled``: the compiled script and no Babel at all (the page loses its ``Babel`` global).

The time is from navigation until the component has rendered (the page's ``#root`` has children)
and the load event has fired, the part every reload of a sample pays. The compilation itself is
timed in the page too (``Babel.transform`` of the example's script with the options Babel
standalone uses for a script tag, first call in a fresh document). Medians per form and pair.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lm_eval_a11y.engine.browser import CHROMIUM_ARGS, IGNORED_DEFAULT_ARGS, find_chromium  # noqa: E402
from lm_eval_a11y.engine.cdn_mirror import content_type, resolve  # noqa: E402
from lm_eval_a11y.resources import cases_dir, library_root  # noqa: E402

PAIRS = (
    ("disclosure", "pass-react-aria-button", "pass-aria-button"),
    ("modal-dialog", "pass-react-aria-dialog", "pass-aria-dialog"),
    ("login-form", "pass-react-alert-message", "pass-alert-message"),
)
_BABEL_SCRIPT = re.compile(r'<script type="text/babel">(?P<src>.*?)</script>', re.S)
_BABEL_TAG = re.compile(r'<script src="[^"]*babel[^"]*"></script>\n?')
ORIGIN = "http://bench.invalid/"
_READY = (
    "() => document.readyState === 'complete'"
    " && (!document.getElementById('root') || document.getElementById('root').childElementCount > 0)"
)


async def _route(route: Any) -> None:
    url = route.request.url
    root = library_root()
    assert root is not None, "npm ci --prefix evaluator first"
    if url == ORIGIN:
        await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=_current[0])
        return
    found = resolve(url, root)
    if found is None or not found.mirrored:
        await route.abort()
        return
    await route.fulfill(status=200, content_type=content_type(found.file), path=root / found.file)


# The document the next navigation to ORIGIN gets (one page at a time).
_current = [""]


async def _load(context: Any, html: str, fetched: list[float] | None = None) -> float:
    """Milliseconds until the page has rendered; ``fetched`` gets the time Babel standalone's
    request took (request to last byte), if the page loaded it."""
    _current[0] = html
    page = await context.new_page()
    try:
        start = time.perf_counter()
        await page.goto(ORIGIN)
        await page.wait_for_function(_READY, polling=10, timeout=60_000)
        took = (time.perf_counter() - start) * 1000
        if fetched is not None:
            fetched += await page.evaluate(
                "() => performance.getEntriesByType('resource').filter(e => e.name.includes('babel'))"
                ".map(e => e.responseEnd - e.requestStart)"
            )
        return took
    finally:
        await page.close()


async def _compile(context: Any, html: str) -> tuple[str, float]:
    """The page's JSX compiled by the mirrored Babel in a page, and the first call's time (ms)."""
    match = _BABEL_SCRIPT.search(html)
    assert match is not None
    tag = _BABEL_TAG.search(html)
    assert tag is not None
    _current[0] = tag[0]
    page = await context.new_page()
    try:
        await page.goto(ORIGIN)
        await page.wait_for_function("() => typeof Babel !== 'undefined'")
        code, ms = await page.evaluate(
            """src => { const t = performance.now();
                const out = Babel.transform(src, {presets: ['react', 'env'], sourceMaps: false}).code;
                return [out, performance.now() - t]; }""",
            match["src"],
        )
        return code, ms
    finally:
        await page.close()


async def run(rounds: int) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(find_chromium()),
            headless=True,
            args=list(CHROMIUM_ARGS),
            ignore_default_args=list(IGNORED_DEFAULT_ARGS),
        )
        context = await browser.new_context()
        await context.route("**/*", _route)
        results: dict[str, Any] = {}
        for case_id, react_name, vanilla_name in PAIRS:
            folder = cases_dir() / case_id / "examples"
            react = (folder / f"{react_name}.html").read_text(encoding="utf-8")
            vanilla = (folder / f"{vanilla_name}.html").read_text(encoding="utf-8")
            code, _ = await _compile(context, react)
            jsx = _BABEL_SCRIPT.search(react)
            assert jsx is not None
            cached = f"{react[: jsx.start()]}<script>{code}</script>{react[jsx.end() :]}"
            forms = {"vanilla": vanilla, "react": react, "cached": cached, "compiled": _BABEL_TAG.sub("", cached)}
            times: dict[str, list[float]] = {name: [] for name in forms}
            compile_ms: list[float] = []
            fetch_ms: list[float] = []
            await _load(context, react)  # warm-up, not counted
            for r in range(rounds):
                order = list(forms) if r % 2 == 0 else list(reversed(forms))
                for name in order:
                    times[name].append(await _load(context, forms[name], fetch_ms if name == "react" else None))
                compile_ms.append((await _compile(context, react))[1])
            results[f"{case_id}/{react_name}"] = {
                **{name: round(statistics.median(v), 1) for name, v in times.items()},
                "transform_ms": round(statistics.median(compile_ms), 1),
                "babel_fetch_ms": round(statistics.median(fetch_ms), 1),
            }
        await browser.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = asyncio.run(run(args.rounds))
    columns = ("vanilla", "react", "cached", "compiled", "transform", "babel fetch")
    print(f"{'pair':45} " + " ".join(f"{c:>11}" for c in columns) + "  (ms, medians)")
    for pair, row in results.items():
        keys = ("vanilla", "react", "cached", "compiled", "transform_ms", "babel_fetch_ms")
        print(f"{pair:45} " + " ".join(f"{row[k]:11.1f}" for k in keys))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
