"""``a11y-eval score``: verdicts, exit codes, JSON, standard input, screenshots, environment errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from browser.support import PAGES
from lm_eval_a11y import resources
from lm_eval_a11y.cli import main
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.resources import cases_dir

FAILING = str(PAGES / "unlabeled-input-and-image.html")
CLEAN = str(PAGES / "clean-page.html")


def test_failing_page_names_its_rules_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", FAILING]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"FAIL  {FAILING}")
    assert "axe  label (critical; WCAG 4.1.2" in out
    assert "axe  image-alt (critical; WCAG 1.1.1" in out
    assert "0 of 1 file(s) passed" in out


def test_clean_page_passes_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", CLEAN]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"PASS  {CLEAN}")
    assert "axe  " not in out
    assert "1 of 1 file(s) passed" in out


def test_mixed_files_json_and_screenshots(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    shots = tmp_path / "shots"
    assert main(["score", CLEAN, FAILING, "--json", "--screenshots", str(shots)]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [d["file"] for d in doc] == [CLEAN, FAILING]
    assert [d["verdict"] for d in doc] == ["pass", "fail"]
    assert doc[0]["reasons"] == []
    assert any(r.startswith("axe label:") for r in doc[1]["reasons"])
    observations = [Observation.from_dict(d["observation"]) for d in doc]
    assert observations[1].axe.failing_rule_ids() == ("image-alt", "label")
    assert observations[1].environment is not None and observations[1].environment.viewport == (1280, 800)
    pngs = sorted(shots.glob("*.png"))
    assert [p.name for p in pngs] == ["000-clean-page.png", "001-unlabeled-input-and-image.png"]
    for png in pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [o.screenshot for o in observations] == [str(p) for p in pngs]


def test_stdin_with_a_case_runs_its_checks() -> None:
    """Through the installed console script, reading the page from standard input."""
    example = cases_dir() / "disclosure" / "examples" / "fail-mouse-only.html"
    script = Path(sys.executable).with_name("a11y-eval")
    done = subprocess.run(
        [str(script), "score", "-", "--case", "disclosure"],
        input=example.read_text(encoding="utf-8"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("FAIL  stdin  [case disclosure]")
    assert "R  fail  keyboard-toggles:" in done.stdout
    # The example's own expectations: a real button that only reacts to the mouse.
    assert "R  pass  trigger-is-button:" in done.stdout
    assert "  best practices (not counted): " in done.stdout, "summed up in one line without --verbose"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["score", "no/such/page.html"], "no such file: no/such/page.html"),
        (["score", CLEAN, "--case", "no-such-case"], "unknown case 'no-such-case'"),
        (["score", "-", "-"], "can be given only once"),
    ],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as stop:
        code = main(argv)
        raise SystemExit(code)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_missing_chromium_exits_3_with_the_fix(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("a11y-eval")
    env = {**os.environ, "A11Y_CHROMIUM": str(tmp_path / "no-chromium")}
    done = subprocess.run(
        [str(script), "score", CLEAN], capture_output=True, text=True, timeout=60, check=False, env=env
    )
    assert done.returncode == 3
    assert "is not an executable file" in done.stderr
    assert "apt-get install -y chromium" in done.stderr


def test_missing_axe_exits_3_with_the_fix(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(resources, "_ASSETS", tmp_path / "assets")
    monkeypatch.setattr(resources, "_CHECKOUT", tmp_path / "checkout")
    assert main(["score", CLEAN]) == 3
    assert "npm ci --prefix evaluator" in capsys.readouterr().err
