"""Helpers of the CLI tests: run ``a11y-eval`` in-process or as the installed console script."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from lm_eval_a11y.cli import EXIT_USAGE, main

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "tests" / "pages"
CLEAN = PAGES / "clean-page.html"
FAILING = PAGES / "unlabeled-input-and-image.html"
SCRIPT = Path(sys.executable).with_name("a11y-eval")


def usage_error(argv: Sequence[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one stderr line of a usage error (exit 2); fails the test on anything else."""
    with pytest.raises(SystemExit) as stop:
        code = main(list(argv))
        pytest.fail(f"expected a usage error, got exit code {code}")
    assert stop.value.code == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 or lines[0].startswith("usage:"), captured.err
    assert "Traceback" not in captured.err
    return lines[-1]


def run_script(
    args: Sequence[str], *, stdin: str | None = None, shell: str | None = None, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """The installed console script as a user runs it (``shell``: a bash command line instead,
    with ``a11y-eval`` on its PATH)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{SCRIPT.parent}:{os.environ.get('PATH', '')}"}
    command: list[str] = ["bash", "-c", shell] if shell is not None else [str(SCRIPT), *args]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=timeout, check=False, env=env)
