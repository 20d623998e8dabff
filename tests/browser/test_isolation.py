"""Nothing of one sample reaches the next on the same slot; reset() and axe(state) do what they say."""

from __future__ import annotations

from browser.support import fixture_case, page
from lm_eval_a11y.engine.evaluator import Evaluator


def test_a_sample_inherits_nothing_from_the_one_before(one_slot_evaluator: Evaluator) -> None:
    case = fixture_case("fixtureleak")
    writer = page("leak-writer.html")
    reader = page("leak-reader.html")
    # One slot: the reader runs on the very page the writer used (and the writer's pagehide
    # handler runs as the reader loads).
    observations = one_slot_evaluator.evaluate_many([(None, writer), (case, reader), (None, writer), (case, reader)])
    for obs in observations:
        assert obs.status == "ok", obs.error
    for obs in observations[1::2]:
        outcomes = {c.id: (c.outcome, c.message) for c in obs.checks}
        assert outcomes["nothing-inherited"][0] == "pass", outcomes
        assert outcomes["no-foreign-timers-or-listeners"][0] == "pass", outcomes


def test_the_leak_checks_do_see_traces_when_they_exist(one_slot_evaluator: Evaluator) -> None:
    """Control: with the writer's script inside the reader's own document, both checks fail."""
    case = fixture_case("fixtureleak")
    script = page("leak-writer.html").split("<script>")[1].split("</script>")[0]
    reader = page("leak-reader.html").replace("<main>", f"<script>{script}</script><main>", 1)
    obs = one_slot_evaluator.evaluate(case, reader)
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
    # The photo is hidden at first: only the state the check reached shows its missing alt.
    assert obs.axe.states == ("initial", "photo shown")
    (finding,) = [f for f in obs.axe.violations if f.rule_id == "image-alt"]
    assert finding.state == "photo shown"
    assert finding.node_count == 1 and finding.nodes[0].target == ("#photo",)
    assert finding.wcag == ("1.1.1",)


def test_the_pointer_a_check_left_hovers_nothing_in_the_next_document(one_slot_evaluator: Evaluator) -> None:
    """The tab's page is reused from load to load: where a check left the mouse must not decide
    what the next document (a reset of the same sample, or the next sample) shows as hovered."""
    case = fixture_case("fixturehover")
    html = page("hover-pad.html")
    observations = one_slot_evaluator.evaluate_many([(case, html), (case, html)])
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
