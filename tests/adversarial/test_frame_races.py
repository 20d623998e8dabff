"""A frame that navigates while the page is audited: its new document is what gets audited.

A frame's own script (or its parent) can replace the frame's document at any moment, and on a
busy machine that moment falls inside the audit: between the search for closed shadow roots
and the frame's axe run, or during the frame's run itself. Both races are forced here, by
navigating the frame from our isolated world at the exact point, so they do not depend on the
machine's speed:

- the frame's world dies with its document: the frame is entered again and its new document
  audited, instead of failing a benign page as unaudited;
- the closed shadow roots of a document newer than the search were never searched: the search
  is made again, so failures inside them are found.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from lm_eval_a11y.engine import audit
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.engine.tab import Tab
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import score_observation

_PIXEL = "data:image/gif;base64,R0lGODlhAQABAAAAACw="
_PAGE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign up</title></head><body>'
    '<main><h1>Sign up</h1><iframe title="Form" srcdoc="<!doctype html><html lang=en><title>x</title>'
    '<main><p>Loading the form</p></main>"></iframe></main></body></html>'
)
_GOOD = (
    "<!doctype html><html lang=en><title>x</title><main><label>Email <input type=email></label>"
    f'<img src="{_PIXEL}" alt="Logo" width=20 height=20></main>'
)
_BAD_IN_CLOSED_ROOT = (
    "<!doctype html><html lang=en><title>x</title><main><div><template shadowrootmode=closed>"
    f'<img src="{_PIXEL}" width=20 height=20><input type=text></template></div></main>'
)


async def _navigate_frame(tab: Tab, srcdoc: str) -> None:
    """Give the page's frame a new document, from our world, and wait for it to load."""
    await tab.evaluate(
        "new Promise((resolve) => { const f = document.querySelector('iframe');"
        " f.addEventListener('load', () => resolve(true), { once: true });"
        f" f.srcdoc = {json.dumps(srcdoc)}; }})"
    )


def _evaluate(monkeypatch: pytest.MonkeyPatch, name: str, wrapper: Callable[..., Awaitable[Any]]) -> Observation:
    monkeypatch.setattr(audit, name, wrapper)
    # No late audit: the initial audit alone must get it right.
    with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=30, late_horizon_ms=0)) as ev:
        return ev.evaluate(None, _PAGE)


def test_a_frame_that_navigates_during_its_audit_is_entered_again(monkeypatch: pytest.MonkeyPatch) -> None:
    real = audit._enter_frame
    calls: list[int] = []

    async def enter_then_navigate(tab: Tab, world: int, index: int) -> tuple[str, int] | None:
        entered = await real(tab, world, index)
        calls.append(index)
        if len(calls) == 1:
            # The world just made in the frame dies with its document.
            await _navigate_frame(tab, _GOOD)
        return entered

    obs = _evaluate(monkeypatch, "_enter_frame", enter_then_navigate)
    assert obs.status == "ok", obs.error
    assert len(calls) >= 2, calls
    assert obs.audit is not None
    assert obs.audit.unaudited == (), obs.audit.unaudited
    assert obs.audit.frames_audited == 1
    assert score_observation(obs).passed, score_observation(obs).reasons


def test_closed_roots_of_a_frame_document_newer_than_the_search_are_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    real = audit._find_closed_roots
    searches: list[int] = []

    async def search_then_navigate(tab: Tab) -> Any:
        found = await real(tab)
        searches.append(found.total)
        if len(searches) == 1:
            # The search saw the plain document; the frame now holds failures in a closed root.
            await _navigate_frame(tab, _BAD_IN_CLOSED_ROOT)
        return found

    obs = _evaluate(monkeypatch, "_find_closed_roots", search_then_navigate)
    assert obs.status == "ok", obs.error
    assert searches[0] == 0 and len(searches) >= 2 and searches[1] == 1, searches
    rules = {f.rule_id for f in obs.axe.violations if "initial" in f.states}
    assert {"image-alt", "label"} <= rules, rules
    assert obs.audit is not None and obs.audit.closed_shadow_roots == 1
    assert not score_observation(obs).passed
