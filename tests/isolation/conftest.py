"""Fixtures of the isolation suite."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from isolation.support import BUDGET_S
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings


@pytest.fixture(scope="module")
def one_slot() -> Iterator[Evaluator]:
    """One slot, the suite's budget, one browser for the module's single-page tests."""
    ev = Evaluator(EvaluatorSettings(concurrency=1, timeout_s=BUDGET_S))
    ev.start()
    try:
        yield ev
    finally:
        ev.close()
