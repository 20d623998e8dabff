"""A settle returns only once the page's end-of-animation handlers have run, on a starved machine
too.

An animation that has ended by the clock leaves ``document.getAnimations()`` before Chromium
dispatches its ``transitionend`` (with the next animation frame). When the renderer gets no CPU
across an animation's end, its timers and its next frame are both late, the timer runs first, and
a settle that trusted the list alone read the page before the end handler ran: focus not yet
moved, a value not yet committed. Here the renderer is stopped outright (SIGSTOP) for 200 ms in
every 350 ms, a harsher and repeatable version of a machine at load 15.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from pathlib import Path

import pytest

from browser.support import ROOMY_BUDGET_S, fixture_case, page
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings

# Where focus is after each of the fixture's presses: the field once the panel has slid open,
# the trigger once it has slid shut.
EXPECTED = " ".join(["field", "trigger"] * 4)


def _renderers(browser: int) -> list[int]:
    """The renderer processes below ``browser`` (through the zygotes), from /proc."""
    found, todo = [], [browser]
    while todo:
        pid = todo.pop()
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            for task in Path(f"/proc/{pid}/task").iterdir():
                todo.extend(int(child) for child in (task / "children").read_text().split())
        except OSError:
            continue
        if b"--type=renderer" in cmdline:
            found.append(pid)
    return found


class _Starver:
    """Stops the browser's renderers for `hold_s` in every `period_s`, on a thread of its own."""

    def __init__(self, browser: int, hold_s: float = 0.2, period_s: float = 0.35) -> None:
        self.browser = browser
        self.hold_s = hold_s
        self.period_s = period_s
        self.stops = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._done.is_set():
            stopped = []
            for pid in _renderers(self.browser):
                try:
                    os.kill(pid, signal.SIGSTOP)
                    stopped.append(pid)
                except ProcessLookupError:
                    pass
            self.stops += bool(stopped)
            self._done.wait(self.hold_s)
            for pid in stopped:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
            self._done.wait(self.period_s - self.hold_s)

    def __enter__(self) -> _Starver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()


@pytest.mark.parametrize(
    "slide",
    [
        ".3s",
        # Shorter than the settle's first wait (two frames and 50 ms): the slide ends while that
        # wait runs, and leaves getAnimations() by the clock before its transitionend is
        # dispatched, so only a watch begun with the settle knows an end event is on its way.
        ".04s",
    ],
)
def test_focus_moved_on_transitionend_is_read_after_a_starved_frame(slide: str) -> None:
    html = page("focus-on-transitionend.html").replace("max-height .3s", f"max-height {slide}")
    assert f"max-height {slide}" in html
    case = fixture_case("fixtureendfocus")
    with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=ROOMY_BUDGET_S)) as ev:
        # Unstarved, the page reads as expected: the test's own baseline.
        calm = ev.evaluate(case, html)
        assert calm.status == "ok", calm.error
        assert calm.checks[0].message.partition(" | ")[0] == EXPECTED, calm.checks[0].message
        (browser,) = [pid for pid, kind in ev.browser_processes() if kind == "browser"]
        with _Starver(browser) as starver:
            starved = [ev.evaluate(case, html) for _ in range(3)]
    assert starver.stops >= 10, starver.stops
    for obs in starved:
        assert obs.status == "ok", obs.error
        (check,) = obs.checks
        assert check.outcome == "pass", check.message
        assert check.message.partition(" | ")[0] == EXPECTED, check.message
