"""A page that changes itself between the first audit and the horizon is audited in each state.

Content a timer shows and hides again would otherwise be audited only if it happened to be there
at the first audit or at the late one. The timing of a page's own timers against our audits
depends on the machine, so here the change is made from our isolated world at a known point
after the first audit: failing content shown for 1.5 s and removed again well before the late
audit, which then finds the page as it first was. That is the wall clock's watch
(``page_clock=False``), the one whose timing the tests can steer from our world; the run ahead of
a copy on the page's own clock looks at states the same way, driven by the page's own timers
(tests/adversarial/test_page_clock.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lm_eval_a11y.engine import late as evaluator_module
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.engine.tab import Tab
from lm_eval_a11y.scoring import score_observation

_PAGE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign up</title></head><body>'
    '<main><h1>Sign up</h1><div id="slot"><p>Loading the form</p></div></main>'
    "<script>document.title = 'Sign up';</script></body></html>"
)
# Shown 300 ms after the first audit and removed 1.5 s later, from our world's timers.
_FLASH = (
    "setTimeout(() => { document.getElementById('slot').innerHTML = '<img src=\"data:image/gif;base64,"
    "R0lGODlhAQABAAAAACw=\" width=20 height=20><input type=text>'; }, 300);"
    " setTimeout(() => { document.getElementById('slot').innerHTML = '<p>Loading the form</p>'; }, 1800);"
    " true"
)
# Twelve changes of no consequence (a counter, 60 ms apart) right after the first audit, then the
# same failures shown 900 ms after it for 1.5 s: a page that spends a fixed number of audits of
# changing states on decoys before it shows what fails.
_DECOYS_THEN_FLASH = (
    "const slot = document.getElementById('slot'); const counter = document.createElement('p');"
    " slot.before(counter); let n = 0;"
    " const tick = setInterval(() => { counter.textContent = String(++n); if (n === 12) clearInterval(tick); }, 60);"
    + _FLASH.replace("300);", "900);").replace("1800);", "2400);")
)
# The same failures shown at once, before the watch begins, and removed 1.2 s later: the first
# change the watch sees takes the page back to the state the first audit saw.
_SHOWN_BEFORE_THE_WATCH = _FLASH.replace("}, 300);", "}, 0);").replace("1800);", "1200);")
# The same failures inside a closed shadow root, shown 300 ms after the first audit for 1.5 s:
# an audit in the page does not see into it, the audit that opens closed roots does.
_FLASH_CLOSED = (
    "setTimeout(() => { const host = document.createElement('div'); host.id = 'host';"
    " document.getElementById('slot').append(host); host.attachShadow({ mode: 'closed' }).innerHTML ="
    " '<img src=\"data:image/gif;base64,R0lGODlhAQABAAAAACw=\" width=20 height=20><input type=text>'; }, 300);"
    " setTimeout(() => { document.getElementById('host').remove(); }, 1800); true"
)
# The same failures in a shadow root attached 300 ms after the first audit to the element already
# there (no mutation shows an attachment), open or closed, its host replaced by the first
# version 1.5 s later.
_ATTACH = (
    "setTimeout(() => { document.getElementById('slot').attachShadow({ mode: 'MODE' }).innerHTML ="
    " '<img src=\"data:image/gif;base64,R0lGODlhAQABAAAAACw=\" width=20 height=20><input type=text>'; }, 300);"
    " setTimeout(() => { const first = document.createElement('div'); first.id = 'slot';"
    " first.innerHTML = '<p>Loading the form</p>'; document.getElementById('slot').replaceWith(first); }, 1800);"
    " true"
)
# A page whose form is in a shadow root from the start, accessible when audited: 300 ms after the
# first audit its field and image lose their names inside the root for 1.5 s. The closed root is
# reached through the property the first audit gave its host in our world (audit.py).
_PAGE_WITH_ROOT = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign up</title></head><body>'
    '<main><h1>Sign up</h1><div id="host"><template shadowrootmode="MODE"><img alt="Logo"'
    ' src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="20" height="20"><input type="text"'
    ' aria-label="Email"></template></div></main>'
    "<script>document.title = 'Sign up';</script></body></html>"
)
_NAMES_TAKEN = (
    "const root = document.getElementById('host').shadowRoot; const img = root.querySelector('img');"
    " const field = root.querySelector('input');"
    " setTimeout(() => { img.removeAttribute('alt'); field.removeAttribute('aria-label'); }, 300);"
    " setTimeout(() => { img.alt = 'Logo'; field.setAttribute('aria-label', 'Email'); }, 1800); true"
)
_CONTENT_SWAPPED = (
    "const root = document.getElementById('host').shadowRoot; const good = root.innerHTML;"
    " setTimeout(() => { root.innerHTML = '<p>Form</p><img src=\"data:image/gif;base64,R0lGODlhAQABAAAAACw=\"'"
    " + ' width=20 height=20><input type=text>'; }, 300);"
    " setTimeout(() => { root.innerHTML = good; }, 1800); true"
)
TICKER = Path(__file__).resolve().parent / "pages" / "pass-late-ticker.html"


@pytest.mark.parametrize(
    ("page", "script"),
    [
        (_PAGE, _FLASH),
        (_PAGE, _DECOYS_THEN_FLASH),
        (_PAGE, _SHOWN_BEFORE_THE_WATCH),
        (_PAGE, _FLASH_CLOSED),
        (_PAGE, _ATTACH.replace("MODE", "open")),
        (_PAGE, _ATTACH.replace("MODE", "closed")),
        (_PAGE_WITH_ROOT.replace("MODE", "open"), _NAMES_TAKEN),
        (_PAGE_WITH_ROOT.replace("MODE", "closed"), _NAMES_TAKEN),
        (_PAGE_WITH_ROOT.replace("MODE", "open"), _CONTENT_SWAPPED),
        (_PAGE_WITH_ROOT.replace("MODE", "closed"), _CONTENT_SWAPPED),
    ],
    ids=[
        "flash",
        "decoys-then-flash",
        "shown-before-the-watch",
        "flash-in-a-closed-shadow-root",
        "open-root-attached-to-an-element-there",
        "closed-root-attached-to-an-element-there",
        "names-taken-inside-an-open-root",
        "names-taken-inside-a-closed-root",
        "content-swapped-inside-an-open-root",
        "content-swapped-inside-a-closed-root",
    ],
)
def test_failures_shown_only_between_the_two_audits_are_found(
    monkeypatch: pytest.MonkeyPatch, page: str, script: str
) -> None:
    real = Session.run_axe

    async def run_axe(self: Session, state: str, **kwargs: Any) -> dict[str, Any]:
        result = await real(self, state, **kwargs)
        if state == "initial":
            await self._tab.evaluate(script)
        return result

    monkeypatch.setattr(Session, "run_axe", run_axe)
    with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=30, late_horizon_ms=4000, page_clock=False)) as ev:
        obs = ev.evaluate(None, page)
    assert obs.status == "ok", obs.error
    assert obs.audit is not None and obs.audit.states_audited >= 1
    found = {f.rule_id: f.states for f in obs.axe.violations}
    assert "changing" in found.get("image-alt", ()), found
    assert "changing" in found.get("label", ()), found
    assert not score_observation(obs).passed


def test_a_page_that_keeps_changing_is_audited_a_bounded_number_of_times() -> None:
    """A clock and a rotating notice, every state accessible: it passes, after at most the
    bounded number of extra audits."""
    with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=30)) as ev:
        obs = ev.evaluate(None, TICKER.read_text(encoding="utf-8"))
    assert obs.status == "ok", obs.error
    assert obs.audit is not None
    assert 1 <= obs.audit.states_audited <= evaluator_module._CHANGING_STATES
    assert score_observation(obs).passed, score_observation(obs).reasons


# Flips the failing form in and out of the page on every one of its own tasks (a message loop),
# and counts the tasks on <html>.
_FLIPPER = (
    '<!doctype html><html lang="en" data-ticks="0"><head><meta charset="utf-8"><title>Sign up</title></head>'
    '<body><main><h1>Sign up</h1><div id="form" hidden><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="'
    ' width="20" height="20"><input type="text"></div></main><script>'
    "const form = document.getElementById('form'); const root = document.documentElement;"
    " const channel = new MessageChannel(); channel.port1.onmessage = () => {"
    " form.hidden = !form.hidden; root.dataset.ticks = String(Number(root.dataset.ticks) + 1);"
    " channel.port2.postMessage(0); }; channel.port2.postMessage(0);"
    "</script></body></html>"
)
_TICKS = "Number(document.documentElement.dataset.ticks)"


def test_a_page_runs_none_of_its_own_tasks_while_it_is_audited(monkeypatch: pytest.MonkeyPatch) -> None:
    """axe-core hands each result on with a zero-delay timer, so a page's tasks used to run in the
    middle of an audit: a failure shown after the rules that look for it had run, or taken away
    before they did. The audit runs from its first rule to its report with none of them."""
    real = Tab.evaluate
    during: list[int] = []

    async def evaluate(self: Tab, expression: str, **kwargs: Any) -> Any:
        if not expression.startswith("globalThis.__a11yProbe.runAxe("):
            return await real(self, expression, **kwargs)
        counted = f"(async () => {{ const a = {_TICKS}; const r = await {expression}; return [r, {_TICKS} - a]; }})()"
        result, ticks = await real(self, counted, **kwargs)
        during.append(ticks)
        return result

    monkeypatch.setattr(Tab, "evaluate", evaluate)
    with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=30)) as ev:
        obs = ev.evaluate(None, _FLIPPER)
    assert obs.status == "ok", obs.error
    # The first audit, the late one and the changing states': each saw the page in one state.
    assert len(during) >= 2, during
    assert during == [0] * len(during), during
