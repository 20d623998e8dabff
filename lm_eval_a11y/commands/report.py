"""``a11y-eval report RUN_DIR... [--out report.html] [--pricing pricing.yaml]``: the HTML report."""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from lm_eval_a11y.cli import EXIT_OK, UsageError, say

# The default of --screenshot-budget, the same as render's DEFAULT_SCREENSHOT_BUDGET (a test says
# so); kept here so that building the parser does not import the report's templates.
SCREENSHOT_BUDGET_MIB = 25.0


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "report",
        help="write one self-contained HTML report from lm-eval output folders",
        description=(
            "Read lm-eval output (results_<date>.json and samples_<task>_<date>.jsonl, written with "
            "--output_path and --log_samples) for one or more models and runs, and write one HTML file "
            "that opens offline: summary per model, pass@k, pass rate per case, every sample's evidence, "
            "the most common failures, tokens and cost, and the run environment."
        ),
    )
    parser.add_argument(
        "runs",
        nargs="+",
        metavar="RUN_DIR",
        type=Path,
        help="an lm-eval --output_path folder, a model folder in it, or a results file",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("report.html"), help="where to write the report (default report.html)"
    )
    parser.add_argument(
        "--pricing", type=Path, metavar="YAML", help="prices per million tokens per model (see pricing.example.yaml)"
    )
    parser.add_argument(
        "--screenshots",
        choices=("embed", "link", "none"),
        default="embed",
        help="embed screenshots in the file (default), link them relative to the report, or leave them out",
    )
    parser.add_argument(
        "--screenshot-budget",
        type=_mebibytes,
        default=SCREENSHOT_BUDGET_MIB,
        metavar="MIB",
        help=f"embed at most this many MiB of screenshots (default {SCREENSHOT_BUDGET_MIB:g}); "
        "the rest are linked relative to the report",
    )
    parser.add_argument(
        "--count-tokens",
        action="store_true",
        help="count tokens the samples lack with the model's own local tokenizer (hf models) or --tokenizer",
    )
    parser.add_argument(
        "--tokenizer", metavar="NAME_OR_DIR", help="a local tokenizer for --count-tokens (nothing is downloaded)"
    )
    parser.add_argument("--title", default="Accessibility of generated HTML", help="the report's title")
    parser.set_defaults(handler=run)


def _mebibytes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of MiB, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of MiB, 0 or more, got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    from lm_eval_a11y.pricing import PricingError, load_pricing
    from lm_eval_a11y.report import RunError, build_report, load_runs, render_report
    from lm_eval_a11y.report.counting import fill_tokens
    from lm_eval_a11y.report.render import screenshot_modes
    from lm_eval_a11y.tokens import TokenizerUnavailableError

    try:
        series = load_runs(list(args.runs))
        pricing = load_pricing(args.pricing) if args.pricing else None
    except (RunError, PricingError) as err:
        raise UsageError(str(err)) from err
    notes: list[str] = []
    if args.count_tokens or args.tokenizer:
        try:
            series, notes = fill_tokens(series, named=args.tokenizer)
        except TokenizerUnavailableError as err:
            raise UsageError(str(err)) from err
    report = build_report(series, pricing)
    if notes:
        report = replace(report, notes=(*report.notes, *notes))
    budget = int(args.screenshot_budget * 1024 * 1024)
    _, budget_note = screenshot_modes(report, args.screenshots, budget)
    html = render_report(
        report, out_path=args.out, screenshots=args.screenshots, screenshot_budget=budget, title=args.title
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(html, encoding="utf-8")
    samples = sum(s.samples for s in report.summaries)
    say(
        f"wrote {args.out} ({len(html.encode('utf-8')) / 1024:,.0f} KiB): {len(report.summaries)} run(s), "
        f"{len(report.cases)} case(s), {samples} sample(s)"
    )
    for note in (*report.notes, *([budget_note] if budget_note else [])):
        say(f"note: {note}", file=sys.stderr)
    return EXIT_OK
