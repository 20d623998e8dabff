"""Scoring against numbers worked out by hand: pass@k, per-doc metrics, the verdict, the stderr.

These formulas are what every published number rests on; each expected value below was computed
on paper (fractions in the comments), not by calling the code under test.
"""

from __future__ import annotations

import math

import pytest

from lm_eval_a11y.observation import AxeFinding, AxeNode, AxeResult, CheckResult, Observation, Timings
from lm_eval_a11y.scoring import (
    SampleMetrics,
    doc_metrics,
    mean_stderr,
    pass_at_k,
    sample_metrics,
    score_observation,
)

# (n, c, k, expected) with expected = 1 - C(n-c, k) / C(n, k)
PASS_AT_K_TABLE = [
    (10, 0, 1, 0.0),  # nothing passed: 0 whatever k
    (10, 0, 10, 0.0),
    (10, 10, 1, 1.0),  # everything passed
    (10, 10, 10, 1.0),
    (10, 1, 1, 0.1),  # c/n
    (10, 1, 5, 0.5),  # 1 - 126/252
    (10, 1, 10, 1.0),  # k = n and c >= 1: some draw of all n includes the passing one
    (10, 2, 5, 7 / 9),  # 1 - 56/252
    (10, 3, 5, 11 / 12),  # 1 - 21/252
    (10, 6, 5, 1.0),  # n - c < k: every draw of 5 includes a pass
    (5, 2, 2, 0.7),  # 1 - 3/10
    (1, 0, 1, 0.0),
    (1, 1, 1, 1.0),
    (20, 4, 10, 1 - 8008 / 184756),  # C(16,10) = 8008, C(20,10) = 184756
]


@pytest.mark.parametrize(("n", "c", "k", "expected"), PASS_AT_K_TABLE)
def test_pass_at_k_table(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("n", "c", "k"), [(3, 0, 5), (3, 3, 5), (0, 0, 1), (9, 9, 10)])
def test_pass_at_k_is_nan_when_k_exceeds_n(n: int, c: int, k: int) -> None:
    # With fewer samples than k the estimator is undefined; even c = n would be a guess about
    # samples never drawn. NaN (not 0 or 1) makes the caller decide, and doc_metrics leaves it out.
    assert math.isnan(pass_at_k(n, c, k))


@pytest.mark.parametrize(("n", "c", "k"), [(10, 11, 1), (-1, 0, 1), (10, 0, 0), (10, -1, 1)])
def test_pass_at_k_rejects_impossible_inputs(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError, match="pass_at_k"):
        pass_at_k(n, c, k)


def metrics(
    passed: bool, req: float = 1.0, bp: float = math.nan, axe: float = 0.0, strict: float = 1.0
) -> SampleMetrics:
    return SampleMetrics(
        passed=passed,
        req_pass_rate=req,
        bp_pass_rate=bp,
        axe_clean=axe == 0,
        axe_failures=axe,
        checks_passed=strict,
        html_found=True,
        truncated=False,
    )


def test_doc_metrics_of_ten_samples() -> None:
    samples = [metrics(True)] * 3 + [metrics(False, req=0.5, bp=0.0, axe=4.0, strict=0.25)] * 7
    got = doc_metrics(samples)
    assert got["pass"] == pytest.approx(0.3)
    assert got["pass@1"] == pytest.approx(0.3)
    assert got["pass@5"] == pytest.approx(11 / 12)
    assert got["pass@10"] == 1.0
    assert got["req_pass_rate"] == pytest.approx((3 * 1.0 + 7 * 0.5) / 10)
    assert got["checks_passed"] == pytest.approx((3 * 1.0 + 7 * 0.25) / 10)
    assert got["axe_clean"] == pytest.approx(0.3)
    assert got["axe_failures"] == pytest.approx(2.8)
    # bp_pass_rate applies only to the 7 samples that had best-practice numbers.
    assert got["bp_pass_rate"] == 0.0
    assert (got["html_found"], got["truncated"]) == (1.0, 0.0)


def test_doc_metrics_leaves_out_what_does_not_apply() -> None:
    got = doc_metrics([metrics(True)])
    assert "bp_pass_rate" not in got, "a case without best-practice checks has no bp rate, not NaN"
    assert "pass@5" not in got and "pass@10" not in got, "pass@k with k > n is undefined"
    assert got["pass@1"] == got["pass"] == 1.0
    assert not any(math.isnan(v) for v in got.values())


def test_doc_metrics_needs_a_sample() -> None:
    with pytest.raises(ValueError, match="at least one sample"):
        doc_metrics([])


def _obs(
    status: str = "ok", checks: tuple[CheckResult, ...] = (), violations: tuple[AxeFinding, ...] = ()
) -> Observation:
    return Observation(
        case_id="c",
        case_version="1",
        status=status,  # type: ignore[arg-type]
        error=None if status == "ok" else "took too long",
        html_sha256="",
        html_bytes=0,
        axe=AxeResult(violations=violations),
        checks=checks,
        environment=None,
        timings=Timings(),
    )


def _check(cid: str, kind: str, outcome: str) -> CheckResult:
    return CheckResult(id=cid, type=kind, description=cid, outcome=outcome, message=f"{cid} {outcome}")  # type: ignore[arg-type]


def _finding(rule: str, nodes: int, tags: tuple[str, ...] = ("wcag2a", "wcag412")) -> AxeFinding:
    node = AxeNode(html="<div>", target=("div",))
    return AxeFinding(rule, "serious", tags, rule, "", (node,) * nodes, nodes)


def test_sample_metrics_from_an_observation() -> None:
    obs = _obs(
        checks=(
            _check("a", "R", "pass"),
            _check("b", "R", "na"),
            _check("c", "R", "fail"),
            _check("d", "BP", "pass"),
            _check("e", "BP", "fail"),
        ),
        violations=(_finding("button-name", 2), _finding("region", 3, ("best-practice",))),
    )
    score = score_observation(obs)
    got = sample_metrics(score, html_found=True, truncated=False)
    assert not got.passed
    assert got.req_pass_rate == pytest.approx(2 / 3)  # pass and allowed na are met
    assert got.checks_passed == pytest.approx(1 / 3)  # only a real pass counts here
    assert got.bp_pass_rate == pytest.approx(1 / 2)
    assert (got.axe_clean, got.axe_failures) == (False, 2.0)  # best-practice nodes are not counted


def test_sample_without_html_fails_with_unknown_axe_count() -> None:
    got = sample_metrics(None, html_found=False, truncated=True)
    assert not got.passed and not got.axe_clean
    assert (got.req_pass_rate, got.bp_pass_rate, got.checks_passed) == (0.0, 0.0, 0.0)
    assert math.isnan(got.axe_failures)
    assert (got.html_found, got.truncated) == (False, True)


def test_incomplete_evaluation_has_unknown_axe_count() -> None:
    score = score_observation(_obs(status="timeout", checks=(_check("a", "R", "pass"),)))
    got = sample_metrics(score, html_found=True, truncated=False, completed=False)
    assert not got.passed and math.isnan(got.axe_failures)


def test_mean_stderr_matches_hand_values() -> None:
    # values 0, 1, 1, 0: mean 0.5, sample variance 1/3, stderr sqrt(1/3 / 4)
    mean, stderr = mean_stderr([0.0, 1.0, 1.0, 0.0])
    assert mean == 0.5
    assert stderr == pytest.approx(math.sqrt(1 / 12))
    assert math.isnan(mean_stderr([1.0])[1])
    assert all(math.isnan(v) for v in mean_stderr([]))
