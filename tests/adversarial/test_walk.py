"""A visitor's walk (lm_eval_a11y/engine/walk.py): failures a visitor meets only after closing
the dialog that greets them, moving the pointer, turning the wheel, pressing a key, resting the
pointer on a menu or opening a disclosure count, and are put down to the step that showed them.

Every ``fail`` page below hides an ``<img>`` without ``alt`` and an ``<input>`` without a label
until the walk's step, in a few ways per step; its benign twin shows accessible content the same
way and must pass. Each step of the walk is held by the attacks that only it reveals: taking the
step out of the walk lets them pass. The bounds, the order and the time budget are held below.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from lm_eval_a11y.engine import walk
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.engine.session import Session
from lm_eval_a11y.generic import generic_case
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import score_observation

_GIF = "data:image/gif;base64,R0lGODlhAQABAAAAACw="
_BAD = f'<img src="{_GIF}" width="40" height="40"><input type="text">'
_GOOD = f'<img src="{_GIF}" width="40" height="40" alt="Logo"><label>Email <input type="text"></label>'


def _page(body: str, style: str = "") -> str:
    # Controls big enough for WCAG 2.5.8 (target-size), which the walk's states are audited for.
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>'
        f"<style>button, summary {{ min-height: 24px; min-width: 24px; }} {style}</style></head>"
        f"<body>{body}</body></html>"
    )


def _twin(page: str) -> str:
    return page.replace(_BAD, _GOOD).replace(_BAD.replace('"', '\\"'), _GOOD.replace('"', '\\"'))


_SCRIPT_BAD = _BAD.replace('"', '\\"')

# name -> (page, the step that reveals the failures: a part of the state's label)
ATTACKS: dict[str, tuple[str, str]] = {
    "dialog-accept-button": (
        _page(
            f"<main><h1>Shop</h1>{_BAD}</main>"
            '<dialog id="d"><p>We use cookies.</p><form method="dialog"><button>Accept all</button></form></dialog>'
            "<script>document.getElementById('d').showModal();</script>"
        ),
        'click on button "Accept all" of the dialog open at load',
    ),
    "dialog-scripted-close": (
        _page(
            f"<main><h1>Shop</h1>{_BAD}</main>"
            '<dialog id="d"><p>Cookies?</p><button id="x" aria-label="Close">x</button></dialog>'
            "<script>const d = document.getElementById('d'); d.showModal();"
            " document.getElementById('x').addEventListener('click', () => d.close());</script>"
        ),
        'click on button "Close" of the dialog open at load',
    ),
    "dialog-escape-only": (
        _page(
            f"<main><h1>Shop</h1>{_BAD}</main>"
            '<dialog id="d"><p>Welcome back. Press Escape to go on.</p></dialog>'
            "<script>document.getElementById('d').showModal();</script>"
        ),
        "Escape on the dialog open at load",
    ),
    "splash-gone-on-pointermove": (
        _page(
            f'<main><h1>Shop</h1><div id="splash">Welcome</div><section id="c" hidden>{_BAD}</section></main>'
            "<script>document.addEventListener('pointermove', () => { document.getElementById('splash').remove();"
            " document.getElementById('c').hidden = false; }, { once: true });</script>"
        ),
        "pointer moved onto the page",
    ),
    "added-on-mouseover-of-body": (
        _page(
            '<main><h1>Shop</h1><div id="more"></div></main>'
            f"<script>document.body.addEventListener('mouseover', () => {{"
            f" document.getElementById('more').innerHTML = \"{_SCRIPT_BAD}\"; }}, {{ once: true }});</script>",
            "body { min-height: 100vh; margin: 0; }",
        ),
        "pointer moved onto the page",
    ),
    # No script element, and no space before the handler: HTML needs none between attributes.
    "added-on-mouseover-handler-after-slash": (
        _page(
            '<main style="min-height: 100vh"/onmouseover=\'document.getElementById("more").innerHTML ='
            f' `{_BAD}`\'><h1>Shop</h1><div id="more"></div></main>',
            "body { margin: 0; }",
        ),
        "pointer moved onto the page",
    ),
    "added-on-wheel-handler-after-quote": (
        _page(
            '<main style="min-height: 100vh"onwheel=\'document.getElementById("more").innerHTML ='
            f' `{_BAD}`\'><h1>Shop</h1><div id="more"></div></main>',
            "body { margin: 0; }",
        ),
        "wheel to the end",
    ),
    "added-on-first-wheel": (
        _page(
            '<main><h1>Shop</h1><div id="more"></div></main>'
            f"<script>window.addEventListener('wheel', () => {{"
            f" document.getElementById('more').innerHTML = \"{_SCRIPT_BAD}\"; }}, {{ once: true }});</script>"
        ),
        "wheel to the end",
    ),
    "shown-after-wheeling-far": (
        _page(
            '<main><h1>Shop</h1><div style="height: 3000px">Long story</div><div id="more"></div></main>'
            "<script>let turns = 0; document.addEventListener('wheel', () => { turns += 1;"
            f" if (turns === 3) document.getElementById('more').innerHTML = \"{_SCRIPT_BAD}\"; }});</script>"
        ),
        "wheel to the end",
    ),
    "added-on-first-keydown": (
        _page(
            '<main><h1>Shop</h1><button>Buy</button><div id="more"></div></main>'
            f"<script>document.addEventListener('keydown', () => {{"
            f" document.getElementById('more').innerHTML = \"{_SCRIPT_BAD}\"; }}, {{ once: true }});</script>"
        ),
        "first key (Tab)",
    ),
    "added-on-first-keyup": (
        _page(
            '<main><h1>Shop</h1><button>Buy</button><div id="more"></div></main>'
            f"<script>window.addEventListener('keyup', () => {{"
            f" document.getElementById('more').innerHTML = \"{_SCRIPT_BAD}\"; }}, {{ once: true }});</script>"
        ),
        "first key (Tab)",
    ),
    "css-hover-menu": (
        _page(
            '<main><h1>Shop</h1><nav aria-label="Site"><ul><li class="top"><a href="#a">Tents</a>'
            f'<div class="sub">{_BAD}</div></li></ul></nav><p id="a">Tents</p></main>',
            ".sub { display: none } .top:hover > .sub { display: block }",
        ),
        'hover on listitem "Tents"',
    ),
    "css-hover-sibling-static": (
        _page(
            f'<main><h1>Shop</h1><span class="tip">Help</span><div class="pop">{_BAD}</div></main>',
            ".pop { visibility: hidden } .tip:hover + .pop { visibility: visible }",
        ),
        "hover on",
    ),
    "mouseenter-listener-menu": (
        _page(
            '<main><h1>Shop</h1><span id="m">Account</span><div id="more"></div></main>'
            f"<script>document.getElementById('m').addEventListener('mouseenter', () => {{"
            f" document.getElementById('more').innerHTML = \"{_SCRIPT_BAD}\"; }});</script>"
        ),
        "hover on",
    ),
    "details": (
        _page(f"<main><h1>Shop</h1><details><summary>More</summary>{_BAD}</details></main>"),
        "click on",
    ),
    "aria-expanded-panel": (
        _page(
            '<main><h1>Shop</h1><button id="b" aria-expanded="false">Filters</button>'
            f'<div id="p" hidden>{_BAD}</div></main>'
            "<script>const b = document.getElementById('b'); b.addEventListener('click', () => {"
            " b.setAttribute('aria-expanded', 'true'); document.getElementById('p').hidden = false; });</script>"
        ),
        'click on button "Filters"',
    ),
    "popover": (
        _page(f'<main><h1>Shop</h1><button popovertarget="p">Search</button><div id="p" popover>{_BAD}</div></main>'),
        'click on button "Search"',
    ),
    "nested-disclosure": (
        _page(
            '<main><h1>Shop</h1><details><summary>Outer</summary><button id="b" aria-expanded="false">Inner</button>'
            f'<div id="p" hidden>{_BAD}</div></details></main>'
            "<script>const b = document.getElementById('b'); b.addEventListener('click', () => {"
            " b.setAttribute('aria-expanded', 'true'); document.getElementById('p').hidden = false; });</script>"
        ),
        'click on button "Inner"',
    ),
}


@pytest.fixture(scope="module")
def ev() -> Iterator[Evaluator]:
    with Evaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=20, late_horizon_ms=500)) as evaluator:
        yield evaluator


class _Reports:
    def __init__(self) -> None:
        self.reports: list[walk.WalkReport] = []


@pytest.fixture()
def reports(monkeypatch: pytest.MonkeyPatch) -> _Reports:
    """The report of each walk the evaluator makes, in order."""
    seen = _Reports()
    real = walk.visitor_walk

    async def spy(host: Any, session: Session, run: Any) -> walk.WalkReport:
        report = await real(host, session, run)
        seen.reports.append(report)
        return report

    monkeypatch.setattr(walk, "visitor_walk", spy)
    return seen


def _found(obs: Observation) -> dict[str, str]:
    return {f.rule_id: ",".join(f.states) for f in obs.axe.violations if "best-practice" not in f.tags}


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_failures_a_visitor_meets_on_the_walk_fail_the_page(ev: Evaluator, name: str) -> None:
    page, step = ATTACKS[name]
    obs = ev.evaluate(None, page)
    assert obs.status == "ok", obs.error
    found = _found(obs)
    for rule in ("image-alt", "label"):
        assert rule in found, (name, found)
        assert f"walk: {step}" in found[rule], (name, found)
    assert not score_observation(obs).passed


def test_a_walked_state_is_named_after_the_walk_even_after_a_cases_checks(ev: Evaluator) -> None:
    # With a case, the checks' state watch follows the session; the walk acts on the same session
    # afterwards, and its states must not be put down to the last check that ran. (A step the
    # generic checks take too, such as a click on a native button, shows its state to the check
    # first: the wheel is the walk's alone.)
    page, step = ATTACKS["shown-after-wheeling-far"]
    obs = ev.evaluate(generic_case(), page)
    assert obs.status == "ok", obs.error
    found = _found(obs)
    for rule in ("image-alt", "label"):
        assert found.get(rule, "").startswith(f"walk: {step}"), found
        assert "(check " not in found[rule], found


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_the_same_page_with_accessible_content_passes(ev: Evaluator, name: str) -> None:
    page = _twin(ATTACKS[name][0])
    assert page != ATTACKS[name][0]
    obs = ev.evaluate(None, page)
    assert obs.status == "ok", obs.error
    assert _found(obs) == {}, (name, _found(obs))
    assert score_observation(obs).passed, (name, obs.audit)


def test_a_static_page_with_nothing_to_walk_costs_one_key_press_and_no_audit(ev: Evaluator, reports: _Reports) -> None:
    page = _page('<main><h1>Shop</h1><p>Bread and cakes.</p><a href="#x">More</a><p id="x">x</p></main>')
    obs = ev.evaluate(None, page)
    assert obs.status == "ok"
    (report,) = reports.reports
    assert report.actions == ("walk: first key (Tab)",)
    assert report.states == ()
    assert obs.axe.states == ("initial",)
    # A handful of probe calls and one settled key press; generous for a loaded machine.
    assert report.seconds < 1.0, report


def _expanders(count: int) -> str:
    items = "".join(
        f'<button class="x" aria-expanded="false">Part {i}</button><div hidden><p>Part {i} says {i}</p></div>'
        for i in range(count)
    )
    return _page(
        f"<main><h1>Shop</h1>{items}</main>"
        "<script>for (const b of document.querySelectorAll('.x')) b.addEventListener('click', () => {"
        " b.setAttribute('aria-expanded', 'true'); b.nextElementSibling.hidden = false; });</script>"
    )


def test_two_hundred_expanders_hold_the_walk_to_its_bounds_in_document_order(reports: _Reports) -> None:
    # Each of the 200 opens a new state, and an audit of this page takes seconds on a loaded
    # machine: a budget that lets the bound, not the time, end the walk.
    with Evaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=120, late_horizon_ms=0)) as roomy:
        obs = roomy.evaluate(None, _expanders(200))
    assert obs.status == "ok", obs.error
    (report,) = reports.reports
    assert report.stopped is None
    assert len(report.actions) <= walk.MAX_ACTIONS
    assert len(report.states) == walk.MAX_STATES
    opened = [a for a in report.actions if a.startswith("walk: click on")]
    # The states ran out at the click after the last one audited.
    assert len(opened) == walk.MAX_STATES + 1 <= walk.MAX_OPENS
    # Document order: the first expanders, one after another.
    assert opened == [f'walk: click on button "Part {i}"' for i in range(len(opened))]
    walked = [s for s in obs.axe.states if s.startswith("walk:")]
    assert walked == list(report.states) == opened[: walk.MAX_STATES]


def test_two_hundred_expanders_that_change_nothing_cost_the_bounded_clicks_and_no_audit(
    ev: Evaluator, reports: _Reports
) -> None:
    items = "".join(f'<p><button aria-expanded="false">Part {i}</button></p>' for i in range(200))
    obs = ev.evaluate(None, _page(f"<main><h1>Shop</h1>{items}</main>"))
    assert obs.status == "ok", obs.error
    (report,) = reports.reports
    assert report.stopped is None and report.states == ()
    assert report.actions[1:] == tuple(f'walk: click on button "Part {i}"' for i in range(walk.MAX_OPENS))


def test_the_same_page_walked_twice_gives_the_same_states(ev: Evaluator, reports: _Reports) -> None:
    page = _twin(ATTACKS["nested-disclosure"][0]).replace(
        "</main>", '<button popovertarget="q">Q</button><div id="q" popover>Hi</div></main>'
    )
    first = ev.evaluate(None, page)
    second = ev.evaluate(None, page)
    assert first.status == second.status == "ok"
    assert len(reports.reports) == 2
    one, two = reports.reports
    assert one.actions == two.actions and one.states == two.states, (one, two)
    assert len(one.states) >= 3, one
    assert first.axe.states == second.axe.states


def test_a_walk_that_would_outrun_the_budget_stops_and_fails_the_page(
    ev: Evaluator, reports: _Reports, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The margin kept at the end of the budget takes all of it: no step can start.
    monkeypatch.setattr(walk, "_MARGIN_S", 19.5)
    page = _twin(ATTACKS["aria-expanded-panel"][0])
    obs = ev.evaluate(None, page)
    assert obs.status == "ok", obs.error
    (report,) = reports.reports
    assert report.stopped is not None and report.actions == ()
    assert obs.audit is not None
    assert any("visitor's walk stopped" in what for what in obs.audit.unaudited), obs.audit.unaudited
    assert not score_observation(obs).passed


def test_clicks_that_leave_the_page_or_open_windows_do_not_stop_the_walk(ev: Evaluator) -> None:
    page = _page(
        '<main><h1>Shop</h1><a href="https://shop.invalid/next" aria-expanded="false">Away</a>'
        '<button aria-expanded="false" onclick="window.open(\'https://shop.invalid/w\')">Window</button>'
        '<form action="https://shop.invalid/post"><button aria-expanded="false">Send</button></form>'
        '<button aria-expanded="false" onclick="alert(1)">Alert</button>'
        '<button id="b" aria-expanded="false">Last</button>'
        f'<div id="p" hidden>{_BAD}</div></main>'
        "<script>const b = document.getElementById('b'); b.addEventListener('click', () => {"
        " b.setAttribute('aria-expanded', 'true'); document.getElementById('p').hidden = false; });</script>"
    )
    obs = ev.evaluate(None, page)
    assert obs.status == "ok", obs.error
    found = _found(obs)
    assert 'walk: click on button "Last"' in found.get("label", ""), found
    assert obs.events.blocked_navigations, obs.events
    assert not score_observation(obs).passed
