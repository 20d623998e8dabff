"""Shared fixtures: one real Chromium for the whole session, closed at the end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings

TESTS = Path(__file__).resolve().parent
PAGES = TESTS / "pages"


@pytest.fixture(scope="session")
def evaluator() -> Iterator[Evaluator]:
    """A pooled evaluator shared by every browser test (real Chromium, real axe-core)."""
    ev = Evaluator(EvaluatorSettings(concurrency=2, timeout_s=20))
    ev.start()
    try:
        yield ev
    finally:
        ev.close()


@pytest.fixture(scope="session")
def fast_evaluator() -> Iterator[Evaluator]:
    """A pool with a short time budget, for pages that are meant to hang."""
    ev = Evaluator(EvaluatorSettings(concurrency=2, timeout_s=4))
    ev.start()
    try:
        yield ev
    finally:
        ev.close()
