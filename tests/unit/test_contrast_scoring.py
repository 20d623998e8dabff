"""The verdict counts colour contrast as decided: axe's answer unless the pixels measured.

Every expected number below is counted by hand from the nodes written out in the test.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from lm_eval_a11y.contrast import decide, required_ratio
from lm_eval_a11y.observation import (
    AxeFinding,
    AxeNode,
    AxeResult,
    ContrastAudit,
    ContrastNode,
    Observation,
    Timings,
)
from lm_eval_a11y.scoring import decided_violations, doc_metrics, sample_metrics, score_observation


def _finding(rule: str, targets: list[str], node_count: int | None = None) -> AxeFinding:
    return AxeFinding(
        rule_id=rule,
        impact="serious",
        tags=("wcag2aa", "wcag143"),
        help=f"{rule} help",
        help_url="",
        nodes=tuple(AxeNode(html="<p>", target=(t,)) for t in targets),
        node_count=len(targets) if node_count is None else node_count,
    )


def _node(target: str, axe: str, pixel: str, scheme: str = "light", ratio: float | None = 5.0) -> ContrastNode:
    decided, by = decide(axe, pixel)
    return ContrastNode(
        scheme=scheme,
        target=(target,),
        axe=axe,  # type: ignore[arg-type]
        axe_ratio=1.2 if axe == "violation" else None,
        axe_reason=None,
        required=4.5,
        pixel_ratio=None if pixel == "unmeasurable" else ratio,
        pixel=pixel,  # type: ignore[arg-type]
        decided=decided,  # type: ignore[arg-type]
        decided_by=by,  # type: ignore[arg-type]
    )


def _obs(
    violations: tuple[AxeFinding, ...] = (),
    incomplete: tuple[AxeFinding, ...] = (),
    audit: ContrastAudit | None = None,
) -> Observation:
    return Observation(
        case_id=None,
        case_version=None,
        status="ok",
        error=None,
        html_sha256="",
        html_bytes=0,
        axe=AxeResult(violations=violations, incomplete=incomplete, states=("initial",)),
        checks=(),
        environment=None,
        timings=Timings(),
        contrast=audit,
    )


def test_decision_table() -> None:
    assert decide("violation", "pass") == ("pass", "pixels")  # overturned
    assert decide("violation", "fail") == ("fail", "pixels")
    assert decide("violation", "unmeasurable") == ("fail", "axe")
    assert decide("incomplete", "pass") == ("pass", "pixels")  # resolved
    assert decide("incomplete", "fail") == ("fail", "pixels")  # resolved
    assert decide("incomplete", "unmeasurable") == ("incomplete", "axe")


def test_large_text_threshold() -> None:
    assert required_ratio(True) == 3.0 and required_ratio(False) == 4.5


def test_old_record_without_pixel_data_scores_as_before() -> None:
    obs = _obs(violations=(_finding("color-contrast", ["#a", "#b"]),), incomplete=(_finding("color-contrast", ["#c"]),))
    score = score_observation(obs)
    assert not score.passed and score.axe_failures == 2
    assert score.reasons == ("axe color-contrast: 2 node(s) - color-contrast help",)
    assert score.contrast_overturned is None
    metrics = sample_metrics(score, html_found=True, truncated=False)
    assert math.isnan(metrics.contrast_overturned) and math.isnan(metrics.contrast_resolved)
    assert "contrast_overturned" not in doc_metrics([metrics])


def test_nothing_to_check_counts_zero() -> None:
    score = score_observation(_obs())
    assert score.passed
    assert (score.contrast_overturned, score.contrast_resolved_pass, score.contrast_incomplete) == (0, 0, 0)
    assert doc_metrics([sample_metrics(score, html_found=True, truncated=False)])["contrast_overturned"] == 0.0


def test_fully_overturned_violation_no_longer_fails_the_sample() -> None:
    audit = ContrastAudit(
        nodes=(_node("#a", "violation", "pass"), _node("#b", "violation", "pass")),
        axe_violations=(("light", 2),),
    )
    score = score_observation(_obs(violations=(_finding("color-contrast", ["#a", "#b"]),), audit=audit))
    assert score.passed and score.axe_failures == 0 and score.reasons == ()
    assert score.contrast_overturned == 2
    metrics = sample_metrics(score, html_found=True, truncated=False)
    assert doc_metrics([metrics])["contrast_overturned"] == 2.0


def test_resolved_fail_fails_the_sample_even_without_an_axe_violation() -> None:
    audit = ContrastAudit(
        nodes=(_node("#c", "incomplete", "fail", ratio=3.66), _node("#d", "incomplete", "pass")),
        axe_violations=(("light", 0),),
    )
    score = score_observation(_obs(incomplete=(_finding("color-contrast", ["#c", "#d"]),), audit=audit))
    assert not score.passed and score.axe_failures == 1
    assert (score.contrast_resolved_fail, score.contrast_resolved_pass) == (1, 1)
    assert "1 resolved from axe's 'can't tell'" in score.reasons[0]
    assert doc_metrics([sample_metrics(score, html_found=True, truncated=False)])["contrast_resolved"] == 2.0


def test_unmeasurable_nodes_keep_axes_answer() -> None:
    audit = ContrastAudit(
        nodes=(_node("#a", "violation", "unmeasurable"), _node("#c", "incomplete", "unmeasurable")),
        axe_violations=(("light", 1),),
    )
    obs = _obs(
        violations=(_finding("color-contrast", ["#a"]),), incomplete=(_finding("color-contrast", ["#c"]),), audit=audit
    )
    score = score_observation(obs)
    assert not score.passed and score.axe_failures == 1
    assert score.contrast_incomplete == 1 and score.contrast_overturned == 0


def test_a_node_failing_only_in_the_dark_scheme_fails_the_sample() -> None:
    audit = ContrastAudit(
        schemes=("light", "dark"),
        nodes=(_node("#p", "violation", "fail", scheme="dark", ratio=1.9),),
        axe_violations=(("light", 0), ("dark", 1)),
        styles_dark_scheme=True,
    )
    score = score_observation(_obs(audit=audit))
    assert not score.passed and score.axe_failures == 1
    assert "1 in the dark colour scheme" in score.reasons[0]


def test_a_node_failing_in_both_schemes_counts_once() -> None:
    audit = ContrastAudit(
        schemes=("light", "dark"),
        nodes=(_node("#p", "violation", "fail"), _node("#p", "violation", "fail", scheme="dark")),
        axe_violations=(("light", 1), ("dark", 1)),
        styles_dark_scheme=True,
    )
    score = score_observation(_obs(violations=(_finding("color-contrast", ["#p"]),), audit=audit))
    assert score.axe_failures == 1


def test_failures_in_states_the_pixels_did_not_audit_still_count() -> None:
    # axe failed #a in the first run (overturned by the pixels) and #m in a state a check asked
    # for: the finding has two nodes, one of them from the audited run.
    audit = ContrastAudit(nodes=(_node("#a", "violation", "pass"),), axe_violations=(("light", 1),))
    score = score_observation(_obs(violations=(_finding("color-contrast", ["#a", "#m"]),), audit=audit))
    assert score.axe_failures == 1 and not score.passed


def test_failures_past_the_measuring_limit_still_count() -> None:
    audit = ContrastAudit(
        nodes=(_node("#a", "violation", "pass"),), axe_violations=(("light", 41),), unmeasured_violations=40
    )
    score = score_observation(_obs(violations=(_finding("color-contrast", ["#a"], node_count=41),), audit=audit))
    assert score.axe_failures == 40


def test_can_t_tell_nodes_the_check_did_not_reach_leave_the_sample_undecided() -> None:
    """Readable decoys past the measuring limit must not carry a failure among them to a pass."""
    audit = ContrastAudit(
        nodes=(_node("#c", "incomplete", "pass"),),
        axe_violations=(("light", 0),),
        unmeasured_incomplete=20,
        unaudited_incomplete=20,
    )
    score = score_observation(_obs(incomplete=(_finding("color-contrast", ["#c"], node_count=21),), audit=audit))
    assert not score.passed and score.axe_failures == 0
    assert any("20 node(s) axe could not tell on" in r for r in score.reasons), score.reasons
    assert score_observation(_obs(audit=replace(audit, unaudited_incomplete=0))).passed


@pytest.mark.parametrize(("dark", "expected"), [(False, 2), (True, 3)])
def test_a_broken_pixel_check_leaves_axe_in_charge(dark: bool, expected: int) -> None:
    # With a dark scheme the page also fails: its dark scheme was never audited.
    audit = ContrastAudit(
        schemes=("light", "dark") if dark else ("light",), styles_dark_scheme=dark, error="ProbeError: boom"
    )
    score = score_observation(_obs(violations=(_finding("color-contrast", ["#a", "#b"]),), audit=audit))
    assert score.axe_failures == expected and not score.passed


def test_decided_findings_list_what_fails_as_decided() -> None:
    audit = ContrastAudit(
        nodes=(
            _node("#a", "violation", "pass"),
            _node("#b", "violation", "fail"),
            _node("#c", "incomplete", "fail"),
            _node("#d", "incomplete", "pass"),
        ),
        axe_violations=(("light", 2),),
    )
    obs = _obs(
        violations=(_finding("color-contrast", ["#a", "#b"]), _finding("label", ["#f"])),
        incomplete=(_finding("color-contrast", ["#c", "#d"]),),
        audit=audit,
    )
    contrast, label = decided_violations(obs)
    assert (contrast.rule_id, contrast.node_count) == ("color-contrast", 2)
    assert [n.target for n in contrast.nodes] == [("#b",), ("#c",)]
    assert label.rule_id == "label"
    cleared = ContrastAudit(nodes=(_node("#a", "violation", "pass"),), axe_violations=(("light", 1),))
    assert decided_violations(_obs(violations=(_finding("color-contrast", ["#a"]),), audit=cleared)) == ()
