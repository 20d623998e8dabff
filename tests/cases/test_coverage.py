"""Structural rules of the suite (no browser): every check is shown to pass and to fail."""

from __future__ import annotations

import pytest

from lm_eval_a11y.cases import Case, load_cases, load_examples
from lm_eval_a11y.generic import generic_case

CASES = load_cases()
# The generic page checks are held to the same rules of evidence as the cases.
WITH_GENERIC = (*CASES, generic_case())


@pytest.mark.parametrize("case", WITH_GENERIC, ids=[c.id for c in WITH_GENERIC])
def test_every_check_passes_and_fails_somewhere(case: Case) -> None:
    examples = load_examples(case)
    for check in case.checks:
        seen = {dict(ex.assertions)[check.id] for ex in examples}
        assert {"pass", "fail"} <= seen, f"{check.id} is only ever expected to {sorted(seen)}"
        if check.na_allowed:
            assert "na" in seen, f"{check.id} allows 'na' but no example shows it"


@pytest.mark.parametrize("case", WITH_GENERIC, ids=[c.id for c in WITH_GENERIC])
def test_enough_examples(case: Case) -> None:
    examples = load_examples(case)
    passing = [ex for ex in examples if ex.verdict == "pass"]
    failing = [ex for ex in examples if ex.verdict == "fail"]
    assert len(passing) >= 2, "each case needs two passing examples written in different ways"
    assert len(failing) >= len(case.requirement_ids), (
        f"{len(failing)} failing examples for {len(case.requirement_ids)} requirement checks"
    )


def test_every_apg_pattern_is_covered() -> None:
    from lm_eval_a11y.cases import APG_PATTERNS

    covered = {c.apg_pattern for c in CASES if c.apg_pattern}
    assert sorted(set(APG_PATTERNS) - covered) == []


def test_page_level_cases_present() -> None:
    wanted = {
        "shopping-home", "signup-form", "data-table", "article-figures", "navigation-menu",
        "status-message", "login-form", "search-results", "settings-page", "pricing-page",
    }  # fmt: skip
    assert sorted(wanted - {c.id for c in CASES}) == []
    assert len(CASES) >= 40
