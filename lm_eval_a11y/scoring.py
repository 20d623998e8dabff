"""Pure scoring: observations in, verdicts and numbers out. No browser, no lm-eval, no I/O.

The verdict rule is the benchmark's contract (see DESIGN.md): a sample passes iff the evaluation
completed, axe found no WCAG failures (violations not tagged ``best-practice``), every
requirement check passed (or answered an allowed ``na``), and the page holds no content that
could not be audited (``Observation.audit.unaudited``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from lm_eval_a11y.observation import AxeFinding, CheckResult, ContrastAudit, Observation

__all__ = [
    "IMPACT_WEIGHTS",
    "PASS_AT_K",
    "SampleMetrics",
    "SampleScore",
    "contrast_failures",
    "decided_violations",
    "decided_wcag_failures",
    "doc_metrics",
    "graded_penalty",
    "graded_score",
    "mean_stderr",
    "nearest_rank",
    "pass_at_k",
    "percentile",
    "sample_metrics",
    "score_observation",
    "unmet_requirements",
]

PASS_AT_K: tuple[int, ...] = (1, 5, 10)
"""The k values reported per doc; each only when the doc has at least k samples."""


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
    requirements_strictly_passed: int = 0
    # The pixel check of colour contrast (docs/contrast.md): nodes axe failed that the pixels
    # cleared, nodes axe could not tell that the pixels passed or failed, and nodes neither
    # could decide. None when the record has no pixel check (older records, nothing to check).
    contrast_overturned: int | None = None
    contrast_resolved_pass: int | None = None
    contrast_resolved_fail: int | None = None
    contrast_incomplete: int | None = None
    # The evaluation stopped at the first decided failure (AuditCoverage.skipped): the sample
    # fails, and the counts and rates are those of the steps that ran, not the page's.
    partial: bool = False

    @property
    def checks_passed(self) -> float:
        """Share of requirement checks whose outcome is ``pass`` itself: an allowed ``na`` does
        not count here, so this says how much of the asked-for behaviour the page really built."""
        return self.requirements_strictly_passed / self.requirements_total if self.requirements_total else math.nan

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
    audit = obs.contrast
    axe_failures = 0
    for finding in wcag:
        if audit is not None and finding.rule_id == "color-contrast":
            continue
        axe_failures += finding.node_count
        where = _seen_in(finding.states)
        reasons.append(f"axe {finding.rule_id}: {finding.node_count} node(s) - {finding.help}{where}")
    if audit is not None:
        contrast, why = contrast_failures(audit, _finding(wcag, "color-contrast"))
        axe_failures += contrast
        reasons.extend(why)
    req_total = req_ok = req_strict = bp_total = bp_ok = 0
    for check in obs.checks:
        met = check.outcome in ("pass", "na")
        if check.type == "R":
            req_total += 1
            req_ok += met
            req_strict += check.outcome == "pass"
            if not met:
                reasons.append(f"check {check.id} {check.outcome}: {check.message}")
        else:
            bp_total += 1
            bp_ok += met
    # A sample passes only on what could be audited: content nobody could look at fails it.
    for what in obs.audit.unaudited:
        reasons.append(f"content could not be audited: {what}")
    # Text axe could not tell on that the pixel check had no room or time to measure, or failed
    # to measure (repainted while captured, gone from the document, the check itself broke), and
    # text drawn over other text that its pixels did not fail: a page could hide its failure
    # there, so the contrast there is undecided, not passed.
    unreached = audit.unaudited_incomplete if audit is not None else 0
    if unreached:
        cause = (
            f"the check failed: {audit.error}"
            if audit is not None and audit.error
            else "past its limits, drawn over other text, or it failed on them: repainted while captured, gone from"
            " where it was captured, or the check broke under a screen or preference"
        )
        reasons.append(
            f"content could not be audited: colour contrast of {unreached} node(s) axe could not tell on,"
            f" which the pixel check did not measure ({cause}; docs/contrast.md)"
        )
    # An evaluation that stopped at the page's first decided failure is partial: it is a failure
    # by construction, and never a pass, whatever the record holds.
    if obs.audit.partial:
        reasons.append(f"stopped at the first failure; not run: {', '.join(obs.audit.skipped)}")
    axe_clean = obs.status == "ok" and axe_failures == 0
    # With no pixel check recorded, the counts are zero when axe left nothing to check (in any
    # record), unknown when it did (a record from before the pixel check).
    seen = any(f.rule_id == "color-contrast" for f in obs.axe.violations + obs.axe.incomplete)
    nothing = 0 if audit is None and not seen and obs.status == "ok" else None
    return SampleScore(
        passed=axe_clean
        and req_ok == req_total
        and obs.status == "ok"
        and not obs.audit.unaudited
        and not unreached
        and not obs.audit.partial,
        axe_clean=axe_clean,
        axe_failures=axe_failures,
        axe_best_practice_failures=obs.axe.best_practice_nodes,
        requirements_total=req_total,
        requirements_passed=req_ok,
        best_practices_total=bp_total,
        best_practices_passed=bp_ok,
        reasons=tuple(reasons),
        requirements_strictly_passed=req_strict,
        contrast_overturned=nothing if audit is None else audit.overturned,
        contrast_resolved_pass=nothing if audit is None else audit.resolved_pass,
        contrast_resolved_fail=nothing if audit is None else audit.resolved_fail,
        contrast_incomplete=nothing if audit is None else audit.still_incomplete,
        partial=obs.audit.partial,
    )


def _seen_in(states: tuple[str, ...] | list[str]) -> str:
    """Where failures were seen, for a reason: nothing when only on the first screen."""
    shown = tuple(dict.fromkeys(states))
    return "" if shown in ((), ("initial",)) else f" (seen in: {'; '.join(shown)})"


def _finding(findings: tuple[AxeFinding, ...], rule_id: str) -> AxeFinding | None:
    return next((f for f in findings if f.rule_id == rule_id), None)


def contrast_failures(audit: ContrastAudit, axe_finding: AxeFinding | None) -> tuple[int, list[str]]:
    """The colour-contrast failure nodes as decided, and the reasons to give.

    Decided failures are the nodes whose decided outcome is ``fail`` in any audited scheme (each
    node once), plus axe's failures the pixel check did not reach (past its node limit), plus
    axe's colour-contrast failures in states the pixel check does not audit (those a check asked
    axe to look at): the finding's nodes beyond the ones axe failed in the audited first run.
    When the pixel check itself broke on the page, axe's answer stands entirely, and a page that
    styles a dark scheme fails: its dark scheme could not be audited.
    """
    reasons: list[str] = []
    axe_count = axe_finding.node_count if axe_finding is not None else 0
    if audit.error is not None:
        if axe_count:
            reasons.append(f"axe color-contrast: {axe_count} node(s) - {axe_finding.help if axe_finding else ''}")
        if audit.styles_dark_scheme:
            reasons.append(f"contrast: the dark colour scheme could not be audited ({audit.error})")
            return axe_count + 1, reasons
        return axe_count, reasons
    other_states = max(axe_count - audit.violations_in("light"), 0)
    decided = len(audit.failing_targets) + audit.unmeasured_violations
    total = decided + other_states
    if total:
        dark = sum(1 for n in audit.nodes if n.scheme == "dark" and n.decided == "fail")
        parts = [f"{total} node(s) fail as rendered"]
        if audit.resolved_fail:
            parts.append(f"{audit.resolved_fail} resolved from axe's 'can't tell' by the pixels")
        if dark:
            parts.append(f"{dark} in the dark colour scheme")
        if audit.overturned:
            parts.append(f"{audit.overturned} of axe's failures overturned by the pixels")
        states = [n.state for n in audit.nodes if n.decided == "fail"]
        if other_states and axe_finding is not None:
            measured = {n.target for n in audit.nodes}
            states += [n.state for n in axe_finding.nodes if n.target not in measured]
        reasons.append("color-contrast: " + "; ".join(parts) + _seen_in(states))
    return total, reasons


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


def nearest_rank(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in (0, 100]): the smallest value with at least q % of the values
    at or below it; NaN for no values.

    Unlike :func:`percentile`, the answer is always one of the values observed, so a latency bound
    such as "p95 under 60 s" is judged against a duration some trial really took, and with fewer
    than 20 trials the p95 is the slowest trial rather than a number between two of them."""
    if not 0 < q <= 100:
        raise ValueError(f"nearest_rank q must be within (0, 100], got {q}")
    if not values:
        return math.nan
    ordered = sorted(values)
    # q * n first: 7 / 100 * 100 is 7.000000000000001, whose ceiling is 8.
    rank = max(math.ceil(q * len(ordered) / 100), 1)
    return ordered[rank - 1]


@dataclass(frozen=True)
class SampleMetrics:
    """The per-sample numbers lm-eval averages. NaN means "does not apply to this sample"."""

    passed: bool
    req_pass_rate: float
    bp_pass_rate: float
    axe_clean: bool
    axe_failures: float
    checks_passed: float
    html_found: bool
    truncated: bool
    # Colour-contrast nodes the pixel check moved (docs/contrast.md): axe failures it cleared,
    # axe "can't tell" nodes it decided, and nodes neither could decide. NaN: not known.
    contrast_overturned: float = math.nan
    contrast_resolved: float = math.nan
    contrast_incomplete: float = math.nan


def _count(value: int | None) -> float:
    return math.nan if value is None else float(value)


def sample_metrics(
    score: SampleScore | None, *, html_found: bool, truncated: bool, completed: bool = True
) -> SampleMetrics:
    """Numbers for one sample; ``score`` is None when no HTML was found and nothing was rendered.

    A sample without HTML fails and meets no requirement. Its axe failure count is unknown (NaN),
    not zero, because a page that was never rendered cannot be said to be free of violations; the
    same holds when the evaluation did not complete (``completed`` False: timeout, crash).
    """
    if score is None:
        return SampleMetrics(
            passed=False,
            req_pass_rate=0.0,
            bp_pass_rate=0.0,
            axe_clean=False,
            axe_failures=math.nan,
            checks_passed=0.0,
            html_found=html_found,
            truncated=truncated,
        )
    return SampleMetrics(
        passed=score.passed,
        req_pass_rate=score.req_pass_rate,
        bp_pass_rate=score.bp_pass_rate,
        axe_clean=score.axe_clean,
        axe_failures=float(score.axe_failures) if completed else math.nan,
        checks_passed=score.checks_passed,
        html_found=html_found,
        truncated=truncated,
        contrast_overturned=_count(score.contrast_overturned),
        contrast_resolved=math.nan
        if score.contrast_resolved_pass is None or score.contrast_resolved_fail is None
        else float(score.contrast_resolved_pass + score.contrast_resolved_fail),
        contrast_incomplete=_count(score.contrast_incomplete),
    )


def _nanmean(values: Sequence[float]) -> float:
    kept = [v for v in values if not math.isnan(v)]
    return sum(kept) / len(kept) if kept else math.nan


def doc_metrics(samples: Sequence[SampleMetrics], ks: Sequence[int] = PASS_AT_K) -> dict[str, float]:
    """One doc's numbers from its n samples (n = lm-eval ``repeats``), for aggregation with ``mean``.

    ``pass`` is c/n; the rates are means over the samples where they apply. A metric that applies
    to none of the samples (a case with no best-practice checks, pass@k with k > n) is left out of
    the dict rather than set to NaN: lm-eval's ``mean`` would turn one NaN into a NaN for the whole
    task, while a missing key makes it average over the docs where the metric means something.
    """
    if not samples:
        raise ValueError("doc_metrics needs at least one sample")
    n = len(samples)
    c = sum(s.passed for s in samples)
    out: dict[str, float] = {
        "pass": c / n,
        "req_pass_rate": _nanmean([s.req_pass_rate for s in samples]),
        "bp_pass_rate": _nanmean([s.bp_pass_rate for s in samples]),
        "axe_clean": sum(s.axe_clean for s in samples) / n,
        "axe_failures": _nanmean([s.axe_failures for s in samples]),
        "checks_passed": _nanmean([s.checks_passed for s in samples]),
        "html_found": sum(s.html_found for s in samples) / n,
        "truncated": sum(s.truncated for s in samples) / n,
        "contrast_overturned": _nanmean([s.contrast_overturned for s in samples]),
        "contrast_resolved": _nanmean([s.contrast_resolved for s in samples]),
        "contrast_incomplete": _nanmean([s.contrast_incomplete for s in samples]),
    }
    for k in ks:
        out[f"pass@{k}"] = pass_at_k(n, c, k)
    return {name: value for name, value in out.items() if not math.isnan(value)}


def mean_stderr(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of the mean (sample standard deviation / sqrt(n)), as lm-eval
    reports for ``mean`` aggregations; the error is NaN with fewer than two values."""
    if not values:
        return math.nan, math.nan
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, math.nan
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, math.sqrt(variance / len(values))


def generation_cost(
    input_tokens: int, output_tokens: int, input_per_million: float, output_per_million: float
) -> float:
    """Cost of one generation from per-million-token prices (the report's pricing file)."""
    if input_tokens < 0 or output_tokens < 0:
        raise ValueError(f"token counts cannot be negative, got {input_tokens} and {output_tokens}")
    return (input_tokens * input_per_million + output_tokens * output_per_million) / 1_000_000


def cost_per_pass(total_cost: float, passed: int) -> float:
    """What one passing sample cost: all the spending divided by the passes it bought.

    NaN when nothing passed: the money bought no passing page, and no finite number says that.
    """
    return total_cost / passed if passed > 0 else math.nan


def decided_violations(obs: Observation) -> tuple[AxeFinding, ...]:
    """axe's violations with colour contrast as decided: its node count replaced by the decided
    failures (dropped when there are none, added when the pixels found failures axe did not)."""
    audit = obs.contrast
    if audit is None:
        return obs.axe.violations
    found = next((f for f in obs.axe.violations if f.rule_id == "color-contrast"), None)
    count, _ = contrast_failures(audit, found)
    rest = tuple(f for f in obs.axe.violations if f.rule_id != "color-contrast")
    if count == 0:
        return rest
    # The nodes listed are those failing as decided: axe's, less those the pixels cleared or
    # left undecided, and axe's "can't tell" nodes the pixels failed.
    cleared = {n.target for n in audit.nodes if n.decided != "fail"} - audit.failing_targets
    listed = [n for n in found.nodes if n.target not in cleared] if found is not None else []
    seen = {n.target for n in listed}
    for other in obs.axe.incomplete:
        if other.rule_id == "color-contrast":
            listed += [n for n in other.nodes if n.target in audit.failing_targets and n.target not in seen]
    if found is None:
        found = next((f for f in obs.axe.incomplete if f.rule_id == "color-contrast"), None)
    if found is not None:
        return (replace(found, nodes=tuple(listed), node_count=count), *rest)
    if found is None:
        found = AxeFinding(
            rule_id="color-contrast",
            impact="serious",
            tags=("cat.color", "wcag2aa", "wcag143"),
            help="Elements must meet minimum color contrast ratio thresholds",
            help_url="",
            nodes=(),
            node_count=count,
        )
    return (found, *rest)


# The graded score of a page (corpus scoring: lm_eval_a11y.corpus, docs/corpus.md). Each axe WCAG
# failure weighs by axe's impact; an impact axe does not name (or a new one) weighs as serious.
IMPACT_WEIGHTS: dict[str, float] = {"critical": 1.0, "serious": 0.75, "moderate": 0.5, "minor": 0.25}
UNKNOWN_IMPACT_WEIGHT = 0.75
# A requirement check not met, and content that could not be audited, weigh as a critical rule.
FAILED_CHECK_WEIGHT = 1.0
UNAUDITED_WEIGHT = 1.0
# The least penalty of a partial observation (it stopped at a failure, so it never scores 1).
PARTIAL_WEIGHT = 1.0


def decided_wcag_failures(obs: Observation) -> tuple[AxeFinding, ...]:
    """The axe rules with WCAG failures on the page (colour contrast as the pixels decided it):
    :func:`decided_violations` without best practices and rules left with no failing node."""
    return tuple(f for f in decided_violations(obs) if not f.best_practice and f.node_count > 0)


def unmet_requirements(obs: Observation) -> tuple[CheckResult, ...]:
    """The requirement checks of an observation that were not met: any outcome but ``pass`` and
    ``na`` (an ``na`` the check may not give is recorded as a failure already)."""
    return tuple(c for c in obs.checks if c.type == "R" and c.outcome not in ("pass", "na"))


def graded_penalty(obs: Observation) -> float:
    """What stands between a page and a pass, as one number (0 exactly when nothing does).

    The sum of: for each axe rule with WCAG failures (colour contrast as decided by the pixels),
    its impact's weight times ``1 + ln(nodes)``, so the first node counts fully and more nodes of
    the same rule count less and less; :data:`FAILED_CHECK_WEIGHT` per requirement check not met;
    :data:`UNAUDITED_WEIGHT` per kind of content that could not be audited. Best practices never
    count, as they never fail a sample. Every term only grows with more failures. For a partial
    observation (stopped at the first failure) it is the penalty of the steps that ran, so at most
    the page's: its score is an upper bound of the full evaluation's.
    """
    penalty = 0.0
    for finding in decided_wcag_failures(obs):
        weight = IMPACT_WEIGHTS.get(finding.impact or "", UNKNOWN_IMPACT_WEIGHT)
        penalty += weight * (1.0 + math.log(finding.node_count))
    failed = len(unmet_requirements(obs))
    penalty += FAILED_CHECK_WEIGHT * failed + UNAUDITED_WEIGHT * len(obs.audit.unaudited)
    if obs.audit.partial and penalty == 0:
        # An evaluation stops only at a failure it recorded; a partial record without one (made
        # by hand, or by a fault) still fails, so it may not score 1.
        penalty = PARTIAL_WEIGHT
    return penalty


def graded_score(obs: Observation) -> float:
    """A page's score in [0, 1]: ``1 / (1 + graded_penalty)`` for an evaluation that completed,
    0 for one that did not (a timeout or an error says nothing good about a page).

    It is 1 exactly when the sample passes (:func:`score_observation`), never rises with another
    failure, and a page is never 0 for its failures alone: 0 means the page could not be judged.
    Deterministic: the same observation always gives the same number.
    """
    if obs.status != "ok":
        return 0.0
    return 1.0 / (1.0 + graded_penalty(obs))
