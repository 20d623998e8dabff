"""``a11y-eval rescore`` on damaged runs: the file and line named, exit 2, no traceback, and no
empty ``rescored-<time>/`` folder left behind; and a re-score written inside the run folder is
never taken as the run's newest samples. No browser: ``--from-observations`` (and refused input
never reaches the browser)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cli.support import ROOT, usage_error
from lm_eval_a11y.cli import EXIT_OK, main
from lm_eval_a11y.records import newest_samples_by_task

RUN = ROOT / "tests" / "fixtures" / "runs" / "model-b"


@pytest.fixture()
def run_dir(tmp_path: Path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(RUN, target)
    return target


def _samples_file(run_dir: Path) -> Path:
    (path,) = run_dir.rglob("samples_*.jsonl")
    return path


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, samples: list[dict[str, Any]], tail: str = "") -> None:
    path.write_text("".join(json.dumps(s) + "\n" for s in samples) + tail, encoding="utf-8")


def _no_output_left(run_dir: Path) -> None:
    assert not [p for p in run_dir.rglob("rescored-*")], "no folder may be left behind"


@pytest.mark.parametrize("mode", [[], ["--from-observations"], ["--reextract"]])
def test_a_truncated_line(run_dir: Path, capsys: pytest.CaptureFixture[str], mode: list[str]) -> None:
    path = _samples_file(run_dir)
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) - 200], encoding="utf-8")  # killed while writing the last line
    count = len(text.splitlines())
    line = usage_error(["rescore", str(run_dir), *mode], capsys)
    assert line.startswith(f"a11y-eval rescore: error: {path}, line {count} is not valid JSON (the line is cut off")
    _no_output_left(run_dir)


@pytest.mark.parametrize("bad", ["yes", {"schema": "other"}, 3])
def test_filtered_resps_that_are_not_records(run_dir: Path, capsys: pytest.CaptureFixture[str], bad: object) -> None:
    path = _samples_file(run_dir)
    samples = _lines(path)
    samples[1]["filtered_resps"] = [[bad if not isinstance(bad, dict) else json.dumps(bad)]] if bad != 3 else 3
    _write(path, samples)
    line = usage_error(["rescore", str(run_dir), "--from-observations"], capsys)
    assert line.startswith(f"a11y-eval rescore: error: {path}, line 2: ")
    assert "sample record" in line or "schema" in line, line
    _no_output_left(run_dir)


def test_a_missing_doc(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _samples_file(run_dir)
    samples = _lines(path)
    del samples[2]["doc"]
    _write(path, samples)
    line = usage_error(["rescore", str(run_dir), "--from-observations"], capsys)
    assert line == f"a11y-eval rescore: error: {path}, line 3 has no 'doc' (the dataset row), so its case is unknown"
    _no_output_left(run_dir)


def test_a_line_that_is_not_an_object(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _samples_file(run_dir)
    _write(path, _lines(path), tail="[1, 2]\n")
    count = len(path.read_text().splitlines())
    line = usage_error(["rescore", str(run_dir), "--from-observations"], capsys)
    assert line == f"a11y-eval rescore: error: {path}, line {count} is not an lm-eval sample (a JSON object)"
    _no_output_left(run_dir)


def test_a_rescore_inside_the_run_is_not_the_newest_run(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    original = _samples_file(run_dir)
    inside = run_dir / "again"
    assert main(["rescore", str(run_dir), "--from-observations", "--out", str(inside)]) == EXIT_OK
    (written,) = inside.glob("samples_*.jsonl")
    assert written.name > original.name, "its time stamp is newer than the run's"
    assert newest_samples_by_task(run_dir) == {"a11y_html": original}
    capsys.readouterr()
    assert main(["rescore", str(run_dir), "--from-observations"]) == EXIT_OK
    assert f"from {original}" in capsys.readouterr().out
    # Given on its own, a re-score output is still found.
    assert newest_samples_by_task(inside) == {"a11y_html": written}
