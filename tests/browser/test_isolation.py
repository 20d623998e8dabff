"""Nothing of one sample reaches the next on the same slot; reset() and axe(state) do what they say."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tab_support import slot_tab

from browser.support import ROOMY_BUDGET_S, TESTS, fixture_case, page
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings


@pytest.fixture(scope="module")
def single_tab() -> Iterator[Evaluator]:
    """One working slot and no waiting ones: one browser context, one tab, for every sample."""
    ev = Evaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=ROOMY_BUDGET_S))
    ev.start()
    try:
        yield ev
    finally:
        ev.close()


def test_a_sample_inherits_nothing_from_the_one_before(single_tab: Evaluator) -> None:
    """Writer, then reader, twice, on one tab: nothing the writer left (a global, local and
    session storage, cookies, ``window.name``, timers, key listeners) reaches the reader.

    The order is pinned (one ``evaluate`` at a time; ``evaluate_many`` would start the costlier
    reader first) and the tab is proven the same (tests/tab_support.py): a new context would have
    given the reader a new tab, where nothing of the writer's could be left anyway.
    """
    case = fixture_case("fixtureleak")
    writer = page("leak-writer.html")
    reader = page("leak-reader.html")
    tabs = []
    for _ in range(2):
        wrote = single_tab.evaluate(None, writer)
        assert wrote.status == "ok", wrote.error
        tabs.append(slot_tab(single_tab))
        obs = single_tab.evaluate(case, reader)
        assert obs.status == "ok", obs.error
        tabs.append(slot_tab(single_tab))
        outcomes = {c.id: (c.outcome, c.message) for c in obs.checks}
        assert outcomes["nothing-inherited"][0] == "pass", outcomes
        assert outcomes["no-foreign-timers-or-listeners"][0] == "pass", outcomes
    assert all(tab is tabs[0] for tab in tabs), f"the samples ran on different tabs: {tabs}"


def test_the_leak_checks_do_see_traces_when_they_exist(single_tab: Evaluator) -> None:
    """Control: with the writer's script inside the reader's own document, both checks fail."""
    case = fixture_case("fixtureleak")
    script = page("leak-writer.html").split("<script>")[1].split("</script>")[0]
    reader = page("leak-reader.html").replace("<main>", f"<script>{script}</script><main>", 1)
    obs = single_tab.evaluate(case, reader)
    assert obs.status == "ok", obs.error
    outcomes = {c.id: c for c in obs.checks}
    assert outcomes["nothing-inherited"].outcome == "fail"
    for trace in ("global", "localStorage", "sessionStorage", "cookie", "window.name"):
        assert trace in outcomes["nothing-inherited"].message
    assert outcomes["no-foreign-timers-or-listeners"].outcome == "fail"


def test_reset_and_extra_axe_state(evaluator: Evaluator) -> None:
    case = fixture_case("fixturestate")
    obs = evaluator.evaluate(case, page("reveal-photo.html"))
    assert obs.status == "ok", obs.error
    outcomes = {c.id: c for c in obs.checks}
    assert outcomes["reset-gives-fresh-page"].outcome == "pass", outcomes["reset-gives-fresh-page"].message
    assert outcomes["axe-in-open-state"].outcome == "pass"
    assert outcomes["axe-in-open-state"].message.startswith("1 WCAG failure node")
    # The photo is hidden at first: only the states the checks reached show its missing alt. The
    # click that shows it is audited by itself (engine/states.py) before the check asks for its
    # own run, which is recorded under the name it gave.
    assert obs.axe.states[0] == "initial" and "photo shown" in obs.axe.states
    (finding,) = [f for f in obs.axe.violations if f.rule_id == "image-alt"]
    assert "initial" not in finding.states and finding.nodes[0].state.startswith("after click on "), finding
    assert finding.node_count == 1 and finding.nodes[0].target == ("#photo",)
    assert finding.wcag == ("1.1.1",)


def test_the_pointer_a_check_left_hovers_nothing_in_the_next_document(single_tab: Evaluator) -> None:
    """The tab's page is reused from load to load: where a check left the mouse must not decide
    what the next document (a reset of the same sample, or the next sample) shows as hovered."""
    case = fixture_case("fixturehover")
    html = page("hover-pad.html")
    observations = [single_tab.evaluate(case, html) for _ in range(2)]
    for obs in observations:
        assert obs.status == "ok", obs.error
        outcomes = {c.id: (c.outcome, c.message) for c in obs.checks}
        # The controls: hovering and clicking do hover the pad (the click left the pointer there).
        assert outcomes["click-leaves-pointer-on-pad"][0] == "pass", outcomes
        assert outcomes["reset-drops-hover"][0] == "pass", outcomes
        assert outcomes["raw-mouse-reset-drops-hover"][0] == "pass", outcomes
        assert outcomes["not-hovered-on-arrival"][0] == "pass", outcomes


def test_a_check_that_takes_the_raw_page_gives_the_next_check_a_fresh_one(evaluator: Evaluator) -> None:
    """Whatever a check does through the raw Playwright page counts as acting on the page."""
    obs = evaluator.evaluate(fixture_case("fixtureraw"), page("clean-page.html"))
    assert obs.status == "ok", obs.error
    outcomes = {c.id: (c.outcome, c.message) for c in obs.checks}
    assert outcomes["raw-change"][0] == "pass", outcomes
    assert outcomes["raw-sees-fresh-page"][0] == "pass", outcomes


def test_a_departing_document_runs_none_of_its_handlers_and_the_slot_keeps_its_renderer() -> None:
    """A reader, a page whose ``pagehide`` handler busy-waits for 3 s, and the reader again, on
    one slot.

    Scripts are off while the document departs, so the handler never runs, the departure ends
    well within its 2 s bound and the second reader loads on the same tab. Had the handler run,
    the departure would have overrun its bound and the slot would have given the reader a new
    context, with a new tab (tests/tab_support.py).
    """
    spinner = (TESTS / "isolation" / "pages" / "pagehide-waits-3s.html").read_text(encoding="utf-8")
    case = fixture_case("fixtureleak")
    tabs = []
    with Evaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=ROOMY_BUDGET_S)) as ev:
        for html in (page("leak-reader.html"), spinner, page("leak-reader.html")):
            obs = ev.evaluate(case if html != spinner else None, html)
            assert obs.status == "ok", obs.error
            if html != spinner:
                outcomes = {c.id: (c.outcome, c.message) for c in obs.checks}
                assert outcomes["nothing-inherited"][0] == "pass", outcomes
                tabs.append(slot_tab(ev))
    assert tabs[1] is tabs[0], f"the second reader ran in a new context: {tabs}"
