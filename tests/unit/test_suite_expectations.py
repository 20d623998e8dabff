"""The judgement of suite expectations, on made-up trials: no browser, no model, no files.

One table row per expectation met and per expectation not met, plus the edges where a gate could
open by accident: no trials, fewer trials than k, quantities nobody measured. Every expected
number was worked out by hand (in the comments), not by calling the code under test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest

from lm_eval_a11y.scoring import nearest_rank
from lm_eval_a11y.suite.expectations import (
    EXPECTATION_NAMES,
    CaseOutcome,
    Expectations,
    FailedExpectation,
    Trial,
    case_stats,
    judge_case,
    suite_totals,
)

OK = Trial(passed=True, checks=(("a", "pass"), ("b", "na")), axe_failures=0, duration_ms=100.0, label="ok")
BAD = Trial(passed=False, checks=(("a", "fail"), ("b", "na")), axe_rules=("label",), axe_failures=2, label="bad")


def trial(**changes: object) -> Trial:
    """A passing trial with some fields changed."""
    base = {
        "passed": True,
        "checks": (("a", "pass"), ("b", "na")),
        "axe_rules": (),
        "axe_failures": 0,
        "duration_ms": 100.0,
        "input_tokens": 50,
        "output_tokens": 500,
        "estimated_cost_usd": 0.001,
        "label": "t",
    }
    return Trial(**{**base, **changes})  # type: ignore[arg-type]


@dataclass(frozen=True)
class Row:
    name: str
    trials: tuple[Trial, ...]
    expect: Expectations
    failed: tuple[str, ...]  # "name" or "name:subject", in order; empty when the case passes


ROWS = [
    # The default rule: every trial passes.
    Row("default rule met", (trial(), trial()), Expectations(), ()),
    Row("default rule not met", (trial(), trial(passed=False)), Expectations(), ("must_pass",)),
    Row("must_pass true met", (trial(), trial()), Expectations(must_pass=True), ()),
    Row("must_pass true not met", (trial(passed=False),), Expectations(must_pass=True), ("must_pass",)),
    Row("must_pass false: verdicts do not gate", (trial(passed=False),), Expectations(must_pass=False), ()),
    # min_trial_pass_rate replaces the default rule: 3 of 4 = 0.75.
    Row(
        "min_trial_pass_rate met",
        (trial(), trial(), trial(), trial(passed=False)),
        Expectations(min_trial_pass_rate=0.75),
        (),
    ),
    Row(
        "min_trial_pass_rate not met",
        (trial(), trial(), trial(), trial(passed=False)),
        Expectations(min_trial_pass_rate=0.8),
        ("min_trial_pass_rate",),
    ),
    # pass@2 from n=4, c=2: 1 - C(2,2)/C(4,2) = 1 - 1/6 = 5/6 = 0.833...
    Row(
        "min_pass_at_k met",
        (trial(), trial(), trial(passed=False), trial(passed=False)),
        Expectations(must_pass=False, min_pass_at_k=((2, 0.8),)),
        (),
    ),
    Row(
        "min_pass_at_k not met",
        (trial(), trial(), trial(passed=False), trial(passed=False)),
        Expectations(must_pass=False, min_pass_at_k=((2, 0.9),)),
        ("min_pass_at_k:k=2",),
    ),
    Row(
        "min_pass_at_k with k > n is undefined and fails",
        (trial(), trial()),
        Expectations(min_pass_at_k=((5, 0.0),)),
        ("min_pass_at_k:k=5",),
    ),
    Row("checks_must_pass met", (trial(), trial()), Expectations(checks_must_pass=("a",)), ()),
    Row(
        "checks_must_pass: na is not pass",
        (trial(), trial()),
        Expectations(checks_must_pass=("b",)),
        ("checks_must_pass:b",),
    ),
    Row(
        "checks_must_pass: a check that did not run is not pass",
        (trial(checks=()),),
        Expectations(checks_must_pass=("a",)),
        ("checks_must_pass:a",),
    ),
    Row("max_axe_failures met", (trial(axe_failures=1),), Expectations(max_axe_failures=1), ()),
    Row(
        "max_axe_failures not met",
        (trial(axe_failures=0), trial(axe_failures=3)),
        Expectations(max_axe_failures=2),
        ("max_axe_failures",),
    ),
    Row(
        "max_axe_failures unknown (evaluation did not complete)",
        (trial(axe_failures=None),),
        Expectations(max_axe_failures=5),
        ("max_axe_failures",),
    ),
    Row("forbid_axe_rules met", (trial(axe_rules=("region",)),), Expectations(forbid_axe_rules=("label",)), ()),
    Row(
        "forbid_axe_rules not met (a best-practice rule on a passing page)",
        (trial(axe_rules=("region",)),),
        Expectations(forbid_axe_rules=("label", "region")),
        ("forbid_axe_rules:region",),
    ),
    Row("max_input_tokens met", (trial(input_tokens=50),), Expectations(max_input_tokens=50), ()),
    Row(
        "max_input_tokens not met", (trial(input_tokens=51),), Expectations(max_input_tokens=50), ("max_input_tokens",)
    ),
    Row(
        "max_input_tokens unknown",
        (trial(), trial(input_tokens=None)),
        Expectations(max_input_tokens=10**9),
        ("max_input_tokens",),
    ),
    Row("max_output_tokens met", (trial(output_tokens=3000),), Expectations(max_output_tokens=3000), ()),
    Row(
        "max_output_tokens not met",
        (trial(output_tokens=3001),),
        Expectations(max_output_tokens=3000),
        ("max_output_tokens",),
    ),
    Row(
        "max_output_tokens unknown",
        (trial(output_tokens=None),),
        Expectations(max_output_tokens=3000),
        ("max_output_tokens",),
    ),
    Row("max_estimated_cost_usd met", (trial(estimated_cost_usd=0.01),), Expectations(max_estimated_cost_usd=0.01), ()),
    Row(
        "max_estimated_cost_usd not met",
        (trial(estimated_cost_usd=0.02),),
        Expectations(max_estimated_cost_usd=0.01),
        ("max_estimated_cost_usd",),
    ),
    Row(
        "max_estimated_cost_usd unknown",
        (trial(estimated_cost_usd=None),),
        Expectations(max_estimated_cost_usd=1.0),
        ("max_estimated_cost_usd",),
    ),
    Row("max_duration_ms met", (trial(duration_ms=60000.0),), Expectations(max_duration_ms=60000), ()),
    Row(
        "max_duration_ms not met",
        (trial(duration_ms=100.0), trial(duration_ms=60001.0)),
        Expectations(max_duration_ms=60000),
        ("max_duration_ms",),
    ),
    Row(
        "max_duration_ms unknown",
        (trial(duration_ms=None),),
        Expectations(max_duration_ms=60000),
        ("max_duration_ms",),
    ),
    # Nearest-rank p95 of 20 durations 1..20 s is the 19th: 19 s (the 20 s outlier is allowed).
    Row(
        "max_p95_duration_ms met",
        tuple(trial(duration_ms=1000.0 * i) for i in range(1, 21)),
        Expectations(max_p95_duration_ms=19000),
        (),
    ),
    Row(
        "max_p95_duration_ms not met",
        tuple(trial(duration_ms=1000.0 * i) for i in range(1, 21)),
        Expectations(max_p95_duration_ms=18999),
        ("max_p95_duration_ms",),
    ),
    Row(
        "max_p95_duration_ms unknown",
        (trial(), trial(duration_ms=None)),
        Expectations(max_p95_duration_ms=60000),
        ("max_p95_duration_ms",),
    ),
    # Repair mode: first_try_passed is the verdict before the repair turn.
    Row(
        "repair allow: a rescued trial passes",
        (trial(first_try_passed=False), trial(first_try_passed=True)),
        Expectations(repair="allow"),
        (),
    ),
    Row(
        "repair forbid: only the first try counts",
        (trial(first_try_passed=False), trial(first_try_passed=True)),
        Expectations(repair="forbid"),
        ("must_pass",),
    ),
    Row(
        "repair require not met: a repaired trial still failed",
        (trial(first_try_passed=False), trial(passed=False, first_try_passed=False), trial(first_try_passed=True)),
        Expectations(repair="require", min_trial_pass_rate=0.5),
        ("repair",),
    ),
    Row(
        "repair require met",
        (trial(first_try_passed=False), trial(first_try_passed=True)),
        Expectations(repair="require"),
        (),
    ),
    Row("repair require outside a repair run is unknown", (trial(),), Expectations(repair="require"), ("repair",)),
    # Several failures are all reported, in the order of EXPECTATION_NAMES.
    Row(
        "every failure is listed",
        (BAD,),
        Expectations(checks_must_pass=("a",), max_axe_failures=0, forbid_axe_rules=("label",)),
        ("must_pass", "checks_must_pass:a", "max_axe_failures", "forbid_axe_rules:label"),
    ),
    # No trials: no evidence is not a pass, whatever is asked.
    Row("no trials", (), Expectations(), ("trials",)),
    Row("no trials, must_pass false", (), Expectations(must_pass=False), ("trials",)),
]


def _names(outcome: CaseOutcome) -> tuple[str, ...]:
    return tuple(f"{f.name}:{f.subject}" if f.subject else f.name for f in outcome.failed)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_expectation_table(row: Row) -> None:
    outcome = judge_case(row.trials, row.expect)
    assert _names(outcome) == row.failed
    assert outcome.passed is (not row.failed)


def test_the_table_covers_every_expectation_met_and_not_met() -> None:
    met = {name for name in EXPECTATION_NAMES for r in ROWS if not r.failed and name in r.expect.stated()}
    not_met = {f.split(":")[0] for r in ROWS for f in r.failed}
    assert set(EXPECTATION_NAMES) <= met
    assert set(EXPECTATION_NAMES) <= not_met


def test_messages_say_what_was_expected_and_what_was_seen() -> None:
    out = judge_case([trial(label="p1"), trial(passed=False, label="p2")], Expectations(min_trial_pass_rate=0.9))
    assert out.failed == (
        FailedExpectation(
            "min_trial_pass_rate", "a trial pass rate of at least 0.9", "0.5 (1 of 2 trials passed; failed: p2)"
        ),
    )
    (miss,) = judge_case([trial(), trial()], Expectations(min_pass_at_k=((5, 0.5),))).failed
    assert miss.actual == "undefined: 2 trial(s), fewer than k=5"
    (unknown,) = judge_case([trial(output_tokens=None, label="x")], Expectations(max_output_tokens=1)).failed
    assert unknown.actual.startswith("unknown in 1 of 1 trial(s) (x)")
    (check,) = judge_case([trial(label="x"), trial(label="y")], Expectations(checks_must_pass=("b",))).failed
    assert str(check) == "checks_must_pass b: expected outcome 'pass' in every trial, got na in 2 of 2 trial(s) (x, y)"


def test_stats_of_a_case() -> None:
    trials = [
        trial(duration_ms=100.0, input_tokens=10, output_tokens=100, estimated_cost_usd=0.5),
        trial(duration_ms=300.0, input_tokens=20, output_tokens=300, estimated_cost_usd=1.5, passed=False),
    ]
    stats = case_stats(trials, ks=(1, 2, 5))
    assert (stats.trials, stats.trials_passed, stats.trial_pass_rate) == (2, 1, 0.5)
    at = dict(stats.pass_at_k)
    assert at[1] == 0.5 and at[2] == 1.0 and math.isnan(at[5])  # pass@2 of n=2, c=1: every draw holds it
    assert (stats.duration_mean_ms, stats.duration_p95_ms, stats.duration_max_ms) == (200.0, 300.0, 300.0)
    assert (stats.input_tokens_mean, stats.input_tokens_total) == (15.0, 30)
    assert (stats.output_tokens_mean, stats.output_tokens_total) == (200.0, 400)
    assert (stats.estimated_cost_mean_usd, stats.estimated_cost_total_usd) == (1.0, 2.0)
    assert stats.first_try_pass_rate is None and stats.repair_rate is None and stats.rescue_rate is None


def test_unknown_quantities_are_unknown_not_partial_sums() -> None:
    stats = case_stats([trial(output_tokens=100), trial(output_tokens=None)])
    assert stats.output_tokens_mean is None and stats.output_tokens_total is None
    assert stats.input_tokens_total == 100


def test_stats_of_no_trials_are_undefined() -> None:
    stats = case_stats([])
    assert stats.trials == 0 and math.isnan(stats.trial_pass_rate)
    assert all(math.isnan(v) for _, v in stats.pass_at_k)
    assert stats.duration_p95_ms is None and stats.estimated_cost_total_usd is None


def test_repair_rates() -> None:
    # 4 trials: 1 passed at once, 3 went to repair, 2 of those were rescued.
    trials = [
        trial(first_try_passed=True),
        trial(first_try_passed=False),
        trial(first_try_passed=False),
        trial(first_try_passed=False, passed=False),
    ]
    stats = case_stats(trials)
    assert (stats.first_try_pass_rate, stats.repair_rate, stats.rescue_rate) == (0.25, 0.75, 2 / 3)


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        ([5.0], 95, 5.0),
        ([1.0, 2.0], 95, 2.0),  # ceil(1.9) = 2nd
        ([float(i) for i in range(1, 21)], 95, 19.0),  # ceil(19) = 19th
        ([float(i) for i in range(1, 101)], 7, 7.0),  # 7 * 100 / 100 = 7 exactly, not 7.000000000000001
        ([3.0, 1.0, 2.0], 50, 2.0),  # ceil(1.5) = 2nd of the sorted values
        ([3.0, 1.0, 2.0], 100, 3.0),
    ],
)
def test_nearest_rank(values: list[float], q: float, expected: float) -> None:
    assert nearest_rank(values, q) == expected


def test_nearest_rank_edges() -> None:
    assert math.isnan(nearest_rank([], 95))
    with pytest.raises(ValueError):
        nearest_rank([1.0], 0)


def test_suite_totals() -> None:
    ok = judge_case([trial(estimated_cost_usd=1.0)], Expectations())
    failing = judge_case([trial(passed=False, estimated_cost_usd=2.0)], Expectations())
    totals = suite_totals([ok, failing, ok])
    assert (totals.passed, totals.failed, totals.total) == (2, 1, 3)
    assert totals.pass_rate == 2 / 3
    assert (totals.trials, totals.trials_passed) == (3, 2)
    assert totals.estimated_cost_total_usd == 4.0
    unknown = judge_case([trial(estimated_cost_usd=None)], Expectations())
    assert suite_totals([ok, unknown]).estimated_cost_total_usd is None
    empty = suite_totals([])
    assert empty.total == 0 and math.isnan(empty.pass_rate)


def test_the_module_is_pure() -> None:
    """No browser, lm-eval or I/O: the judgement must be testable and reusable anywhere."""
    import ast
    from pathlib import Path

    import lm_eval_a11y.suite.expectations as module

    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    imported = {
        alias.name if isinstance(node, ast.Import) else node.module or ""
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert imported <= {"__future__", "math", "collections.abc", "dataclasses", "lm_eval_a11y.scoring"}, imported
