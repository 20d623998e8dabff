"""Pure judgement of a suite case: its trials in, its statistics and failed expectations out.

No browser, no model, no lm-eval, no I/O: the same trials always give the same answer, so every
expectation can be tested with a table of made-up trials (tests/unit/test_suite_expectations.py),
and the three modes (reference, model, repair) share one set of rules. What a trial *is* differs
per mode (docs/suites.md); what is asked of the trials does not.

The rules, in short:

- A case passes only if every expectation is met. Without ``min_trial_pass_rate`` (and unless
  ``must_pass`` is false), every trial must pass.
- A bound on something the run could not measure (tokens of a trial with no count, a cost
  without a price, pass@k from fewer than k trials) is *not met*, with "unknown" or
  "undefined" as the actual value: a gate never opens on a number nobody saw.
- A case with no trials fails: no evidence is not a pass.
- ``max_*`` bounds (except the p95) apply to every trial: the worst trial must be within.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from lm_eval_a11y.scoring import PASS_AT_K, nearest_rank, pass_at_k

__all__ = [
    "EXPECTATION_NAMES",
    "REPAIR_POLICIES",
    "TOKEN_AND_COST_EXPECTATIONS",
    "CaseOutcome",
    "CaseStats",
    "Expectations",
    "FailedExpectation",
    "SuiteTotals",
    "Trial",
    "case_stats",
    "judge_case",
    "suite_totals",
]

REPAIR_POLICIES: tuple[str, ...] = ("allow", "require", "forbid")

EXPECTATION_NAMES: tuple[str, ...] = (
    "must_pass",
    "min_trial_pass_rate",
    "min_pass_at_k",
    "checks_must_pass",
    "max_axe_failures",
    "forbid_axe_rules",
    "max_input_tokens",
    "max_output_tokens",
    "max_estimated_cost_usd",
    "max_duration_ms",
    "max_p95_duration_ms",
    "repair",
)
"""Every expectation a suite may state, in the order they are judged and reported."""

TOKEN_AND_COST_EXPECTATIONS: tuple[str, ...] = ("max_input_tokens", "max_output_tokens", "max_estimated_cost_usd")
"""Bounds that only a model run can measure (reference mode rejects them at load time)."""


@dataclass(frozen=True)
class Expectations:
    """What a suite asks of one case; ``None`` (or empty) means "not asked".

    ``must_pass`` None is the default rule (every trial passes, unless ``min_trial_pass_rate``
    is set); False turns the trial verdicts off as a gate, so that only the other expectations
    (pass@k, cost, latency) decide. ``repair`` is for repair mode only: ``allow`` lets a repaired
    page count as a pass, ``forbid`` judges the first try alone, ``require`` also fails the case
    when any first-try failure was not rescued by its repair.
    """

    must_pass: bool | None = None
    min_trial_pass_rate: float | None = None
    min_pass_at_k: tuple[tuple[int, float], ...] = ()
    checks_must_pass: tuple[str, ...] = ()
    max_axe_failures: int | None = None
    forbid_axe_rules: tuple[str, ...] = ()
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    max_estimated_cost_usd: float | None = None
    max_duration_ms: float | None = None
    max_p95_duration_ms: float | None = None
    repair: str | None = None

    def stated(self) -> dict[str, object]:
        """The expectations that are set, as plain data (for suite.json and the summary)."""
        out: dict[str, object] = {}
        for name in EXPECTATION_NAMES:
            value = getattr(self, name)
            if value is None or value == ():
                continue
            if name == "min_pass_at_k":
                out[name] = {str(k): v for k, v in value}
            elif isinstance(value, tuple):
                out[name] = list(value)
            else:
                out[name] = value
        return out


@dataclass(frozen=True)
class Trial:
    """One attempt at a case, reduced to what expectations speak about.

    ``passed`` is the benchmark's verdict (``scoring.score_observation``) on the final page; in
    repair mode ``first_try_passed`` is the verdict before the repair turn (None elsewhere).
    ``checks`` maps each check id to its outcome (``pass``, ``fail``, ``na``, ``error``); a check
    that did not run is absent. ``axe_rules`` are the axe rules the page violates, WCAG and
    best-practice alike; ``axe_failures`` the WCAG failure node count, None when the evaluation
    did not complete (unknown, not zero). Tokens, cost and duration are None when not measured.
    """

    passed: bool
    checks: tuple[tuple[str, str], ...] = ()
    axe_rules: tuple[str, ...] = ()
    axe_failures: int | None = 0
    duration_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    estimated_cost_usd: float | None = None
    first_try_passed: bool | None = None
    label: str = ""


@dataclass(frozen=True)
class FailedExpectation:
    """One expectation not met: its name, what it is about (a check id, a rule id, ``k=5``; empty
    when it is about the whole case), what was expected and what was seen, both in words."""

    name: str
    expected: str
    actual: str
    subject: str = ""

    def __str__(self) -> str:
        about = f" {self.subject}" if self.subject else ""
        return f"{self.name}{about}: expected {self.expected}, got {self.actual}"


@dataclass(frozen=True)
class CaseStats:
    """A case's numbers over its trials. NaN means undefined (no trials, k > n); None means
    unknown (a quantity some trial did not measure), so a partial sum is never shown as a total."""

    trials: int
    trials_passed: int
    trial_pass_rate: float
    pass_at_k: tuple[tuple[int, float], ...]
    duration_mean_ms: float | None
    duration_p95_ms: float | None
    duration_max_ms: float | None
    input_tokens_mean: float | None
    input_tokens_total: int | None
    output_tokens_mean: float | None
    output_tokens_total: int | None
    estimated_cost_mean_usd: float | None
    estimated_cost_total_usd: float | None
    # Repair mode only (None elsewhere): the share of trials that passed at the first try, the
    # share that needed a repair turn, and the share of those that the repair made pass.
    first_try_pass_rate: float | None = None
    repair_rate: float | None = None
    rescue_rate: float | None = None


@dataclass(frozen=True)
class CaseOutcome:
    passed: bool
    failed: tuple[FailedExpectation, ...]
    stats: CaseStats


@dataclass(frozen=True)
class SuiteTotals:
    passed: int
    failed: int
    total: int
    pass_rate: float
    trials: int
    trials_passed: int
    estimated_cost_total_usd: float | None


def _counted(trial: Trial, repair: str | None) -> bool:
    """Whether a trial counts as passed: under ``repair: forbid`` only its first try counts."""
    if repair == "forbid" and trial.first_try_passed is not None:
        return trial.first_try_passed
    return trial.passed


def _known(values: Sequence[float | None]) -> list[float] | None:
    """The values, or None when any is unknown."""
    if any(v is None for v in values):
        return None
    return [float(v) for v in values if v is not None]


def _mean(values: list[float] | None) -> float | None:
    return None if values is None or not values else sum(values) / len(values)


def _int_total(values: Sequence[int | None]) -> int | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def _rate(part: int, whole: int) -> float:
    return part / whole if whole else math.nan


def _number(value: float) -> str:
    """A bound or a measurement in words: whole numbers without a fraction, others to 4 places."""
    if math.isnan(value):
        return "undefined"
    return str(int(value)) if float(value).is_integer() else f"{value:.4g}"


def _names(trials: Sequence[Trial], limit: int = 3) -> str:
    """The first few trials by label, so a message says where to look."""
    labels = [t.label or f"#{i + 1}" for i, t in enumerate(trials)]
    shown = ", ".join(labels[:limit])
    return shown + (f" and {len(labels) - limit} more" if len(labels) > limit else "")


def case_stats(trials: Sequence[Trial], ks: Sequence[int] = PASS_AT_K, repair: str | None = None) -> CaseStats:
    """The numbers of a case. pass@k is reported for each k in ``ks`` (NaN when k > n)."""
    n = len(trials)
    c = sum(_counted(t, repair) for t in trials)
    durations = _known([t.duration_ms for t in trials])
    inputs = _known([t.input_tokens for t in trials])
    outputs = _known([t.output_tokens for t in trials])
    costs = _known([t.estimated_cost_usd for t in trials])
    first_tries = [t.first_try_passed for t in trials]
    in_repair_mode = n > 0 and all(f is not None for f in first_tries)
    needed = [t for t in trials if t.first_try_passed is False]
    return CaseStats(
        trials=n,
        trials_passed=c,
        trial_pass_rate=_rate(c, n),
        pass_at_k=tuple((k, pass_at_k(n, c, k)) for k in sorted(set(ks))),
        duration_mean_ms=_mean(durations),
        duration_p95_ms=nearest_rank(durations, 95) if durations else None,
        duration_max_ms=max(durations) if durations else None,
        input_tokens_mean=_mean(inputs),
        input_tokens_total=_int_total([t.input_tokens for t in trials]) if n else None,
        output_tokens_mean=_mean(outputs),
        output_tokens_total=_int_total([t.output_tokens for t in trials]) if n else None,
        estimated_cost_mean_usd=_mean(costs),
        estimated_cost_total_usd=sum(costs) if costs else None,
        first_try_pass_rate=_rate(sum(f is True for f in first_tries), n) if in_repair_mode else None,
        repair_rate=_rate(len(needed), n) if in_repair_mode else None,
        rescue_rate=_rate(sum(t.passed for t in needed), len(needed)) if in_repair_mode else None,
    )


def _upper_bound(
    name: str, bound: float, trials: Sequence[Trial], values: Sequence[float | None], unit: str
) -> FailedExpectation | None:
    """A per-trial upper bound: every trial's value must be known and at most ``bound``."""
    unknown = [t for t, v in zip(trials, values, strict=True) if v is None]
    expected = f"at most {_number(bound)}{unit} in every trial"
    if unknown:
        return FailedExpectation(
            name, expected, f"unknown in {len(unknown)} of {len(trials)} trial(s) ({_names(unknown)})"
        )
    over = [(t, v) for t, v in zip(trials, values, strict=True) if v is not None and v > bound]
    if not over:
        return None
    worst = max(v for _, v in over)
    return FailedExpectation(
        name,
        expected,
        f"{_number(worst)}{unit} at worst; over in {len(over)} trial(s) ({_names([t for t, _ in over])})",
    )


def judge_case(trials: Sequence[Trial], expect: Expectations, ks: Sequence[int] = PASS_AT_K) -> CaseOutcome:
    """Judge one case: every stated expectation in the order of :data:`EXPECTATION_NAMES`."""
    asked_ks = [k for k, _ in expect.min_pass_at_k]
    stats = case_stats(trials, ks=[*ks, *asked_ks], repair=expect.repair)
    if not trials:
        missing = FailedExpectation("trials", "at least 1 trial", "0 trials: nothing was evaluated")
        return CaseOutcome(False, (missing,), stats)
    failed: list[FailedExpectation] = []
    n, c = stats.trials, stats.trials_passed
    failing = [t for t in trials if not _counted(t, expect.repair)]
    if expect.min_trial_pass_rate is not None:
        if stats.trial_pass_rate < expect.min_trial_pass_rate:
            failed.append(
                FailedExpectation(
                    "min_trial_pass_rate",
                    f"a trial pass rate of at least {_number(expect.min_trial_pass_rate)}",
                    f"{_number(stats.trial_pass_rate)} ({c} of {n} trials passed; failed: {_names(failing)})",
                )
            )
    elif expect.must_pass is not False and c < n:
        failed.append(
            FailedExpectation(
                "must_pass", "every trial passes", f"{c} of {n} trials passed (failed: {_names(failing)})"
            )
        )
    at_k = dict(stats.pass_at_k)
    for k, least in expect.min_pass_at_k:
        value = at_k[k]
        expected = f"pass@{k} of at least {_number(least)}"
        if math.isnan(value):
            failed.append(
                FailedExpectation("min_pass_at_k", expected, f"undefined: {n} trial(s), fewer than k={k}", f"k={k}")
            )
        elif value < least:
            failed.append(FailedExpectation("min_pass_at_k", expected, f"{value:.4f} ({c} of {n} passed)", f"k={k}"))
    for check_id in expect.checks_must_pass:
        outcomes = [dict(t.checks).get(check_id, "not run") for t in trials]
        bad = [(t, o) for t, o in zip(trials, outcomes, strict=True) if o != "pass"]
        if bad:
            seen = sorted({o for _, o in bad})
            failed.append(
                FailedExpectation(
                    "checks_must_pass",
                    "outcome 'pass' in every trial",
                    f"{' / '.join(seen)} in {len(bad)} of {n} trial(s) ({_names([t for t, _ in bad])})",
                    check_id,
                )
            )
    if expect.max_axe_failures is not None:
        miss = _upper_bound(
            "max_axe_failures",
            expect.max_axe_failures,
            trials,
            [t.axe_failures for t in trials],
            " WCAG failure node(s)",
        )
        if miss is not None:
            failed.append(miss)
    for rule in expect.forbid_axe_rules:
        hit = [t for t in trials if rule in t.axe_rules]
        if hit:
            failed.append(
                FailedExpectation(
                    "forbid_axe_rules",
                    "no trial violates it",
                    f"violated in {len(hit)} of {n} trial(s) ({_names(hit)})",
                    rule,
                )
            )
    bounds: tuple[tuple[str, float | None, list[float | None], str], ...] = (
        ("max_input_tokens", expect.max_input_tokens, [t.input_tokens for t in trials], " input tokens"),
        ("max_output_tokens", expect.max_output_tokens, [t.output_tokens for t in trials], " output tokens"),
        ("max_estimated_cost_usd", expect.max_estimated_cost_usd, [t.estimated_cost_usd for t in trials], " USD"),
        ("max_duration_ms", expect.max_duration_ms, [t.duration_ms for t in trials], " ms"),
    )
    for name, bound, values, unit in bounds:
        if bound is not None:
            miss = _upper_bound(name, bound, trials, values, unit)
            if miss is not None:
                failed.append(miss)
    if expect.max_p95_duration_ms is not None:
        expected = f"a p95 duration of at most {_number(expect.max_p95_duration_ms)} ms"
        if stats.duration_p95_ms is None:
            unknown = [t for t in trials if t.duration_ms is None]
            failed.append(
                FailedExpectation("max_p95_duration_ms", expected, f"unknown in {len(unknown)} of {n} trial(s)")
            )
        elif stats.duration_p95_ms > expect.max_p95_duration_ms:
            failed.append(
                FailedExpectation(
                    "max_p95_duration_ms", expected, f"{_number(stats.duration_p95_ms)} ms (nearest rank of {n})"
                )
            )
    if expect.repair == "require":
        if any(t.first_try_passed is None for t in trials):
            failed.append(FailedExpectation("repair", "every first-try failure rescued", "unknown: not a repair run"))
        else:
            unrescued = [t for t in trials if t.first_try_passed is False and not t.passed]
            if unrescued:
                needed = sum(t.first_try_passed is False for t in trials)
                failed.append(
                    FailedExpectation(
                        "repair",
                        "every first-try failure rescued",
                        f"{len(unrescued)} of {needed} repaired trial(s) still failed ({_names(unrescued)})",
                    )
                )
    return CaseOutcome(not failed, tuple(failed), stats)


def suite_totals(outcomes: Sequence[CaseOutcome]) -> SuiteTotals:
    """Suite-level numbers: cases passed and failed, trials, and the total cost when every case
    knows its own (None otherwise, never a partial sum)."""
    passed = sum(o.passed for o in outcomes)
    costs = [o.stats.estimated_cost_total_usd for o in outcomes]
    return SuiteTotals(
        passed=passed,
        failed=len(outcomes) - passed,
        total=len(outcomes),
        pass_rate=_rate(passed, len(outcomes)),
        trials=sum(o.stats.trials for o in outcomes),
        trials_passed=sum(o.stats.trials_passed for o in outcomes),
        estimated_cost_total_usd=None
        if not costs or any(c is None for c in costs)
        else sum(c for c in costs if c is not None),
    )
