"""The report reads what lm-eval 0.4.13 itself writes for the real task: files saved by lm-eval's
EvaluationTracker exactly as ``lm_eval run --output_path DIR --log_samples`` saves them, after a
real run of ``a11y_html_pass_at_k`` (real filter, Chromium, axe-core) with a fake model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lm_eval import simple_evaluate
from lm_eval.api.model import LM
from lm_eval.loggers import EvaluationTracker
from lm_eval.tasks import TaskManager

from lm_eval_a11y.cases import get_case, load_examples
from lm_eval_a11y.report import build_report, load_runs, render_report
from lm_eval_a11y.resources import tasks_dir

CASE = "disclosure"


class CyclingLM(LM):  # type: ignore[misc]
    """Answers every request with the case's example pages in turn, in a fenced block."""

    def __init__(self) -> None:
        super().__init__()
        self.pages = [e.html for e in load_examples(get_case(CASE))]
        self.calls = 0

    def generate_until(self, requests: list[Any]) -> list[str]:
        out = []
        for _ in requests:
            page = self.pages[self.calls % len(self.pages)]
            self.calls += 1
            out.append(f"Here you go:\n\n```html\n{page}\n```\n")
        return out

    def loglikelihood(self, requests: list[Any]) -> list[tuple[float, bool]]:
        raise NotImplementedError

    def loglikelihood_rolling(self, requests: list[Any]) -> list[float]:
        raise NotImplementedError


def test_report_reads_real_lm_eval_output(tmp_path: Path) -> None:
    tracker = EvaluationTracker(output_path=str(tmp_path / "out"))
    results = simple_evaluate(
        model=CyclingLM(),
        tasks=["a11y_html_pass_at_k"],
        task_manager=TaskManager(include_path=str(tasks_dir()), metadata={"a11y_cases": CASE}),
        log_samples=True,
        evaluation_tracker=tracker,
    )
    assert isinstance(results, dict)
    # What lm_eval's CLI does after simple_evaluate (lm_eval/_cli/run.py).
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    for task in results["configs"]:
        tracker.save_results_samples(task_name=task, samples=samples[task])

    (series,) = load_runs([tmp_path / "out"])
    assert series.task == "a11y_html_pass_at_k"
    assert series.samples_path is not None and series.samples_path.parent.parent == tmp_path / "out"
    assert len(series.samples) == 10 and series.repeats == 10
    assert all(s.problem is None and s.observation is not None for s in series.samples)
    assert {s.case_id for s in series.samples} == {CASE}
    assert series.max_gen_toks is not None and series.max_gen_toks >= 2048

    report = build_report([series])
    (summary,) = report.summaries
    passes = sum(s.passed for s in series.samples)
    assert summary.metrics["pass"].source == "lm-eval"
    assert summary.metrics["pass"].value == pytest.approx(passes / 10), "lm-eval's number agrees with the samples"
    assert summary.pass_at_k[10].value == (1.0 if passes else 0.0)
    assert {1, 5, 10} <= set(summary.pass_at_k)
    html = render_report(report, out_path=tmp_path / "report.html")
    assert f'id="case-{CASE}"' in html and html.count('class="card ') == 10
