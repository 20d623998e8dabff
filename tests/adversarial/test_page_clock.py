"""The page lives on its own clock: what it does in the first 30 s of its life is audited, without
the evaluator waiting 30 s (a copy of the page is run ahead in the slot's clock tab, a browser
context of its own), and with ``paced_keys`` the checks' key presses reach it at a person's cadence.

Attacks: failures a timer adds 2.5 s, 5 s or 20 s after load, a popover shown at 2.3 s (no
attribute changes, so no mutation shows it), a failing form shown from 2.3 s to 3.3 s only (in the
document, in a shadow root attached late, or by a style rule the CSSOM inserts and deletes), and a
modal dialog that keeps Tab inside only for presses less than 90 ms apart; a page that hides its
late failures when it finds another copy of itself alive (a cookie of its site). Each has a twin
that must keep passing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from lm_eval_a11y.cases import get_case
from lm_eval_a11y.engine import clock as clock_module
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.engine.settings import PAGE_CLOCK_HORIZON_MS
from lm_eval_a11y.engine.tab import Tab
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import score_observation

_BAD = '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="20" height="20"><input type="text">'
_GOOD = (
    '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="20" height="20" alt="Logo">'
    '<label>Email <input type="text"></label>'
)


def _page(script: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign up</title></head><body>'
        f'<main><h1>Sign up</h1><div id="late"></div></main><script>{script}</script></body></html>'
    )


def _adds_at(ms: int, content: str) -> str:
    """The script that puts ``content`` in the page ``ms`` after load."""
    return f"setTimeout(() => {{ document.getElementById('late').innerHTML = '{content}'; }}, {ms});"


def _added_at(ms: int, content: str) -> str:
    return _page(_adds_at(ms, content))


def _popover_at(ms: int, content: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Offer</title></head><body>'
        f'<main><h1>Offer</h1><div id="offer" popover="manual">{content}</div></main>'
        f"<script>setTimeout(() => document.getElementById('offer').showPopover(), {ms});</script></body></html>"
    )


def _shown_between(start: int, end: int, content: str) -> str:
    return _page(
        f"const slot = document.getElementById('late');"
        f" setTimeout(() => {{ slot.innerHTML = '{content}'; }}, {start});"
        f" setTimeout(() => {{ slot.innerHTML = ''; }}, {end});"
    )


def _one_tab(timeout_s: float) -> Iterator[Evaluator]:
    """One slot on the page's clock, keys paced, so that every sample runs on the same tab, one
    after the other."""
    ev = Evaluator(
        EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=timeout_s, page_clock=True, paced_keys=True)
    )
    ev.start()
    try:
        yield ev
    finally:
        ev.close()


@pytest.fixture(scope="module")
def one_tab() -> Iterator[Evaluator]:
    """The run ahead may take a quarter of the sample's budget of wall time (engine/late.py): 40 s
    gives it 10 s, in which a loaded machine still runs these pages to their 30 s horizon (with
    20 s, 5 s of wall time ran them to 25 s on a machine busy with the rest of the suite)."""
    yield from _one_tab(40)


def _found(obs: Observation) -> dict[str, str]:
    return {f.rule_id: ",".join(f.states) for f in obs.axe.violations}


def _shadow_root_between(start: int, end: int, content: str) -> str:
    """An open shadow root attached late (no mutation of the document shows it) and emptied later."""
    return _page(
        "const slot = document.getElementById('late');"
        f" setTimeout(() => {{ slot.attachShadow({{ mode: 'open' }}).innerHTML = '{content}'; }}, {start});"
        f" setTimeout(() => {{ slot.shadowRoot.innerHTML = ''; }}, {end});"
    )


def _style_rule_between(start: int, end: int, content: str) -> str:
    """Content hidden by a style sheet, shown by a rule the CSSOM inserts late and deletes later (no
    mutation of the document either way)."""
    return _page(
        "const sheet = document.head.appendChild(document.createElement('style')).sheet;"
        " sheet.insertRule('#late { display: none; }');"
        f" document.getElementById('late').innerHTML = '{content}';"
        f" setTimeout(() => {{ sheet.insertRule('#late {{ display: block; }}', 1); }}, {start});"
        f" setTimeout(() => {{ sheet.deleteRule(1); }}, {end});"
    )


LATE = {
    "added-at-2.5s": _added_at(2500, _BAD),
    "added-at-5s": _added_at(5000, _BAD),
    "added-at-20s": _added_at(20000, _BAD),
    "popover-at-2.3s": _popover_at(2300, _BAD),
    "shown-from-2.3s-to-3.3s": _shown_between(2300, 3300, _BAD),
    "shadow-root-from-2.3s-to-3.3s": _shadow_root_between(2300, 3300, _BAD),
    "style-rule-from-2.3s-to-3.3s": _style_rule_between(2300, 3300, _BAD),
}
TWINS = {
    "added-at-2.5s": _added_at(2500, _GOOD),
    "added-at-20s": _added_at(20000, _GOOD),
    "popover-at-2.3s": _popover_at(2300, _GOOD),
    "shown-from-2.3s-to-3.3s": _shown_between(2300, 3300, _GOOD),
    "shadow-root-from-2.3s-to-3.3s": _shadow_root_between(2300, 3300, _GOOD),
    "style-rule-from-2.3s-to-3.3s": _style_rule_between(2300, 3300, _GOOD),
}


@pytest.mark.parametrize("name", sorted(LATE))
def test_failures_a_page_shows_late_in_its_first_30_s_are_caught(one_tab: Evaluator, name: str) -> None:
    obs = one_tab.evaluate(None, LATE[name])
    assert obs.status == "ok", obs.error
    found = _found(obs)
    assert "image-alt" in found and "label" in found, found
    assert not score_observation(obs).passed
    assert obs.audit.clock == "virtual"
    assert obs.audit.horizon_ms is not None and obs.audit.horizon_ms >= PAGE_CLOCK_HORIZON_MS


@pytest.mark.parametrize("name", sorted(TWINS))
def test_their_accessible_twins_pass(one_tab: Evaluator, name: str) -> None:
    obs = one_tab.evaluate(None, TWINS[name])
    assert obs.status == "ok", obs.error
    assert score_observation(obs).passed, score_observation(obs).reasons
    assert obs.audit.clock == "virtual" and obs.audit.horizon_ms is not None
    assert obs.audit.horizon_ms >= PAGE_CLOCK_HORIZON_MS


# About 50 ms of work in one task (counted, since time stands still inside a task on the page's
# clock), every 100 ms: on the wall clock half the renderer's time, so the checks still run; run
# ahead, 30 s of the page's life cost 15 s of CPU, more than the run ahead may take.
_WORK = "let spent = 0; for (let i = 0; i < 1.5e7; i += 1) { spent += i % 7; } window.spent = spent;"

HARD_WORKING = {
    "busy-interval": f"setInterval(() => {{ {_WORK} }}, 100);",
    # Work only while the page's time runs ahead of a worker's (a worker's timers keep the wall
    # clock): idle for a visitor, so nothing else of the sample is slowed, and dear only on the
    # evaluator's run ahead.
    "busy-only-when-run-ahead": (
        "const beat = new Worker(URL.createObjectURL(new Blob(['setInterval(() => postMessage(0), 50);'])));"
        " let beats = 0; beat.onmessage = () => { beats += 1; };"
        " const ahead = () => performance.now() > 2000 && beats < performance.now() / 200;"
        f" setInterval(() => {{ if (ahead()) {{ {_WORK} }} }}, 100);"
    ),
}


@pytest.fixture(scope="module")
def short_budget() -> Iterator[Evaluator]:
    """A 16 s budget: the run ahead may take 4 s of wall time."""
    yield from _one_tab(16)


@pytest.mark.parametrize("name", sorted(HARD_WORKING))
def test_a_page_that_holds_its_clock_short_of_the_horizon_is_not_audited_there(
    short_budget: Evaluator, name: str
) -> None:
    """A page can keep the run ahead from reaching its failures by making each step of its clock
    dear; the wall time of a run ahead is bounded, so it stops short. The sample then fails as not
    audited there, with the reason, instead of passing on the part of its life that was looked at
    (on the wall clock's horizon the same page passes). What follows the run ahead on a page this
    busy may also run out of the budget: the record keeps both reasons."""
    obs = short_budget.evaluate(None, _page(HARD_WORKING[name] + _adds_at(25000, _BAD)))
    assert obs.status in ("ok", "timeout"), obs.error
    assert obs.audit.horizon_ms is not None and obs.audit.horizon_ms < PAGE_CLOCK_HORIZON_MS, obs.audit
    score = score_observation(obs)
    assert not score.passed
    assert any("horizon" in reason and "not audited" in reason for reason in score.reasons), score.reasons


# A timer toggling between two states every 50 ms of the page's time: 600 changes in 30 s.
_TOGGLER = (
    "const h = document.querySelector('h1'); h.className = 'off';"
    " setInterval(() => { h.className = h.className === 'on' ? 'off' : 'on'; }, 50);"
)


@pytest.mark.parametrize(("content", "passes"), [(_BAD, False), (_GOOD, True)], ids=["failing", "twin"])
def test_a_page_that_keeps_returning_to_audited_states_is_run_to_the_horizon(
    one_tab: Evaluator, content: str, passes: bool
) -> None:
    """Every change a page announces stops its clock to be looked at, and a look costs wall time
    (about 60 ms when the page settles). A page that only toggles between states already audited
    is looked at less and less often, so an honest toggler reaches the horizon within its run
    ahead's wall time (about 2.5 s of 10 s here; looked at on each change it took over 30 s): its
    late failure is caught and its twin passes, instead of both falling short."""
    obs = one_tab.evaluate(None, _page(_TOGGLER + _adds_at(25000, content)))
    assert obs.status == "ok", obs.error
    assert obs.audit.clock == "virtual"
    assert obs.audit.horizon_ms is not None and obs.audit.horizon_ms >= PAGE_CLOCK_HORIZON_MS, obs.audit
    score = score_observation(obs)
    assert score.passed is passes, score.reasons


def test_a_static_page_is_not_run_ahead_and_a_settled_one_gets_no_real_time_window(one_tab: Evaluator) -> None:
    static = one_tab.evaluate(None, _page("").replace("<script></script>", ""))
    assert static.audit.late_audit == "static" and static.audit.clock == "none"
    assert static.audit.horizon_ms is None and static.audit.frames_ms == 0
    settled = one_tab.evaluate(None, _page("document.title = 'Sign up now';"))
    assert settled.audit.clock == "virtual" and settled.audit.horizon_ms is not None
    assert settled.audit.horizon_ms >= PAGE_CLOCK_HORIZON_MS
    # No animation frames named and none running: no wall-clock window at all.
    assert settled.audit.frames_ms == 0
    assert settled.audit.late_audit == "unchanged"


def test_animation_frames_get_a_real_time_window(one_tab: Evaluator) -> None:
    """Animation frames follow the wall clock: a 40-frame chain that adds failures is still seen."""
    page = (Path(__file__).resolve().parent / "pages" / "fail-late-raf-chain.html").read_text(encoding="utf-8")
    obs = one_tab.evaluate(None, page)
    assert obs.status == "ok", obs.error
    assert obs.audit.frames_ms > 0
    assert not score_observation(obs).passed


def test_the_clock_survives_many_samples_on_one_tab(one_tab: Evaluator) -> None:
    """Samples one after the other on the same tab: each one's timers run and axe finishes (a
    clock left paused by the sample before would hang the next), and a static page between them
    is audited as usual."""
    for round_ in range(6):
        late = one_tab.evaluate(None, _added_at(3000 + round_ * 1000, _BAD))
        assert late.status == "ok", late.error
        assert not score_observation(late).passed, round_
        static = one_tab.evaluate(None, _page("").replace("<script></script>", "").replace("Sign up", "Welcome"))
        assert static.status == "ok", static.error
        assert score_observation(static).passed, score_observation(static).reasons
        quick = one_tab.evaluate(None, _added_at(0, _GOOD))
        assert quick.status == "ok", quick.error
        assert score_observation(quick).passed, score_observation(quick).reasons


DIALOG = Path(__file__).resolve().parents[2] / "test_cases" / "modal-dialog" / "examples" / "pass-aria-dialog.html"
_TAB_HANDLER = "} else if (event.key === 'Tab') {"


def _trap_only_for_fast_presses(clock: str) -> str:
    """The example dialog, holding Tab inside only when presses come less than 90 ms apart
    (``clock``: the page's reading of the time)."""
    html = DIALOG.read_text(encoding="utf-8")
    assert _TAB_HANDLER in html
    html = html.replace("let returnTo = null;", "let returnTo = null; let lastTab = -Infinity;")
    return html.replace(
        _TAB_HANDLER,
        f"{_TAB_HANDLER} const now = {clock}; const fast = now - lastTab < 90; lastTab = now; if (!fast) return;",
    )


@pytest.mark.parametrize("clock", ["performance.now()", "Date.now()"])
def test_a_dialog_that_holds_focus_only_for_machine_speed_tab_fails_containment(one_tab: Evaluator, clock: str) -> None:
    case = get_case("modal-dialog")
    obs = one_tab.evaluate(case, _trap_only_for_fast_presses(clock))
    assert obs.status == "ok", obs.error
    outcomes = {c.id: c.outcome for c in obs.checks}
    assert outcomes["focus-contained"] == "fail", obs.checks
    assert obs.audit.input_gap_ms >= 150
    # The twin that holds focus whatever the cadence.
    twin = one_tab.evaluate(case, DIALOG.read_text(encoding="utf-8"))
    assert {c.id: c.outcome for c in twin.checks}["focus-contained"] == "pass", twin.checks


def test_the_page_clock_without_paced_keys() -> None:
    with Evaluator(EvaluatorSettings(concurrency=1, page_clock=True)) as ev:
        obs = ev.evaluate(None, LATE["added-at-5s"])
    assert obs.status == "ok", obs.error
    assert obs.audit.clock == "virtual" and obs.audit.input_gap_ms == 0
    assert obs.audit.horizon_ms is not None and obs.audit.horizon_ms >= PAGE_CLOCK_HORIZON_MS
    assert not score_observation(obs).passed


def test_without_the_page_clock_the_record_says_the_wall_clock() -> None:
    with Evaluator(EvaluatorSettings(concurrency=1, page_clock=False)) as wall:
        obs = wall.evaluate(None, _page("document.title = 'Sign up now';"))
        late = wall.evaluate(None, LATE["added-at-5s"])
    assert obs.audit.clock == "wall" and obs.audit.input_gap_ms == 0
    assert obs.audit.horizon_ms is not None and obs.audit.horizon_ms < PAGE_CLOCK_HORIZON_MS
    # What the wall clock's horizon does not reach passes there.
    assert late.audit.clock == "wall" and score_observation(late).passed


def _slot_tab(ev: Evaluator) -> Tab:
    core = ev._core
    assert core._slots is not None
    return next(slot.tab for slot in core._slots.slots if slot.tab is not None)


def test_the_sample_page_keeps_the_wall_clock_and_its_copy_runs_in_a_context_of_its_own() -> None:
    """The run ahead happens in the slot's clock tab: the sample's own page never goes on virtual
    time (its checks, screens and walk run on the wall clock, and it is not replaced), and the
    clock tab lives in a browser context of its own, kept (paused) from one sample to the next."""
    with Evaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=40, page_clock=True)) as ev:
        dialog = DIALOG.read_text(encoding="utf-8")
        late_dialog = dialog.replace("</body>", f'<div id="late"></div><script>{_adds_at(2500, _BAD)}</script></body>')
        assert late_dialog != dialog
        first = ev.evaluate(get_case("modal-dialog"), late_dialog)
        tab = _slot_tab(ev)
        clock_tab = tab._clock_tab
        second = ev.evaluate(None, _added_at(20000, _GOOD))
        assert _slot_tab(ev) is tab and tab._clock_tab is clock_tab
    assert first.status == "ok" and second.status == "ok", (first.error, second.error)
    assert first.audit.clock == "virtual" and not score_observation(first).passed
    assert second.audit.clock == "virtual" and score_observation(second).passed, score_observation(second).reasons
    assert tab.clock is None and tab._spare is None, "the sample's page went on virtual time"
    assert clock_tab is not None and clock_tab.keeps_clock and clock_tab.context is not tab.context


# A page that finds another copy of itself alive through a cookie of its site (every origin of a
# slot is a host under one site) and then hides its late failures: the sample's page, loaded
# first, sets the cookie; a copy loaded beside it in the same browser context would find it and
# stay clean, and only the sample's page, which a visitor meets, would show the failures.
_SITE_COOKIE = "'a11y-twin=' + me + '; path=/; domain=' + location.hostname.split('.').slice(1).join('.')"
_OTHERS = (
    "const me = String(Math.random()).slice(2);"
    " const others = () => document.cookie.split('; ')"
    ".some((c) => c.startsWith('a11y-twin=') && c !== 'a11y-twin=' + me);"
)
COPY_AWARE = {
    "cookie-set-once": f"{_OTHERS} const copy = others(); document.cookie = {_SITE_COOKIE};",
    # Set again every 20 ms: a cookie jar cleared before the copy's load is refilled at once.
    "cookie-set-all-the-time": (
        f"{_OTHERS} let copy = others();"
        f" setInterval(() => {{ if (others()) copy = true; document.cookie = {_SITE_COOKIE}; }}, 20);"
    ),
}


@pytest.mark.parametrize("name", sorted(COPY_AWARE))
def test_a_page_that_stays_clean_when_it_finds_a_copy_of_itself_still_fails(one_tab: Evaluator, name: str) -> None:
    adds = "setTimeout(() => { if (!copy) document.getElementById('late').innerHTML = '__BAD__'; }, 5000);"
    obs = one_tab.evaluate(None, _page(COPY_AWARE[name] + adds.replace("__BAD__", _BAD)))
    assert obs.status == "ok", obs.error
    assert {"image-alt", "label"} <= set(_found(obs)), _found(obs)
    assert not score_observation(obs).passed
    twin = one_tab.evaluate(None, _page(COPY_AWARE[name] + adds.replace("__BAD__", _GOOD)))
    assert score_observation(twin).passed, score_observation(twin).reasons


def test_the_input_cadence_is_a_persons() -> None:
    assert 150 <= clock_module.INPUT_GAP_MS <= 400


def test_a_page_on_its_clock_is_replaced_by_a_warmed_page_that_leaves_no_trace(one_tab: Evaluator) -> None:
    """A page that went on its clock is replaced by a spare made beforehand (a new page's renderer
    is cold: the probe compiled again on the sample's path). The spare has loaded a document of
    the slot's site and gone back to about:blank, and the sample after it sees none of that: no
    request, console line or error of the warm-up in its record, a first navigation, no referrer,
    and an origin of its own."""
    # Keyboard walks at a person's cadence put the sample's page on its clock.
    walked = one_tab.evaluate(get_case("modal-dialog"), DIALOG.read_text(encoding="utf-8"))
    assert walked.status == "ok" and walked.audit.input_gap_ms > 0, walked.error
    tab = _slot_tab(one_tab)
    assert tab._spare is not None, "no spare was made for the page on its clock"

    async def spare_history() -> tuple[list[str], str]:
        assert tab._spare is not None
        page, cdp = await tab._spare
        history = await cdp.send("Page.getNavigationHistory")
        return [entry["url"] for entry in history["entries"]], page.url

    visited, at = one_tab._submit(spare_history())
    assert at == "about:blank", at
    site = tab._origins.site
    assert any(url.startswith("https://") and url.split("/")[2].endswith("." + site) for url in visited), visited
    hosts = json.dumps([url.split("/")[2] for url in visited if url.startswith("https://")])
    # Fails (an unlabelled field) if its document is not a first navigation of its own origin.
    reads = (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Reads</title></head><body><main>"
        "<h1>Reads</h1></main><script>"
        "const nav = performance.getEntriesByType('navigation')[0];"
        f"if (nav.type !== 'navigate' || document.referrer !== '' || {hosts}.includes(location.hostname))"
        " document.querySelector('main').append(document.createElement('input'));"
        "</script></body></html>"
    )
    after = one_tab.evaluate(None, reads)
    assert after.status == "ok", after.error
    assert score_observation(after).passed, score_observation(after).reasons
    events = after.events
    assert not events.blocked_requests and not events.console_errors and not events.page_errors, events


# Time stands still inside a task on the page's clock: a loop that waits for the clock to move
# never ends there, and its script is stopped; the copy is then no longer the page a visitor
# meets (who waits a moment and gets the rest of the script). A page could wait for a moment
# only to keep its late failures out of the run ahead.
_WAITS = {
    "a moment at load": "const t0 = Date.now(); while (Date.now() === t0) {}",
    "for a second at load": "const t1 = performance.now(); while (performance.now() - t1 < 1000) {}",
    "a moment on a timer": "setTimeout(() => { const t2 = Date.now(); while (Date.now() === t2) {} }, 300);",
}


@pytest.mark.parametrize("name", sorted(_WAITS))
def test_a_page_that_waits_on_its_clock_in_a_loop_is_not_passed_on_the_run_ahead(
    one_tab: Evaluator, name: str
) -> None:
    early = one_tab.evaluate(None, _page(_WAITS[name] + _adds_at(1500, _BAD)))
    late = one_tab.evaluate(None, _page(_WAITS[name] + _adds_at(5000, _BAD)))
    for obs in (early, late):
        assert obs.status == "ok", obs.error
        assert obs.audit.clock == "wall", obs.audit
        score = score_observation(obs)
        assert not score.passed
        assert any("waits in a loop for its clock" in reason for reason in score.reasons), score.reasons
    # What the wall clock's horizon reaches is still found on the page itself.
    assert {"image-alt", "label"} <= set(_found(early)), _found(early)
