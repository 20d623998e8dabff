"""The memory watchdog's own kill (lm_eval_a11y/engine/memory.py), in a real browser.

Where the browser runs in a memory cgroup, the kernel stops a bomb at the cgroup's ceiling
whatever the watchdog does, and a test that accepts any "memory limit" error cannot tell who
acted. Here the renderer's limit is far below the cgroup's ceiling and the page stops growing
between the two: only the watchdog can end it, and the reason it gives is its own. Run with the
cgroup (where this machine gives one) and without it, each asserting which ceiling applied.
"""

from __future__ import annotations

import pytest

from isolation.support import (
    browser_tree,
    closed_without_leftovers,
    engine_page,
    memory_cgroup_missing,
    run,
    verdict_record,
)
from lm_eval_a11y.engine.evaluator import AsyncEvaluator, EvaluatorSettings
from lm_eval_a11y.engine.settings import CEILING_HEADROOM_MB

RENDERER_MB = 256
BROWSER_MB = 2048
GROWS_TO_MB = 768
# ArrayBuffer contents live outside the JavaScript heap and its cap: 32 MiB at a time up to
# GROWS_TO_MB, then the page holds what it has. Far above the renderer's limit, far below the
# cgroup's ceiling (BROWSER_MB + CEILING_HEADROOM_MB).
GROWING_PAGE = f"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Grows</title></head>
<body>
<main><h1>Grows to {GROWS_TO_MB} MiB</h1><p id="held">0 MiB</p></main>
<script>
  const kept = [];
  const grow = () => {{
    if (kept.length * 32 >= {GROWS_TO_MB}) return;
    const bytes = new Uint8Array(32 * 1024 * 1024);
    bytes.fill(kept.length + 1);
    kept.push(bytes);
    document.getElementById('held').textContent = `${{kept.length * 32}} MiB`;
    setTimeout(grow, 20);
  }};
  grow();
</script>
</body>
</html>
"""
NO_CGROUP = memory_cgroup_missing()


@pytest.mark.parametrize(
    "memory_cgroup",
    [pytest.param(True, id="with-the-cgroup-where-there-is-one"), pytest.param(False, id="watchdog-only")],
)
def test_a_renderer_over_its_limit_is_killed_by_the_watchdog_below_the_cgroup_ceiling(memory_cgroup: bool) -> None:
    assert GROWS_TO_MB < BROWSER_MB + CEILING_HEADROOM_MB - 512, "the page must stay far below the cgroup's ceiling"
    clean = engine_page("clean-page.html")

    async def scenario() -> None:
        settings = EvaluatorSettings(
            concurrency=1,
            waiting_slots=0,
            timeout_s=20.0,
            renderer_memory_mb=RENDERER_MB,
            browser_memory_mb=BROWSER_MB,
            memory_cgroup=memory_cgroup,
        )
        ev = AsyncEvaluator(settings)
        await ev.start()
        pids = await browser_tree(ev)
        try:
            jail = ev.memory_jail
            before = verdict_record(await ev.evaluate(None, clean))
            grown = await ev.evaluate(None, GROWING_PAGE)
            after = verdict_record(await ev.evaluate(None, clean))
            kernel_kills = jail.oom_kills() if jail is not None else 0
            pids |= await browser_tree(ev)
        finally:
            left = await closed_without_leftovers(ev, pids)
        assert grown.environment is not None
        ceiling = grown.environment.memory_ceiling
        # Which path ran: the cgroup where asked for and this machine gives one, else the watchdog.
        if memory_cgroup and NO_CGROUP is None:
            assert ceiling in ("cgroup v1", "cgroup v2"), ceiling
        else:
            assert ceiling == "watchdog", (ceiling, NO_CGROUP)
        assert grown.status == "error", (grown.status, grown.error)
        assert grown.error is not None
        # The watchdog's reason (the renderer's size), not the kernel's ("reached its ceiling").
        assert "its renderer was killed (the renderer held" in grown.error, grown.error
        assert "kernel" not in grown.error, grown.error
        assert kernel_kills == 0, "the kernel stopped a process: the watchdog did not act first"
        # The next sample gets a renderer of its own and the verdict it got before.
        assert after == before
        assert not left, f"Chromium processes left behind: {sorted(left)}"

    run(scenario())
