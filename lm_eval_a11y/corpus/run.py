"""One corpus run of ``a11y-eval corpus``: the input, the datatrove pipeline, the executor.

The command (:mod:`lm_eval_a11y.commands.corpus`) checks everything it can, writes a
:class:`RunSpec` into the run folder and starts this module as a process of its own
(``python -m lm_eval_a11y.corpus.run SPEC``), which builds the pipeline and runs it:

    rows reader (datatrove's Hugging Face reader) -> A11yCorpusFilter -> writer (Parquet or JSONL)
                                                        \\-> exclusion writer (filter: dropped rows)

The executor, datatrove's, owns everything about tasks: which rows each task reads (the reader
gives task ``r`` of ``N`` the rows ``r, r+N, ...`` of the input), running them (locally or on
Ray), and resumption: a task that finished is marked complete in the run folder and skipped when
the same command runs again; a task that did not is run again from its start, and its output
file is written anew. Running the pipeline in its own process keeps datatrove's log off the
terminal (it goes to ``pipeline.log``) and gives its process pool a real ``__main__``.

Every row is written out, in full: the reader never skips a row (datatrove's readers skip rows
whose text is empty, so the HTML is read from the row itself, not from the document's text), a
row whose bytes cannot be read is read as the values that can be, with a status
(:mod:`lm_eval_a11y.corpus.decode`), and the writers write each row's own columns followed by the
score columns.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from lm_eval_a11y import __version__
from lm_eval_a11y.corpus.decode import PROBLEM_KEY
from lm_eval_a11y.corpus.pages import PageScore, score_schema

__all__ = [
    "RUN_FOLDER",
    "CorpusInput",
    "InputError",
    "RunSpec",
    "build_executor",
    "build_pipeline",
    "data_files",
    "find_input",
    "load_rows",
    "main",
    "task_concurrency",
]

RUN_FOLDER = ".a11y-run"
"""The run's own folder inside OUTPUT (hidden: readers of a Parquet folder skip it)."""

InputKind = Literal["parquet", "json", "saved"]
_SUFFIXES: dict[str, InputKind] = {
    ".parquet": "parquet",
    ".jsonl": "json",
    ".json": "json",
    ".jsonl.gz": "json",
    ".json.gz": "json",
}


class InputError(ValueError):
    """The input cannot be read as a corpus; the message says why."""


@dataclass(frozen=True)
class CorpusInput:
    """Where the rows come from: Parquet or JSON Lines files, or a ``datasets.Dataset`` saved with
    ``save_to_disk`` (``saved``). Paths are absolute."""

    path: str
    kind: InputKind
    files: tuple[str, ...] = ()

    @property
    def output_format(self) -> Literal["parquet", "jsonl"]:
        """Output in the input's own format; a saved dataset is written as Parquet."""
        return "jsonl" if self.kind == "json" else "parquet"

    def fingerprint(self) -> list[list[object]]:
        """Each input file with its size and modification time: a resumed run must read the
        input the interrupted run read."""
        paths = [Path(f) for f in self.files] or sorted(p for p in Path(self.path).rglob("*") if p.is_file())
        return [[str(p), p.stat().st_size, p.stat().st_mtime_ns] for p in paths]


def _kind_of(path: Path) -> InputKind | None:
    name = path.name.lower()
    for suffix, kind in _SUFFIXES.items():
        if name.endswith(suffix):
            return kind
    return None


def find_input(path: Path) -> CorpusInput:
    """What ``path`` holds: a file, a folder of files of one format, or a saved dataset."""
    path = path.absolute()
    if not path.exists():
        raise InputError(f"no such file or folder: {path}")
    if path.is_file():
        kind = _kind_of(path)
        if kind is None:
            raise InputError(f"{path}: not a Parquet (.parquet) or JSON Lines (.jsonl, .json, .jsonl.gz) file")
        return CorpusInput(str(path), kind, (str(path),))
    if (path / "dataset_dict.json").exists():
        splits = sorted(p.name for p in path.iterdir() if p.is_dir())
        raise InputError(f"{path} holds a DatasetDict; give the folder of one split ({', '.join(splits)})")
    if (path / "state.json").exists() and (path / "dataset_info.json").exists():
        return CorpusInput(str(path), "saved")
    found: dict[InputKind, list[str]] = {}
    for file in sorted(path.rglob("*")):
        hidden = any(part.startswith((".", "_")) for part in file.relative_to(path).parts)
        if file.is_file() and not hidden and (kind := _kind_of(file)) is not None:
            found.setdefault(kind, []).append(str(file))
    if len(found) > 1:
        raise InputError(f"{path} holds both Parquet and JSON Lines files; give one format per run")
    if not found:
        raise InputError(f"{path} holds no Parquet or JSON Lines files and is not a saved dataset")
    ((kind, files),) = found.items()
    return CorpusInput(str(path), kind, tuple(files))


def data_files(source: CorpusInput, cache_dir: Path, column: str) -> list[str]:
    """The files ``datasets`` reads for ``source``: its Parquet files that hold rows (an empty one
    has nothing to read, and ``datasets`` refuses it), or the clean copies of its JSON Lines files
    (:func:`lm_eval_a11y.corpus.decode.clean_json_lines`, made once in ``cache_dir``)."""
    if source.kind == "json":
        from lm_eval_a11y.corpus.decode import clean_json_lines

        try:
            copies, _ = clean_json_lines(source.files, cache_dir / "lines", column)
        except ValueError as err:
            raise InputError(str(err)) from None
        return [copy for copy in copies if Path(copy).stat().st_size > 0]
    if source.kind == "parquet":
        import pyarrow.parquet as pq

        found = []
        for name in source.files:
            try:
                rows = pq.ParquetFile(name).metadata.num_rows
            except Exception as err:  # noqa: BLE001 - whatever pyarrow says, the file is unreadable
                first = str(err).strip().splitlines()[0] if str(err).strip() else ""
                raise InputError(f"cannot read {name}: {type(err).__name__}: {first}") from None
            if rows > 0:
                found.append(name)
        return found
    return []


def _dataset_options(files: Sequence[str], cache_dir: Path) -> dict[str, Any]:
    return {"data_files": list(files), "split": "train", "cache_dir": str(cache_dir)}


def load_rows(source: CorpusInput, cache_dir: Path, column: str) -> Any:
    """The input as a ``datasets.Dataset`` (memory-mapped Arrow; files are converted once into
    ``cache_dir``, where every task finds them), or None when its files hold no rows."""
    import datasets

    datasets.disable_progress_bars()
    try:
        if source.kind == "saved":
            rows = datasets.load_from_disk(source.path)
        else:
            files = data_files(source, cache_dir, column)
            if not files:
                return None
            rows = datasets.load_dataset(source.kind, **_dataset_options(files, cache_dir))
    except InputError:
        raise
    except Exception as err:  # noqa: BLE001 - whatever the reader says, the input is unreadable
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        raise InputError(f"cannot read {source.path}: {type(err).__name__}: {first}") from None
    if not isinstance(rows, datasets.Dataset):
        raise InputError(f"{source.path} is not a single dataset (got {type(rows).__name__})")
    return rows


@dataclass(frozen=True)
class RunSpec:
    """Everything the pipeline process needs, written as JSON into the run folder."""

    command: Literal["score", "filter"]
    source: CorpusInput
    output: str
    dropped: str | None
    column: str
    case: str | None
    generic: bool
    extract: bool
    keep: str
    tasks: int
    workers: int
    executor: Literal["local", "ray"]
    ray_address: str | None
    batch_size: int
    timeout_s: float
    concurrency: int
    parent_pid: int = 0
    columns: tuple[str, ...] = ()
    # filter --keep passing: evaluate dropped pages fully instead of stopping at their first failure.
    full_scores: bool = False

    @property
    def run_dir(self) -> Path:
        return Path(self.output) / RUN_FOLDER

    @property
    def logging_dir(self) -> Path:
        return self.run_dir / "datatrove"

    @property
    def progress_dir(self) -> Path:
        return self.run_dir / "progress"

    @property
    def cache_dir(self) -> Path:
        return self.run_dir / "cache"

    def identity(self) -> dict[str, Any]:
        """What decides the rows a run writes. A run folder is resumed only by a run with the same
        identity: another rule, case, column, task count or input would mix two runs' rows."""
        return {
            "command": self.command,
            "input": self.source.path,
            "input_files": self.source.fingerprint(),
            "output_format": self.source.output_format,
            "dropped": self.dropped,
            "column": self.column,
            "case": self.case,
            "generic": self.generic,
            "extract": self.extract,
            "keep": self.keep,
            "full_scores": self.full_scores,
            "tasks": self.tasks,
            "timeout_s": self.timeout_s,
            "version": __version__,
        }

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2)

    @classmethod
    def from_json(cls, text: str) -> RunSpec:
        data = json.loads(text)
        source = data.pop("source")
        return cls(
            source=CorpusInput(source["path"], source["kind"], tuple(source["files"])),
            **{**data, "columns": tuple(data.get("columns", ()))},
        )


# ------------------------------------------------------------------ the pipeline


def build_pipeline(spec: RunSpec, features: Any = None) -> list[Any]:
    """Reader, filter and writers for ``spec``; ``features`` (of the input dataset) give the
    Parquet output its schema, so a column that starts with missing values keeps its type."""
    from lm_eval_a11y.corpus.rows import RowsJsonlWriter, RowsParquetWriter, RowsReader
    from lm_eval_a11y.corpus.step import A11yCorpusFilter

    keys = PageScore.record_keys()
    schema = None
    if spec.source.output_format == "parquet" and features is not None:
        import pyarrow as pa

        read = features.arrow_schema
        columns = (f for f in read if f.name not in keys and f.name != PROBLEM_KEY)
        schema = pa.schema([*columns, *score_schema()], metadata=read.metadata)

    def writer(folder: str) -> Any:
        if spec.source.output_format == "jsonl":
            return RowsJsonlWriter(folder, columns=spec.columns, keys=keys)
        return RowsParquetWriter(folder, columns=spec.columns, keys=keys, schema=schema)

    if spec.source.kind == "saved":
        reader = RowsReader(spec.source.path, column=spec.column, load_from_disk=True, batch_size=spec.batch_size)
    else:
        options = _dataset_options(data_files(spec.source, spec.cache_dir, spec.column), spec.cache_dir)
        reader = RowsReader(spec.source.kind, column=spec.column, dataset_options=options, batch_size=spec.batch_size)
    step = A11yCorpusFilter(
        keep="all" if spec.command == "score" else spec.keep,
        column=spec.column,
        case=spec.case,
        generic=spec.generic,
        extract=spec.extract,
        batch_size=spec.batch_size,
        timeout_s=spec.timeout_s,
        concurrency=spec.concurrency,
        exclusion_writer=writer(spec.dropped) if spec.command == "filter" and spec.dropped else None,
        progress_dir=spec.progress_dir,
        full_scores=spec.full_scores,
    )
    return [reader, step, writer(spec.output)]


def build_executor(spec: RunSpec, pipeline: list[Any]) -> Any:
    if spec.executor == "ray":
        import ray
        from datatrove.executor import RayPipelineExecutor

        if not ray.is_initialized():
            if spec.ray_address:
                ray.init(address=spec.ray_address)
            else:
                ray.init(include_dashboard=False)
        return RayPipelineExecutor(
            pipeline, tasks=spec.tasks, workers=spec.workers, logging_dir=str(spec.logging_dir), cpus_per_task=1
        )
    from datatrove.executor import LocalPipelineExecutor

    return LocalPipelineExecutor(pipeline, tasks=spec.tasks, workers=spec.workers, logging_dir=str(spec.logging_dir))


# ------------------------------------------------------------------ the pipeline process


def _leave_with_parent(parent: int) -> None:
    """End this process group when the command that started it is gone (killed, even by SIGKILL):
    a run nobody watches would go on writing into OUTPUT. Only a group this process leads (it was
    started in a session of its own) is ended; its tasks, their browsers and a local Ray go with it."""

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                if os.getpgrp() == os.getpid():
                    os.killpg(os.getpgrp(), signal.SIGKILL)
                os._exit(1)

    if parent:
        threading.Thread(target=watch, name="a11y-corpus-parent-watch", daemon=True).start()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m lm_eval_a11y.corpus.run SPEC.json", file=sys.stderr)
        return 2
    spec = RunSpec.from_json(Path(args[0]).read_text(encoding="utf-8"))
    _leave_with_parent(spec.parent_pid)
    rows = load_rows(spec.source, spec.cache_dir, spec.column)
    if rows is None:
        return 0
    executor = build_executor(spec, build_pipeline(spec, rows.features))
    try:
        executor.run()
    finally:
        if spec.executor == "ray":
            import ray

            with contextlib.suppress(Exception):
                ray.shutdown()
    incomplete = executor.get_incomplete_ranks()
    if incomplete:
        print(f"{len(incomplete)} of {spec.tasks} tasks did not complete: {incomplete}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())


def task_concurrency(concurrency: int | None, *, workers: int, executor: str, ray_address: str | None) -> int:
    """Pages at once in one task's pool: ``concurrency`` when given, else the machine's default
    pool shared by the tasks it runs at once.

    Every task has a browser pool of its own; at the default two pages per core each, ``--workers
    2`` on two cores put 16 pages on them at once, and the largest pages of a corpus then ran out
    of their time budget under the Ray executor (2 of 200 on the benchmark corpus) although the
    API scored them: a verdict must not depend on how the run was split. On a Ray cluster
    (``ray_address``) the tasks spread over its machines, and each keeps the default.
    """
    from lm_eval_a11y.engine.browser import DEFAULT_CONCURRENCY

    if concurrency is not None:
        return int(concurrency)
    if executor == "ray" and ray_address:
        return DEFAULT_CONCURRENCY
    return max(1, DEFAULT_CONCURRENCY // int(workers))
