"""Fixtures of the engine's own browser tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from browser.support import BUDGET_S, ROOMY_BUDGET_S
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings


@pytest.fixture(scope="session")
def serial_evaluator() -> Iterator[Evaluator]:
    """One slot (no waiting ones) and the short budget: every sample of a batch runs on the same
    slot, one after another, so the sample after a hostile one proves that the slot itself
    recovered."""
    ev = Evaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=BUDGET_S))
    ev.start()
    try:
        yield ev
    finally:
        ev.close()


@pytest.fixture(scope="session")
def one_slot_evaluator() -> Iterator[Evaluator]:
    """One slot with the ordinary budget, for pages that must finish even on a busy machine
    (isolation between samples, and the memory bomb, whose crash can take over 4 s under load)."""
    ev = Evaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=ROOMY_BUDGET_S))
    ev.start()
    try:
        yield ev
    finally:
        ev.close()
