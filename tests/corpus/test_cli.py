"""``a11y-eval corpus``: usage errors, a filter run, a run killed with SIGKILL half way and resumed,
the Ray executor, JSON Lines and saved datasets. Real Chromium, axe-core, datatrove and Ray.

The runs use the installed console script in a subprocess, as a user does. The reference run
(16 rows, 4 tasks, batches of 2) is shared by the tests that compare against it.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from cli.support import SCRIPT, run_script, usage_error

from corpus.support import (
    BAD_ROWS,
    ROOT,
    clean,
    corpus_rows,
    failing,
    kill_half_way,
    read_rows,
    write_jsonl,
    write_parquet,
)
from lm_eval_a11y.corpus import PageScore
from lm_eval_a11y.corpus.run import RUN_FOLDER

FILTER = ["filter", "--tasks", "4", "--batch-size", "2", "--concurrency", "2"]
EXPECTED_STATUS = {2: "missing", 5: "empty", 6: "empty", 12: "not_html", 13: "not_html", 14: "not_html", 15: "not_html"}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_parquet(tmp_path_factory.mktemp("corpus") / "pages.parquet", corpus_rows())


@pytest.fixture(scope="module")
def reference(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """An uninterrupted ``filter`` run: its OUTPUT and its standard output."""
    out = tmp_path_factory.mktemp("reference") / "out"
    # Two tasks at a time here, one at a time in the run that is killed: the rows must not differ.
    done = run_script(["corpus", *FILTER[:1], str(corpus), str(out), *FILTER[1:], "--workers", "2"])
    assert done.returncode == 0, done.stderr[-3000:]
    return out, done.stdout


def _dropped(out: Path) -> Path:
    return out.with_name(out.name + "-dropped")


def test_a_filter_run_writes_every_row_once_with_its_scores(reference: tuple[Path, str]) -> None:
    out, stdout = reference
    kept, dropped = read_rows(out), read_rows(_dropped(out))
    # Task r reads rows r, r+4, r+8, r+12: tasks 0 and 2 keep none of theirs.
    assert sorted(p.name for p in out.glob("*.parquet")) == ["00001.parquet", "00003.parquet"]
    assert sorted(p.name for p in _dropped(out).glob("*.parquet")) == [f"{rank:05d}.parquet" for rank in range(4)]
    ids = sorted(r["id"] for r in kept + dropped)
    assert ids == [f"row-{i:03d}" for i in range(16)], "every row exactly once"
    for row in kept + dropped:
        assert set(row) == {"id", "html", "n", *PageScore.record_keys()}
        assert row["a11y_status"] == EXPECTED_STATUS.get(row["n"], "ok")
        assert row["html"] == corpus_rows()[row["n"]]["html"], "the row as read"
    assert {r["n"] for r in kept} == {1, 3, 7, 9, 11}
    assert all(r["a11y_pass"] and r["a11y_score"] == 1.0 for r in kept)
    failed = [r for r in dropped if r["a11y_status"] == "ok"]
    assert {r["n"] for r in failed} == {0, 4, 8, 10} and all(
        r["a11y_axe_rules"] == ["image-alt", "label"] for r in failed
    )
    assert all(r["a11y_error"] for r in dropped if r["a11y_status"] != "ok")
    assert "16 rows in, 5 kept (passing)" in stdout and "11 dropped" in stdout
    assert "image-alt 4, label 4" in stdout
    assert "missing 1" in stdout and "not_html 4" in stdout and "empty 2" in stdout


def test_a_run_killed_half_way_resumes_to_exactly_the_rows_of_an_uninterrupted_run(
    corpus: Path, reference: tuple[Path, str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    argv = [str(SCRIPT), "corpus", "filter", str(corpus), str(out), *FILTER[1:]]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    finished = kill_half_way(argv, out, env)

    again = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"{len(finished)} of 4 tasks had completed" in again.stdout
    ref_out, ref_stdout = reference
    assert read_rows(out) == read_rows(ref_out), "the kept rows, file by file, row by row"
    assert read_rows(_dropped(out)) == read_rows(_dropped(ref_out))
    assert again.stdout.splitlines()[-4:] == [
        line.replace(str(ref_out), str(out)) for line in ref_stdout.splitlines()[-4:]
    ]


def test_the_ray_executor_writes_the_rows_of_the_local_one(
    corpus: Path, reference: tuple[Path, str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    done = run_script(["corpus", "filter", str(corpus), str(out), *FILTER[1:], "--executor", "ray", "--workers", "2"])
    assert done.returncode == 0, done.stderr[-3000:] + (out / RUN_FOLDER / "pipeline.log").read_text()[-3000:]
    ref_out, _ = reference
    assert read_rows(out) == read_rows(ref_out)
    assert read_rows(_dropped(out)) == read_rows(_dropped(ref_out))


def test_json_lines_and_saved_datasets_are_scored_in_their_own_format(tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [
        {"html": clean(1), "k": 1},
        {"html": failing(2), "k": 2},
        {"html": None, "k": 3},
        {"html": 7, "k": 4},
        {"k": 5},
    ]
    jsonl = write_jsonl(tmp_path / "in" / "pages.jsonl", rows)
    out = tmp_path / "out"
    done = run_script(["corpus", "score", str(jsonl), str(out), "--tasks", "2", "--concurrency", "2"])
    assert done.returncode == 0, done.stderr[-3000:]
    written = sorted(read_rows(out), key=lambda r: r["k"])
    assert sorted(p.name for p in out.glob("*.jsonl")) == ["00000.jsonl", "00001.jsonl"]
    assert [r["a11y_status"] for r in written] == ["ok", "ok", "missing", "not_text", "missing"]
    assert [r["a11y_pass"] for r in written] == [True, False, False, False, False]

    import datasets

    saved = tmp_path / "saved"
    datasets.Dataset.from_list([{"page": clean(3)}, {"page": BAD_ROWS[3][0]}]).save_to_disk(str(saved))
    out = tmp_path / "out-saved"
    done = run_script(["corpus", "score", str(saved), str(out), "--column", "page", "--tasks", "1"])
    assert done.returncode == 0, done.stderr[-3000:]
    assert [(r["page"] == clean(3), r["a11y_status"]) for r in read_rows(out)] == [(True, "ok"), (False, "not_html")]
    assert (out / "00000.parquet").is_file()


def test_a_task_that_fails_is_reported_with_its_error_and_left_to_resume(tmp_path: Path) -> None:
    # A browser that cannot start: the task fails, and the run says so instead of a summary.
    broken = tmp_path / "chromium"
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    source = write_parquet(tmp_path / "pages.parquet", [{"html": clean(1)}, {"html": failing(2)}])
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "A11Y_CHROMIUM": str(broken)}
    failed = subprocess.run(
        [str(SCRIPT), "corpus", "score", str(source), str(out), "--tasks", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert failed.returncode == 1, failed.stderr[-2000:]
    assert "the run did not complete (0 of 1 tasks did)" in failed.stderr
    assert "TargetClosedError" in failed.stderr and "Run the same command again to resume it" in failed.stderr
    assert "rows in" not in failed.stdout
    assert not (out / RUN_FOLDER / "datatrove" / "completions").exists()
    assert (out / RUN_FOLDER / "run.json").is_file(), "the run folder stays, to be resumed"


# ------------------------------------------------------------------ usage errors (exit 2)


def _error(argv: Sequence[str], capsys: pytest.CaptureFixture[str]) -> str:
    return usage_error(["corpus", *argv], capsys)


def test_usage_errors(corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "out")
    assert "no such file or folder" in _error(["score", str(tmp_path / "nope.parquet"), out], capsys)
    text = tmp_path / "pages.txt"
    text.write_text("<p>x</p>")
    assert "not a Parquet" in _error(["score", str(text), out], capsys)
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 this is not parquet")
    assert "cannot read" in _error(["score", str(broken), out], capsys)
    assert not Path(out).exists(), "a refused run leaves nothing behind"
    message = _error(["score", str(corpus), out, "--column", "body"], capsys)
    assert "no column 'body'" in message and "id, html, n" in message
    assert not Path(out).exists()
    assert "'passing'" in _error(["filter", str(corpus), out, "--keep", "score>0.5"], capsys)
    assert "would keep nothing" in _error(["filter", str(corpus), out, "--keep", "score>=2"], capsys)
    assert "--ray-address needs --executor ray" in _error(["score", str(corpus), out, "--ray-address", "x:1"], capsys)
    assert "unknown case" in _error(["score", str(corpus), out, "--case", "no-such-case"], capsys).lower()
    full = tmp_path / "full"
    full.mkdir()
    (full / "mine.txt").write_text("keep me")
    assert "not empty" in _error(["score", str(corpus), str(full)], capsys)
    assert (full / "mine.txt").read_text() == "keep me"


def test_generic_checks_that_are_not_installed_are_a_usage_error(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if importlib.util.find_spec("lm_eval_a11y.generic") is not None:
        from lm_eval_a11y.corpus import resolve_checks

        assert resolve_checks(None, generic=True) is not None
        return
    assert "generic=False" in _error(["score", str(corpus), str(tmp_path / "o"), "--generic"], capsys)


def test_ray_missing_is_a_usage_error(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    message = _error(["score", str(corpus), str(tmp_path / "o"), "--executor", "ray"], capsys)
    assert "needs ray" in message and "lm-eval-a11y[corpus]" in message


def test_a_run_folder_is_resumed_only_with_the_same_settings(
    reference: tuple[Path, str], corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = reference
    message = _error(["filter", str(corpus), str(out), *FILTER[1:], "--keep", "score>=0.5"], capsys)
    assert "other settings (keep: 'passing' -> 'score>=0.5')" in message
    assert "tasks: 4 -> 2" in _error(["filter", str(corpus), str(out), "--tasks", "2"], capsys)


def test_split_runs_share_the_machines_pool_unless_told() -> None:
    """Each task has a pool of its own: the tasks that run at once on one machine share its
    default pages at once, so a run split over workers loads the cores as an unsplit one."""
    from lm_eval_a11y.corpus.run import task_concurrency
    from lm_eval_a11y.engine.browser import DEFAULT_CONCURRENCY

    def pool(concurrency: int | None = None, workers: int = 1, executor: str = "local", ray: str | None = None) -> int:
        return task_concurrency(concurrency, workers=workers, executor=executor, ray_address=ray)

    assert pool() == DEFAULT_CONCURRENCY
    assert pool(workers=2) == max(1, DEFAULT_CONCURRENCY // 2)
    assert pool(workers=2, executor="ray") == max(1, DEFAULT_CONCURRENCY // 2)
    assert pool(workers=64) == 1
    assert pool(workers=2, executor="ray", ray="auto") == DEFAULT_CONCURRENCY
    assert pool(workers=2, concurrency=3) == 3
