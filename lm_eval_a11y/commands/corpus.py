"""``a11y-eval corpus score|filter INPUT OUTPUT``: score every page of a corpus, or keep the good ones.

Everything that can be checked is checked before a page is rendered, and is a usage error (exit
2) with the fix: the input (a Parquet or JSON Lines file or folder, or a saved ``datasets``
dataset), the column, the case, ``--keep``, Ray, and OUTPUT (new, empty, or a run of the same
command to resume), with ``--dropped``: apart from each other and from the input, and writable,
all before anything is written. An input without rows is a clean run that says so. Then the
datatrove pipeline (:mod:`lm_eval_a11y.corpus.run`) runs in a process of its own while this one
shows the progress, and the run ends with a summary read back from what was written: rows in,
kept, dropped, statuses, the axe rules and checks failed most. Every input row must be in the
output (or, for ``filter``, among the dropped rows); a run where that does not hold says so and
exits 1.

Interrupted (Ctrl-C, a kill, a crash), the same command resumes: datatrove skips the tasks that
completed and runs the others again from their start.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import fcntl
import importlib.util
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from lm_eval_a11y.cli import EXIT_FAIL, EXIT_OK, UsageError, add_pool_options, positive_int, say
from lm_eval_a11y.corpus.keep import KeepRule

_SUMMARY_KEYS = ("a11y_status", "a11y_pass", "a11y_score", "a11y_axe_rules", "a11y_checks_failed", "a11y_partial")


def _keep_rule(text: str) -> str:
    try:
        return str(KeepRule.parse(text))
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "corpus",
        help="score or filter a corpus of HTML pages (Parquet, JSON Lines, a saved datasets.Dataset)",
        description=(
            "Render every page of a corpus in Chromium with axe-core (and, with --case or --generic, "
            "behaviour checks) through a datatrove pipeline, resumable and shardable. docs/corpus.md."
        ),
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    for action, text in (
        ("score", "write every row with its score columns (a11y_pass, a11y_score, a11y_status, ...)"),
        ("filter", "write the rows --keep accepts, with their scores; the others go to --dropped"),
    ):
        p = actions.add_parser(action, help=text, description=text)
        p.add_argument("input", metavar="INPUT", help="a .parquet or .jsonl file, a folder of them, or a saved dataset")
        p.add_argument("output", metavar="OUTPUT", help="a new folder (or the folder of an unfinished run to resume)")
        p.add_argument("--column", default="html", metavar="NAME", help="the column that holds the HTML (default html)")
        checks = p.add_mutually_exclusive_group()
        checks.add_argument("--case", metavar="ID", help="run this case's checks on every page")
        checks.add_argument("--generic", action="store_true", help="run the generic page checks on every page")
        p.add_argument("--extract", action="store_true", help="the column holds model answers: cut the page out")
        if action == "filter":
            p.add_argument(
                "--keep",
                type=_keep_rule,
                default="passing",
                metavar="RULE",
                help="'passing' (the default: the verdict is a pass) or 'score>=X' with X in [0, 1]",
            )
            p.add_argument("--dropped", type=Path, metavar="DIR", help="where dropped rows go (default OUTPUT-dropped)")
            p.add_argument(
                "--full-scores",
                action="store_true",
                help="evaluate dropped pages fully; by default --keep passing stops a page at its first decided "
                "failure, and its score columns are partial (a11y_partial)",
            )
        p.add_argument("--tasks", type=positive_int, default=4, metavar="N", help="shards of the input (default 4)")
        p.add_argument("--workers", type=positive_int, default=1, metavar="N", help="tasks run at once (default 1)")
        p.add_argument(
            "--executor", choices=("local", "ray"), default="local", help="datatrove executor (default local)"
        )
        p.add_argument("--ray-address", metavar="ADDR", help="join this Ray cluster (default: start a local one)")
        p.add_argument(
            "--batch-size", type=positive_int, default=64, metavar="N", help="pages handed to the pool at once"
        )
        add_pool_options(p)
        # Unless given, the pages at once of one task: this machine's share for each of the
        # tasks that run on it at once (_concurrency).
        p.set_defaults(handler=run, concurrency=None)


# ------------------------------------------------------------------ checks before the run


def _concurrency(args: argparse.Namespace) -> int:
    """``--concurrency``, or the machine's default pool shared by the tasks it runs at once."""
    from lm_eval_a11y.corpus.run import task_concurrency

    return task_concurrency(
        args.concurrency, workers=args.workers, executor=args.executor, ray_address=args.ray_address
    )


def _require(module: str, why: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise UsageError(f"{why} needs {module}, which is not installed: pip install 'lm-eval-a11y[corpus]'")


def _check_environment(args: argparse.Namespace) -> None:
    from lm_eval_a11y.corpus.pages import GenericChecksMissingError, resolve_checks
    from lm_eval_a11y.engine.browser import find_chromium
    from lm_eval_a11y.resources import axe_path

    _require("datatrove", "a11y-eval corpus")
    if args.executor == "ray":
        _require("ray", "--executor ray")
    elif args.ray_address:
        raise UsageError("--ray-address needs --executor ray")
    try:
        resolve_checks(args.case, args.generic)
    except GenericChecksMissingError as err:
        raise UsageError(f"--generic: {err}") from None
    # No Chromium or no axe-core: exit 3 with the fix, before any task starts.
    find_chromium()
    axe_path()


def _is_empty_folder(path: Path) -> bool:
    return path.is_dir() and not any(path.iterdir())


def _check_folders(output: Path, dropped: Path | None, identity: dict[str, Any]) -> bool:
    """Whether OUTPUT holds an earlier run of this very command (to resume); a usage error when it
    holds anything else, so nobody's files are overwritten or mixed with ours."""
    from lm_eval_a11y.corpus.run import RUN_FOLDER

    manifest = output / RUN_FOLDER / "run.json"
    for folder, option in ((output, "OUTPUT"), (dropped, "--dropped")):
        if folder is not None and folder.exists() and not folder.is_dir():
            raise UsageError(f"{option} {folder} is a file, not a folder")
    if manifest.is_file():
        try:
            earlier = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise UsageError(f"{manifest} cannot be read ({err}); use a new OUTPUT") from None
        changed = sorted(k for k in set(earlier) | set(identity) if earlier.get(k) != identity.get(k))
        if changed:
            what = ", ".join(f"{k}: {earlier.get(k)!r} -> {identity.get(k)!r}" for k in changed if k != "input_files")
            if "input_files" in changed:
                what = ", ".join(filter(None, ["the input files changed", what]))
            raise UsageError(
                f"{output} holds a run made with other settings ({what}); run the same command to resume it, "
                "or give a new OUTPUT"
            )
        return True
    # A run folder without its manifest is one whose command stopped before the pipeline started.
    if output.is_dir() and any(p.name != RUN_FOLDER for p in output.iterdir()):
        raise UsageError(f"{output} is not empty and holds no corpus run; give a new or empty folder")
    if dropped is not None and dropped.exists() and not _is_empty_folder(dropped):
        raise UsageError(f"--dropped {dropped} is not empty; give a new or empty folder")
    return False


def _check_paths(source: Path, output: Path, dropped: Path | None) -> None:
    """Refuse an input, OUTPUT and --dropped that are the same or inside one another: kept and
    dropped rows written into one folder overwrite each other's files (both are ``00000.parquet``),
    dropped rows inside OUTPUT are read back with the kept ones, and an OUTPUT inside the input
    folder becomes input of the next run. Compared as resolved, so a symbolic link is no way round."""
    named = [("the input", source), ("OUTPUT", output)]
    if dropped is not None:
        named.append(("--dropped", dropped))
    for (first, a), (second, b) in itertools.combinations(named, 2):
        real_a, real_b = a.resolve(), b.resolve()
        if real_a == real_b:
            both = f" (both are {real_a})" if a != b else ""
            raise UsageError(f"{second} {b} is {first} itself{both}; give {second} a folder of its own")
        for (inner_name, inner, real_inner), (outer_name, outer, real_outer) in (
            ((second, b, real_b), (first, a, real_a)),
            ((first, a, real_a), (second, b, real_b)),
        ):
            if real_outer in real_inner.parents:
                raise UsageError(
                    f"{inner_name} {inner} is inside {outer_name} {outer}; give folders apart from each other"
                )


def _check_writable(folder: Path, option: str) -> None:
    """Refuse a folder this run cannot write in (a read-only file system, no permission, below a
    file) before anything is written, rather than half way through the run."""
    existing = folder
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{option} {folder}: {existing} is a file, not a folder")
    problem = None
    if os.statvfs(existing).f_flag & os.ST_RDONLY:
        problem = "read-only file system"
    elif not os.access(existing, os.W_OK | os.X_OK):
        problem = "permission denied"
    else:
        # What access() cannot tell (root on a file system that refuses files, such as sysfs).
        try:
            with tempfile.NamedTemporaryFile(dir=existing, prefix=".a11y-write-test-"):
                pass
        except OSError as err:
            problem = err.strerror or str(err)
    if problem is not None:
        raise UsageError(f"{option} {folder}: cannot write there ({problem})")


@contextlib.contextmanager
def _locked(run_dir: Path) -> Iterator[IO[str]]:
    """Hold the run folder's lock: two runs writing the same OUTPUT would destroy each other's
    files. The pipeline process inherits the lock, so it holds as long as either process lives."""
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        lock_file = (run_dir / "lock").open("a+", encoding="utf-8")
    except OSError as err:
        raise UsageError(f"OUTPUT {run_dir.parent}: cannot write there ({err.strerror or err})") from None
    with lock_file as lock:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise UsageError(f"another run is writing to {run_dir.parent}; wait for it to end") from None
        yield lock


# ------------------------------------------------------------------ the run


def run(args: argparse.Namespace) -> int:
    from lm_eval_a11y.corpus.decode import PROBLEM_KEY
    from lm_eval_a11y.corpus.run import CorpusInput, InputError, RunSpec, find_input, load_rows

    _check_environment(args)
    try:
        source: CorpusInput = find_input(Path(args.input))
    except InputError as err:
        raise UsageError(str(err)) from None
    output = Path(args.output).absolute()
    dropped = None
    if args.action == "filter":
        dropped = (args.dropped or Path(f"{output}-dropped")).absolute()
    spec = RunSpec(
        command=args.action,
        source=source,
        output=str(output),
        dropped=None if dropped is None else str(dropped),
        column=args.column,
        case=args.case,
        generic=args.generic,
        extract=args.extract,
        keep=getattr(args, "keep", "all"),
        full_scores=getattr(args, "full_scores", False),
        tasks=args.tasks,
        workers=args.workers,
        executor=args.executor,
        ray_address=args.ray_address,
        batch_size=args.batch_size,
        timeout_s=args.timeout,
        concurrency=_concurrency(args),
        parent_pid=os.getpid(),
    )
    identity = spec.identity()
    _check_paths(Path(source.path), output, dropped)
    resuming = _check_folders(output, dropped, identity)
    for folder, option in ((output, "OUTPUT"), (dropped, "--dropped")):
        if folder is not None:
            _check_writable(folder, option)
    created = not output.exists()

    def refuse(message: str) -> UsageError:
        # Leave no trace of a run that never started: only what this command made goes.
        if not resuming:
            shutil.rmtree(output if created else spec.run_dir, ignore_errors=True)
        return UsageError(message)

    with _locked(spec.run_dir) as lock:
        # Converted once here (the tasks reuse the copy in the run folder): an unreadable input or a
        # missing column is found before anything runs.
        try:
            rows = load_rows(source, spec.cache_dir, args.column)
        except InputError as err:
            raise refuse(str(err)) from None
        if rows is None or rows.num_rows == 0:
            return _nothing_to_do(spec)
        names = [name for name in rows.column_names if name != PROBLEM_KEY]
        if args.column not in names:
            raise refuse(f"{source.path} has no column {args.column!r}; its columns: {', '.join(names)} (--column)")
        total = rows.num_rows
        spec = dataclasses.replace(spec, columns=tuple(names))
        (spec.run_dir / "run.json").write_text(json.dumps(identity, indent=2), encoding="utf-8")
        done_before = _reset_progress(spec)
        finished = len(_completed_ranks(spec))
        if finished >= spec.tasks:
            say(f"the run in {output} had completed; nothing left to do")
        else:
            if resuming:
                say(f"resuming the run in {output}: {finished} of {spec.tasks} tasks had completed")
            if _run_pipeline(spec, lock, total, done_before) != 0:
                return _incomplete(spec)
        summary = _summarise(spec, total)
        shutil.rmtree(spec.cache_dir, ignore_errors=True)
        return summary


def _nothing_to_do(spec: Any) -> int:
    """The summary of a run over an input without rows: its folders exist, empty, as a run that
    scored every row of it leaves them, and no run folder is left to resume."""
    shutil.rmtree(spec.run_dir, ignore_errors=True)
    for folder in filter(None, (spec.output, spec.dropped)):
        Path(folder).mkdir(parents=True, exist_ok=True)
    say(f"corpus {spec.command}: 0 rows in: {spec.source.path} holds no rows; nothing written to {spec.output}")
    return EXIT_OK


def _completed_ranks(spec: Any) -> set[int]:
    folder = spec.logging_dir / "completions"
    return {int(p.name) for p in folder.iterdir() if p.name.isdigit()} if folder.is_dir() else set()


def _progress(spec: Any) -> int:
    total = 0
    if spec.progress_dir.is_dir():
        for path in spec.progress_dir.iterdir():
            if path.name.isdigit():
                with contextlib.suppress(OSError, ValueError):
                    total += int(path.read_text(encoding="utf-8") or 0)
    return total


def _reset_progress(spec: Any) -> int:
    """Forget what the tasks that did not complete wrote, since they start again from their first
    row: their counts, and their output files (a task run again rewrites its file, but one that
    drops nothing this time would leave last time's half-written file of dropped rows behind).
    The rows scored by the tasks that did complete."""
    done = _completed_ranks(spec)
    suffix = "." + spec.source.output_format
    for folder in filter(None, (spec.output, spec.dropped)):
        for rank in range(spec.tasks):
            if rank not in done:
                (Path(folder) / f"{rank:05d}{suffix}").unlink(missing_ok=True)
    if spec.progress_dir.is_dir():
        for path in spec.progress_dir.iterdir():
            if not (path.name.isdigit() and int(path.name) in done):
                path.unlink(missing_ok=True)
    return _progress(spec)


def _run_pipeline(spec: Any, lock: IO[str], total: int, done_before: int) -> int:
    """Run the pipeline process to its end, showing the progress; its exit code."""
    from tqdm import tqdm

    spec_path = spec.run_dir / "spec.json"
    spec_path.write_text(spec.to_json(), encoding="utf-8")
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}
    log = (spec.run_dir / "pipeline.log").open("a", encoding="utf-8")
    tty = sys.stderr.isatty()
    with log:
        log.write(f"\n==== {time.strftime('%Y-%m-%d %H:%M:%S')} a11y-eval corpus {spec.command}\n")
        log.flush()
        process = subprocess.Popen(
            [sys.executable, "-m", "lm_eval_a11y.corpus.run", str(spec_path)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # its own group: it and its tasks end together (see run.py)
            pass_fds=(lock.fileno(),),
        )
        bar = tqdm(
            total=total,
            initial=done_before,
            unit="page",
            desc=f"corpus {spec.command}",
            file=sys.stderr,
            mininterval=0.5 if tty else 30.0,
            dynamic_ncols=tty,
        )
        try:
            while process.poll() is None:
                time.sleep(0.5)
                bar.update(max(_progress(spec) - bar.n, 0))
            bar.update(max(_progress(spec) - bar.n, 0))
        except BaseException:
            bar.close()
            _end_group(process)
            print(f"the run was interrupted; run the same command again to resume it ({spec.output})", file=sys.stderr)
            raise
        bar.close()
    return process.returncode


def _end_group(process: subprocess.Popen[bytes]) -> None:
    """End the pipeline process and everything it started (its session's process group)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


# A line of a traceback that names the exception: "playwright._impl._errors.TargetClosedError: ...".
_EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt)\b(?::|$)")


def _incomplete(spec: Any) -> int:
    done = len(_completed_ranks(spec))
    log = spec.run_dir / "pipeline.log"
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines() if log.is_file() else []
    errors = [line for line in lines if _EXCEPTION_LINE.match(line)]
    for line in (errors or lines)[-1:]:
        say(f"  {line[:300]}", file=sys.stderr)
    say(
        f"a11y-eval corpus {spec.command}: the run did not complete ({done} of {spec.tasks} tasks did); "
        f"the log: {log}, task logs: {spec.logging_dir / 'logs'}. Run the same command again to resume it.",
        file=sys.stderr,
    )
    return EXIT_FAIL


# ------------------------------------------------------------------ the summary


@dataclass(frozen=True)
class _Counts:
    rows: int
    statuses: collections.Counter[str]
    passed: int
    partial: int
    score_sum: float
    rules: collections.Counter[str]
    checks: collections.Counter[str]


def _written(folder: Path, output_format: str) -> list[dict[str, Any]]:
    """The score columns of every row written into ``folder``."""
    if not folder.is_dir():
        return []
    if output_format == "jsonl":
        found = []
        for path in sorted(folder.glob("*.jsonl")):
            with path.open(encoding="utf-8") as lines:
                for line in lines:
                    if line.strip():
                        row = json.loads(line)
                        found.append({k: row.get(k) for k in _SUMMARY_KEYS})
        return found
    import pyarrow.parquet as pq

    found = []
    for path in sorted(folder.glob("*.parquet")):
        found.extend(pq.read_table(path, columns=list(_SUMMARY_KEYS)).to_pylist())
    return found


def _count(rows: Sequence[dict[str, Any]]) -> _Counts:
    return _Counts(
        rows=len(rows),
        statuses=collections.Counter(str(r["a11y_status"]) for r in rows),
        passed=sum(bool(r["a11y_pass"]) for r in rows),
        partial=sum(bool(r.get("a11y_partial")) for r in rows),
        score_sum=sum(float(r["a11y_score"]) for r in rows),
        rules=collections.Counter(rule for r in rows for rule in r["a11y_axe_rules"] or ()),
        checks=collections.Counter(check for r in rows for check in r["a11y_checks_failed"] or ()),
    )


def _most(counter: collections.Counter[str], n: int = 8) -> str:
    return ", ".join(f"{name} {count}" for name, count in counter.most_common(n)) or "none"


def _summarise(spec: Any, total: int) -> int:
    """Print what the run wrote (read back from the files) and check that every row is there."""
    fmt = spec.source.output_format
    kept = _written(Path(spec.output), fmt)
    dropped = _written(Path(spec.dropped), fmt) if spec.dropped else []
    every = _count([*kept, *dropped])
    head = f"corpus {spec.command}: {total} rows in"
    if spec.command == "filter":
        head += f", {len(kept)} kept ({spec.keep}) in {spec.output}, {len(dropped)} dropped to {spec.dropped}"
    else:
        head += f", {len(kept)} scored in {spec.output}"
    say(head)
    # Rendered pages first, timeouts and errors always (a run of hostile pages shows there), then
    # the rows that were not rendered, most common first.
    rest = [(s, c) for s, c in every.statuses.most_common() if s not in ("ok", "timeout", "error")]
    shown = [(s, every.statuses.get(s, 0)) for s in ("ok", "timeout", "error")] + rest
    say("  status: " + ", ".join(f"{s} {c}" for s, c in shown))
    judged = every.statuses.get("ok", 0)
    mean = every.score_sum / every.rows if every.rows else 0.0
    say(f"  verdict: {every.passed} pass, {every.rows - every.passed} fail; mean score {mean:.3f} ({judged} judged)")
    if every.partial:
        say(
            f"  {every.partial} stopped at their first failure: their score columns are partial"
            " (a11y_partial; --full-scores evaluates them fully)"
        )
    say(f"  axe rules failed most: {_most(every.rules)}")
    if every.checks:
        say(f"  checks failed most: {_most(every.checks)}")
    if every.rows != total:
        say(
            f"a11y-eval corpus {spec.command}: {total} rows were read but {every.rows} were written; "
            f"the run folder {spec.run_dir} has the logs",
            file=sys.stderr,
        )
        return EXIT_FAIL
    return EXIT_OK
