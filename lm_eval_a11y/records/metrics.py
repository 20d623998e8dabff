"""A doc's metrics from its sample records, and a task's lm-eval style numbers from its docs."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from lm_eval_a11y.records.verdict import carried_metrics, rejudge
from lm_eval_a11y.scoring import PASS_AT_K, doc_metrics, mean_stderr

__all__ = ["aggregate_samples", "records_doc_metrics"]

log = logging.getLogger("lm_eval_a11y")


def records_doc_metrics(
    doc: Mapping[str, Any], records: Sequence[Mapping[str, Any]], *, rejudge_observations: bool = False
) -> dict[str, float]:
    """One doc's numbers (``pass``, the rates, ``pass@k``) from its records, one per repeat.

    Each record's verdict is the one it carries (judged once, when it was built); a record that
    carries none, or every record when ``rejudge_observations`` is set, is judged from its saved
    observation with the rules installed now. A doc whose case could not be resolved (a record
    with an ``error``) returns no metrics: it is left out of every mean (and logged), not
    counted as a failure of the model."""
    errors = [r["error"] for r in records if r.get("error")]
    if errors:
        log.error("lm-eval-a11y: doc %s excluded from the metrics: %s", doc.get("id"), errors[0])
        return {}
    samples = []
    for record in records:
        carried = None if rejudge_observations else carried_metrics(record)
        samples.append(carried if carried is not None else rejudge(record).metrics)
    return doc_metrics(samples, PASS_AT_K)


def aggregate_samples(samples: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """lm-eval style ``metric,a11y`` / ``metric_stderr,a11y`` numbers over the docs (samples-file
    lines) that have each metric, and the number of docs as ``samples``."""
    names = sorted({m for s in samples for m in s.get("metrics", [])})
    result: dict[str, Any] = {}
    for name in names:
        values = [float(s[name]) for s in samples if name in s.get("metrics", [])]
        mean, stderr = mean_stderr(values)
        result[f"{name},a11y"] = mean
        result[f"{name}_stderr,a11y"] = "N/A" if stderr != stderr else stderr
    result["samples"] = len(samples)
    return result
