"""The memory watchdog's decisions, on made-up readings (no process is touched: kills go to a
pid that the test owns as a fake and os.kill is replaced)."""

from __future__ import annotations

import itertools

import pytest

from lm_eval_a11y.engine.memory import MemoryWatchdog

MiB = 2**20


async def _none() -> list[tuple[int, str]]:
    return []


def _watchdog(sizes: dict[int, list[int]], kinds: dict[int, str]) -> MemoryWatchdog:
    readings = {pid: iter(values) for pid, values in sizes.items()}
    watchdog = MemoryWatchdog(
        processes=_none,
        renderer_bytes=512 * MiB,
        browser_bytes=1024 * MiB,
        read=lambda pid: next(readings[pid], None),
    )
    watchdog._known = list(kinds.items())
    return watchdog


@pytest.fixture
def killed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    pids: list[int] = []
    monkeypatch.setattr("lm_eval_a11y.engine.memory.os.kill", lambda pid, _sig: pids.append(pid))
    clock = itertools.count()
    # Readings 0.05 s apart, whatever the machine does meanwhile.
    monkeypatch.setattr("lm_eval_a11y.engine.memory.time.monotonic", lambda: next(clock) * 0.05)
    return pids


def test_a_renderer_over_its_limit_is_killed(killed: list[int]) -> None:
    watchdog = _watchdog({1: [600 * MiB], 2: [100 * MiB]}, {1: "renderer", 2: "renderer"})
    watchdog.check()
    assert killed == [1]
    assert watchdog.kills[0].reason == "the renderer held 600 MiB"


def test_a_renderer_growing_towards_its_limit_is_killed_before_it_passes_it(killed: list[int]) -> None:
    # 300 MiB, then 450 MiB: at that pace it holds 600 MiB at the next reading.
    watchdog = _watchdog({1: [300 * MiB, 450 * MiB]}, {1: "renderer"})
    watchdog._close = True
    watchdog.check()
    assert killed == []
    watchdog.check()
    assert killed == [1]
    assert "growing fast enough to pass 512 MiB" in watchdog.kills[0].reason


def test_a_steady_renderer_below_its_limit_is_left_alone(killed: list[int]) -> None:
    watchdog = _watchdog({1: [400 * MiB, 400 * MiB, 401 * MiB]}, {1: "renderer"})
    for _ in range(3):
        watchdog.check()
    assert killed == []


def test_the_browser_limit_kills_the_largest_until_the_course_is_below_it(killed: list[int]) -> None:
    # Three renderers each growing by 100 MiB a reading: 900 MiB now, 1200 MiB at the next one.
    sizes = {1: [200 * MiB, 300 * MiB], 2: [150 * MiB, 250 * MiB], 3: [250 * MiB, 350 * MiB], 9: [0, 0]}
    watchdog = _watchdog(sizes, {1: "renderer", 2: "renderer", 3: "renderer", 9: "browser"})
    watchdog._close = True
    watchdog.check()
    assert killed == []
    watchdog.check()
    assert killed == [3]
    assert "on course for 1,200 MiB" in watchdog.kills[0].reason


def test_the_browser_process_itself_is_never_killed(killed: list[int]) -> None:
    watchdog = _watchdog({9: [2000 * MiB]}, {9: "browser"})
    watchdog.check()
    assert killed == []
