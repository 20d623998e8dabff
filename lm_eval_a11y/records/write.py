"""Writing samples and results files in lm-eval's layout.

A samples-file line holds a doc's records as text in ``filtered_resps``, nested one of two ways,
and readers depend on both (:func:`~lm_eval_a11y.records.flatten_responses` reads either):

- ``per-request``: ``[[record, ...]]``, one list per lm-eval request, as lm-eval itself writes
  ``--log_samples`` (and ``a11y-eval rescore`` writes its output);
- ``flat``: ``[record, ...]``, the records of the doc's trials, as a suite run writes them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from lm_eval_a11y.records.build import record_text

__all__ = ["Nesting", "filtered_resps", "write_results_file", "write_samples_file"]

Nesting = Literal["per-request", "flat"]


def filtered_resps(records: Sequence[dict[str, Any]], nesting: Nesting) -> list[Any]:
    """A doc's records as the ``filtered_resps`` of its samples-file line."""
    texts = [record_text(r) for r in records]
    if nesting == "per-request":
        return [texts]
    if nesting == "flat":
        return list(texts)
    raise ValueError(f"unknown nesting {nesting!r}")


def write_samples_file(path: Path, lines: Iterable[Mapping[str, Any]]) -> None:
    """One JSON object a line, as lm-eval writes ``samples_<task>_<date>.jsonl``."""
    with path.open("w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")


def write_results_file(path: Path, data: Mapping[str, Any], *, allow_nan: bool = True) -> None:
    """A results JSON (indented, UTF-8); ``allow_nan`` False refuses NaN rather than writing it."""
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=allow_nan) + "\n", encoding="utf-8")
