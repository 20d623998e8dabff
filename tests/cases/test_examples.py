"""Every case's own example pages, evaluated in the real browser: one item per (example, check).

The examples are evidence that each check accepts correct pages and rejects broken ones; if an
observed outcome differs from the expectation written in the page, either the check or the page
is wrong, and every published number with it.

The default run renders, of each case, the fewest examples (chosen greedily, the same every run)
that together pin every outcome written in its examples: each check's every expected outcome,
each expected axe rule, a page with and one without axe failures, and each verdict. The rest are
listed as skipped; ``A11Y_SLOW=1`` renders every example, as ``a11y-eval cases validate`` does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest
from tiers import FULL_RUN

from cases.selection import SELECTED_CASES
from lm_eval_a11y.cases import Case, Example, load_cases, load_examples
from lm_eval_a11y.engine.browser import DEFAULT_CONCURRENCY
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.generic import generic_case
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import decided_wcag_failures, score_observation

# The generation cases and the generic page checks, which ship with the package (`-k generic`
# renders only theirs).
CASES = (*load_cases(), generic_case())


def _pins(example: Example) -> set[tuple[str, ...]]:
    """What an example's expectations pin: each (check, outcome), each axe rule, whether axe fails
    it at all, the verdict."""
    pins: set[tuple[str, ...]] = {("check", check_id, expected) for check_id, expected in example.assertions}
    pins |= {("axe", rule) for rule in example.axe_rules} | {("verdict", example.verdict)}
    return pins | {("axe-failures", str(bool(example.axe_rules)))}


def covering(examples: Sequence[Example]) -> set[str]:
    """The names of a small set of ``examples`` that together pin everything all of them pin:
    greedy set cover, the example pinning most of what is left first, ties to the earlier one."""
    pins = {ex.name: _pins(ex) for ex in examples}
    left = set().union(*pins.values())
    chosen: set[str] = set()
    while left:
        best = max(pins, key=lambda name: len(pins[name] & left))
        chosen.add(best)
        left -= pins[best]
    return chosen


EXAMPLES: list[tuple[Case, Example]] = [(case, ex) for case in CASES for ex in load_examples(case)]
_COVER = {(case.id, name) for case in CASES for name in covering(load_examples(case))}


def _rendered(case: Case, example: Example) -> bool:
    return FULL_RUN or (case.id, example.name) in _COVER


RENDERED = [(case, ex) for case, ex in EXAMPLES if _rendered(case, ex)]
_UNRENDERED = pytest.mark.skip(
    reason="an example whose every expectation another example of its case also pins; A11Y_SLOW=1 renders it"
)


_OBSERVED: dict[str, dict[str, Observation]] = {}
# The first item renders the whole batch (hundreds of pages, each bounded by its own budget), so
# the items get more than pytest's per-item limit.
BATCH_TIMEOUT_S = 1800


@pytest.fixture(scope="module")
def examples_evaluator() -> Iterator[Evaluator]:
    """A pool at the default concurrency (`a11y-eval cases validate`'s), so the batch keeps every
    core busy. Two pages share each core for the whole batch, so the budget is half as much again
    as the default's: a page that takes 14 s alone (a feed that fades its posts in, with its walk)
    would otherwise run out of time in some runs, and its verdict would say so instead of what
    the example pins."""
    ev = Evaluator(EvaluatorSettings(concurrency=DEFAULT_CONCURRENCY, timeout_s=30))
    ev.start()
    try:
        yield ev
    finally:
        ev.close()


def _observe(evaluator: Evaluator, case: Case, example: Example) -> Observation:
    """Evaluate the examples of every selected case as one batch on first use (the pool stays full
    to the end of it); `-k <case>` renders only that case's."""
    if case.id not in _OBSERVED:
        wanted = (SELECTED_CASES | {case.id}) - _OBSERVED.keys()
        batch = [(c, ex) for c, ex in RENDERED if c.id in wanted]
        observations = evaluator.evaluate_many([(c, ex.html) for c, ex in batch])
        for (c, ex), obs in zip(batch, observations, strict=True):
            _OBSERVED.setdefault(c.id, {})[ex.name] = obs
    return _OBSERVED[case.id][example.name]


def _marks(case: Case, example: Example) -> tuple[pytest.MarkDecorator, ...]:
    return () if _rendered(case, example) else (_UNRENDERED,)


CHECK_ITEMS = [
    pytest.param(case, ex, check_id, expected, id=f"{case.id}/{ex.name}/{check_id}", marks=_marks(case, ex))
    for case, ex in EXAMPLES
    for check_id, expected in ex.assertions
]


@pytest.mark.parametrize(("case", "example", "check_id", "expected"), CHECK_ITEMS)
@pytest.mark.timeout(BATCH_TIMEOUT_S)
def test_check_outcome(
    examples_evaluator: Evaluator, case: Case, example: Example, check_id: str, expected: str
) -> None:
    obs = _observe(examples_evaluator, case, example)
    assert obs.status == "ok", f"evaluation {obs.status}: {obs.error}"
    result = {c.id: c for c in obs.checks}[check_id]
    assert result.outcome == expected, f"{check_id}: expected {expected}, got {result.outcome}: {result.message}"


@pytest.mark.parametrize(
    ("case", "example"), [pytest.param(c, e, id=f"{c.id}/{e.name}", marks=_marks(c, e)) for c, e in EXAMPLES]
)
@pytest.mark.timeout(BATCH_TIMEOUT_S)
def test_axe_rules_and_verdict(examples_evaluator: Evaluator, case: Case, example: Example) -> None:
    obs = _observe(examples_evaluator, case, example)
    # Colour contrast as the pixels decided it, in every scheme and state audited (docs/contrast.md),
    # as `cases validate` and the verdict read it.
    decided = decided_wcag_failures(obs)
    failing = tuple(sorted({f.rule_id for f in decided}))
    assert failing == example.axe_rules, "\n".join(f"{f.rule_id}: {[n.html for n in f.nodes]}" for f in decided)
    verdict = "pass" if score_observation(obs).passed else "fail"
    assert verdict == example.verdict, score_observation(obs).reasons


def test_the_rendered_examples_pin_everything_their_case_pins() -> None:
    """The default run's share of the examples leaves out no expectation: every check's every
    expected outcome, every axe rule and both verdicts of a case are pinned by a rendered example."""
    rendered = {(case.id, ex.name) for case, ex in RENDERED}
    assert len(rendered) < len(EXAMPLES) or FULL_RUN
    for case in CASES:
        examples = load_examples(case)
        wanted = set().union(*(_pins(ex) for ex in examples))
        pinned = set().union(*(_pins(ex) for ex in examples if (case.id, ex.name) in rendered))
        assert pinned == wanted, f"{case.id}: not pinned by a rendered example: {sorted(wanted - pinned)}"
