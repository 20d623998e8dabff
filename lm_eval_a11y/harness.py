"""The lm-eval glue: a filter that evaluates every generation of a task in one batch, and
``process_results`` that turns each doc's sample records into its numbers.

Flow inside lm-eval:

    responses ─▶ A11yTaskFilter.apply (extract → one Evaluator, one browser pool, all pages)
              ─▶ filtered_resps = one JSON *sample record* per generation (evidence and verdict,
                 judged once: :func:`lm_eval_a11y.records.build_record`)
              ─▶ process_results (the verdicts the records carry → scoring.doc_metrics)
              ─▶ lm-eval ``mean`` + stderr

The record is what ``--log_samples`` keeps, so a report or a re-score never needs the browser or
the model again. Its layout is a contract (:data:`lm_eval_a11y.records.SCHEMA`), documented in
``tasks/a11y_html/README.md``; :mod:`lm_eval_a11y.records` owns it.

This module imports lm-eval only for the ``Filter`` base class, and the browser only when the filter
runs: importing it (which lm-eval does when it reads the task YAML) starts nothing.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from lm_eval.api.filter import Filter

from lm_eval_a11y.cases import Case, CaseError, get_case
from lm_eval_a11y.engine.browser import DEFAULT_CONCURRENCY
from lm_eval_a11y.extract import Extraction, extract_html
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.records import (
    decided_record,
    flatten_responses,
    parse_record_strict,
    record_text,
    records_doc_metrics,
)

__all__ = [
    "A11yFilter",
    "A11yTaskFilter",
    "evaluate_responses",
    "preflight",
    "process_results",
    "resolve_case",
    "screenshot_dir",
]

log = logging.getLogger("lm_eval_a11y")


def preflight() -> None:
    """Fail before the model runs, not after hours of generation, when Chromium or axe-core is
    missing (file checks only; nothing is launched). Raises with the command that fixes it."""
    from lm_eval_a11y.engine.browser import find_chromium
    from lm_eval_a11y.resources import axe_path, probe_path

    find_chromium()
    axe_path()
    probe_path()


def resolve_case(doc: dict[str, Any]) -> tuple[Case | None, str | None]:
    """The installed case for a dataset row, or why there is none.

    Checks always come from the installed package: a row only names a case by id and version.
    A version mismatch means the row's prompt may not be the one the installed checks were
    written for, so the doc is refused rather than scored against the wrong rules.
    """
    case_id = str(doc.get("id", ""))
    version = str(doc.get("version", ""))
    try:
        case = get_case(case_id)
    except CaseError:
        return None, f"case {case_id!r} is not installed in lm-eval-a11y; its checks cannot run"
    if case.version != version:
        return None, (
            f"dataset row {case_id!r} is version {version!r} but the installed case is version {case.version!r}; "
            "use the dataset built by this package version (a11y-eval dataset build) or install the matching package"
        )
    return case, None


def _progress_printer(total: int, stream: Any = None) -> Callable[[int, int], None]:
    out = stream or sys.stderr
    tty = bool(getattr(out, "isatty", lambda: False)())
    step = max(1, total // 10)

    def show(done: int, total_: int) -> None:
        if tty:
            out.write(f"\r[a11y] evaluated {done}/{total_} pages in Chromium")
            if done == total_:
                out.write("\n")
        elif done == total_ or done % step == 0:
            out.write(f"[a11y] evaluated {done}/{total_} pages in Chromium\n")
        out.flush()

    return show


def evaluate_responses(
    docs: Sequence[dict[str, Any]],
    responses: Sequence[Sequence[str]],
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    timeout_s: float = 20.0,
    progress: bool = True,
    extractions: Sequence[Sequence[Extraction]] | None = None,
) -> list[list[dict[str, Any]]]:
    """Sample records for every response of every doc, evaluated in one batch with one browser pool.

    ``extractions`` replaces extraction (a re-score of saved HTML passes the saved pages).
    """
    from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings

    if len(docs) != len(responses):
        raise ValueError(f"{len(docs)} docs but {len(responses)} response lists")
    extracted = (
        [[extract_html(r) for r in resps] for resps in responses]
        if extractions is None
        else [list(e) for e in extractions]
    )
    resolved = [resolve_case(doc) for doc in docs]
    screenshots = screenshot_dir()
    label = _safe_label(os.environ.get("A11Y_MODEL_LABEL") or "model")
    jobs: list[tuple[int, int, int]] = []
    pairs: list[tuple[Case | None, str]] = []
    names: list[str] = []
    for d, ((case, error), exts) in enumerate(zip(resolved, extracted, strict=True)):
        if error is not None:
            log.error("lm-eval-a11y: doc %d not scored: %s", d, error)
            continue
        for r, ext in enumerate(exts):
            # Every page of the answer is judged; the lowest decides (lm_eval_a11y/answer_pages.py).
            for p, page in enumerate(ext.judged):
                jobs.append((d, r, p))
                pairs.append((case, page))
                # Stable per model, case and sample: the same run writes the same file names.
                suffix = f"__{p}" if p else ""
                names.append(f"{label}__{_safe_label(str(docs[d].get('id', 'doc')))}__{r}{suffix}")
    observations: dict[tuple[int, int, int], Observation] = {}
    if pairs:
        if progress:
            print(
                f"[a11y] rendering {len(pairs)} page(s) from {len(docs)} doc(s) in Chromium, {concurrency} at a time",
                file=sys.stderr,
                flush=True,
            )
        settings = EvaluatorSettings(concurrency=concurrency, timeout_s=timeout_s, screenshots=screenshots)
        if screenshots is not None and progress:
            print(f"[a11y] full-page screenshots go to {screenshots}", file=sys.stderr, flush=True)
        with Evaluator(settings) as evaluator:
            found = evaluator.evaluate_many(
                pairs, names=names, progress=_progress_printer(len(pairs)) if progress else None
            )
        observations = dict(zip(jobs, found, strict=True))
    return [
        [
            decided_record(doc, ext, [observations.get((d, r, p)) for p in range(len(ext.judged))], error=error)
            for r, ext in enumerate(exts)
        ]
        for d, (doc, (_, error), exts) in enumerate(zip(docs, resolved, extracted, strict=True))
    ]


def screenshot_dir() -> Path | None:
    """Where the task saves a full-page PNG of each sample: ``A11Y_SCREENSHOTS`` (off when unset).

    ``a11y-eval run --a11y-screenshots DIR`` sets it. The path is made absolute so the samples
    file links to the picture wherever lm-eval is run from.
    """
    raw = os.environ.get("A11Y_SCREENSHOTS", "").strip()
    return Path(raw).expanduser().resolve() if raw else None


def _safe_label(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:80] or "x"


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw)
    except ValueError as err:
        raise ValueError(f"{name} must be a whole number, got {raw!r}") from err
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value}")
    return value


class A11yTaskFilter(Filter):  # type: ignore[misc]
    """lm-eval filter: every response of every doc becomes a JSON sample record, in one batch.

    YAML options: ``concurrency`` (pages at once; default ``A11Y_CONCURRENCY``, else
    two per CPU core, at most 8) and
    ``timeout_s`` (time budget per page, default 20). All repeats are kept (no take_first), so
    ``repeats: n`` yields n records per doc and pass@k can be computed.
    """

    def __init__(self, concurrency: int | None = None, timeout_s: float = 20.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.concurrency = concurrency if concurrency is not None else _env_int("A11Y_CONCURRENCY", DEFAULT_CONCURRENCY)
        self.timeout_s = float(timeout_s)

    def apply(self, resps: Iterable[Sequence[str]], docs: Sequence[dict[str, Any]]) -> list[list[str]]:
        responses = [[r if isinstance(r, str) else str(r) for r in rs] for rs in resps]
        records = evaluate_responses(list(docs), responses, concurrency=self.concurrency, timeout_s=self.timeout_s)
        return [[record_text(rec) for rec in recs] for recs in records]


A11yFilter = A11yTaskFilter
"""The name the task YAMLs have used for :class:`A11yTaskFilter` (``utils.A11yFilter``)."""


def process_results(doc: dict[str, Any], results: Sequence[Any]) -> dict[str, float]:
    """lm-eval ``process_results``: the doc's numbers from the verdicts its sample records carry.

    ``results`` holds one entry per request of the doc (one here), each the list of that
    request's filtered responses (``repeats`` records). Anything that is not a record of this
    package raises :class:`~lm_eval_a11y.records.RecordError`. A doc whose case could not be
    resolved returns no metrics: it is excluded from every mean (and logged), not counted as a
    failure of the model.
    """
    records = [parse_record_strict(r) for r in flatten_responses(list(results))]
    return records_doc_metrics(doc, records)
