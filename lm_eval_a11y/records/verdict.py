"""One sample's verdict: judged once from its observation, written into its record as ``score``,
and read from there by ``process_results`` on its way to the metrics.

:func:`judge` is the only place a sample is judged. :func:`verdict_fields` writes the verdict
into the record (``record["score"]``); :func:`carried_metrics` reads the numbers back, so the
metrics of a doc are the verdicts its records carry. :func:`rejudge` judges a saved record again
from its observation with the scoring rules installed now (``a11y-eval rescore
--from-observations``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import SampleMetrics, SampleScore, sample_metrics, score_observation

__all__ = ["NO_HTML_REASON", "Verdict", "carried_metrics", "judge", "rejudge", "verdict_fields"]

NO_HTML_REASON = "no HTML document found in the response"
"""The reason a record gives when its answer held no page (nothing was rendered)."""


@dataclass(frozen=True)
class Verdict:
    """A judged sample: the score of its observation (None when nothing was rendered) and the
    per-sample numbers lm-eval averages."""

    score: SampleScore | None
    metrics: SampleMetrics

    @property
    def passed(self) -> bool:
        return self.metrics.passed


def judge(observation: Observation | None, *, html_found: bool, truncated: bool) -> Verdict:
    """The verdict of one sample; ``observation`` is None when the answer held no page."""
    score = None if observation is None else score_observation(observation)
    metrics = sample_metrics(
        score,
        html_found=html_found,
        truncated=truncated,
        completed=observation is not None and observation.status == "ok",
    )
    return Verdict(score, metrics)


def _num(value: float) -> float | None:
    return None if math.isnan(value) else value


def verdict_fields(verdict: Verdict) -> dict[str, Any]:
    """The verdict as the record's ``score`` (numbers that do not apply are None)."""
    score, metrics = verdict.score, verdict.metrics
    return {
        "verdict": "pass" if metrics.passed else "fail",
        "passed": metrics.passed,
        "reasons": [NO_HTML_REASON] if score is None else list(score.reasons),
        "axe_clean": metrics.axe_clean,
        "axe_failures": _num(metrics.axe_failures),
        "axe_best_practice_failures": None if score is None else score.axe_best_practice_failures,
        "requirements_total": None if score is None else score.requirements_total,
        "requirements_passed": None if score is None else score.requirements_passed,
        "best_practices_total": None if score is None else score.best_practices_total,
        "best_practices_passed": None if score is None else score.best_practices_passed,
        "req_pass_rate": _num(metrics.req_pass_rate),
        "bp_pass_rate": _num(metrics.bp_pass_rate),
        "checks_passed": _num(metrics.checks_passed),
        "html_found": metrics.html_found,
        "truncated": metrics.truncated,
        # The pixel check of colour contrast (docs/contrast.md); None: not known for this record.
        "contrast_overturned": None if score is None else score.contrast_overturned,
        "contrast_resolved_pass": None if score is None else score.contrast_resolved_pass,
        "contrast_resolved_fail": None if score is None else score.contrast_resolved_fail,
        "contrast_incomplete": None if score is None else score.contrast_incomplete,
    }


_FLAGS = ("passed", "axe_clean", "html_found", "truncated")
_NUMBERS = (
    "req_pass_rate",
    "bp_pass_rate",
    "axe_failures",
    "checks_passed",
    "contrast_overturned",
    "contrast_resolved_pass",
    "contrast_resolved_fail",
    "contrast_incomplete",
)


def carried_metrics(record: Mapping[str, Any]) -> SampleMetrics | None:
    """The per-sample numbers of the verdict a record carries (its ``score``, as
    :func:`verdict_fields` wrote it); None when the record carries no complete verdict."""
    fields = record.get("score")
    if not isinstance(fields, Mapping):
        return None
    if not all(isinstance(fields.get(k), bool) for k in _FLAGS):
        return None
    numbers: dict[str, float] = {}
    for key in _NUMBERS:
        if key not in fields:
            return None
        value = fields[key]
        if value is None:
            numbers[key] = math.nan
        elif isinstance(value, int | float) and not isinstance(value, bool):
            numbers[key] = float(value)
        else:
            return None
    resolved = numbers["contrast_resolved_pass"] + numbers["contrast_resolved_fail"]
    return SampleMetrics(
        passed=fields["passed"],
        req_pass_rate=numbers["req_pass_rate"],
        bp_pass_rate=numbers["bp_pass_rate"],
        axe_clean=fields["axe_clean"],
        axe_failures=numbers["axe_failures"],
        checks_passed=numbers["checks_passed"],
        html_found=fields["html_found"],
        truncated=fields["truncated"],
        contrast_overturned=numbers["contrast_overturned"],
        contrast_resolved=resolved,
        contrast_incomplete=numbers["contrast_incomplete"],
    )


def rejudge(record: Mapping[str, Any]) -> Verdict:
    """A saved record judged again from its observation with the scoring rules installed now."""
    obs_data = record.get("observation")
    observation = None if obs_data is None else Observation.from_dict(obs_data)
    return judge(observation, html_found=bool(record.get("html_found")), truncated=bool(record.get("truncated")))
