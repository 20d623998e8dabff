"""``a11y-eval doctor``: proves the browser and axe-core work and says what holds the memory ceiling."""

from __future__ import annotations

import re

from cli.support import run_script


def test_doctor_renders_a_page_and_names_the_memory_ceiling() -> None:
    done = run_script(["doctor"])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "ok: Chromium renders pages and axe-core finds violations"
    (memory,) = [line for line in lines if line.startswith("memory ")]
    assert re.fullmatch(r"memory +browser ceiling kept by (cgroup v[12]|watchdog) \(.+; docs/isolation\.md\)", memory)
