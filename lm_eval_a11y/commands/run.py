"""``a11y-eval run ARGS...``: ``lm_eval run ARGS...`` with the task folder added as ``--include_path``.

Every argument is handed to lm-eval unchanged, so its documentation applies as is. lm-eval takes a
single include path, so giving another one here is refused rather than silently replaced.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from lm_eval_a11y.cli import UsageError


def register(sub: Any) -> None:
    # prefix_chars="+" keeps argparse from reading lm-eval's --options as ours.
    parser = sub.add_parser(
        "run",
        help="lm_eval run with the a11y_html tasks on the include path (all flags passed through)",
        description="Run lm_eval run with --include_path set to the a11y_html tasks; every other "
        "argument goes to lm_eval unchanged (see lm_eval run --help).",
        prefix_chars="+",
        add_help=False,
    )
    parser.add_argument("lm_eval_args", nargs=argparse.REMAINDER, metavar="ARGS")
    parser.set_defaults(handler=run)


def lm_eval_command(lm_eval_args: Sequence[str]) -> list[str]:
    """The lm-eval command line for ``a11y-eval run`` (exposed for tests and for printing)."""
    from lm_eval_a11y.resources import tasks_dir

    args = list(lm_eval_args)
    if any(a == "--include_path" or a.startswith("--include_path=") for a in args):
        raise UsageError(
            "a11y-eval run sets --include_path itself; to add your own tasks, call lm_eval directly with "
            '--include_path and pass the a11y tasks as YAML paths from "$(a11y-eval tasks-dir)"'
        )
    if args[:1] == ["run"]:
        args = args[1:]
    return [sys.executable, "-m", "lm_eval", "run", "--include_path", str(tasks_dir()), *args]


def run(args: argparse.Namespace) -> int:
    command = lm_eval_command(args.lm_eval_args)
    if not args.lm_eval_args:
        command.append("--help")
    return subprocess.call(command)
