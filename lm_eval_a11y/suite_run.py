"""Running a suite and writing its result (``suite.json``).

Only reference mode runs in this version: each case's own passing example pages are evaluated,
with no model, so the run is deterministic and free and serves as the benchmark's self-test. A
reference *trial* is one evaluation of one passing example; ``trials: N`` evaluates every passing
example N times (a case with 3 passing pages and ``trials: 2`` has 6 trials). Every page of the
whole suite goes to one :class:`~lm_eval_a11y.evaluator.Evaluator` in one ``evaluate_many`` call,
so the browser pool is kept busy across cases.

Model and repair modes are parsed and validated (:mod:`lm_eval_a11y.suite`) but refused here with
:class:`ModeNotAvailableError` rather than run in some reduced form: a release gate that claims
to have run a model must have run it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from lm_eval_a11y import __version__
from lm_eval_a11y.cases import Example, load_examples
from lm_eval_a11y.expectations import CaseOutcome, SuiteTotals, Trial, judge_case, suite_totals
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import decided_violations, score_observation
from lm_eval_a11y.suite import Suite, SuiteCase, SuiteError

if TYPE_CHECKING:
    from lm_eval_a11y.evaluator import Evaluator

__all__ = [
    "FORMAT",
    "CaseRun",
    "ModeNotAvailableError",
    "SuiteRun",
    "TrialRecord",
    "passing_examples",
    "reference_plan",
    "refuse_unavailable_modes",
    "run_reference",
    "suite_json",
    "trial_of",
]

FORMAT = "lm-eval-a11y-suite/1"
"""The layout version of suite.json (docs/suites.md); raised when a field changes meaning."""

RUNNABLE_MODES: tuple[str, ...] = ("reference",)


class ModeNotAvailableError(SuiteError):
    """The suite asks for a mode this version cannot run yet (model, repair)."""


@dataclass(frozen=True)
class TrialRecord:
    """One trial with where it came from (round and example page) and why it failed, if it did."""

    trial: Trial
    round: int
    example: str | None
    status: str
    error: str | None
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class CaseRun:
    case: SuiteCase
    trials: tuple[TrialRecord, ...]
    outcome: CaseOutcome


@dataclass(frozen=True)
class SuiteRun:
    suite: Suite
    cases: tuple[CaseRun, ...]
    totals: SuiteTotals
    started_at: str
    finished_at: str
    wall_s: float
    environment: dict[str, Any] | None

    @property
    def passed(self) -> bool:
        return self.totals.failed == 0 and self.totals.total > 0


def passing_examples(case: SuiteCase) -> tuple[Example, ...]:
    """The case's example pages whose expected verdict is pass (named ``pass-*.html``)."""
    return tuple(e for e in load_examples(case.case) if e.verdict == "pass")


def trial_of(obs: Observation, label: str, round_: int = 1, example: str | None = None) -> TrialRecord:
    """A reference trial from one observation: the verdict, check outcomes and axe findings.

    ``axe_rules`` holds every rule violated as decided (colour contrast as rendered), best
    practices included, so ``forbid_axe_rules`` can gate on a best-practice rule; the WCAG node
    count is unknown (None) when the evaluation did not complete."""
    score = score_observation(obs)
    trial = Trial(
        passed=score.passed,
        checks=tuple((c.id, c.outcome) for c in obs.checks),
        axe_rules=tuple(sorted({f.rule_id for f in decided_violations(obs)})),
        axe_failures=score.axe_failures if obs.status == "ok" else None,
        duration_ms=obs.timings.total_ms,
        label=label,
    )
    return TrialRecord(trial, round_, example, obs.status, obs.error, score.reasons)


def refuse_unavailable_modes(suite: Suite) -> None:
    """Raise :class:`ModeNotAvailableError` when a case's mode cannot run in this version."""
    waiting = [c for c in suite.cases if c.settings.mode not in RUNNABLE_MODES]
    if waiting:
        modes = sorted({c.settings.mode for c in waiting})
        ids = ", ".join(c.id for c in waiting[:5]) + (" ..." if len(waiting) > 5 else "")
        raise ModeNotAvailableError(
            f"{suite.path}: {'mode' if len(modes) == 1 else 'modes'} {' and '.join(modes)} "
            f"{'is' if len(modes) == 1 else 'are'} not available yet in this version of lm-eval-a11y "
            f"(case(s) {ids}); only reference mode runs. `a11y-eval suite check {suite.path}` validates the file."
        )


def reference_plan(suite: Suite) -> list[tuple[int, int, Example]]:
    """Every evaluation of a reference run as (case index, round, example), in run order.

    Raises before any browser starts: a mode this version cannot run, a case without a passing
    page (:class:`SuiteError`), or a case whose examples do not load (``CaseError``)."""
    refuse_unavailable_modes(suite)
    plan: list[tuple[int, int, Example]] = []
    for index, case in enumerate(suite.cases):
        examples = passing_examples(case)
        if not examples:
            raise SuiteError(f"{suite.path}: case {case.id!r} has no passing example page to run in reference mode")
        plan += [(index, r, e) for r in range(case.settings.trials) for e in examples]
    return plan


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def run_reference(
    suite: Suite, evaluator: Evaluator, *, progress: Callable[[int, int], None] | None = None
) -> SuiteRun:
    """Evaluate every passing example of every case ``trials`` times and judge each case.

    ``evaluator`` belongs to the caller and is left open."""
    started, clock = _now(), time.monotonic()
    plan = reference_plan(suite)
    pairs = [(suite.cases[i].case, example.html) for i, _, example in plan]
    names = [f"{suite.cases[i].id}-{example.name}-{r}" for i, r, example in plan]
    observations = evaluator.evaluate_many(pairs, names=names, progress=progress)
    per_case: list[list[TrialRecord]] = [[] for _ in suite.cases]
    for (index, round_, example), obs in zip(plan, observations, strict=True):
        label = example.name if suite.cases[index].settings.trials == 1 else f"{example.name}#{round_ + 1}"
        per_case[index].append(trial_of(obs, label, round_ + 1, example.name))
    runs = tuple(
        CaseRun(case, tuple(records), judge_case([r.trial for r in records], case.settings.expect))
        for case, records in zip(suite.cases, per_case, strict=True)
    )
    environment = next((asdict(o.environment) for o in observations if o.environment is not None), None)
    return SuiteRun(
        suite=suite,
        cases=runs,
        totals=suite_totals([r.outcome for r in runs]),
        started_at=started,
        finished_at=_now(),
        wall_s=time.monotonic() - clock,
        environment=environment,
    )


# ------------------------------------------------------------------------------ suite.json


def _finite(value: float | None) -> float | None:
    """JSON has no NaN: undefined and unknown numbers are written as null."""
    if value is None or math.isnan(value):
        return None
    return value


def _spread(mean: float | None, total: float | None) -> dict[str, float | None]:
    return {"mean": _finite(mean), "total": _finite(total)}


def _case_json(run: CaseRun) -> dict[str, Any]:
    settings, stats, outcome = run.case.settings, run.outcome.stats, run.outcome
    repair = (
        None
        if stats.first_try_pass_rate is None
        else {
            "first_try_pass_rate": _finite(stats.first_try_pass_rate),
            "repair_rate": _finite(stats.repair_rate),
            "rescue_rate": _finite(stats.rescue_rate),
        }
    )
    return {
        "id": run.case.id,
        "version": run.case.case.version,
        "entry": run.case.entry,
        "mode": settings.mode,
        "trials_requested": settings.trials,
        "instructions": settings.instructions,
        "theme": settings.theme,
        "expect": settings.expect.stated(),
        "passed": outcome.passed,
        "failed_checks": [
            {"name": f.name, "subject": f.subject or None, "expected": f.expected, "actual": f.actual}
            for f in outcome.failed
        ],
        "stats": {
            "trials": stats.trials,
            "trials_passed": stats.trials_passed,
            "trial_pass_rate": _finite(stats.trial_pass_rate),
            "pass_at_k": {str(k): _finite(v) for k, v in stats.pass_at_k},
            "duration_ms": {
                "mean": _finite(stats.duration_mean_ms),
                "p95": _finite(stats.duration_p95_ms),
                "max": _finite(stats.duration_max_ms),
            },
            "input_tokens": _spread(stats.input_tokens_mean, stats.input_tokens_total),
            "output_tokens": _spread(stats.output_tokens_mean, stats.output_tokens_total),
            "estimated_cost_usd": _spread(stats.estimated_cost_mean_usd, stats.estimated_cost_total_usd),
            "repair": repair,
        },
        "trials": [
            {
                "index": number,
                "round": record.round,
                "example": record.example,
                "passed": record.trial.passed,
                "status": record.status,
                "error": record.error,
                "reasons": list(record.reasons),
                "checks": dict(record.trial.checks),
                "axe_rules": list(record.trial.axe_rules),
                "axe_failures": record.trial.axe_failures,
                "duration_ms": _finite(record.trial.duration_ms),
                "input_tokens": record.trial.input_tokens,
                "output_tokens": record.trial.output_tokens,
                "estimated_cost_usd": _finite(record.trial.estimated_cost_usd),
                "first_try_passed": record.trial.first_try_passed,
            }
            for number, record in enumerate(run.trials)
        ],
    }


def suite_json(run: SuiteRun) -> dict[str, Any]:
    """The whole result as plain data: suite, totals, then each case with its trials."""
    suite, totals = run.suite, run.totals
    model = None if suite.model is None else {**asdict(suite.model), "gen_kwargs": dict(suite.model.gen_kwargs)}
    return {
        "format": FORMAT,
        "suite": {"name": suite.name, "file": str(suite.path), "description": suite.description, "model": model},
        "passed": run.passed,
        "totals": {
            "passed": totals.passed,
            "failed": totals.failed,
            "total": totals.total,
            "pass_rate": _finite(totals.pass_rate),
            "trials": totals.trials,
            "trials_passed": totals.trials_passed,
            "estimated_cost_total_usd": _finite(totals.estimated_cost_total_usd),
        },
        "notes": list(suite.notes),
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "wall_s": round(run.wall_s, 3),
        "a11y_eval_version": __version__,
        "environment": run.environment,
        "cases": [_case_json(c) for c in run.cases],
    }
