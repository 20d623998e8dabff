"""Building the sample record of one generation (schema :data:`~lm_eval_a11y.records.SCHEMA`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from lm_eval_a11y.answer_pages import MAX_BLOCKS, MAX_PAGES, deciding_page
from lm_eval_a11y.extract import Extraction
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.records.schema import SCHEMA
from lm_eval_a11y.records.verdict import Verdict, judge, verdict_fields
from lm_eval_a11y.scoring import graded_score

__all__ = ["TOO_MANY_PAGES_REASON", "build_record", "decided_record", "record_text"]

TOO_MANY_PAGES_REASON = (
    f"the answer holds more than {MAX_PAGES} HTML pages (or {MAX_BLOCKS} HTML blocks) to judge; none was judged "
    "(an answer is one page, with its snippets, CSS and JavaScript)"
)


def build_record(
    doc: dict[str, Any],
    extraction: Extraction,
    observation: Observation | None,
    *,
    error: str | None = None,
    case_version: str | None = None,
    verdict: Verdict | None = None,
) -> dict[str, Any]:
    """The sample record for one generation, with its verdict in ``score``.

    ``error`` says why the doc was refused (no verdict then: ``score`` is None). ``verdict``
    is the sample's verdict when the caller has already judged it (:func:`judge` of the same
    observation and extraction); otherwise it is judged here."""
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
    if doc.get("variant"):
        # A prompt variant's doc (lm_eval_a11y/variants.py); default docs have none, and their
        # records stay exactly as they were.
        record["variant"] = str(doc["variant"])
        record["sample_id"] = str(doc.get("sample_id") or "")
    if error is None:
        if verdict is None:
            verdict = judge(observation, html_found=extraction.found, truncated=extraction.truncated)
        record["score"] = verdict_fields(verdict)
    return record


def decided_record(
    doc: dict[str, Any],
    extraction: Extraction,
    observations: Sequence[Observation | None],
    *,
    error: str | None = None,
) -> dict[str, Any]:
    """The record of an answer whose pages (``extraction.judged``) were each evaluated
    (``observations``, in the same order): the page with the lowest score decides, and the record
    carries its HTML and observation. ``extraction`` then also says which page decided
    (``decided``, an index into ``sources``) and every page's graded score (``page_scores``)."""
    if error is not None or len(observations) <= 1:
        record = build_record(doc, extraction, observations[0] if observations else None, error=error)
        if error is None and extraction.how == "too-many-pages":
            record["score"]["reasons"] = [TOO_MANY_PAGES_REASON]
        return record
    scores = [0.0 if o is None else graded_score(o) for o in observations]
    decided = deciding_page(scores, extraction.primary)
    record = build_record(doc, replace(extraction, html=extraction.judged[decided]), observations[decided])
    record["extraction"].update(decided=decided, page_scores=[round(s, 6) for s in scores])
    return record


def record_text(record: dict[str, Any]) -> str:
    """A record as the JSON text lm-eval keeps in ``filtered_resps``."""
    return json.dumps(record, ensure_ascii=False)
