"""Proving a case's checks on its example pages: what each page expects against what it showed.

Every example page says what it expects (each check's outcome, the failing axe WCAG rules, the
verdict). :func:`validate` renders the pages of some cases with the real evaluator, ``repeat``
times each; :func:`compare` sets the first run against the expectations and the other runs
against the first (a run that differs makes the example flaky); :func:`format_case` draws the
table ``a11y-eval cases validate`` prints. A mismatch means the check or the page is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lm_eval_a11y.cases import Case, Example, load_examples
from lm_eval_a11y.engine.browser import DEFAULT_CONCURRENCY
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import decided_violations, score_observation

__all__ = [
    "AXE_COLUMN",
    "VERDICT_COLUMN",
    "ExampleResult",
    "Mismatch",
    "RunOutcome",
    "compare",
    "format_case",
    "format_table",
    "validate",
    "validation_summary",
]

AXE_COLUMN = "axe"
VERDICT_COLUMN = "verdict"


@dataclass(frozen=True)
class RunOutcome:
    """What one evaluation of an example showed, reduced to what its expectations speak about."""

    checks: tuple[tuple[str, str], ...]
    axe_rules: tuple[str, ...]
    verdict: str
    status: str
    error: str | None
    # Each check's own message: not compared, but it says why a flaky run differed.
    messages: tuple[tuple[str, str], ...] = ()
    # Settles stopped by their safety bound (Timings.settle_stalls): a starved machine, not the page.
    settle_stalls: int = 0

    @classmethod
    def of(cls, obs: Observation) -> RunOutcome:
        return cls(
            checks=tuple((c.id, c.outcome) for c in obs.checks),
            messages=tuple((c.id, c.message) for c in obs.checks),
            settle_stalls=obs.timings.settle_stalls,
            # Colour contrast as decided (docs/contrast.md), like the verdict.
            axe_rules=tuple(sorted({f.rule_id for f in decided_violations(obs) if not f.best_practice})),
            verdict="pass" if score_observation(obs).passed else "fail",
            status=obs.status,
            error=obs.error,
        )


@dataclass(frozen=True)
class Mismatch:
    column: str
    expected: str
    observed: str
    message: str


@dataclass(frozen=True)
class ExampleResult:
    case_id: str
    example: str
    expected: RunOutcome
    observed: RunOutcome
    mismatches: tuple[Mismatch, ...]
    flaky_runs: tuple[RunOutcome, ...]

    @property
    def ok(self) -> bool:
        return not self.mismatches and not self.flaky_runs

    def to_dict(self) -> dict[str, Any]:
        return {
            "case": self.case_id,
            "example": self.example,
            "ok": self.ok,
            "status": self.observed.status,
            "error": self.observed.error,
            "expected": {
                "checks": dict(self.expected.checks),
                "axe_rules": list(self.expected.axe_rules),
                "verdict": self.expected.verdict,
            },
            "observed": {
                "checks": dict(self.observed.checks),
                "axe_rules": list(self.observed.axe_rules),
                "verdict": self.observed.verdict,
            },
            "mismatches": [m.__dict__ for m in self.mismatches],
            "flaky": bool(self.flaky_runs),
            "other_runs": [
                {
                    "checks": dict(r.checks),
                    "axe_rules": list(r.axe_rules),
                    "verdict": r.verdict,
                    "status": r.status,
                    "error": r.error,
                    "settle_stalls": r.settle_stalls,
                    "differing": {cid: dict(r.messages).get(cid, "") for cid in _differing_checks(self.observed, r)},
                }
                for r in self.flaky_runs
            ],
        }


def compare(case: Case, example: Example, runs: Sequence[Observation]) -> ExampleResult:
    """Compare the first run with the example's expectations and the other runs with the first."""
    first = runs[0]
    observed = RunOutcome.of(first)
    messages = {c.id: c.message for c in first.checks}
    observed_checks = dict(observed.checks)
    mismatches: list[Mismatch] = []
    for check in case.checks:
        want = dict(example.assertions)[check.id]
        got = observed_checks.get(check.id, "missing")
        if got != want:
            message = messages.get(check.id) or (first.error or "the check did not run")
            mismatches.append(Mismatch(check.id, want, got, message))
    if observed.axe_rules != example.axe_rules:
        details = "; ".join(
            f"{f.rule_id} on {', '.join(n.html[:60] for n in f.nodes[:2])}" for f in first.axe.wcag_failures
        )
        mismatches.append(
            Mismatch(
                AXE_COLUMN,
                ",".join(example.axe_rules) or "none",
                ",".join(observed.axe_rules) or "none",
                details or "axe reported no WCAG failures",
            )
        )
    if observed.verdict != example.verdict:
        reasons = "; ".join(score_observation(first).reasons) or "every requirement passed and axe was clean"
        mismatches.append(Mismatch(VERDICT_COLUMN, example.verdict, observed.verdict, reasons))
    expected = RunOutcome(
        checks=tuple((c.id, dict(example.assertions)[c.id]) for c in case.checks),
        axe_rules=example.axe_rules,
        verdict=example.verdict,
        status="ok",
        error=None,
    )
    others = tuple(RunOutcome.of(obs) for obs in runs[1:])
    flaky = tuple(r for r in others if _signature(r) != _signature(observed))
    return ExampleResult(case.id, example.name, expected, observed, tuple(mismatches), flaky)


def _differing_checks(first: RunOutcome, other: RunOutcome) -> list[str]:
    """The checks whose outcome in ``other`` is not the one in ``first``."""
    outcomes = dict(first.checks)
    return [cid for cid, outcome in other.checks if outcomes.get(cid) != outcome]


def _signature(run: RunOutcome) -> tuple[Any, ...]:
    return (run.checks, run.axe_rules, run.verdict, run.status)


def validate(
    cases: Sequence[Case], *, repeat: int = 1, timeout_s: float = 20.0, concurrency: int = DEFAULT_CONCURRENCY
) -> list[ExampleResult]:
    """Evaluate every example of ``cases`` ``repeat`` times with one pooled evaluator."""
    from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings

    items = [(case, example) for case in cases for example in load_examples(case)]
    pairs = [(case, example.html) for case, example in items for _ in range(repeat)]
    names = [f"{case.id}-{example.name}-{run}" for case, example in items for run in range(repeat)]
    settings = EvaluatorSettings(concurrency=concurrency, timeout_s=timeout_s)
    with Evaluator(settings) as evaluator:
        observations = evaluator.evaluate_many(pairs, names=names)
    return [
        compare(case, example, observations[index * repeat : (index + 1) * repeat])
        for index, (case, example) in enumerate(items)
    ]


def validation_summary(cases: Sequence[Case], results: Sequence[ExampleResult], repeat: int) -> dict[str, int]:
    """Counts over the examples validated: comparisons, mismatches, flaky examples."""
    per_example = {c.id: len(c.checks) + 2 for c in cases}
    return {
        "cases": len(cases),
        "examples": len(results),
        "repeat": repeat,
        "comparisons": sum(per_example[r.case_id] for r in results),
        "mismatches": sum(len(r.mismatches) for r in results),
        "examples_with_mismatches": sum(bool(r.mismatches) for r in results),
        "flaky": sum(bool(r.flaky_runs) for r in results),
    }


def _cell(observed: str, expected: str) -> str:
    return observed if observed == expected else f"X {observed} (want {expected})"


def format_case(case: Case, results: Sequence[ExampleResult]) -> str:
    """One table per case: a row per example, a column per check, then axe rules and verdict.

    A matching cell shows the observed outcome; a mismatch reads ``X <observed> (want <expected>)``
    and is explained under the table with the check's own message.
    """
    checks = list(case.checks)
    header = ["example", *[f"{i + 1}:{c.type}" for i, c in enumerate(checks)], AXE_COLUMN, VERDICT_COLUMN, "result"]
    rows = []
    for r in results:
        observed = dict(r.observed.checks)
        expected = dict(r.expected.checks)
        cells = [_cell(observed.get(c.id, "missing"), expected[c.id]) for c in checks]
        axe_observed = ",".join(r.observed.axe_rules) or "-"
        axe_expected = ",".join(r.expected.axe_rules) or "-"
        status = "ok" if r.ok else ("MISMATCH" if r.mismatches else "FLAKY")
        if r.mismatches and r.flaky_runs:
            status = "MISMATCH+FLAKY"
        rows.append(
            [
                r.example,
                *cells,
                _cell(axe_observed, axe_expected),
                _cell(r.observed.verdict, r.expected.verdict),
                status,
            ]
        )
    lines = [f"== {case.id} ({case.category}; {len(results)} example(s))"]
    lines.append(format_table(header, rows))
    lines.append("checks: " + "  ".join(f"{i + 1}={c.id}" for i, c in enumerate(checks)))
    for r in results:
        if r.observed.status != "ok":
            lines.append(f"  ! {r.example}: evaluation {r.observed.status}: {r.observed.error}")
        for m in r.mismatches:
            lines.append(f"  X {r.example} / {m.column}: expected {m.expected}, observed {m.observed}: {m.message}")
        for index, run in enumerate(r.flaky_runs):
            checks_differing = _differing_checks(r.observed, run)
            differing = list(checks_differing)
            if run.axe_rules != r.observed.axe_rules:
                differing.append(AXE_COLUMN)
            if run.verdict != r.observed.verdict:
                differing.append(VERDICT_COLUMN)
            lines.append(
                f"  ~ {r.example}: another run (#{index + 1} of those that differ) disagreed with the first on "
                f"{', '.join(differing) or 'the evaluation status'}"
            )
            first_messages, messages = dict(r.observed.messages), dict(run.messages)
            for cid in checks_differing:
                first_said, this_said = first_messages.get(cid, ""), messages.get(cid, "")
                lines.append(f"      {cid}: first run: {first_said}; this run: {this_said}")
            if run.status != r.observed.status:
                lines.append(f"      evaluation {run.status}: {run.error}")
            if run.settle_stalls or r.observed.settle_stalls:
                lines.append(
                    f"      settles stopped by their safety bound: {r.observed.settle_stalls} in the first run, "
                    f"{run.settle_stalls} in this one (a starved machine)"
                )
    return "\n".join(lines)


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, under a header and a rule of dashes."""
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    out = ["  ".join(str(h).ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    out.append("  ".join("-" * w for w in widths))
    for row in rows:
        out.append("  ".join(str(v).ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(out)
