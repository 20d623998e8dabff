"""Text that fades in is measured as a person reads it, once its animation has ended.

axe-core may run while a message is still fading in (a timer shows it while a check's state is
being audited); measured mid-way, its pixels are paler than the page ever leaves them, and a
correct page would fail colour contrast in some runs and not in others.
"""

from __future__ import annotations

import json
from pathlib import Path

from lm_eval_a11y.cases import Case
from lm_eval_a11y.checks import Check, Outcome
from lm_eval_a11y.engine.contrast import measure_selectors
from lm_eval_a11y.engine.evaluator import Evaluator
from lm_eval_a11y.engine.session import Session

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Basket</title>
<style>
  body { margin: 0; padding: 1rem; font: 18px system-ui, sans-serif; color: #1a1a1a; background: #fff; }
  @keyframes rise { from { opacity: 0.05; } to { opacity: 1; } }
  #note.shown { animation: rise 900ms linear; }
</style></head><body><main><h1>Basket</h1>
<p id="note">Two tickets were added to your basket.</p></main></body></html>"""


def _case() -> Case:
    async def measure(session: Session) -> Outcome:
        # The fade starts now; the measurement is asked for at once, as a state audit would be.
        await session._evaluate("document.getElementById('note').classList.add('shown')")
        (node,) = await measure_selectors(session, session._tab, ["#note"])
        return Outcome("pass", json.dumps({"ratio": node.pixel_ratio, "note": node.note}))

    return Case(
        id="fading",
        title="Measure a message while it fades in",
        version="1",
        tags=(),
        category="test",
        wcag=("1.4.3",),
        apg_pattern=None,
        hooks=(),
        prompt="",
        checks=(Check(id="measure", description="Measures the fading message.", type="BP", func=measure),),
        path=Path(__file__).parent,
    )


def test_a_message_fading_in_is_measured_at_its_final_colour(evaluator: Evaluator) -> None:
    obs = evaluator.evaluate(_case(), PAGE)
    assert obs.status == "ok", obs.error
    (check,) = obs.checks
    measured = json.loads(check.message)
    # #1a1a1a on white is 17.4:1; at a twentieth of its opacity it would be about 1.1:1.
    assert measured["ratio"] is not None and measured["ratio"] > 15, measured
