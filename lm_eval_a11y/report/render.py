"""Rendering a :class:`~lm_eval_a11y.report.aggregate.Report` into one self-contained HTML file.

Model output is hostile: every value reaches the page through Jinja2 with autoescaping on, the
generated HTML is only ever shown as escaped text, links are emitted only for ``http(s)`` URLs,
and ids derived from data are reduced to a safe alphabet. The file has no scripts and loads
nothing from the network: styles are inline, the chart is inline SVG, and screenshots are either
embedded as data URIs or linked relatively to the report's own folder.
"""

from __future__ import annotations

import base64
import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

import jinja2

from lm_eval_a11y import __version__
from lm_eval_a11y.report.aggregate import SUMMARY_METRICS, Report
from lm_eval_a11y.report.loading import Sample

__all__ = ["DEFAULT_SCREENSHOT_BUDGET", "ScreenshotMode", "render_report", "screenshot_modes"]

ScreenshotMode = Literal["embed", "link", "none"]
TEMPLATES = Path(__file__).resolve().parent / "templates"

# Bars are told apart by pattern and by a direct label, never by colour alone.
PATTERNS: tuple[str, ...] = ("solid", "diagonal", "dots", "cross", "horizontal", "vertical")


@dataclass(frozen=True)
class Bar:
    series: int
    x: float
    y: float
    width: float
    height: float
    label: str
    label_x: float


@dataclass(frozen=True)
class ChartRow:
    case_id: str
    label_y: float
    bars: tuple[Bar, ...]


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    plot_x: int
    plot_width: int
    top: int
    bottom: int
    rows: tuple[ChartRow, ...]
    legend: tuple[tuple[int, str, float], ...]
    ticks: tuple[tuple[float, str], ...]


def build_chart(report: Report) -> Chart:
    """Geometry of the grouped horizontal bar chart: one group per case, one bar per series."""
    labels = [s.series.label for s in report.summaries]
    bar_h, gap, group_gap = 18, 4, 16
    plot_x, plot_w, width = 200, 400, 760
    legend_top = 10
    legend = tuple((i, label, legend_top + i * 24.0) for i, label in enumerate(labels))
    top = legend_top + len(labels) * 24 + 14
    rows = []
    y = float(top)
    for case in report.cases:
        bars = []
        start = y
        for i, cell in enumerate(case.cells):
            if cell is None:
                text = "not run"
                w = 0.0
            else:
                w = plot_w * cell.rate
                text = f"{cell.rate:.0%} ({cell.passed}/{cell.samples})"
            bars.append(Bar(i, plot_x, y, max(w, 1.5) if cell else 0.0, bar_h, text, plot_x + w + 6))
            y += bar_h + gap
        rows.append(ChartRow(case.case_id, (start + y - gap) / 2, tuple(bars)))
        y += group_gap - gap
    bottom = int(y) + 4
    ticks = tuple((plot_x + plot_w * t, f"{t:.0%}") for t in (0, 0.25, 0.5, 0.75, 1.0))
    return Chart(width, bottom + 24, plot_x, plot_w, top - 4, bottom, tuple(rows), legend, ticks)


# ---------------------------------------------------------------------------------------- filters


def _nan(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def pct(value: Any, digits: int = 1) -> str:
    return "n/a" if _nan(value) else f"{float(value) * 100:.{digits}f}%"


def num(value: Any, digits: int = 2) -> str:
    if _nan(value):
        return "n/a"
    if isinstance(value, int):
        return f"{value:,}"
    return f"{float(value):,.{digits}f}"


def money(value: Any, currency: str | None) -> str:
    if _nan(value):
        return "unknown"
    amount = float(value)
    text = f"{amount:,.6f}" if 0 < amount < 0.01 else f"{amount:,.4f}"
    return f"{text} {currency}" if currency else text


def safe_url(value: Any) -> str | None:
    """Only web links: a record could carry ``javascript:`` or other schemes."""
    text = str(value or "")
    return text if re.match(r"^https?://[^\s\"'<>]+$", text) else None


def slug(value: Any) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", str(value).lower()).strip("-") or "x"


def as_json(value: Any) -> str:
    """Settings shown as JSON (what a user would write), not as a Python repr."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _data_uri(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


# Embedded screenshots, in bytes of PNG, before the rest are linked instead: a full-page PNG is
# 20-300 KB, so 25 MiB holds a few hundred; a report of a large run stays a file a browser opens
# quickly and that can be attached to an issue.
DEFAULT_SCREENSHOT_BUDGET = 25 * 1024 * 1024


def screenshot_modes(
    report: Report, mode: ScreenshotMode, budget_bytes: int | None = DEFAULT_SCREENSHOT_BUDGET
) -> tuple[dict[tuple[int, str, int, int], ScreenshotMode], str | None]:
    """How each sample's screenshot is shown, and a note when the budget was reached.

    With ``embed``, screenshots are embedded in report order until their PNG bytes would pass
    ``budget_bytes`` (``None``: no limit); the rest are linked relative to the report, so a large
    run's report stays small and still shows every screenshot while the run folders sit beside
    it. Sizes come from the files' metadata: nothing is read twice."""
    modes: dict[tuple[int, str, int, int], ScreenshotMode] = {}
    used = linked = 0
    for i, summary in enumerate(report.summaries):
        for sample in summary.series.samples:
            if sample.screenshot is None or mode == "none" or not sample.screenshot.is_file():
                continue
            chosen = mode
            if mode == "embed" and budget_bytes is not None:
                size = sample.screenshot.stat().st_size
                if used + size > budget_bytes:
                    chosen, linked = "link", linked + 1
                else:
                    used += size
            modes[(i, sample.task, sample.doc_id, sample.index)] = chosen
    if not linked:
        return modes, None
    budget_mib = (budget_bytes or 0) / 1024 / 1024
    return modes, (
        f"{linked} of {len(modes)} screenshots did not fit the {budget_mib:.3g} MiB budget for embedded screenshots "
        "and are linked instead: keep the run folders beside this report to see them "
        "(a11y-eval report --screenshot-budget MIB raises the budget)"
    )


def screenshot_src(sample: Sample, mode: ScreenshotMode, out_dir: Path) -> str | None:
    if sample.screenshot is None or mode == "none" or not sample.screenshot.is_file():
        return None
    if mode == "embed":
        return _data_uri(sample.screenshot)
    try:
        rel = os.path.relpath(sample.screenshot, out_dir)
    except ValueError:  # another drive on Windows: an absolute file URL still opens offline
        return sample.screenshot.as_uri()
    return quote(Path(rel).as_posix())


@dataclass(frozen=True)
class VariantGrid:
    """A suite's cases against its variants: ``cells[i][j]`` is (trials passed, trials) of case
    ``case_ids[i]`` in variant ``variants[j]``, None where the case did not run in it."""

    variants: tuple[str, ...]
    case_ids: tuple[str, ...]
    cells: tuple[tuple[tuple[int, int] | None, ...], ...]


def variant_grid(suite: Mapping[str, Any] | None) -> VariantGrid | None:
    """The suite's cases × variants, in the order the run met them; None with fewer than two
    variants (the suite's case table already says it all)."""
    cases = suite.get("cases") if suite is not None else None
    if not isinstance(cases, list):
        return None
    found: dict[tuple[str, str], tuple[int, int]] = {}
    variants: dict[str, None] = {}
    case_ids: dict[str, None] = {}
    for case in cases:
        if not isinstance(case, Mapping):
            continue
        variant, case_id, stats = str(case.get("variant", "")), str(case.get("id", "")), case.get("stats")
        if not isinstance(stats, Mapping):
            continue
        variants.setdefault(variant)
        case_ids.setdefault(case_id)
        found[(case_id, variant)] = (int(stats.get("trials_passed") or 0), int(stats.get("trials") or 0))
    if len(variants) < 2:
        return None
    return VariantGrid(
        tuple(variants),
        tuple(case_ids),
        tuple(tuple(found.get((c, v)) for v in variants) for c in case_ids),
    )


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(as_json=as_json, pct=pct, num=num, money=money, safe_url=safe_url, slug=slug)
    return env


def render_report(
    report: Report,
    *,
    out_path: Path,
    screenshots: ScreenshotMode = "embed",
    screenshot_budget: int | None = DEFAULT_SCREENSHOT_BUDGET,
    title: str = "Accessibility of generated HTML",
    generated: datetime | None = None,
    suite: Mapping[str, Any] | None = None,
) -> str:
    """The report as one HTML document (text); ``out_path`` only anchors relative screenshot links.

    ``screenshot_budget`` caps the bytes of embedded screenshots (see :func:`screenshot_modes`).
    ``suite`` is a suite run's ``suite.json`` data: the report then opens with the suite's
    verdict, each case's trials, expectations met and failed, and repair and rescue rates."""
    out_dir = Path(out_path).resolve().parent
    modes, budget_note = screenshot_modes(report, screenshots, screenshot_budget)
    if budget_note is not None:
        report = replace(report, notes=(*report.notes, budget_note))
    shots: dict[tuple[int, str, int, int], tuple[str, ScreenshotMode]] = {}
    for i, summary in enumerate(report.summaries):
        for sample in summary.series.samples:
            key = (i, sample.task, sample.doc_id, sample.index)
            src = screenshot_src(sample, modes[key], out_dir) if key in modes else None
            if src is not None:
                shots[key] = (src, modes[key])
    template = _environment().get_template("report.html.j2")
    return template.render(
        report=report,
        title=title,
        chart=build_chart(report),
        patterns=PATTERNS,
        metrics=SUMMARY_METRICS,
        shots=shots,
        suite=suite,
        variant_grid=variant_grid(suite),
        version=__version__,
        generated=(generated or datetime.now(tz=timezone.utc)).strftime("%Y-%m-%d %H:%M UTC"),
    )
