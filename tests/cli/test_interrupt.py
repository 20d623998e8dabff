"""Ctrl-C during ``a11y-eval score``: one line "interrupted", exit 130, no traceback, and no browser
process of ours left behind. A real SIGINT to a real subprocess, both as a terminal sends it (to
the whole process group: Python, Playwright's driver and Chromium at once) and to Python alone."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import psutil
import pytest

from cli.support import PAGES, ROOT, SCRIPT
from lm_eval_a11y.cli import EXIT_INTERRUPTED


@pytest.mark.parametrize("target", ["process-group", "python-only"])
def test_ctrl_c_prints_one_line_and_exits_130(target: str) -> None:
    # A page that never finishes, with a long budget, keeps the run busy until the signal.
    pages = [str(PAGES / "loop-in-script.html")] * 4 + [str(p) for p in sorted(PAGES.glob("*.html"))[:6]]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [str(SCRIPT), "score", *pages, "--timeout", "120"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell job has
        env=env,
    )
    try:
        me = psutil.Process(proc.pid)
        deadline = time.monotonic() + 90
        browser: list[psutil.Process] = []
        while time.monotonic() < deadline and not browser:
            time.sleep(0.2)
            browser = [p for p in me.children(recursive=True) if "chrom" in p.name()]
        assert browser, "Chromium never started"
        time.sleep(1.0)  # pages are loading and the looping ones are spinning
        ours = me.children(recursive=True)
        if target == "process-group":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == EXIT_INTERRUPTED
    assert err == "interrupted\n"
    assert "PASS" not in out and "FAIL" not in out, "nothing is reported for an interrupted run"
    _, alive = psutil.wait_procs(ours, timeout=20)
    assert not alive, f"left behind: {[(p.pid, p.name()) for p in alive]}"
