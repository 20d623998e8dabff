"""``a11y-eval suite run|check SUITE.yaml``: run a suite of cases with expectations, or validate it.

``run`` exits 0 when every case meets its expectations, 1 when any expectation fails, 2 for a
bad suite file or options (the message names the file, the field and what is allowed; an lm-eval
model class that does not exist), 3 when the environment or the model is not ready (no Chromium,
a model that does not load or fails while generating). Progress goes to stderr, the summary to
stdout, and the full result to ``DIR/suite.json`` (layout: docs/suites.md), written only once
the run is complete, then the run as lm-eval output (``DIR/lm-eval/``) and ``DIR/report.html``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lm_eval_a11y.cli import EXIT_ENVIRONMENT, EXIT_FAIL, EXIT_OK, UsageError, add_pool_options, say

if TYPE_CHECKING:
    from lm_eval_a11y.suite import Suite


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "suite",
        help="run a suite of cases with expectations (a release gate), or check a suite file",
        description="Suites: YAML files that select cases, set trials and expectations (docs/suites.md).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    run = actions.add_parser(
        "run",
        help="run a suite and write DIR/suite.json",
        description=(
            "Run every case of the suite (reference, model and repair modes), judge its expectations and write "
            "DIR/suite.json, the run as lm-eval output in DIR/lm-eval/ and the HTML report DIR/report.html. "
            "Exit code 0 when the suite passes, 1 when any expectation fails, 2 for a bad suite file or option, "
            "3 when the browser or the model is not ready."
        ),
    )
    run.add_argument("suite", type=Path, metavar="SUITE.yaml", help="the suite file")
    run.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder for suite.json (created)")
    run.add_argument("--cases", metavar="ID,...", help="run only these of the suite's cases (comma-separated case ids)")
    run.add_argument(
        "--model-args",
        metavar="K=V,...",
        help="lm-eval model arguments that replace or add to the suite's model.args key by key "
        "(e.g. a local pretrained=DIR that differs per machine)",
    )
    add_pool_options(run)
    run.set_defaults(handler=run_suite)

    check = actions.add_parser(
        "check",
        help="validate suite files without running anything",
        description="Validate suite files: exit 0 when every file is valid, 2 at the first that is not.",
    )
    check.add_argument("suites", nargs="+", type=Path, metavar="SUITE.yaml", help="suite files")
    check.set_defaults(handler=check_suites)


def _load(path: Path) -> Suite:
    # Imported here, not at the top: building the parser for any command must stay cheap.
    from lm_eval_a11y.suite import SuiteError, load_suite

    try:
        return load_suite(path)
    except SuiteError as err:
        raise UsageError(str(err)) from None


def _only(suite: Suite, wanted: str) -> Suite:
    """The suite restricted to the ``--cases`` ids, each of which must be in it."""
    from dataclasses import replace

    ids = [w.strip() for w in wanted.split(",") if w.strip()]
    if not ids:
        raise UsageError("--cases needs at least one case id")
    present = [c.id for c in suite.cases]
    missing = [i for i in ids if i not in present]
    if missing:
        raise UsageError(f"--cases: {', '.join(missing)} not in suite {suite.name!r}; its cases: {', '.join(present)}")
    return replace(suite, cases=tuple(c for c in suite.cases if c.id in ids))


def _describe(suite: Suite) -> str:
    modes = " and ".join(suite.modes)
    return f"suite {suite.name} ({suite.path}): {len(suite.cases)} case(s), {modes} mode"


def _plain(value: object) -> str:
    """A stated expectation as written in YAML: 60000 rather than 60000.0, lists without quotes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return "[" + ", ".join(_plain(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_plain(v)}" for k, v in value.items()) + "}"
    return str(value)


def check_suites(args: argparse.Namespace) -> int:
    for path in args.suites:
        suite = _load(path)
        say(f"OK  {_describe(suite)}")
        for case in suite.cases:
            s = case.settings
            stated = ", ".join(f"{k}={_plain(v)}" for k, v in s.expect.stated().items()) or "every trial passes"
            variant = (
                ""
                if s.instructions == "none" and s.variant.is_default
                else f" (instructions {s.instructions}, framework {s.framework}, style {s.style})"
            )
            say(f"    {case.id}: {s.mode}{variant}, trials {s.trials}; expect {stated}")
        for note in suite.notes:
            say(f"    note: {note}")
    return EXIT_OK


def _progress(name: str) -> Callable[[int, int], None]:
    """Print on stderr at every tenth of the run, so a long run shows it is alive without flooding."""
    shown = -1

    def report(done: int, total: int) -> None:
        nonlocal shown
        tenth = done * 10 // max(total, 1)
        if tenth != shown or done == total:
            shown = tenth
            say(f"suite {name}: {done} of {total} page(s) evaluated", file=sys.stderr)

    return report


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write whole or not at all: a gate must never read a half-written result."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".suite-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=2, allow_nan=False)
            out.write("\n")
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _with_model_args(suite: Suite, overrides: str | None) -> Suite:
    from dataclasses import replace

    from lm_eval_a11y.suite.model import merge_model_args

    if not overrides:
        return suite
    if suite.model is None:
        raise UsageError(f"--model-args: suite {suite.name!r} has no model: block to apply them to")
    return replace(suite, model=replace(suite.model, args=merge_model_args(suite.model.args, overrides)))


def _load_model(suite: Suite) -> Any:
    """The suite's lm-eval model, or None when no case generates. Exit 2 for a model class lm-eval
    does not have; exit 3 (the model is not ready) when it does not load."""
    from lm_eval_a11y.suite.model import ModelLoadError, UnknownModelError, load_model

    if suite.model is None or not suite.generates:
        return None
    say(f"suite {suite.name}: loading the model {suite.model.name} ({suite.model.args})", file=sys.stderr)
    try:
        return load_model(suite.model)
    except UnknownModelError as err:
        raise UsageError(f"{suite.path}: model.name: {err}") from None
    except ModelLoadError as err:
        raise ModelNotReadyError(str(err)) from None


class ModelNotReadyError(Exception):
    """The model could not be loaded or failed while generating: exit 3, like a missing browser."""


def _summary(result: Any, target: Path) -> None:
    from lm_eval_a11y.suite.run import variant_task

    width = max(len(c.case.id) for c in result.cases)
    for case in result.cases:
        stats = case.outcome.stats
        p95 = "" if stats.duration_p95_ms is None else f", p95 {stats.duration_p95_ms:.0f} ms"
        settings = case.case.settings
        plain = settings.mode == "reference" and settings.variant.is_default
        mode = "" if plain else f" [{variant_task(settings)}]"
        say(
            f"{'PASS' if case.outcome.passed else 'FAIL'}  {case.case.id:<{width}}  "
            f"{stats.trials_passed} of {stats.trials} trial(s) passed{p95}{mode}"
        )
        if stats.repair_rate is not None:
            rescue = "n/a" if stats.rescue_rate != stats.rescue_rate else f"{stats.rescue_rate:.0%}"
            say(
                f"      first try {stats.first_try_pass_rate:.0%}, repair rate {stats.repair_rate:.0%}, "
                f"rescue rate {rescue}"
            )
        for failed in case.outcome.failed:
            say(f"      {failed}")
        failing = [r for r in case.trials if not r.trial.passed]
        for record in failing[:3]:
            why = record.reasons[0] if record.reasons else record.status
            say(f"      trial {record.trial.label} failed: {why}")
        if len(failing) > 3:
            say(f"      ... and {len(failing) - 3} more failing trial(s) in {target}")


def run_suite(args: argparse.Namespace) -> int:
    import time

    from lm_eval_a11y.commands.score import writable_folder
    from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
    from lm_eval_a11y.suite import SuiteError
    from lm_eval_a11y.suite.model import ModelRunError, UnknownModelError, model_class, model_trials
    from lm_eval_a11y.suite.output import write_lm_eval_output, write_report
    from lm_eval_a11y.suite.run import finish_run, now_utc, reference_plan, reference_trials, suite_json

    suite = _load(args.suite)
    if args.cases is not None:
        suite = _only(suite, args.cases)
    suite = _with_model_args(suite, args.model_args)
    try:
        reference_plan(suite)  # every refusal before the browser or the model starts
    except SuiteError as err:
        raise UsageError(str(err)) from None
    if suite.model is not None and suite.generates:
        try:
            model_class(suite.model)
        except UnknownModelError as err:
            raise UsageError(f"{suite.path}: model.name: {err}") from None
    out = writable_folder(args.out, "--out")
    for note in suite.notes:
        say(f"note: {note}", file=sys.stderr)
    try:
        lm = _load_model(suite)
    except ModelNotReadyError as err:
        say(f"a11y-eval suite: the model is not ready: {err}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    started, clock = now_utc(), time.monotonic()
    settings = EvaluatorSettings(concurrency=args.concurrency, timeout_s=args.timeout)
    with Evaluator(settings) as evaluator:
        per_case, environment = reference_trials(suite, evaluator, progress=_progress(suite.name))
        if lm is not None and suite.model is not None:
            try:
                generated, model_environment = model_trials(
                    suite, lm, evaluator, spec=suite.model, progress=_progress(suite.name)
                )
            except ModelRunError as err:
                say(f"a11y-eval suite: {err}", file=sys.stderr)
                return EXIT_ENVIRONMENT
            per_case.update(generated)
            environment = environment or model_environment
    result = finish_run(suite, per_case, started=started, clock=clock, environment=environment)
    target = out / "suite.json"
    data = suite_json(result)
    _write_json(target, data)
    results = write_lm_eval_output(result, out, suite.model)
    prices = [c.settings.pricing for c in suite.cases if c.settings.pricing is not None and c.settings.generates]
    report = write_report(out, data, results, prices)
    say(_describe(suite))
    _summary(result, target)
    t = result.totals
    cost = "" if t.estimated_cost_total_usd is None else f"; estimated cost {t.estimated_cost_total_usd:.6f} USD"
    wrote = f"{target}" + (f" and {report}" if report is not None else "")
    say(
        f"{'PASSED' if result.passed else 'FAILED'}: {t.passed} of {t.total} case(s) met their expectations "
        f"({t.pass_rate:.0%}); {t.trials_passed} of {t.trials} trial(s) passed{cost}; {result.wall_s:.1f} s; "
        f"wrote {wrote}"
    )
    return EXIT_OK if result.passed else EXIT_FAIL
