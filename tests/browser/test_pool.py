"""The pool outlives its browser: a killed Chromium costs one sample an error, then a new one starts."""

from __future__ import annotations

import psutil

from browser.support import page
from lm_eval_a11y.evaluator import Evaluator, EvaluatorSettings


def _browser_processes() -> list[psutil.Process]:
    """Live Chromium browser processes (not renderers) under this test process."""
    found = []
    for p in psutil.Process().children(recursive=True):
        try:
            if "chrom" in p.name() and not any(a.startswith("--type=") for a in p.cmdline()):
                found.append(p)
        except (psutil.ZombieProcess, psutil.NoSuchProcess):
            continue  # a browser closed a moment ago and not yet reaped
    return found


def test_a_killed_browser_is_replaced_and_the_batch_goes_on() -> None:
    normal = page("normal-page.html")
    # Session fixtures of other tests may have browsers of their own running: count only ours.
    others = {p.pid for p in _browser_processes()}
    with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=20)) as ev:
        assert ev.evaluate(None, normal).status == "ok"
        browsers = [p for p in _browser_processes() if p.pid not in others]
        assert len(browsers) == 1
        browsers[0].kill()
        browsers[0].wait(10)
        first, *rest = ev.evaluate_many([(None, normal)] * 3)
        # The sample that meets the dead browser says so; the ones after it are evaluated.
        assert first.status in ("ok", "error")
        if first.status == "error":
            assert first.error is not None and "closed" in first.error
        assert [o.status for o in rest] == ["ok", "ok"]
        assert all("image-alt" in o.axe.failing_rule_ids() for o in rest)
        (new_browser,) = [p for p in _browser_processes() if p.pid not in others]
        assert new_browser.pid != browsers[0].pid
