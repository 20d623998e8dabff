"""The browser side: render a page in a pooled headless Chromium and observe it.

:class:`Evaluator` (and its async core) turns (case, html) pairs into
:class:`~lm_eval_a11y.observation.Observation` records; a case's checks drive the page through
:class:`Session`. Nothing here decides whether a sample passes (that is :mod:`lm_eval_a11y.scoring`).
The modules load on first use: importing the package starts no browser and loads no Playwright.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = ["AsyncEvaluator", "Evaluator", "EvaluatorSettings", "Session", "Tab"]

if TYPE_CHECKING:
    from lm_eval_a11y.engine.evaluator import AsyncEvaluator, Evaluator, EvaluatorSettings
    from lm_eval_a11y.engine.session import Session
    from lm_eval_a11y.engine.tab import Tab

_LAZY = {
    "AsyncEvaluator": "lm_eval_a11y.engine.evaluator",
    "Evaluator": "lm_eval_a11y.engine.evaluator",
    "EvaluatorSettings": "lm_eval_a11y.engine.evaluator",
    "Session": "lm_eval_a11y.engine.session",
    "Tab": "lm_eval_a11y.engine.tab",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lm_eval_a11y.engine' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
