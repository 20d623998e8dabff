"""Page scripts that try to fake the verdict: axe and the probe run in an isolated world, so the
page's main-world patches change nothing we observe."""

from __future__ import annotations

import pytest

from browser.support import fixture_case, page
from lm_eval_a11y.engine.evaluator import Evaluator


@pytest.mark.parametrize("name", ["tamper-replace-axe.html", "tamper-get-attribute.html", "tamper-array-filter.html"])
def test_patched_main_world_does_not_hide_failures(evaluator: Evaluator, name: str) -> None:
    obs = evaluator.evaluate(None, page(name))
    assert obs.status == "ok", obs.error
    rules = set(obs.axe.failing_rule_ids())
    assert {"image-alt", "label"} <= rules, rules
    assert obs.environment is not None and obs.environment.axe_version.startswith("4.")


def test_redefined_active_element_does_not_fool_focus_checks(evaluator: Evaluator) -> None:
    case = fixture_case("fixturefocus")
    obs, control = evaluator.evaluate_many(
        [
            (case, page("tamper-active-element.html")),
            # Control: with the decoy first in tab order the same check must fail, naming the decoy.
            (case, _decoy_first(page("tamper-active-element.html"))),
        ]
    )
    assert obs.status == "ok", obs.error
    result = {c.id: c for c in obs.checks}["tab-lands-on-first"]
    assert result.outcome == "pass", result.message
    assert "First" in result.message
    assert control.status == "ok", control.error
    (control_result,) = control.checks
    assert control_result.outcome == "fail" and "decoy" in control_result.message, control_result


def _decoy_first(html: str) -> str:
    first = '<button type="button" id="first">First</button>'
    decoy = '<button type="button" id="decoy">Decoy</button>'
    assert first in html and decoy in html
    return html.replace(first, "@@").replace(decoy, first).replace("@@", decoy)
