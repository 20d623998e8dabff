"""Running a suite and writing its result (``suite.json``).

This module holds the trial records every mode shares, reference mode itself, and the writer of
suite.json. Model and repair modes, which generate through lm-eval's model classes, live in
:mod:`lm_eval_a11y.suite.model`; a suite that mixes modes runs each part with its own code and
the cases come back in the suite's order.

In reference mode each case's own passing example pages are evaluated, with no model, so the run
is deterministic and free and serves as the benchmark's self-test. A reference *trial* is one
evaluation of one passing example; ``trials: N`` evaluates every passing example N times (a case
with 3 passing pages and ``trials: 2`` has 6 trials). Every page of the reference cases goes to
one :class:`~lm_eval_a11y.engine.evaluator.Evaluator` in one ``evaluate_many`` call, so the browser pool
is kept busy across cases.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from lm_eval_a11y import __version__
from lm_eval_a11y.cases import Example, load_examples
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import SampleScore, decided_violations, score_observation
from lm_eval_a11y.suite.expectations import CaseOutcome, SuiteTotals, Trial, judge_case, suite_totals
from lm_eval_a11y.suite.file import CaseSettings, Suite, SuiteCase, SuiteError
from lm_eval_a11y.variants import sample_id, variant_row

if TYPE_CHECKING:
    from lm_eval_a11y.engine.evaluator import Evaluator

__all__ = [
    "FORMAT",
    "REFERENCE_TASK",
    "CaseRun",
    "SuiteRun",
    "TrialRecord",
    "case_sample_id",
    "finish_run",
    "now_utc",
    "passing_examples",
    "reference_plan",
    "reference_trials",
    "run_reference",
    "suite_json",
    "suite_row",
    "trial_of",
    "variant_task",
]

REFERENCE_TASK = "reference"
"""The task name of reference trials in the run's lm-eval style samples files."""

FORMAT = "lm-eval-a11y-suite/1"
"""The layout version of suite.json (docs/suites.md); raised when a field changes meaning."""


@dataclass(frozen=True)
class TrialRecord:
    """One trial with where it came from (round and example page) and why it failed, if it did.

    ``status`` is the evaluation's (``ok``, ``timeout``, ``error``) or ``no-html`` when a model's
    answer held no HTML document (nothing was evaluated). Model and repair trials also carry the
    lm-eval side: ``task`` (the variant's task name in the samples files), the ``context`` sent,
    the raw ``response`` and the sample ``record`` (schema ``lm-eval-a11y/sample@1``), so that the
    run can be written as lm-eval output; ``generation_ms`` and ``evaluation_ms`` are the two
    parts of ``trial.duration_ms`` (docs/suites.md says how generation time is shared out), and
    ``repaired`` says whether a repair turn happened."""

    trial: Trial
    round: int
    example: str | None
    status: str
    error: str | None
    reasons: tuple[str, ...]
    task: str | None = None
    context: str | None = None
    response: str | None = None
    record: dict[str, Any] | None = None
    generation_ms: float | None = None
    evaluation_ms: float | None = None
    repaired: bool = False


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


def variant_task(settings: CaseSettings) -> str:
    """The task name of a case's variant in the run's samples files and report columns.

    The mode with the instruction setting when it is not the default (``model``,
    ``model_instructions-full``), then, for a prompt variant other than the default,
    ``@`` and its key (lm_eval_a11y/variants.py): ``reference@react``,
    ``model_instructions-full@react+dark``. Cases that share one are one column of the report,
    so variants of the same cases stand side by side."""
    parts = [settings.mode]
    if settings.mode != "reference" and settings.instructions != "none":
        parts.append(f"instructions-{settings.instructions}")
    base = REFERENCE_TASK if settings.mode == "reference" else "_".join(parts)
    variant = settings.variant
    return base if variant.is_default else f"{base}@{variant.key}"


def passing_examples(case: SuiteCase) -> tuple[Example, ...]:
    """The case's example pages whose expected verdict is pass (named ``pass-*.html``) and that
    answer the case's prompt variant (a page says its framework and style; by default vanilla
    and default)."""
    variant = case.settings.variant
    return tuple(e for e in load_examples(case.case) if e.verdict == "pass" and e.variant == variant)


def trial_of(
    obs: Observation, label: str, round_: int = 1, example: str | None = None, *, score: SampleScore | None = None
) -> TrialRecord:
    """A reference trial from one observation: the verdict, check outcomes and axe findings.

    ``axe_rules`` holds every rule violated as decided (colour contrast as rendered), best
    practices included, so ``forbid_axe_rules`` can gate on a best-practice rule; the WCAG node
    count is unknown (None) when the evaluation did not complete. ``score`` is the observation's
    score when the caller has judged it already."""
    if score is None:
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


def reference_plan(suite: Suite) -> list[tuple[int, int, Example]]:
    """Every evaluation of the reference cases as (case index, round, example), in run order.

    Cases in other modes are skipped (they are run by :mod:`lm_eval_a11y.suite.model`). Raises
    before any browser starts: a case without a passing page (:class:`SuiteError`), or a case
    whose examples do not load (``CaseError``)."""
    plan: list[tuple[int, int, Example]] = []
    for index, case in enumerate(suite.cases):
        if case.settings.mode != "reference":
            continue
        examples = passing_examples(case)
        if not examples:
            raise SuiteError(f"{suite.path}: case {case.id!r} has no passing example page to run in reference mode")
        plan += [(index, r, e) for r in range(case.settings.trials) for e in examples]
    return plan


def suite_row(case: SuiteCase) -> dict[str, Any]:
    """The dataset row of a case as its variant asks it: the prompt sent and, for a variant other
    than the default, the ``variant``, ``framework``, ``style`` and ``sample_id`` columns."""
    from lm_eval_a11y.dataset import case_rows

    return variant_row(case_rows([case.case])[0], case.settings.variant)


def case_sample_id(case: SuiteCase) -> str:
    """``<case>@<variant>``, the case id alone for the default variant."""
    return sample_id(case.id, case.settings.variant)


def now_utc() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def reference_trials(
    suite: Suite, evaluator: Evaluator, *, progress: Callable[[int, int], None] | None = None
) -> tuple[dict[int, list[TrialRecord]], dict[str, Any] | None]:
    """The trials of the suite's reference cases (by case index) and the evaluation environment.

    Each trial carries a sample record of the page, so that a reference run can be written as
    lm-eval output and shown in the HTML report like a model run."""
    from lm_eval_a11y.extract import Extraction
    from lm_eval_a11y.records import build_record, judge

    plan = reference_plan(suite)
    if not plan:
        return {}, None
    pairs = [(suite.cases[i].case, example.html) for i, _, example in plan]
    names = [f"{case_sample_id(suite.cases[i])}-{example.name}-{r}" for i, r, example in plan]
    observations = evaluator.evaluate_many(pairs, names=names, progress=progress)
    per_case: dict[int, list[TrialRecord]] = {}
    for (index, round_, example), obs in zip(plan, observations, strict=True):
        case = suite.cases[index]
        label = example.name if case.settings.trials == 1 else f"{example.name}#{round_ + 1}"
        # Judged once: the trial and the sample record share the verdict.
        verdict = judge(obs, html_found=True, truncated=False)
        extraction = Extraction(example.html, True, False, "reference-example")
        record = build_record(suite_row(case), extraction, obs, verdict=verdict)
        base = trial_of(obs, label, round_ + 1, example.name, score=verdict.score)
        per_case.setdefault(index, []).append(
            replace(
                base,
                task=variant_task(case.settings),
                response=example.html,
                record=record,
                evaluation_ms=obs.timings.total_ms,
            )
        )
    environment = next((asdict(o.environment) for o in observations if o.environment is not None), None)
    return per_case, environment


def finish_run(
    suite: Suite,
    per_case: dict[int, list[TrialRecord]],
    *,
    started: str,
    clock: float,
    environment: dict[str, Any] | None,
) -> SuiteRun:
    """Judge every case on its trials and add the suite totals (a case with no trials fails)."""
    runs = tuple(
        CaseRun(
            case,
            tuple(per_case.get(i, [])),
            judge_case([r.trial for r in per_case.get(i, [])], case.settings.expect),
        )
        for i, case in enumerate(suite.cases)
    )
    return SuiteRun(
        suite=suite,
        cases=runs,
        totals=suite_totals([r.outcome for r in runs]),
        started_at=started,
        finished_at=now_utc(),
        wall_s=time.monotonic() - clock,
        environment=environment,
    )


def run_reference(
    suite: Suite, evaluator: Evaluator, *, progress: Callable[[int, int], None] | None = None
) -> SuiteRun:
    """Evaluate every passing example of every reference case ``trials`` times and judge each case.

    ``evaluator`` belongs to the caller and is left open."""
    started, clock = now_utc(), time.monotonic()
    per_case, environment = reference_trials(suite, evaluator, progress=progress)
    return finish_run(suite, per_case, started=started, clock=clock, environment=environment)


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
        "framework": settings.framework,
        "style": settings.style,
        "theme": settings.style,
        "sample_id": case_sample_id(run.case),
        "variant": variant_task(settings),
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
                "repaired": record.repaired,
                "generation_ms": _finite(record.generation_ms),
                "evaluation_ms": _finite(record.evaluation_ms),
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
