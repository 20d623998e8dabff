"""The script a user would write instead of the evaluator: the benchmark's yardstick.

One headless Chromium (the binary the evaluator would use, with plain headless flags), four pages
at once, each in a new browser context: the page's HTML set with ``page.set_content`` (which waits
for its load event), axe-core injected after the load from the same ``axe.min.js``, one
``axe.run`` with the evaluator's tags, the page's violations collected, the context closed. No
isolated worlds, frames or shadow roots opened, behaviour checks, waiting for late changes, or
pixel contrast: that is what the evaluator adds, and what it has to be fast despite.

    .venv/bin/python scripts/plain_axe.py page.html other.html
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, async_playwright
from playwright.async_api import Error as PlaywrightError

from lm_eval_a11y.engine.browser import find_chromium
from lm_eval_a11y.engine.settings import AXE_TAGS
from lm_eval_a11y.resources import axe_path

FLAGS: tuple[str, ...] = ("--no-sandbox", "--disable-gpu")
CONCURRENCY = 4
AXE_RUN = "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})"


@dataclass(frozen=True)
class PlainResult:
    """What the script saw on one page: axe's violations as it returned them, or why it could not."""

    name: str
    violations: tuple[dict[str, Any], ...] = ()
    error: str | None = None

    def wcag_rule_ids(self) -> frozenset[str]:
        """The rules with WCAG failures (best practices left out, as they never fail a page)."""
        return frozenset(v["id"] for v in self.violations if "best-practice" not in v["tags"])


async def audit_page(browser: Browser, html: str, axe_file: Path) -> list[dict[str, Any]]:
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.set_content(html)
        await page.add_script_tag(path=axe_file)
        result = await page.evaluate(AXE_RUN, list(AXE_TAGS))
        return list(result["violations"])
    finally:
        await context.close()


async def audit_pages(
    pages: Sequence[tuple[str, str]], *, concurrency: int = CONCURRENCY, timeout_s: float = 30.0
) -> list[PlainResult]:
    """Audit ``(name, html)`` pages, ``concurrency`` at a time; results in the order given."""
    axe_file = axe_path()
    gate = asyncio.Semaphore(concurrency)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=find_chromium(), args=list(FLAGS))

        async def one(name: str, html: str) -> PlainResult:
            async with gate:
                try:
                    violations = await asyncio.wait_for(audit_page(browser, html, axe_file), timeout_s)
                except (PlaywrightError, TimeoutError) as err:
                    return PlainResult(name, error=f"{type(err).__name__}: {err}")
                return PlainResult(name, tuple(violations))

        results = await asyncio.gather(*(one(name, html) for name, html in pages))
        await browser.close()
    return list(results)


def main(argv: list[str]) -> int:
    pages = [(name, Path(name).read_text(encoding="utf-8")) for name in argv]
    for result in asyncio.run(audit_pages(pages)):
        print(
            json.dumps({"page": result.name, "error": result.error, "violations": [v["id"] for v in result.violations]})
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
