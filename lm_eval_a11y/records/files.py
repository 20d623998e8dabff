"""Finding and naming the files of an lm-eval run.

lm-eval 0.4.13 writes, for ``--output_path OUT``, ``OUT/<sanitized model name>/results_<date>.json``
and, with ``--log_samples``, ``samples_<task>_<date>.jsonl`` beside it, with the same ``<date>``.
With ``--output_path OUT/name.json`` it writes ``OUT/name_<date>.json`` and the samples files in
``OUT``. A re-score and a suite run write the same names.

Two ways in: the report starts from results files and takes the samples file written with each
(:func:`find_results`, :func:`samples_beside_results`); a re-score takes the newest samples file
of each task anywhere under a folder (:func:`newest_samples_by_task`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

__all__ = [
    "RunError",
    "date_id",
    "find_results",
    "is_rescore_output",
    "newest_samples_by_task",
    "results_file_name",
    "samples_beside_results",
    "samples_file_name",
    "utc_stamp",
]

_STAMP = r"\d{4}-\d{2}-\d{2}T[0-9.-]+"
_SAMPLES = re.compile(rf"^samples_(?P<task>.+)_(?P<stamp>{_STAMP})\.jsonl$")
_DATE_SUFFIX = re.compile(r"_(\d{4}-\d{2}-\d{2}T[0-9-]+\.\d+)$")
_MAX_DEPTH = 3
_MAX_RESULTS_BYTES = 50_000_000  # results files are a few KB; anything this big is something else


class RunError(ValueError):
    """A path given to the report holds no lm-eval results."""


# ---------------------------------------------------------------------------------------- naming


def utc_stamp(*, fraction: bool) -> str:
    """The ``<date>`` of new files: UTC, ``2026-11-21T23-46-56`` (with ``.199828`` when
    ``fraction``, as lm-eval writes it)."""
    now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H-%M-%S.%f" if fraction else "%Y-%m-%dT%H-%M-%S")


def samples_file_name(task: str, stamp: str) -> str:
    return f"samples_{task}_{stamp}.jsonl"


def results_file_name(stamp: str) -> str:
    return f"results_{stamp}.json"


def date_id(results_path: Path) -> str | None:
    """The ``<date>`` lm-eval put in a results file name (shared by its samples files)."""
    match = _DATE_SUFFIX.search(results_path.stem)
    return match.group(1) if match else None


# ---------------------------------------------------------------------------------------- results first


def _looks_like_results(path: Path) -> bool:
    if path.suffix != ".json" or path.name.startswith("samples_"):
        return False
    try:
        if path.stat().st_size > _MAX_RESULTS_BYTES:
            return False
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(data, dict) and isinstance(data.get("results"), dict)


def _walk(folder: Path, depth: int) -> Iterator[Path]:
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.is_file():
            yield entry
        elif entry.is_dir() and depth < _MAX_DEPTH and not entry.name.startswith("."):
            yield from _walk(entry, depth + 1)


def find_results(path: Path) -> list[Path]:
    """Every lm-eval results file at ``path`` (a results file, a model folder or the output folder)."""
    path = Path(path)
    if path.is_file():
        if not _looks_like_results(path):
            raise RunError(f"{path}: not an lm-eval results file (a JSON object with a 'results' mapping)")
        return [path]
    if not path.is_dir():
        raise RunError(f"{path}: no such file or folder")
    found = [p for p in _walk(path, 0) if _looks_like_results(p)]
    if not found:
        raise RunError(
            f"{path}: holds no lm-eval results file (results_<date>.json); give the folder passed to "
            "lm_eval --output_path, a model folder inside it, or a results file"
        )
    return found


def samples_beside_results(results_path: Path, task: str) -> Path | None:
    """The samples file of ``task`` written with this results file, if lm-eval logged samples."""
    folder = results_path.parent
    stamp = date_id(results_path)
    if stamp is not None:
        exact = folder / samples_file_name(task, stamp)
        if exact.is_file():
            return exact
    # A results file that was renamed or copied without its date: accept the only candidate.
    # (Only names whose rest is a date: "samples_a11y_html_*" also matches a11y_html_instructed's.)
    own = re.compile(rf"^samples_{re.escape(task)}_{_STAMP}\.jsonl$")
    candidates = sorted(p for p in folder.glob(f"samples_{task}_*.jsonl") if own.match(p.name))
    results_files = [p for p in folder.glob("*.json") if _looks_like_results(p)]
    if len(candidates) == 1 and len(results_files) == 1:
        return candidates[0]
    return None


# ---------------------------------------------------------------------------------------- samples first


def is_rescore_output(path: Path) -> bool:
    """Whether a samples file was written by ``rescore`` (its first sample says ``rescored``).

    A re-score written with ``--out`` inside the run folder carries a newer time stamp than the
    run itself; without this, the next re-score would take it as the run's newest samples."""
    try:
        with path.open(encoding="utf-8") as fh:
            first = fh.readline()
        return bool(json.loads(first).get("rescored")) if first.strip() else False
    except (OSError, ValueError, AttributeError):
        return False  # unreadable here; the reader of the samples reports it with its line number


def newest_samples_by_task(run_dir: Path) -> dict[str, Path]:
    """The newest samples file of each task under ``run_dir``; lm-eval's own files before any
    re-score output (``rescored-*`` folders, or files whose samples are marked ``rescored``)."""
    newest: dict[str, tuple[bool, str, Path]] = {}
    for path in sorted(run_dir.rglob("samples_*.jsonl")):
        if any(part.startswith("rescored-") for part in path.relative_to(run_dir).parts):
            continue
        match = _SAMPLES.match(path.name)
        task = match.group("task") if match else path.stem.removeprefix("samples_")
        stamp = match.group("stamp") if match else ""
        original = not is_rescore_output(path)
        if task not in newest or (original, stamp) >= newest[task][:2]:
            newest[task] = (original, stamp, path)
    return {task: path for task, (_, _, path) in sorted(newest.items())}
