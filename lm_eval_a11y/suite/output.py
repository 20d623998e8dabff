"""A suite run written the way lm-eval writes a run, so ``a11y-eval report`` and ``rescore`` read it.

Every variant of the suite (mode, instructions, framework and style: :func:`~lm_eval_a11y.suite.run.variant_task`)
is one lm-eval *task*: one ``samples_<variant>_<date>.jsonl`` with a line per case (its trials as
the doc's repeats, their sample records in ``filtered_resps``) and an entry in one
``results_<date>.json`` holding lm-eval's ``metric,a11y`` means and standard errors. Reference
trials go to a folder of their own (``lm-eval/reference/``), model and repair trials to
``lm-eval/model/``, so that the report names each column by what produced it. The layout is the
one lm-eval 0.4.13 writes with ``--output_path --log_samples``; :mod:`lm_eval_a11y.report.loading`
documents what is read from it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lm_eval_a11y import __version__
from lm_eval_a11y.pricing import ModelPrice
from lm_eval_a11y.records import (
    aggregate_samples,
    filtered_resps,
    records_doc_metrics,
    results_file_name,
    samples_file_name,
    utc_stamp,
    write_results_file,
    write_samples_file,
)
from lm_eval_a11y.suite.file import ModelSpec
from lm_eval_a11y.suite.run import CaseRun, SuiteRun, suite_row, variant_task

__all__ = ["LM_EVAL_FOLDER", "write_lm_eval_output", "write_report"]

LM_EVAL_FOLDER = "lm-eval"
"""The sub-folder of a suite's ``--out`` that holds its lm-eval style output."""


def _line(doc_id: int, run: CaseRun, gen_kwargs: dict[str, Any] | None) -> dict[str, Any]:
    row = suite_row(run.case)
    records = [r.record for r in run.trials if r.record is not None]
    first = run.trials[0] if run.trials else None
    context = None
    if first is not None and first.record is not None:
        earlier = (first.record.get("suite") or {}).get("first_try")
        context = earlier.get("context") if isinstance(earlier, dict) else first.context
    metrics = records_doc_metrics(row, records) if records else {}
    line: dict[str, Any] = {
        "doc_id": doc_id,
        "doc": row,
        "target": "",
        "arguments": {"gen_args_0": {"arg_0": context, "arg_1": gen_kwargs}} if context is not None else {},
        "resps": [[r.response if r.response is not None else "" for r in run.trials if r.record is not None]],
        "filtered_resps": filtered_resps(records, "flat"),
        "filter": "a11y",
        "metrics": sorted(metrics),
    }
    line.update(metrics)
    return line


def write_lm_eval_output(run: SuiteRun, out_dir: Path, model: ModelSpec | None = None) -> list[Path]:
    """Write the run's samples and results files under ``out_dir/lm-eval/``; the results files.

    ``model`` is the model as run (with any ``--model-args`` applied); None for a reference run."""
    from lm_eval_a11y.suite.model import gen_kwargs_for

    groups: dict[str, dict[str, list[CaseRun]]] = {}
    for case_run in run.cases:
        if not any(r.record is not None for r in case_run.trials):
            continue
        task = variant_task(case_run.case.settings)
        group = "reference" if case_run.case.settings.mode == "reference" else "model"
        groups.setdefault(group, {}).setdefault(task, []).append(case_run)
    written: list[Path] = []
    stamp = utc_stamp(fraction=True)
    for group, tasks in groups.items():
        folder = out_dir / LM_EVAL_FOLDER / group
        folder.mkdir(parents=True, exist_ok=True)
        spec = model if group == "model" else None
        results: dict[str, Any] = {}
        configs: dict[str, Any] = {}
        for task, case_runs in tasks.items():
            lines = []
            for doc_id, case_run in enumerate(case_runs):
                kwargs = None if spec is None else gen_kwargs_for(spec, case_run.case.settings.trials)
                lines.append(_line(doc_id, case_run, kwargs))
            write_samples_file(folder / samples_file_name(task, stamp), lines)
            results[task] = {"alias": task, **aggregate_samples(lines)}
            trials = max((c.case.settings.trials for c in case_runs), default=1)
            configs[task] = {
                "task": task,
                "output_type": "generate_until",
                "repeats": trials,
                "generation_kwargs": None if spec is None else gen_kwargs_for(spec, trials),
                "metadata": {
                    "suite": run.suite.name,
                    "variant": task,
                    "framework": case_runs[0].case.settings.framework,
                    "style": case_runs[0].case.settings.style,
                },
            }
        data = {
            "results": results,
            "configs": configs,
            "config": {
                "model": "reference" if spec is None else spec.name,
                "model_args": "" if spec is None else spec.args,
                "batch_size": None if spec is None else spec.batch_size,
                "device": None if spec is None else spec.device,
            },
            "model_name": "reference" if spec is None else spec.args or spec.name,
            "date": time.time(),
            "chat_template": None if spec is None else spec.apply_chat_template,
            "a11y_eval_version": __version__,
            "suite": {"name": run.suite.name, "file": str(run.suite.path)},
        }
        target = folder / results_file_name(stamp)
        write_results_file(target, data, allow_nan=False)
        written.append(target)
    return written


def write_report(
    out_dir: Path, suite_data: dict[str, Any], results: Sequence[Path], pricing: Sequence[ModelPrice] = ()
) -> Path | None:
    """``out_dir/report.html`` from this run's results files, with a section on the suite.

    Only ``results`` (what :func:`write_lm_eval_output` just wrote) are read, so an earlier run
    left in the same folder never shows up as this one. ``pricing`` holds the suite's distinct
    prices; when there is exactly one, the report's cost columns use it for every model column.
    Returns None when there is nothing to report."""
    from lm_eval_a11y.pricing import PriceTable
    from lm_eval_a11y.report import build_report, load_runs, render_report

    if not results:
        return None
    series = load_runs(list(results))
    table = None
    if len(set(pricing)) == 1:
        table = PriceTable("USD", (("*", pricing[0]),))
    target = out_dir / "report.html"
    html = render_report(
        build_report(series, table),
        out_path=target,
        title=f"Suite {suite_data['suite']['name']}: accessibility of generated HTML",
        suite=suite_data,
    )
    target.write_text(html, encoding="utf-8")
    return target
