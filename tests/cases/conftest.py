"""Records which cases this pytest run selected (see selection.py)."""

from __future__ import annotations

import pytest

from cases.selection import SELECTED_CASES


def pytest_collection_finish(session: pytest.Session) -> None:
    for item in session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and item.nodeid.split("::")[0].endswith("cases/test_examples.py"):
            case = callspec.params.get("case")
            if case is not None:
                SELECTED_CASES.add(case.id)
