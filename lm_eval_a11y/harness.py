"""The lm-eval glue: a filter that evaluates every generation of a task in one batch, and
``process_results`` that turns the saved evidence into per-doc numbers.

Flow inside lm-eval:

    responses ─▶ A11yFilter.apply (extract → one Evaluator, one browser pool, all pages)
              ─▶ filtered_resps = one JSON *sample record* per generation (the full evidence)
              ─▶ process_results (parse records → scoring.doc_metrics) ─▶ lm-eval ``mean`` + stderr

The record is what ``--log_samples`` keeps, so a report or a re-score never needs the browser or
the model again. Its layout is a contract (``SCHEMA``), documented in ``tasks/a11y_html/README.md``.

This module imports lm-eval only for the ``Filter`` base class, and the browser only when the filter
runs: importing it (which lm-eval does when it reads the task YAML) starts nothing.
"""

from __future__ import annotations

import json
import logging
import math
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
from lm_eval_a11y.scoring import PASS_AT_K, SampleMetrics, doc_metrics, sample_metrics, score_observation

__all__ = [
    "SCHEMA",
    "A11yFilter",
    "RecordError",
    "build_record",
    "evaluate_responses",
    "parse_record",
    "preflight",
    "process_results",
    "record_metrics",
    "resolve_case",
]

SCHEMA = "lm-eval-a11y/sample@1"
log = logging.getLogger("lm_eval_a11y")


class RecordError(ValueError):
    """A filtered response is not a sample record of the schema this package writes."""


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


def _score_dict(obs: Observation | None, extraction: Extraction, metrics: SampleMetrics) -> dict[str, Any]:
    reasons: list[str]
    if obs is None:
        reasons = ["no HTML document found in the response"]
        score = None
    else:
        score = score_observation(obs)
        reasons = list(score.reasons)

    def num(value: float) -> float | None:
        return None if math.isnan(value) else value

    return {
        "verdict": "pass" if metrics.passed else "fail",
        "passed": metrics.passed,
        "reasons": reasons,
        "axe_clean": metrics.axe_clean,
        "axe_failures": num(metrics.axe_failures),
        "axe_best_practice_failures": None if score is None else score.axe_best_practice_failures,
        "requirements_total": None if score is None else score.requirements_total,
        "requirements_passed": None if score is None else score.requirements_passed,
        "best_practices_total": None if score is None else score.best_practices_total,
        "best_practices_passed": None if score is None else score.best_practices_passed,
        "req_pass_rate": num(metrics.req_pass_rate),
        "bp_pass_rate": num(metrics.bp_pass_rate),
        "checks_passed": num(metrics.checks_passed),
        "html_found": extraction.found,
        "truncated": extraction.truncated,
        # The pixel check of colour contrast (docs/contrast.md); None: not known for this record.
        "contrast_overturned": None if score is None else score.contrast_overturned,
        "contrast_resolved_pass": None if score is None else score.contrast_resolved_pass,
        "contrast_resolved_fail": None if score is None else score.contrast_resolved_fail,
        "contrast_incomplete": None if score is None else score.contrast_incomplete,
    }


def _metrics(obs: Observation | None, extraction: Extraction) -> SampleMetrics:
    return sample_metrics(
        None if obs is None else score_observation(obs),
        html_found=extraction.found,
        truncated=extraction.truncated,
        completed=obs is not None and obs.status == "ok",
    )


def build_record(
    doc: dict[str, Any],
    extraction: Extraction,
    observation: Observation | None,
    *,
    error: str | None = None,
    case_version: str | None = None,
) -> dict[str, Any]:
    """The sample record (schema ``lm-eval-a11y/sample@1``) for one generation."""
    record: dict[str, Any] = {
        "schema": SCHEMA,
        "case_id": str(doc.get("id", "")),
        "case_version": case_version if case_version is not None else str(doc.get("version", "")),
        "html": extraction.html,
        "html_found": extraction.found,
        "truncated": extraction.truncated,
        "extraction": extraction.to_dict(),
        "error": error,
        "observation": None if observation is None else observation.to_dict(),
        "score": None,
    }
    if error is None:
        record["score"] = _score_dict(observation, extraction, _metrics(observation, extraction))
    return record


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
    jobs: list[tuple[int, int]] = []
    pairs: list[tuple[Case | None, str]] = []
    names: list[str] = []
    for d, ((case, error), exts) in enumerate(zip(resolved, extracted, strict=True)):
        if error is not None:
            log.error("lm-eval-a11y: doc %d not scored: %s", d, error)
            continue
        for r, ext in enumerate(exts):
            if ext.found:
                jobs.append((d, r))
                pairs.append((case, ext.html))
                # Stable per model, case and sample: the same run writes the same file names.
                names.append(f"{label}__{_safe_label(str(docs[d].get('id', 'doc')))}__{r}")
    observations: dict[tuple[int, int], Observation] = {}
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
        [build_record(doc, ext, observations.get((d, r)), error=error) for r, ext in enumerate(exts)]
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


class A11yFilter(Filter):  # type: ignore[misc]
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
        return [[json.dumps(rec, ensure_ascii=False) for rec in recs] for recs in records]


def parse_record(raw: str | dict[str, Any]) -> dict[str, Any]:
    """A sample record from a filtered response (JSON text) or an already-parsed dict."""
    if isinstance(raw, dict):
        record = raw
    else:
        try:
            record = json.loads(raw)
        except (TypeError, json.JSONDecodeError) as err:
            raise RecordError(
                "the filtered response is not a sample record; the task needs the a11y filter "
                f"(filter_list in tasks/a11y_html/a11y_html.yaml). Got: {str(raw)[:80]!r}"
            ) from err
    if not isinstance(record, dict) or record.get("schema") != SCHEMA:
        raise RecordError(f"expected a record with schema {SCHEMA!r}, got {str(raw)[:80]!r}")
    return record


def record_metrics(record: dict[str, Any]) -> SampleMetrics:
    """Per-sample numbers, recomputed from the saved observation with the current scoring rules."""
    extraction = Extraction(
        html=record.get("html", ""),
        found=bool(record.get("html_found")),
        truncated=bool(record.get("truncated")),
        how=str((record.get("extraction") or {}).get("how", "")),
    )
    obs_data = record.get("observation")
    obs = None if obs_data is None else Observation.from_dict(obs_data)
    return _metrics(obs, extraction)


def process_results(doc: dict[str, Any], results: Sequence[Any]) -> dict[str, float]:
    """lm-eval ``process_results``: the doc's numbers from its sample records.

    ``results`` holds one entry per request of the doc (one here), each the list of that
    request's filtered responses (``repeats`` records). A doc whose case could not be resolved
    returns no metrics: it is excluded from every mean (and logged), not counted as a failure of
    the model.
    """
    raw: list[Any] = []
    for item in results:
        raw.extend(item if isinstance(item, list | tuple) else [item])
    records = [parse_record(r) for r in raw]
    errors = [r["error"] for r in records if r.get("error")]
    if errors:
        log.error("lm-eval-a11y: doc %s excluded from the metrics: %s", doc.get("id"), errors[0])
        return {}
    return doc_metrics([record_metrics(r) for r in records], PASS_AT_K)
