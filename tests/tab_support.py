"""Which tab a sample ran on, for tests that compare samples on one tab.

A page cannot tell (its history is reset before every load, engine/tab.py), so the tests ask the
evaluator: with one slot and no waiting slots every sample runs on the slot's one tab, and a slot
that gets a new browser context (after a timeout, a crash, a departure that did not finish) gets a
new ``Tab`` object with it (engine/pool.py).
"""

from __future__ import annotations

from lm_eval_a11y.engine.evaluator import Evaluator


def slot_tab(ev: Evaluator) -> object:
    """The one tab of an evaluator with one slot (``concurrency=1, waiting_slots=0``)."""
    core = ev._core
    assert core._slots is not None, "the evaluator has not started"
    tabs = [slot.tab for slot in core._slots.slots if slot.tab is not None]
    assert len(tabs) == 1, f"expected one slot's tab, found {len(tabs)}"
    return tabs[0]
