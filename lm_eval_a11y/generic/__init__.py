"""Generic page checks: behaviour checks that apply to any page, for pages that have no case.

A corpus of scraped or generated pages comes with no test case, and axe-core alone misses most of
what keyboard and screen-reader users meet first: controls only a mouse can work, focus that
cannot leave a widget, focus that cannot be seen, a page without a main landmark or a top heading.
These checks are a pseudo-case with the id ``generic``: the same ``case.yaml``, ``checks.py`` and
``examples/`` as a test case, shipped inside the package (it is not one of the benchmark's
generation cases: no model is ever asked for a "generic" page, so it has no prompt and is not in
:func:`lm_eval_a11y.cases.load_cases`). What each check asserts and cannot see: docs/generic.md.

    from lm_eval_a11y.generic import generic_case
    observation = evaluator.evaluate(generic_case(), html)
"""

from __future__ import annotations

from lm_eval_a11y.cases import GENERIC_ID, generic_case, generic_dir

__all__ = ["GENERIC_ID", "generic_case", "generic_dir"]
