"""Pure scoring: observations in, verdicts and numbers out. No browser, no lm-eval, no I/O.

The verdict rule is the benchmark's contract (see DESIGN.md): a sample passes iff the evaluation
completed, axe found no WCAG failures (violations not tagged ``best-practice``), and every
requirement check passed (or answered an allowed ``na``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from lm_eval_a11y.observation import Observation

__all__ = ["SampleScore", "pass_at_k", "percentile", "score_observation"]


@dataclass(frozen=True)
class SampleScore:
    passed: bool
    axe_clean: bool
    axe_failures: int
    axe_best_practice_failures: int
    requirements_total: int
    requirements_passed: int
    best_practices_total: int
    best_practices_passed: int
    reasons: tuple[str, ...]

    @property
    def req_pass_rate(self) -> float:
        """Share of requirement checks met; NaN when the case has none (axe-only scoring)."""
        return self.requirements_passed / self.requirements_total if self.requirements_total else math.nan

    @property
    def bp_pass_rate(self) -> float:
        return self.best_practices_passed / self.best_practices_total if self.best_practices_total else math.nan


def score_observation(obs: Observation) -> SampleScore:
    """The verdict for one sample, with the reasons it failed (empty when it passed)."""
    reasons: list[str] = []
    if obs.status != "ok":
        reasons.append(f"evaluation {obs.status}: {obs.error}")
    wcag = obs.axe.wcag_failures
    axe_failures = sum(f.node_count for f in wcag)
    for finding in wcag:
        reasons.append(f"axe {finding.rule_id}: {finding.node_count} node(s) - {finding.help}")
    req_total = req_ok = bp_total = bp_ok = 0
    for check in obs.checks:
        met = check.outcome in ("pass", "na")
        if check.type == "R":
            req_total += 1
            req_ok += met
            if not met:
                reasons.append(f"check {check.id} {check.outcome}: {check.message}")
        else:
            bp_total += 1
            bp_ok += met
    axe_clean = obs.status == "ok" and axe_failures == 0
    return SampleScore(
        passed=axe_clean and req_ok == req_total and obs.status == "ok",
        axe_clean=axe_clean,
        axe_failures=axe_failures,
        axe_best_practice_failures=obs.axe.best_practice_nodes,
        requirements_total=req_total,
        requirements_passed=req_ok,
        best_practices_total=bp_total,
        best_practices_passed=bp_ok,
        reasons=tuple(reasons),
    )


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n samples of which c passed (Chen et al., 2021).

    ``1 - C(n-c, k) / C(n, k)``, computed as a stable product. NaN when k > n: with fewer samples
    than k the estimate is undefined, and reporting 1.0 or 0.0 would be a made-up number.
    """
    if n < 0 or c < 0 or k < 1:
        raise ValueError(f"pass_at_k needs n >= 0, c >= 0, k >= 1; got n={n}, c={c}, k={k}")
    if c > n:
        raise ValueError(f"pass_at_k: c={c} passing samples cannot exceed n={n}")
    if k > n:
        return math.nan
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in [0, 100]); NaN for no values."""
    if not 0 <= q <= 100:
        raise ValueError(f"percentile q must be within [0, 100], got {q}")
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = math.floor(pos)
    high = math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)
