"""The profile of the evaluation's steps (scripts/profile_guarantees.py): time goes to the innermost
step running, the processes under this one are told apart from the browser's, and on real pages
with real Chromium the rows add up to the whole run as read without the profiler."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest
from scripts_support import load_script

BUSY = "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}: pass\n"


def _profile() -> ModuleType:
    return load_script("profile_guarantees")


def _spin(seconds: float) -> None:
    started = time.process_time()
    while time.process_time() - started < seconds:
        pass


def test_time_goes_to_the_innermost_step_and_waiting_is_idle() -> None:
    prof = _profile()
    clock = prof.StepClock()
    clock.switch()
    with clock.step("outer", "outer"):
        _spin(0.2)
        with clock.step("inner", "inner"):
            _spin(0.3)
            time.sleep(0.3)
        _spin(0.1)
    clock.switch()
    outer, inner = clock.rows["outer"], clock.rows["inner"]
    assert outer.count == inner.count == 1
    assert outer.python_cpu_s == pytest.approx(0.3, abs=0.08)
    assert inner.python_cpu_s == pytest.approx(0.3, abs=0.08)
    assert inner.wall_s >= 0.55 and outer.wall_s >= 0.25
    # The sleep used no CPU: idle wall (so is the time a busy machine kept the spinning off a CPU).
    assert inner.idle_wall_s >= 0.25
    assert set(clock.rows) == {"outer", "inner", prof.BETWEEN}  # before and after the steps


@pytest.mark.parametrize(
    ("as_browser", "reaped"), [(True, False), (False, False), (False, True)], ids=["browser", "driver", "reaped"]
)
def test_processes_under_this_one_are_the_browsers_or_the_drivers(as_browser: bool, reaped: bool) -> None:
    """A child process that spins is counted while it runs, and after this process reaped it (in
    its children's times, as the driver's: the browser is the driver's child, never reaped by this
    process while the profile runs); under the browser's pid it is the browser's, else the driver's."""
    prof = _profile()
    clock = prof.StepClock()
    child = subprocess.Popen([sys.executable, "-c", BUSY.format(s=0.4) + "time.sleep(30)"])
    try:
        if as_browser:
            clock.browser_pid = child.pid
        clock.switch()
        with clock.step("child", "child"):
            deadline = time.monotonic() + 20
            while prof._stat(str(child.pid))[1] < 0.4 and time.monotonic() < deadline:
                time.sleep(0.05)
            if reaped:
                child.kill()
                child.wait()
    finally:
        child.kill()
        child.wait()
    clock.switch()
    row = clock.rows["child"]
    counted, other = (row.browser_cpu_s, row.driver_cpu_s) if as_browser else (row.driver_cpu_s, row.browser_cpu_s)
    assert counted >= 0.35, (as_browser, row)
    assert other < 0.05, (as_browser, row)
    assert row.python_cpu_s < 0.2


def test_real_pages_add_up_to_the_whole_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "profile.json"
    assert _profile().main(["--examples", "2", "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert figures["statuses"] == {"ok": 2}
    steps = {row["step"]: row for row in figures["steps"]}
    total, whole = figures["total"], figures["whole"]
    for key in ("wall_s", "browser_cpu_s", "driver_cpu_s", "python_cpu_s", "idle_wall_s"):
        assert sum(row[key] for row in steps.values()) == pytest.approx(total[key])
    cpu = total["browser_cpu_s"] + total["driver_cpu_s"] + total["python_cpu_s"]
    # The rows (and the profiler's reading of /proc) are the whole loop as psutil reads it.
    assert cpu + figures["profiler_overhead_cpu_s"] == pytest.approx(whole["cpu_s"], abs=0.05 + 0.05 * cpu)
    assert total["wall_s"] == pytest.approx(whole["wall_s"], rel=0.02)
    # Every step of each sample is a named row: what falls outside them is a sliver.
    rest = steps["sample: rest (probes, check order, observation)"]
    assert rest["cpu_share"] < 0.05
    assert rest["wall_s"] < 0.1 * total["wall_s"]  # the late audit's wait, say, is a step's
    assert steps.get("between samples", {"cpu_share": 0.0})["cpu_share"] < 0.02
    for step in (
        "sample: context and tab (pool)",
        "load (first render)",
        "first axe audit (frames, closed shadow roots)",
        "conditions: dark scheme + reduced motion (prints, settles, audits)",
        "conditions: phone tab load (390x844, coarse pointer)",
        "visitor's walk (keyboard, pointer, opens)",
    ):
        assert steps[step]["count"] == 2, step
    assert sum(row["count"] for row in figures["checks"]) >= 2
    # The renderer does the work of a load, not the driver or this process.
    load = steps["load (first render)"]
    assert load["browser_cpu_s"] > max(load["driver_cpu_s"], load["python_cpu_s"])
    assert load["renderer_cpu_s"] > 0 and load["browser_main_cpu_s"] > 0
    assert load["renderer_cpu_s"] + load["browser_main_cpu_s"] <= load["browser_cpu_s"] + 1e-9
    assert 20 < figures["plain_script"]["cpu_ms_per_page"] < 60_000
    printed = capsys.readouterr().out
    assert "plain script on the same pages" in printed
    assert "idle wall" in printed
