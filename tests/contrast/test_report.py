"""The report shows how much the pixel check moved, counts colour contrast as decided, and stays
accessible with its new table (axe-core and the pixel check find nothing on it)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from lm_eval_a11y.engine.evaluator import Evaluator
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.report import build_report, render_report
from lm_eval_a11y.report.aggregate import ContrastTotals
from lm_eval_a11y.report.loading import RunSeries, load_runs
from lm_eval_a11y.scoring import score_observation

TESTS = Path(__file__).resolve().parents[1]
RUNS = TESTS / "fixtures" / "runs"
AUDITED = TESTS / "fixtures" / "observations" / "contrast-long-dark.json"


@pytest.fixture(scope="module")
def series() -> list[RunSeries]:
    """The committed runs, with the first sample of model A replaced by a pixel-checked one
    (two of axe's failures overturned, a "can't tell" resolved to pass, one to fail in dark)."""
    runs = load_runs([RUNS / "model-a", RUNS / "model-b"])
    audited = Observation.from_dict(json.loads(AUDITED.read_text(encoding="utf-8")))
    first, *rest = runs[0].samples
    runs[0] = replace(runs[0], samples=(replace(first, observation=audited), *rest))
    return runs


def test_totals_per_run(series: list[RunSeries]) -> None:
    report = build_report(series)
    a, b = report.summaries
    assert a.contrast.samples_checked == 1
    assert (a.contrast.overturned, a.contrast.resolved_pass, a.contrast.resolved_fail) == (2, 1, 1)
    assert a.contrast.dark_scheme_samples == 1
    # The committed records predate the pixel check: those with contrast results are unknown.
    unknown_b = sum(
        1
        for s in b.series.samples
        if s.observation is not None
        and any(f.rule_id == "color-contrast" for f in s.observation.axe.violations + s.observation.axe.incomplete)
    )
    assert b.contrast == ContrastTotals(unknown=unknown_b)


def test_rule_table_counts_the_decided_contrast(series: list[RunSeries]) -> None:
    plain = load_runs([RUNS / "model-a", RUNS / "model-b"])
    before = {r.rule_id: r.per_series for r in build_report(plain).rules}
    after = {r.rule_id: r.per_series for r in build_report(series).rules}
    old_first = plain[0].samples[0].observation
    assert old_first is not None
    had = any(f.rule_id == "color-contrast" for f in old_first.axe.wcag_failures)
    # The audited sample fails colour contrast as decided (its dark scheme), once.
    expected_a = before.get("color-contrast", (0, 0))[0] - had + 1
    assert after["color-contrast"][0] == expected_a
    assert after["color-contrast"][1] == before.get("color-contrast", (0, 0))[1]


def test_report_with_the_contrast_table_passes_its_own_audit(
    series: list[RunSeries], evaluator: Evaluator, tmp_path: Path
) -> None:
    html = render_report(build_report(series), out_path=tmp_path / "report.html")
    assert 'id="contrast"' in html and "axe failures overturned" in html
    obs = evaluator.evaluate(None, html)
    assert obs.status == "ok", obs.error
    assert obs.axe.violations == ()
    score = score_observation(obs)
    assert score.axe_failures == 0, score.reasons
