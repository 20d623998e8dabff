"""``a11y-eval run ARGS...``: ``lm_eval run ARGS...`` with the task folder added as ``--include_path``.

Every argument is handed to lm-eval unchanged, so its documentation applies as is, except our own
``--a11y-screenshots DIR`` (save a full-page PNG of every sample there, named by model, case and
sample, and linked from the samples file). lm-eval takes a
single include path, so giving another one here is refused rather than silently replaced.
"""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path
from typing import Any

from lm_eval_a11y.cli import UsageError
from lm_eval_a11y.lm_eval_args import LmEvalArgsError, lm_eval_command, model_label, take_screenshot_option


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


def run(args: argparse.Namespace) -> int:
    try:
        lm_args, screenshots = take_screenshot_option(args.lm_eval_args)
        command = lm_eval_command(lm_args)
    except LmEvalArgsError as err:
        raise UsageError(str(err)) from None
    if not lm_args:
        command.append("--help")
    env = dict(os.environ)
    if screenshots is not None:
        from lm_eval_a11y.commands.score import writable_folder

        # Checked before the model runs: otherwise every sample of the run would fail to save.
        folder = writable_folder(Path(screenshots).expanduser(), "--a11y-screenshots")
        env["A11Y_SCREENSHOTS"] = str(folder.resolve())
        env.setdefault("A11Y_MODEL_LABEL", model_label(lm_args))
    return subprocess.call(command, env=env)
