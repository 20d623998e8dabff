"""The report's numbers against numbers worked out independently from the samples file."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from lm_eval_a11y.pricing import ModelPrice, PriceTable
from lm_eval_a11y.report.aggregate import build_report
from lm_eval_a11y.report.loading import RunSeries


def _raw(run: RunSeries) -> list[list[dict[str, object]]]:
    """Per doc, the records exactly as written in the samples file."""
    assert run.samples_path is not None
    lines = [json.loads(x) for x in Path(run.samples_path).read_text().splitlines()]
    return [[json.loads(r) for r in line["filtered_resps"][0]] for line in lines]


def _passed(record: dict[str, object]) -> bool:
    score = record["score"]
    assert isinstance(score, dict)
    return bool(score["verdict"] == "pass")


def test_summary_matches_lm_eval_and_the_samples(series: list[RunSeries]) -> None:
    report = build_report(series)
    for summary in report.summaries:
        docs = _raw(summary.series)
        per_doc = [sum(map(_passed, d)) / len(d) for d in docs]
        mean = sum(per_doc) / len(per_doc)
        stderr = math.sqrt(sum((v - mean) ** 2 for v in per_doc) / (len(per_doc) - 1) / len(per_doc))
        value = summary.metrics["pass"]
        assert value.source == "lm-eval"
        assert value.value == pytest.approx(mean)
        assert value.stderr == pytest.approx(stderr)
        assert value.n == len(docs) == summary.docs
        assert summary.passed == sum(_passed(r) for d in docs for r in d)
        assert summary.samples == sum(len(d) for d in docs)


def test_metrics_missing_from_results_are_computed_from_samples(series: list[RunSeries]) -> None:
    a = series[0]
    stripped = replace(a, reported={k: v for k, v in a.reported.items() if k not in ("pass", "pass@3")})
    report = build_report([stripped])
    computed, reported = report.summaries[0].metrics["pass"], build_report([a]).summaries[0].metrics["pass"]
    assert computed.source == "samples"
    assert computed.value == pytest.approx(reported.value)
    assert computed.stderr == pytest.approx(reported.stderr)
    assert report.summaries[0].pass_at_k[3].source == "samples"
    assert report.summaries[0].pass_at_k[3].value == pytest.approx(1.0)


def test_pass_at_k_by_hand(series: list[RunSeries]) -> None:
    report = build_report(series)
    a, b = report.summaries
    assert report.has_repeats
    assert report.ks == (1, 2, 3)
    docs = _raw(a.series)
    for k in (1, 2, 3):
        by_hand = []
        for d in docs:
            n, c = len(d), sum(map(_passed, d))
            by_hand.append(1 - math.comb(n - c, k) / math.comb(n, k))
        assert a.pass_at_k[k].value == pytest.approx(sum(by_hand) / len(by_hand))
    assert set(b.pass_at_k) == {1}, "one sample per case: pass@2 and pass@3 are undefined, not 0 or 1"


def test_per_case_rates(series: list[RunSeries]) -> None:
    report = build_report(series)
    assert [row.case_id for row in report.cases] == ["disclosure", "login-form", "tabs"]
    for i, run in enumerate(series):
        docs = _raw(run)
        for row, records in zip(report.cases, docs, strict=True):
            cell = row.cells[i]
            assert cell is not None
            assert (cell.passed, cell.samples) == (sum(map(_passed, records)), len(records))
    assert report.cases[0].prompt.startswith("Write")


def test_failures_are_ranked_by_samples(series: list[RunSeries]) -> None:
    report = build_report(series)
    totals = [r.total for r in report.rules]
    assert totals == sorted(totals, reverse=True)
    for rule in report.rules:
        for i, run in enumerate(series):
            by_hand = sum(
                1
                for d in _raw(run)
                for r in d
                if isinstance(r["observation"], dict)
                and rule.rule_id in {v["rule_id"] for v in r["observation"]["axe"]["violations"]}
            )
            assert rule.per_series[i] == by_hand
    checks = [c.total for c in report.checks]
    assert checks == sorted(checks, reverse=True)
    assert all(c.total > 0 for c in report.checks)
    for criterion in report.criteria:
        assert criterion.rules and all(r in {x.rule_id for x in report.rules} for r in criterion.rules)


def test_tokens_and_cost(series: list[RunSeries]) -> None:
    pricing = PriceTable("EUR", (("SmolLM2-135M-Instruct*", ModelPrice(2.0, 8.0)),))
    report = build_report(series, pricing)
    a, b = report.summaries
    records = [r for d in _raw(a.series) for r in d]
    tokens = [r["tokens"] for r in records]
    assert all(isinstance(t, dict) for t in tokens)
    tokens_in = sum(t["input"] for t in tokens if isinstance(t, dict))
    tokens_out = sum(t["output"] for t in tokens if isinstance(t, dict))
    cost = (tokens_in * 2.0 + tokens_out * 8.0) / 1e6
    assert (a.cost.input_tokens, a.cost.output_tokens) == (tokens_in, tokens_out)
    assert a.cost.cost == pytest.approx(cost)
    assert a.cost.cost_per_pass == pytest.approx(cost / sum(map(_passed, records)))
    assert a.cost.hit_limit == 1 and a.price_entry == "SmolLM2-135M-Instruct*"
    assert a.cost.currency == "EUR"
    assert b.cost.known == 0 and b.cost.cost is None and b.cost.cost_per_pass is None
    per_case = [row.cells[0] for row in report.cases]
    assert sum(c.cost.cost or 0 for c in per_case if c) == pytest.approx(cost)


def test_cost_unknown_without_price_and_nan_without_a_pass(series: list[RunSeries]) -> None:
    a = series[0]
    assert build_report([a]).summaries[0].cost.cost is None
    failing = replace(a, samples=tuple(s for s in a.samples if not s.passed))
    pricing = PriceTable("USD", (("*", ModelPrice(1.0, 1.0)),))
    summary = build_report([failing], pricing).summaries[0]
    assert summary.cost.cost is not None and summary.cost.cost > 0
    per_pass = summary.cost.cost_per_pass
    assert per_pass is not None and math.isnan(per_pass)


def test_merged_category_run_is_computed_from_samples(series: list[RunSeries]) -> None:
    """Tasks merged under a tag have no lm-eval aggregate: numbers come from the samples."""
    b = series[1]
    merged = replace(b, task="a11y_html_by_category", reported={}, member_tasks=("x", "y"))
    summary = build_report([merged]).summaries[0]
    assert summary.metrics["pass"].source == "samples"
    assert summary.metrics["pass"].value == pytest.approx(2 / 3)
    assert summary.metrics["pass"].n == 3


def test_n_counts_the_docs_a_metric_applies_to(series: list[RunSeries]) -> None:
    """A doc whose samples held no HTML has no axe numbers: lm-eval's mean leaves it out, so n must too."""
    a = series[0]
    first = a.samples[0].doc_key
    no_html = tuple(
        replace(s, html=None, html_found=False, observation=None) if s.doc_key == first else s for s in a.samples
    )
    summary = build_report([replace(a, samples=no_html)]).summaries[0]
    assert summary.docs == 3
    assert summary.metrics["axe_failures"].source == "lm-eval"
    assert summary.metrics["axe_failures"].n == 2
    assert summary.metrics["req_pass_rate"].n == 3  # no HTML fails every requirement: it counts
    assert summary.metrics["pass"].n == 3  # every doc has a verdict
