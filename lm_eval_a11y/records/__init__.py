"""The sample record: the evidence and verdict of one generation, and the lm-eval files that hold it.

One generation becomes one record (:func:`build_record`, schema :data:`SCHEMA`), judged once
(:func:`judge`) with its verdict carried in the record's ``score``; a doc's metrics are the
verdicts of its records (:func:`records_doc_metrics`), a task's numbers the means over its docs
(:func:`aggregate_samples`). Records are read back strictly (:func:`parse_record_strict`: the
task's own, anything else is an error) or tolerantly (:func:`parse_record_tolerant`: whatever a
saved run holds), out of lm-eval's nesting (:func:`flatten_responses`), from files found by
:func:`find_results`, :func:`samples_beside_results` and :func:`newest_samples_by_task`, and
written by :func:`write_samples_file` with the nesting named (:func:`filtered_resps`).

No browser and no lm-eval here: a record can be read, judged and written anywhere.
"""

from __future__ import annotations

from lm_eval_a11y.records.build import TOO_MANY_PAGES_REASON, build_record, decided_record, record_text
from lm_eval_a11y.records.files import (
    RunError,
    date_id,
    find_results,
    is_rescore_output,
    newest_samples_by_task,
    results_file_name,
    samples_beside_results,
    samples_file_name,
    utc_stamp,
)
from lm_eval_a11y.records.metrics import aggregate_samples, records_doc_metrics
from lm_eval_a11y.records.schema import (
    SCHEMA,
    SCHEMA_NAME,
    SCHEMA_VERSION,
    RecordError,
    flatten_responses,
    parse_record_strict,
    parse_record_tolerant,
    saved_extraction,
)
from lm_eval_a11y.records.verdict import NO_HTML_REASON, Verdict, carried_metrics, judge, rejudge, verdict_fields
from lm_eval_a11y.records.write import Nesting, filtered_resps, write_results_file, write_samples_file

__all__ = [
    "NO_HTML_REASON",
    "SCHEMA",
    "SCHEMA_NAME",
    "SCHEMA_VERSION",
    "TOO_MANY_PAGES_REASON",
    "Nesting",
    "RecordError",
    "RunError",
    "Verdict",
    "aggregate_samples",
    "build_record",
    "carried_metrics",
    "date_id",
    "decided_record",
    "filtered_resps",
    "find_results",
    "flatten_responses",
    "is_rescore_output",
    "judge",
    "newest_samples_by_task",
    "parse_record_strict",
    "parse_record_tolerant",
    "record_text",
    "records_doc_metrics",
    "rejudge",
    "results_file_name",
    "samples_beside_results",
    "samples_file_name",
    "saved_extraction",
    "utc_stamp",
    "verdict_fields",
    "write_results_file",
    "write_samples_file",
]
