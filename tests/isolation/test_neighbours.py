"""One sample never changes another: a departing document's handlers, timers and traces stay
with it, whatever it does as it goes.

Each victim is scored alone first; then, with one slot, right after every poisoning page (queued,
so it loads on the renderer the poison just left), first and last in the batch, ``ROUNDS`` times.
Its record must be the same every time, no evaluation may run past its budget, and the browser
must leave no process behind.
"""

from __future__ import annotations

import time

import pytest

from isolation.support import (
    BUDGET_S,
    GRACE_S,
    PAGES,
    ROUNDS,
    browser_tree,
    closed_without_leftovers,
    engine_page,
    in_order,
    login_case,
    page,
    run,
    verdict_record,
)
from lm_eval_a11y.cases import Case
from lm_eval_a11y.engine.evaluator import AsyncEvaluator, EvaluatorSettings

# Departure attacks: handlers of the events a leaving document gets, and work that is running
# or falls due at the moment we leave.
POISONS = sorted(p.name for p in PAGES.glob("*.html") if not p.name.startswith(("memory-", "runaway-")))


def victims() -> list[tuple[str, Case | None, str]]:
    case, html = login_case()
    return [
        ("clean page", None, engine_page("clean-page.html")),
        ("failing page", None, engine_page("unlabeled-input-and-image.html")),
        ("login-form pass", case, html),
    ]


def test_the_poison_pages_are_all_here() -> None:
    """Control: the suite runs every class of departure attack the pages folder holds."""
    assert len(POISONS) >= 12, POISONS
    for needed in ("pagehide", "unload", "beforeunload", "visibilitychange", "freeze", "microtask", "long-task"):
        assert any(needed in name for name in POISONS), needed


@pytest.mark.timeout(600)
def test_a_victim_after_any_poison_gets_the_verdict_it_gets_alone() -> None:
    async def scenario() -> None:
        ev = AsyncEvaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=BUDGET_S))
        await ev.start()
        pids = await browser_tree(ev)
        try:
            alone = {}
            for label, case, html in victims():
                obs = await ev.evaluate(case, html)
                assert obs.status == "ok", (label, obs.error)
                alone[label] = verdict_record(obs)
            # The controls: the verdicts differ, so a changed verdict would show.
            assert alone["clean page"]["passed"] and alone["login-form pass"]["passed"]
            assert not alone["failing page"]["passed"]
            cast = victims()
            for round_ in range(ROUNDS):
                batch: list[tuple[str, Case | None, str]] = [cast[round_ % len(cast)]]
                for index, name in enumerate(POISONS):
                    batch.append((name, None, page(name)))
                    batch.append(cast[(index + round_) % len(cast)])
                batch.append(cast[(round_ + 1) % len(cast)])
                started = time.perf_counter()
                observations = await in_order(ev, [(case, html) for _, case, html in batch])
                elapsed = time.perf_counter() - started
                assert len(observations) == len(batch), "a result was lost"
                for position, ((label, _, _), obs) in enumerate(zip(batch, observations, strict=True)):
                    assert obs.timings.total_ms < (BUDGET_S + GRACE_S) * 1000, (label, obs.timings)
                    if label in alone:
                        before = batch[position - 1][0] if position else "nothing"
                        assert verdict_record(obs) == alone[label], f"{label} after {before}, round {round_}"
                assert elapsed < len(batch) * (BUDGET_S + GRACE_S)
                pids |= await browser_tree(ev)
        finally:
            left = await closed_without_leftovers(ev, pids)
        assert not left, f"Chromium processes left behind: {sorted(left)}"

    run(scenario())


@pytest.mark.parametrize("name", ["pagehide-traces.html", "beforeunload-asks.html", "unload-navigates.html"])
def test_traces_of_a_departing_document_belong_to_no_sample(name: str) -> None:
    """The poison's own record shows none of its departure traces either: its handlers never ran
    (a pagehide alert used to appear as "the page opened 1 dialogs" on the page after it)."""

    async def scenario() -> None:
        ev = AsyncEvaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=BUDGET_S))
        try:
            poison, victim = await in_order(ev, [(None, page(name)), (None, engine_page("clean-page.html"))])
        finally:
            await ev.close()
        for obs in (poison, victim):
            assert obs.status == "ok", obs.error
            events = obs.events
            assert (events.console_errors, events.page_errors, events.blocked_requests) == ((), (), ())
            assert (events.blocked_navigations, events.popup_urls, events.dialogs, events.popups) == ((), (), 0, 0)

    run(scenario())


def test_a_departure_that_does_not_finish_costs_the_slot_its_renderer_not_the_next_sample() -> None:
    """A page busy in a script when we leave (here: 400 ms tasks back to back, then a loop that
    never ends) holds the renderer; the next sample gets a new one and its ordinary verdict."""
    spinning = page("long-task-when-leaving.html").replace("while (performance.now() < end) {}", "for (;;) {}")
    assert spinning != page("long-task-when-leaving.html")

    async def scenario() -> None:
        ev = AsyncEvaluator(EvaluatorSettings(concurrency=1, waiting_slots=0, timeout_s=BUDGET_S))
        try:
            clean = engine_page("clean-page.html")
            alone = verdict_record(await ev.evaluate(None, clean))
            for _ in range(3):
                started = time.perf_counter()
                poison, victim = await in_order(ev, [(None, spinning), (None, clean)])
                assert verdict_record(victim) == alone
                assert victim.timings.total_ms < BUDGET_S * 1000
                assert time.perf_counter() - started < 2 * (BUDGET_S + GRACE_S)
                # The poison spins 450 ms after load: it times out or ends before its first spin.
                assert poison.status in ("ok", "timeout"), poison.error
        finally:
            await ev.close()

    run(scenario())
