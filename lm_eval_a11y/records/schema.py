"""The sample record's schema, and reading records back: strictly (the task's own records) or
tolerantly (whatever a samples file holds).

A *sample record* is what the task's filter makes of one generation: one JSON object with the
extracted page, the observation and the verdict (layout in ``tasks/a11y_html/README.md``). lm-eval
keeps it as text in ``filtered_resps``, nested one list per request (``[[record, ...]]``); a suite
run writes the records of a doc in one flat list (``[record, ...]``). :func:`flatten_responses`
reads both.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from typing import Any

from lm_eval_a11y.extract import Extraction

__all__ = [
    "SCHEMA",
    "SCHEMA_NAME",
    "SCHEMA_VERSION",
    "RecordError",
    "flatten_responses",
    "parse_record_strict",
    "parse_record_tolerant",
    "saved_extraction",
]

SCHEMA_NAME = "lm-eval-a11y/sample"
SCHEMA_VERSION = 1
SCHEMA = f"{SCHEMA_NAME}@{SCHEMA_VERSION}"
"""The ``schema`` value of every record this package writes; raised when a field changes meaning."""


class RecordError(ValueError):
    """A filtered response is not a sample record of the schema this package writes."""


def flatten_responses(value: Any) -> list[Any]:
    """The entries of lm-eval's ``filtered_resps`` or ``resps``, whatever their nesting
    (one list per request, a flat list, or a single entry), in order."""
    if isinstance(value, list | tuple):
        out: list[Any] = []
        for item in value:
            out.extend(flatten_responses(item))
        return out
    return [value]


def parse_record_strict(raw: str | dict[str, Any]) -> dict[str, Any]:
    """A sample record from a filtered response (JSON text) or an already-parsed dict.

    For the records of a run being scored: anything else raises :class:`RecordError`, which
    names the filter the task needs."""
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


def parse_record_tolerant(raw: Any) -> dict[str, Any] | None:
    """A sample record from an entry of a saved samples file; None when the entry is not one.

    For reading runs as they are: JSON text, a dict, or the Python dict literal lm-eval writes
    for a response that is not a string; a record without the schema but with an observation
    is taken too."""
    if isinstance(raw, Mapping):
        data: Any = dict(raw)
    elif isinstance(raw, str):
        text = raw.strip()
        if not text.startswith("{"):
            return None
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            # lm-eval writes non-string responses with str(): a Python dict literal.
            try:
                data = ast.literal_eval(text)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                return None
    else:
        return None
    if not isinstance(data, dict):
        return None
    if data.get("schema") != SCHEMA and "observation" not in data:
        return None
    return data


def saved_extraction(record: Mapping[str, Any]) -> Extraction:
    """The extraction a record saved: the page and how it was cut from the answer."""
    extraction = record.get("extraction") or {}
    return Extraction(
        html=record.get("html", ""),
        found=bool(record.get("html_found")),
        truncated=bool(record.get("truncated")),
        how=str(extraction.get("how", "")),
        blocks=int(extraction.get("blocks", 0)),
        ignored=tuple(extraction.get("ignored", ())),
        think=bool(extraction.get("think", False)),
    )
