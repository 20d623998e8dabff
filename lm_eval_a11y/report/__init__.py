"""The HTML report: read lm-eval output folders, aggregate, render one self-contained file.

    series = load_runs([Path("out")])
    report = build_report(series, pricing=load_pricing(Path("pricing.yaml")))
    Path("report.html").write_text(render_report(report, out_path=Path("report.html")))

Reading needs no browser and no model: everything comes from lm-eval's results and samples files.
"""

from __future__ import annotations

from lm_eval_a11y.report.aggregate import Report, build_report
from lm_eval_a11y.report.loading import RunError, RunSeries, Sample, load_runs
from lm_eval_a11y.report.render import ScreenshotMode, render_report

__all__ = ["Report", "RunError", "RunSeries", "Sample", "ScreenshotMode", "build_report", "load_runs", "render_report"]
