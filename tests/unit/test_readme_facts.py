"""Numbers and tables in the README that come from the code: they are checked against it, so a
new case, example page or metric cannot leave the front door out of date."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from lm_eval_a11y.cases import get_case, load_cases, load_examples

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
TASK_README = (ROOT / "tasks" / "a11y_html" / "README.md").read_text(encoding="utf-8")
TASKS = ROOT / "tasks" / "a11y_html"


def _said(pattern: str) -> int:
    found = re.findall(pattern, README)
    assert len(found) == 1, f"the README should say {pattern!r} once, found {found}"
    return int(found[0])


class _TaskLoader(yaml.SafeLoader):
    """Reads lm-eval's task YAML, whose ``!function`` tags do not matter here."""


_TaskLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


def _task_metrics() -> set[str]:
    """Every metric any shipped task reports (lm-eval's YAML tags such as !function are skipped)."""
    names: set[str] = set()
    for path in TASKS.glob("*.yaml"):
        spec = yaml.load(path.read_text(encoding="utf-8"), Loader=_TaskLoader) or {}
        names |= {entry["metric"] for entry in spec.get("metric_list", [])}
    return names


def _table(text: str) -> str:
    section = text[text.index("| metric |") :]
    return section[: section.index("\n\n")]


def test_the_case_count_is_the_number_of_cases() -> None:
    assert _said(r"\n(\d+) cases: all") == len(load_cases())


def test_the_example_page_counts_are_the_number_of_example_pages() -> None:
    examples = sum(len(load_examples(case)) for case in load_cases())
    assert _said(r"proven on the\s+cases' (\d+) example pages") == examples
    assert _said(r"generic checks on (\d+) of their own") == len(load_examples(get_case("generic")))


def test_every_metric_of_the_tasks_is_in_both_metric_tables() -> None:
    metrics = _task_metrics()
    assert {"pass", "pass@1", "pass@5", "contrast_overturned"} <= metrics
    for name, text in (("README.md", README), ("tasks/a11y_html/README.md", TASK_README)):
        table = _table(text)
        named = set(re.findall(r"`([^`]+)`", table))
        rows = set(re.findall(r"^\| `([^`]+)`", table, re.MULTILINE))
        # One `pass@k` row may stand for every pass@k metric.
        missing = {m for m in metrics if m not in named and not (m.startswith("pass@") and "pass@k" in rows)}
        assert not missing, f"{name} does not list {sorted(missing)}"
        assert rows <= metrics | {"pass@k"}, f"{name} lists metrics no task reports: {sorted(rows - metrics)}"
