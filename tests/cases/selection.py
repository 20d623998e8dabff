"""Case ids with at least one selected item of test_examples.py, filled by conftest.py once
collection is done, so the examples of every selected case render as one batch."""

from __future__ import annotations

SELECTED_CASES: set[str] = set()
