"""The evaluator's own reloads of a page (a fresh page for each check that acts, the phone's load,
the walk's) extend the sample's time budget, by at most the budget again: a page that is slow to
load (a framework compiled in the browser) pays its load once, as a visitor does, and no page can
stretch its sample past twice the budget."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from isolation.support import run
from lm_eval_a11y.cases import Case
from lm_eval_a11y.checks import Check, Outcome, Session, passed
from lm_eval_a11y.engine.evaluator import AsyncEvaluator, EvaluatorSettings
from lm_eval_a11y.engine.steps import SampleRun
from lm_eval_a11y.observation import Observation

PACKAGE = Path(__file__).resolve().parents[2] / "lm_eval_a11y"
BUDGET_S = 20.0
# Every load of the page blocks its renderer this long (a script that runs until then).
LOAD_S = 1.0
# The check reloads the page this often, and spends this long on its own (its reading).
RELOADS = 7
READING_S = 10.0
PAGE = f"""<!doctype html><html lang="en"><head><title>Slow to load</title>
<script>const until = Date.now() + {int(LOAD_S * 1000)}; while (Date.now() < until) {{}}</script>
</head><body><main><h1>Slow to load</h1><p>Each load takes a second.</p></main></body></html>"""


async def _reloads(s: Session) -> Outcome:
    await asyncio.sleep(READING_S)
    for _ in range(RELOADS):
        await s.reset()
    return passed(f"reloaded the page {RELOADS} times")


CASE = Case(
    "reloads", "t", "1", ("page",), "page", ("2.1.1",), None, (), "", (Check("reloads", "R.", "R", _reloads),), PACKAGE
)


async def _evaluate() -> Observation:
    ev = AsyncEvaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=BUDGET_S, late_horizon_ms=500))
    try:
        return await ev.evaluate(CASE, PAGE)
    finally:
        await ev.close()


def test_reloads_for_the_checks_do_not_use_up_the_budget() -> None:
    """The page's loads and the check's own time take at least 1 + 10 + 7 s (more: the phone's
    load, the audits), past the budget of 20 s; the rest of the evaluation takes at most 20 s on
    any machine that runs the suite, so only with the reloads added to the budget does it end."""
    obs = run(_evaluate())
    assert obs.status == "ok", obs.error
    assert obs.timings.reload_ms >= (RELOADS + 1) * LOAD_S * 1000, obs.timings
    assert obs.timings.total_ms > BUDGET_S * 1000, obs.timings
    assert [c.outcome for c in obs.checks] == ["pass"]


class _Reloaded:
    def __init__(self, seconds: float) -> None:
        self.reloads_s = seconds


@pytest.mark.parametrize(("reloads_s", "budget_s"), [(0.0, 20.0), (7.5, 27.5), (20.0, 40.0), (300.0, 40.0)])
def test_the_budget_grows_by_the_reloads_up_to_twice_itself(reloads_s: float, budget_s: float) -> None:
    run_ = SampleRun(session=_Reloaded(reloads_s))  # type: ignore[arg-type]
    assert run_.budget_s(20.0) == budget_s
    assert SampleRun().budget_s(20.0) == 20.0
