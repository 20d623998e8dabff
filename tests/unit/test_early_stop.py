"""When a page's failure is decided (engine/early_stop.py), and what a partial observation scores:
each rule that a later step could still overturn must not stop the evaluation, each that no later
step can must; and no partial observation, made by the evaluator or by hand, ever passes."""

from __future__ import annotations

from typing import Any

import pytest

from lm_eval_a11y.corpus.keep import KeepRule
from lm_eval_a11y.engine.early_stop import decided_failure, steps_left
from lm_eval_a11y.engine.settings import AXE_TAGS, EvaluatorSettings
from lm_eval_a11y.observation import (
    AuditCoverage,
    AxeResult,
    CheckResult,
    ContrastAudit,
    ContrastNode,
    Observation,
    Timings,
)
from lm_eval_a11y.scoring import graded_score, score_observation


def _rule(rule_id: str, *tags: str, targets: tuple[str, ...] = ("#a",)) -> dict[str, Any]:
    return {
        "id": rule_id,
        "impact": "serious",
        "tags": list(tags),
        "help": rule_id,
        "help_url": "",
        "nodes": [{"html": "<x>", "target": [t]} for t in targets],
        "node_count": len(targets),
    }


def _run(*violations: dict[str, Any], state: str = "initial") -> tuple[str, dict[str, Any]]:
    return state, {"violations": list(violations), "incomplete": []}


def _check(outcome: str, kind: str = "R") -> CheckResult:
    return CheckResult(id=f"c-{outcome}-{kind}", type=kind, description="", outcome=outcome, message="")  # type: ignore[arg-type]


def _decided(
    runs: list[tuple[str, dict[str, Any]]],
    checks: tuple[CheckResult, ...] = (),
    unaudited: tuple[str, ...] = (),
    contrast: ContrastAudit | None = None,
    *,
    contrast_decided: bool = True,
) -> bool:
    return decided_failure(runs, checks, unaudited, contrast, contrast_decided=contrast_decided)


def _overturned() -> ContrastAudit:
    """The pixel check cleared the one node axe failed."""
    node = ContrastNode(
        scheme="light",
        target=("#a",),
        axe="violation",
        axe_ratio=4.4,
        axe_reason=None,
        required=4.5,
        pixel_ratio=7.0,
        pixel="pass",
        decided="pass",
        decided_by="pixels",
    )
    return ContrastAudit(nodes=(node,), axe_violations=(("light", 1),))


CONTRAST = _rule("color-contrast", "wcag2aa", "wcag143")


def test_nothing_recorded_decides_nothing() -> None:
    assert not _decided([])
    assert not _decided([_run()])


@pytest.mark.parametrize(
    "runs",
    [
        [_run(_rule("image-alt", "wcag2a", "wcag111"))],
        # In a later state, after a clean first audit: failures count wherever they are met.
        [_run(), _run(_rule("label", "wcag2a", "wcag412"), state="changing")],
        [_run(), _run(_rule("target-size", "wcag22aa", "wcag258"))],
    ],
)
def test_a_wcag_failure_in_any_audited_state_decides(runs: list[tuple[str, dict[str, Any]]]) -> None:
    assert _decided(runs) and _decided(runs, contrast_decided=False)


def test_a_best_practice_never_decides() -> None:
    assert not _decided([_run(_rule("region", "cat.keyboard", "best-practice"))])
    assert not _decided([_run(_rule("heading-order", "best-practice"), _rule("landmark-one-main", "best-practice"))])


def test_colour_contrast_decides_only_once_the_pixels_have_looked() -> None:
    runs = [_run(CONTRAST)]
    # Before the pixel check, axe's answer may still be overturned.
    assert not _decided(runs, contrast_decided=False)
    # The pixels cleared it: no failure.
    assert not _decided(runs, contrast=_overturned())
    # No pixel check needed or made: axe's answer stands, as in scoring.
    assert _decided(runs, contrast=None)
    # A contrast failure in a state the pixel check does not audit (a new node) stands.
    later = [*runs, _run(_rule("color-contrast", "wcag2aa", targets=("#b",)), state="menu open")]
    assert _decided(later, contrast=_overturned())
    # But another rule next to it decides before the pixels.
    assert _decided([_run(CONTRAST, _rule("image-alt", "wcag2a"))], contrast_decided=False)


@pytest.mark.parametrize(
    ("outcome", "kind", "decides"),
    [
        ("fail", "R", True),
        ("error", "R", True),
        ("pass", "R", False),
        ("na", "R", False),
        ("fail", "BP", False),
        ("error", "BP", False),
    ],
)
def test_a_requirement_check_not_met_decides(outcome: str, kind: str, decides: bool) -> None:
    assert _decided([_run()], checks=(_check(outcome, kind),)) is decides


def test_content_that_could_not_be_audited_decides() -> None:
    assert _decided([_run()], unaudited=("a frame that could not be entered",))


def _observation(**audit: Any) -> Observation:
    return Observation(
        case_id=None,
        case_version=None,
        status="ok",
        error=None,
        html_sha256="",
        html_bytes=0,
        axe=AxeResult(),
        checks=(),
        environment=None,
        timings=Timings(),
        audit=AuditCoverage(recorded=True, **audit),
    )


def test_a_partial_observation_never_passes_even_with_no_failure_recorded() -> None:
    forged = _observation(skipped=("contrast", "late audit"))
    verdict = score_observation(forged)
    assert not verdict.passed and verdict.partial
    assert any("stopped at the first failure" in reason and "late audit" in reason for reason in verdict.reasons)
    assert 0 < graded_score(forged) < 1
    whole = _observation()
    assert score_observation(whole).passed and graded_score(whole) == 1.0 and not score_observation(whole).partial


def test_records_without_skipped_steps_read_as_whole_and_partial_ones_round_trip() -> None:
    old = _observation().to_dict()
    del old["audit"]["skipped"]
    assert Observation.from_dict(old).audit.skipped == ()
    stopped = _observation(skipped=("check one-h1",))
    assert Observation.from_dict(stopped.to_dict()) == stopped
    assert Observation.from_dict({**old, "audit": {"skipped": None}}).audit.skipped == ()


def test_steps_left_names_what_did_not_run() -> None:
    from lm_eval_a11y.corpus.pages import resolve_checks

    case = resolve_checks(None, True)
    assert case is not None
    ids = [c.id for c in case.checks]
    assert steps_left(None, (), contrast=True, late_audit=True) == ["contrast", "late audit"]
    ran = [CheckResult(ids[1], "BP", "", "pass", "")]
    left = steps_left(case, ran, contrast=False, late_audit=False)
    assert left == [f"check {i}" for i in ids if i != ids[1]]


def test_the_setting_is_a_flag_and_drops_best_practices_only() -> None:
    assert EvaluatorSettings().axe_tags == AXE_TAGS
    stop = EvaluatorSettings(stop_at_first_failure=True).axe_tags
    assert "best-practice" in AXE_TAGS and set(stop) == set(AXE_TAGS) - {"best-practice"}
    with pytest.raises(ValueError, match="stop_at_first_failure"):
        EvaluatorSettings(stop_at_first_failure=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("rule", "verdict_only"),
    [("passing", True), ("score>=1", True), ("score>=1.0", True), ("score>=0.99", False), ("all", False)],
)
def test_only_rules_of_the_verdict_alone_may_stop_early(rule: str, verdict_only: bool) -> None:
    assert KeepRule.parse(rule).verdict_only is verdict_only
