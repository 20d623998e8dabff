"""``a11y-eval suite run|check SUITE.yaml``: run a suite of cases with expectations, or validate it.

``run`` exits 0 when every case meets its expectations, 1 when any expectation fails, 2 for a
bad suite file or options (the message names the file, the field and what is allowed), 3 when
the environment is not ready. Progress goes to stderr, the summary to stdout, and the full result
to ``DIR/suite.json`` (layout: docs/suites.md), written only once the run is complete.
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

from lm_eval_a11y.cli import EXIT_FAIL, EXIT_OK, UsageError, add_pool_options, say

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
            "Run every case of the suite, judge its expectations and write DIR/suite.json. Exit code 0 when "
            "the suite passes, 1 when any expectation fails, 2 for a bad suite file or option. Only reference "
            "mode (the cases' own passing examples, no model) runs in this version."
        ),
    )
    run.add_argument("suite", type=Path, metavar="SUITE.yaml", help="the suite file")
    run.add_argument("--out", type=Path, required=True, metavar="DIR", help="folder for suite.json (created)")
    run.add_argument("--cases", metavar="ID,...", help="run only these of the suite's cases (comma-separated case ids)")
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
            say(f"    {case.id}: {s.mode}, trials {s.trials}; expect {stated}")
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


def run_suite(args: argparse.Namespace) -> int:
    from lm_eval_a11y.commands.score import writable_folder
    from lm_eval_a11y.evaluator import Evaluator, EvaluatorSettings
    from lm_eval_a11y.suite import SuiteError
    from lm_eval_a11y.suite_run import reference_plan, run_reference, suite_json

    suite = _load(args.suite)
    if args.cases is not None:
        suite = _only(suite, args.cases)
    try:
        reference_plan(suite)  # every refusal before the browser starts
    except SuiteError as err:
        raise UsageError(str(err)) from None
    out = writable_folder(args.out, "--out")
    for note in suite.notes:
        say(f"note: {note}", file=sys.stderr)
    settings = EvaluatorSettings(concurrency=args.concurrency, timeout_s=args.timeout)
    with Evaluator(settings) as evaluator:
        result = run_reference(suite, evaluator, progress=_progress(suite.name))
    target = out / "suite.json"
    _write_json(target, suite_json(result))
    say(_describe(suite))
    width = max(len(c.case.id) for c in result.cases)
    for case in result.cases:
        stats = case.outcome.stats
        p95 = "" if stats.duration_p95_ms is None else f", p95 {stats.duration_p95_ms:.0f} ms"
        say(
            f"{'PASS' if case.outcome.passed else 'FAIL'}  {case.case.id:<{width}}  "
            f"{stats.trials_passed} of {stats.trials} trial(s) passed{p95}"
        )
        for failed in case.outcome.failed:
            say(f"      {failed}")
        failing = [r for r in case.trials if not r.trial.passed]
        for record in failing[:3]:
            why = record.reasons[0] if record.reasons else record.status
            say(f"      trial {record.trial.label} failed: {why}")
        if len(failing) > 3:
            say(f"      ... and {len(failing) - 3} more failing trial(s) in {target}")
    t = result.totals
    say(
        f"{'PASSED' if result.passed else 'FAILED'}: {t.passed} of {t.total} case(s) met their expectations "
        f"({t.pass_rate:.0%}); {t.trials_passed} of {t.trials} trial(s) passed; {result.wall_s:.1f} s; wrote {target}"
    )
    return EXIT_OK if result.passed else EXIT_FAIL
