"""lm-eval-a11y: how accessible is the HTML that language models write?

The public names are re-exported here; heavier modules (the browser) load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "Case",
    "Evaluator",
    "EvaluatorSettings",
    "Observation",
    "__version__",
    "get_case",
    "load_cases",
]

if TYPE_CHECKING:
    from lm_eval_a11y.cases import Case, get_case, load_cases
    from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
    from lm_eval_a11y.observation import Observation

_LAZY = {
    "Case": "lm_eval_a11y.cases",
    "get_case": "lm_eval_a11y.cases",
    "load_cases": "lm_eval_a11y.cases",
    "Evaluator": "lm_eval_a11y.engine.evaluator",
    "EvaluatorSettings": "lm_eval_a11y.engine.evaluator",
    "Observation": "lm_eval_a11y.observation",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'lm_eval_a11y' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
