"""Every tab of a slot (its own, its phone tab, engine/conditions.py) is a window of its own
(engine/windows.py), so the slot's page is never a background tab of the phone's window.

In the full Chromium build (new headless mode) a context's second page was a tab of the first
page's window: from the first phone audit on, the slot's page drew two frames in 2 s instead of
33 ms and had no toolbar (``outerHeight == innerHeight``). The headless shell has no tabs, so
these tests launch the full build, and are skipped where it is not installed.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from browser.support import ROOMY_BUDGET_S
from lm_eval_a11y.engine.browser import CHROMIUM_ARGS, IGNORED_DEFAULT_ARGS
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.engine.tab import RenderSettings, Tab
from lm_eval_a11y.scoring import score_observation

FULL_BUILD = Path("/usr/lib/chromium/chromium")
pytestmark = pytest.mark.skipif(not os.access(FULL_BUILD, os.X_OK), reason="the full Chromium build is not installed")

_FAILURES = (
    '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="20" height="20"><input type="text" name="email">'
)
_FIX = (
    "const fix = () => { document.querySelectorAll('img').forEach((i) => i.setAttribute('alt', 'Logo'));"
    " document.querySelectorAll('input').forEach((i) => i.setAttribute('aria-label', 'Email')); };"
)
# Pages that repair their failures when they see a background tab. (A page that timed two of its
# frames as it loaded saw them come at the usual pace even in a background tab; the wait for
# frames that a settle does after the load did not: see the module's docstring.)
ATTACKS = {
    "no toolbar": f"{_FIX} if (outerHeight <= innerHeight) fix();",
    "no toolbar, read late": f"{_FIX} setTimeout(() => {{ if (outerHeight <= innerHeight) fix(); }}, 100);",
}

FIRST = "<!doctype html><html lang='en'><head><title>First</title></head><body><main><p>First</p></main></body></html>"


def _page(script: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign up</title></head>'
        f"<body><main><h1>Sign up</h1>{_FAILURES}<script>{script}</script></main></body></html>"
    )


@pytest.fixture(scope="module")
def full_build() -> Iterator[Evaluator]:
    previous = os.environ.get("A11Y_CHROMIUM")
    os.environ["A11Y_CHROMIUM"] = str(FULL_BUILD)
    ev = Evaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=ROOMY_BUDGET_S))
    try:
        ev.start()
        yield ev
    finally:
        ev.close()
        if previous is None:
            os.environ.pop("A11Y_CHROMIUM", None)
        else:
            os.environ["A11Y_CHROMIUM"] = previous


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_a_page_after_the_phone_audit_is_not_in_a_background_tab(name: str, full_build: Evaluator) -> None:
    # A sample before it opens the slot's phone tab (a slot whose sample ended badly gets a new
    # context, without one).
    first = full_build.evaluate(None, FIRST)
    assert first.status == "ok", (first.status, first.error)
    obs = full_build.evaluate(None, _page(ATTACKS[name]))
    assert obs.status == "ok", (obs.status, obs.error)
    score = score_observation(obs)
    assert not score.passed, f"the page saw a background tab ({name}) and repaired itself"
    for failure in ("axe image-alt", "axe label"):
        assert any(r.startswith(failure) for r in score.reasons), (failure, score.reasons)


def test_two_tabs_of_one_context_have_two_windows() -> None:
    async def windows() -> tuple[int, int, list[int]]:
        from playwright.async_api import async_playwright

        settings = RenderSettings(viewport=(1280, 800), axe_source="", probe_source="", axe_options={})
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=str(FULL_BUILD),
                headless=True,
                args=list(CHROMIUM_ARGS),
                ignore_default_args=list(IGNORED_DEFAULT_ARGS),
            )
            try:
                context = await browser.new_context(no_viewport=True)
                first, second = Tab(context, settings), Tab(context, settings)
                await first.start()
                await second.start()
                ids = [(await tab.send("Browser.getWindowForTarget"))["windowId"] for tab in (first, second)]
                sizes = await first.page.evaluate("[outerHeight, innerHeight]")
                return ids[0], ids[1], sizes
            finally:
                await browser.close()

    first, second, (outer, inner) = asyncio.run(windows())
    assert first != second
    # The first tab's page is still in front in its window, with its toolbar.
    assert outer > inner, (outer, inner)
