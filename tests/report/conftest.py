"""Fixtures of the report tests: the committed run tree and copies of it to damage."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lm_eval_a11y.report.loading import RunSeries, load_runs

RUNS = Path(__file__).resolve().parent.parent / "fixtures" / "runs"


@pytest.fixture(scope="session")
def runs_dir() -> Path:
    """The committed fixture tree (regenerate with scripts/make_report_fixture.py)."""
    return RUNS


@pytest.fixture(scope="session")
def series() -> list[RunSeries]:
    """Both runs of the fixture, in a fixed order (model A, then model B)."""
    return load_runs([RUNS / "model-a", RUNS / "model-b"])


@pytest.fixture()
def runs_copy(tmp_path: Path) -> Path:
    """A private copy of the fixture tree that a test may edit."""
    target = tmp_path / "runs"
    shutil.copytree(RUNS, target)
    return target
