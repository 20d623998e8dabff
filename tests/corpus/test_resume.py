"""A resumed corpus run meets what its killed run left: half-written output files.

A task killed in the middle of its rows may leave the file its writer had begun, in OUTPUT or in
the folder of dropped rows. Run again, the task starts from its first row and rewrites the file
of each folder it writes to; a file in a folder it does not write to this time would stay, and
its rows (or its broken bytes) would be read as the run's. The command removes the files of the
tasks that did not complete before it resumes (commands/corpus.py, ``_reset_progress``).

Here the case is built on purpose: each task of the corpus writes to one folder only (every row
of tasks 0 and 2 passes, every row of tasks 1 and 3 fails), the run is killed with SIGKILL after
its first task has completed, and every task that had not completed gets a half-written file in
both folders, as its killed writer could have left it. The resumed run must end with the files
and rows of an uninterrupted run.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import psutil
from cli.support import SCRIPT

from corpus.support import ROOT, clean, failing, read_rows, scripted, write_parquet
from lm_eval_a11y.corpus.run import RUN_FOLDER

TASKS = 4
# Task r reads rows r and r + 4: tasks 0 and 2 keep both of theirs, tasks 1 and 3 drop both.
# Row 6 has a script, so task 2 waits out the late-change horizon once.
ROWS = [
    {"id": f"row-{i}", "html": (scripted(i) if i == 6 else clean(i)) if i % 2 == 0 else failing(i), "n": i}
    for i in range(2 * TASKS)
]
KEPT_FILES = ["00000.parquet", "00002.parquet"]
DROPPED_FILES = ["00001.parquet", "00003.parquet"]


def _tree(pid: int) -> list[psutil.Process]:
    try:
        me = psutil.Process(pid)
        return [me, *me.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _half_written(path: Path, rows: list[dict[str, object]]) -> None:
    """The first half of a Parquet file of ``rows``: what a writer killed before its end leaves."""
    whole = write_parquet(path.with_name(path.name + ".whole"), rows)
    data = whole.read_bytes()
    whole.unlink()
    path.write_bytes(data[: len(data) // 2])


def test_a_resumed_task_does_not_keep_the_half_written_files_of_its_killed_run(tmp_path: Path) -> None:
    corpus = write_parquet(tmp_path / "corpus" / "pages.parquet", ROWS)
    out = tmp_path / "out"
    dropped = out.with_name(out.name + "-dropped")
    argv = [str(SCRIPT), "corpus", "filter", str(corpus), str(out), "--tasks", str(TASKS), "--batch-size", "1"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    completions = out / RUN_FOLDER / "datatrove" / "completions"
    # One task at a time (--workers 1, the default): after the first completes, three remain.
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    ours: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:
            ours = _tree(proc.pid) or ours
            if completions.is_dir() and any(p.name.isdigit() for p in completions.iterdir()):
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be killed"
        ours = _tree(proc.pid)
        # The pipeline process leads a session of its own; its tasks and browsers are in it.
        leaders = [p.pid for p in ours if p.pid != proc.pid and os.getsid(p.pid) == p.pid]
        group = [q for q in psutil.process_iter() if _in_session(q, leaders)]
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        _, alive = psutil.wait_procs(ours + group, timeout=30)
        assert not alive, f"left running: {[(p.pid, p.name()) for p in alive]}"
    finally:
        for p in _tree(proc.pid) + ours:
            with contextlib.suppress(psutil.Error):
                p.kill()
    finished = {int(p.name) for p in completions.iterdir() if p.name.isdigit()}
    unfinished = sorted(set(range(TASKS)) - finished)
    assert finished and unfinished, finished

    for rank in unfinished:
        mine = [row for i, row in enumerate(ROWS) if i % TASKS == rank]
        for folder in (out, dropped):
            folder.mkdir(exist_ok=True)
            _half_written(folder / f"{rank:05d}.parquet", mine)

    again = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"{len(finished)} of {TASKS} tasks had completed" in again.stdout, again.stdout
    # Each task's rows in the one folder it writes to, and no file of the killed run anywhere else.
    assert sorted(p.name for p in out.glob("*.parquet")) == KEPT_FILES
    assert sorted(p.name for p in dropped.glob("*.parquet")) == DROPPED_FILES
    kept, left_out = read_rows(out), read_rows(dropped)
    assert sorted(r["n"] for r in kept) == [0, 2, 4, 6]
    assert sorted(r["n"] for r in left_out) == [1, 3, 5, 7]
    assert all(r["a11y_status"] == "ok" for r in kept + left_out)
    assert "8 rows in, 4 kept (passing)" in again.stdout, again.stdout


def _in_session(proc: psutil.Process, leaders: list[int]) -> bool:
    with contextlib.suppress(psutil.Error, OSError):
        return os.getsid(proc.pid) in leaders
    return False
