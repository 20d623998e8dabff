"""Every state a case check's action shows is audited with axe-core and the pixel contrast check,
its failures count, and each failing node names the state (engine/states.py).

The attack: content that fails only once a check has opened it (a dialog's unnamed field, an
image without alt, 1.4:1 hint text; a panel behind a button). The controls: a walk and a roving
focus that show nothing new cost no audit, a button that shows something new on every press is
audited a bounded number of times, and a correct dialog still passes.
"""

from __future__ import annotations

import json

import pytest

from browser.support import fixture_case, page
from lm_eval_a11y.cases import get_case
from lm_eval_a11y.cli import main
from lm_eval_a11y.engine.evaluator import Evaluator
from lm_eval_a11y.engine.states import MAX_STATE_AUDITS
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.resources import cases_dir
from lm_eval_a11y.scoring import score_observation

DIALOG = cases_dir() / "modal-dialog" / "examples"
FAILING_DIALOG = DIALOG / "fail-dialog-content-unlabelled.html"
PASSING_DIALOG = DIALOG / "pass-dialog-content-labelled.html"
# The state the dialog's failures are seen in: the first check that opens it, by Enter on its button.
OPENED = 'after Enter on button "Subscribe" (check '


def test_failures_inside_an_opened_dialog_fail_the_page_with_their_state(capsys: pytest.CaptureFixture[str]) -> None:
    """Through ``a11y-eval score --json``: the closed dialog hides its content from axe, every
    requirement check passes, and the page fails on what the open dialog shows."""
    assert main(["score", str(FAILING_DIALOG), "--case", "modal-dialog", "--json"]) == 1
    (doc,) = json.loads(capsys.readouterr().out)
    assert doc["verdict"] == "fail"
    obs = Observation.from_dict(doc["observation"])
    assert all(c.outcome == "pass" for c in obs.checks if c.type == "R"), obs.checks
    rules = {f.rule_id: f for f in obs.axe.wcag_failures}
    assert {"image-alt", "label", "color-contrast"} <= set(rules), sorted(rules)
    for rule in ("image-alt", "label", "color-contrast"):
        (node,) = rules[rule].nodes
        assert node.state.startswith(OPENED), (rule, node.state)
        assert rules[rule].states == (node.state,)
    # The pixel check measured the hint in the open dialog, and the verdict counts it.
    hint = [n for n in obs.contrast.nodes if n.target == (".hint",)] if obs.contrast is not None else []
    assert hint and all(n.decided == "fail" and n.state.startswith(OPENED) for n in hint), hint
    assert any(r.startswith("color-contrast: 1 node(s) fail as rendered") and OPENED in r for r in doc["reasons"])
    assert any(r.startswith("axe label: 1 node(s)") and OPENED in r for r in doc["reasons"])
    assert obs.audit.action_states >= 1


def test_the_state_is_shown_in_the_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(FAILING_DIALOG), "--case", "modal-dialog"]) == 1
    out = capsys.readouterr().out
    assert "axe  image-alt (critical; WCAG 1.1.1" in out
    assert f"state: {OPENED}" in out


def test_a_correct_dialog_passes_with_its_open_state_audited(evaluator: Evaluator) -> None:
    obs = evaluator.evaluate(get_case("modal-dialog"), PASSING_DIALOG.read_text(encoding="utf-8"))
    assert obs.status == "ok", obs.error
    assert score_observation(obs).passed, score_observation(obs).reasons
    opened = [s for s in obs.axe.states if s.startswith(OPENED)]
    assert opened, obs.axe.states
    assert 1 <= obs.audit.action_states <= MAX_STATE_AUDITS


def test_a_panel_a_click_opens_is_audited_under_the_click(evaluator: Evaluator) -> None:
    obs = evaluator.evaluate(fixture_case("fixtureshown"), page("shown-open.html"))
    assert obs.status == "ok", obs.error
    (label,) = [f for f in obs.axe.violations if f.rule_id == "label"]
    assert [n.state for n in label.nodes] == ['after click on button "Open" (check open-panel)']
    assert obs.audit.action_states == 1
    assert not score_observation(obs).passed


def test_a_walk_and_a_roving_focus_that_show_nothing_new_are_not_audited(evaluator: Evaluator) -> None:
    """A Tab walk (focus styles, a class set on focus) and arrow keys moving a roving tabindex
    along a toolbar: what is shown does not change, so no state is audited."""
    obs = evaluator.evaluate(fixture_case("fixtureshown"), page("shown-walk.html"))
    assert obs.status == "ok", obs.error
    assert [c.outcome for c in obs.checks] == ["pass"] * 4, obs.checks
    assert obs.audit.action_states == 0, obs.axe.states
    assert obs.audit.action_states_unaudited == 0
    assert not [s for s in obs.axe.states if s.startswith("after")], obs.axe.states


def test_states_shown_on_every_press_are_audited_up_to_the_bound(evaluator: Evaluator) -> None:
    """Twelve presses of More, each adding an item: MAX_STATE_AUDITS states are audited, labelled
    with the press, and the rest are counted as not audited."""
    obs = evaluator.evaluate(fixture_case("fixtureshown"), page("shown-many.html"))
    assert obs.status == "ok", obs.error
    assert obs.audit.action_states == MAX_STATE_AUDITS
    assert obs.audit.action_states_unaudited == 12 - MAX_STATE_AUDITS
    assert [s for s in obs.axe.states if s.startswith("after")] == ['after Enter on button "More" (check many)']
    assert score_observation(obs).passed, score_observation(obs).reasons
