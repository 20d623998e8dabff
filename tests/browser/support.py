"""Shared helpers of the engine's browser tests: test pages, fixture cases, time bounds."""

from __future__ import annotations

from pathlib import Path

from lm_eval_a11y.cases import Case, load_case

TESTS = Path(__file__).resolve().parents[1]
PAGES = TESTS / "pages"
FIXTURE_CASES = TESTS / "fixtures" / "cases"
BUDGET_S = 4.0
# What a sample may take beyond its budget: stopping the script, building the observation, and
# creating the replacement context on a machine that other jobs keep busy.
GRACE_S = 3.0
ROOMY_BUDGET_S = 20.0
# A batch of a hostile page and an ordinary one: each is bounded by its budget plus the grace.
BATCH_BOUND_S = 2 * (BUDGET_S + GRACE_S)


def page(name: str) -> str:
    return (PAGES / name).read_text(encoding="utf-8")


def fixture_case(case_id: str) -> Case:
    return load_case(FIXTURE_CASES / case_id)
