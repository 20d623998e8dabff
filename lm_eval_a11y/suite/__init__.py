"""Suites: YAML files that select cases, set trials and expectations, and gate a release
(docs/suites.md).

- :mod:`~lm_eval_a11y.suite.file` reads and checks the suite file (:func:`load_suite`);
- :mod:`~lm_eval_a11y.suite.expectations` judges a case's trials against its expectations (pure);
- :mod:`~lm_eval_a11y.suite.run` runs reference mode and writes ``suite.json``;
- :mod:`~lm_eval_a11y.suite.model` runs model and repair modes through lm-eval's model classes;
- :mod:`~lm_eval_a11y.suite.output` writes the run as lm-eval output and the HTML report.

The suite file's names are re-exported here; the runs load on first use of their module.
"""

from __future__ import annotations

from lm_eval_a11y.suite.file import (
    FRAMEWORKS,
    INSTRUCTIONS,
    MAX_TRIALS,
    MODES,
    STYLES,
    THEMES,
    CaseSettings,
    ModelSpec,
    Suite,
    SuiteCase,
    SuiteError,
    load_suite,
    parse_suite,
)

__all__ = [
    "FRAMEWORKS",
    "INSTRUCTIONS",
    "MAX_TRIALS",
    "MODES",
    "STYLES",
    "THEMES",
    "CaseSettings",
    "ModelSpec",
    "Suite",
    "SuiteCase",
    "SuiteError",
    "load_suite",
    "parse_suite",
]
