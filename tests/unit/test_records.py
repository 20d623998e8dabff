"""The sample record's one home: the verdict judged once and carried, both parsers, both nestings.

The verdict a record carries (``score``) is what ``process_results`` reads; these tests hold it
equal, number for number, to judging the saved observation again, on every observation committed
under tests/fixtures."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest

from lm_eval_a11y.extract import Extraction
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.records import (
    SCHEMA,
    RecordError,
    aggregate_samples,
    build_record,
    carried_metrics,
    filtered_resps,
    flatten_responses,
    judge,
    parse_record_strict,
    parse_record_tolerant,
    records_doc_metrics,
    rejudge,
    samples_file_name,
)
from lm_eval_a11y.scoring import SampleMetrics

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DOC = {"id": "fixturestate", "version": "1"}


def _observations() -> list[dict[str, Any]]:
    found = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((FIXTURES / "observations").glob("*.json"))]
    for path in sorted((FIXTURES / "runs").rglob("samples_*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            for raw in flatten_responses(json.loads(line)["filtered_resps"]):
                record = parse_record_tolerant(raw)
                if record is not None and record.get("observation") is not None:
                    found.append(record["observation"])
    return found


OBSERVATIONS = _observations()


def _same(a: SampleMetrics, b: SampleMetrics) -> bool:
    def key(m: SampleMetrics) -> list[Any]:
        return ["nan" if isinstance(v, float) and math.isnan(v) else v for v in asdict(m).values()]

    return key(a) == key(b)


def test_fixtures_hold_observations() -> None:
    assert len(OBSERVATIONS) >= 10


@pytest.mark.parametrize("index", range(len(OBSERVATIONS)))
@pytest.mark.parametrize("truncated", [False, True])
def test_carried_verdict_equals_the_observation_judged_again(index: int, truncated: bool) -> None:
    obs = Observation.from_dict(OBSERVATIONS[index])
    record = build_record(DOC, Extraction("<p>x</p>", True, truncated, "fenced"), obs)
    saved = json.loads(json.dumps(record))  # as process_results gets it from the filter
    carried = carried_metrics(saved)
    assert carried is not None
    assert _same(carried, rejudge(saved).metrics)
    assert _same(carried, judge(obs, html_found=True, truncated=truncated).metrics)


def test_no_html_verdict_is_carried() -> None:
    record = build_record(DOC, Extraction("", False, False, "none"), None)
    carried = carried_metrics(json.loads(json.dumps(record)))
    assert carried is not None and not carried.passed and math.isnan(carried.axe_failures)
    assert _same(carried, rejudge(record).metrics)


def test_a_record_without_a_complete_verdict_is_judged_from_its_observation() -> None:
    obs = Observation.from_dict(OBSERVATIONS[0])
    record = build_record(DOC, Extraction("<p>x</p>", True, False, "fenced"), obs)
    older = {**record, "score": {k: v for k, v in record["score"].items() if not k.startswith("contrast")}}
    assert carried_metrics(older) is None
    assert records_doc_metrics(DOC, [older]) == records_doc_metrics(DOC, [record])


def test_rejudging_reads_the_observation_not_the_carried_verdict() -> None:
    obs = Observation.from_dict(OBSERVATIONS[0])
    record = build_record(DOC, Extraction("<p>x</p>", True, False, "fenced"), obs)
    flipped = {**record, "score": {**record["score"], "passed": not record["score"]["passed"]}}
    assert records_doc_metrics(DOC, [flipped])["pass"] != records_doc_metrics(DOC, [record])["pass"]
    assert records_doc_metrics(DOC, [flipped], rejudge_observations=True) == records_doc_metrics(DOC, [record])


def test_a_refused_doc_has_no_metrics() -> None:
    record = build_record(DOC, Extraction("<p>x</p>", True, False, "fenced"), None, error="case not installed")
    assert record["score"] is None
    assert records_doc_metrics(DOC, [record]) == {}


def test_a_verdict_given_is_the_one_written() -> None:
    obs = Observation.from_dict(OBSERVATIONS[0])
    verdict = judge(obs, html_found=True, truncated=False)
    made_up = replace(verdict, metrics=replace(verdict.metrics, passed=not verdict.passed))
    ext = Extraction("<p>x</p>", True, False, "fenced")
    assert build_record(DOC, ext, obs, verdict=made_up)["score"]["passed"] is (not verdict.passed)


def test_both_nestings_read_back_the_same_records() -> None:
    records = [build_record(DOC, Extraction("", False, False, "none"), None) for _ in range(2)]
    per_request, flat = filtered_resps(records, "per-request"), filtered_resps(records, "flat")
    assert len(per_request) == 1 and len(per_request[0]) == 2 and len(flat) == 2
    assert [parse_record_strict(r) for r in flatten_responses(per_request)] == records
    assert [parse_record_strict(r) for r in flatten_responses(flat)] == records


def test_strict_and_tolerant_parsing() -> None:
    literal = repr({"schema": SCHEMA, "html": "<p>"})  # lm-eval's str() of a non-string response
    assert parse_record_tolerant(literal) == {"schema": SCHEMA, "html": "<p>"}
    assert parse_record_tolerant("plain text") is None
    with pytest.raises(RecordError, match="needs the a11y filter"):
        parse_record_strict(literal)
    with pytest.raises(RecordError, match="schema"):
        parse_record_strict({"observation": None})


def test_aggregate_over_docs_that_have_each_metric() -> None:
    lines = [
        {"metrics": ["pass", "bp_pass_rate"], "pass": 1.0, "bp_pass_rate": 0.5},
        {"metrics": ["pass"], "pass": 0.0},
    ]
    result = aggregate_samples(lines)
    assert result["pass,a11y"] == 0.5 and result["bp_pass_rate,a11y"] == 0.5
    assert result["bp_pass_rate_stderr,a11y"] == "N/A" and result["samples"] == 2
    stamp = "2026-11-21T23-46-56.199828"
    assert samples_file_name("a11y_html", stamp) == f"samples_a11y_html_{stamp}.jsonl"
