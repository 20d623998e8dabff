"""The sample record and process_results without a browser: answers with no HTML, refused docs,
filtered responses that are not records, and strict JSON (no NaN) in the samples file."""

from __future__ import annotations

import json

import pytest

from lm_eval_a11y.cases import load_cases
from lm_eval_a11y.extract import extract_html
from lm_eval_a11y.harness import A11yTaskFilter, evaluate_responses, process_results
from lm_eval_a11y.records import SCHEMA, RecordError, build_record

CASE = load_cases()[0]
DOC = {"id": CASE.id, "version": CASE.version, "prompt": CASE.prompt, "category": CASE.category}


def test_answer_without_html_fails_without_rendering() -> None:
    (records,) = evaluate_responses([DOC], [["I'm sorry, I can only describe the page in words."]], progress=False)
    (record,) = records
    assert record["schema"] == SCHEMA and record["observation"] is None and record["error"] is None
    assert record["html"] == "" and record["html_found"] is False
    assert record["score"]["verdict"] == "fail"
    assert record["score"]["reasons"] == ["no HTML document found in the response"]
    assert record["score"]["axe_failures"] is None, "an unrendered page has no known axe count"
    json.dumps(record, allow_nan=False)  # strict JSON: NaN never reaches the samples file
    metrics = process_results(DOC, [[json.dumps(record)]])
    assert metrics["pass"] == 0.0 and metrics["html_found"] == 0.0 and metrics["req_pass_rate"] == 0.0
    assert "axe_failures" not in metrics


def test_refused_doc_has_an_error_and_no_metrics() -> None:
    (records,) = evaluate_responses([{**DOC, "version": "999"}], [["```html\n<p>x</p>\n```"]], progress=False)
    (record,) = records
    assert "installed case is version" in record["error"]
    assert record["score"] is None and record["observation"] is None
    assert process_results(DOC, [[json.dumps(record)]]) == {}


def test_process_results_names_the_missing_filter() -> None:
    with pytest.raises(RecordError, match="needs the a11y filter"):
        process_results(DOC, [["<html>raw model text, not a record</html>"]])
    with pytest.raises(RecordError, match="schema"):
        process_results(DOC, [[json.dumps({"schema": "something-else"})]])


def test_record_keeps_how_the_html_was_found() -> None:
    answer = "Here:\n```html\n<p>hi</p>\n```\n```bash\nopen index.html\n```"
    record = build_record(DOC, extract_html(answer), None)
    assert record["extraction"] == {"how": "fenced", "blocks": 2, "ignored": ["bash"], "think": False}
    merged = build_record(DOC, extract_html("Here:\n```html\n<p>hi</p>\n```\n```css\np{}\n```"), None)
    assert merged["html"] == "<style>\np{}\n</style>\n<p>hi</p>"
    assert merged["extraction"] == {
        "how": "fenced",
        "blocks": 2,
        "ignored": [],
        "think": False,
        "pages": 1,
        "sources": ["html"],
        "merged": ["css"],
        "covered": 0,
    }
    assert record["case_id"] == CASE.id and record["case_version"] == CASE.version


def test_filter_settings_from_yaml_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert A11yTaskFilter(concurrency=3, timeout_s=5).concurrency == 3
    monkeypatch.setenv("A11Y_CONCURRENCY", "4")
    assert A11yTaskFilter().concurrency == 4
    monkeypatch.setenv("A11Y_CONCURRENCY", "many")
    with pytest.raises(ValueError, match="A11Y_CONCURRENCY must be a whole number"):
        A11yTaskFilter()
    monkeypatch.setenv("A11Y_CONCURRENCY", "0")
    with pytest.raises(ValueError, match="at least 1"):
        A11yTaskFilter()


def test_the_task_filter_keeps_its_old_name() -> None:
    """Task YAMLs written before the rename name ``utils.A11yFilter``: the same class."""
    from lm_eval_a11y.harness import A11yFilter

    assert A11yFilter is A11yTaskFilter
