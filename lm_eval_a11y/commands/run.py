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
import sys
from collections.abc import Sequence
from pathlib import Path
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


def take_screenshot_option(lm_eval_args: Sequence[str]) -> tuple[list[str], str | None]:
    """Remove our own ``--a11y-screenshots DIR`` from the arguments meant for lm-eval."""
    args = list(lm_eval_args)
    for i, arg in enumerate(args):
        if arg.startswith("--a11y-screenshots="):
            return args[:i] + args[i + 1 :], arg.split("=", 1)[1]
        if arg == "--a11y-screenshots":
            if i + 1 >= len(args):
                raise UsageError("--a11y-screenshots needs a folder")
            return args[:i] + args[i + 2 :], args[i + 1]
    return args, None


def model_label(lm_eval_args: Sequence[str]) -> str:
    """A short model name for file names: the GGUF file, else the last part of pretrained=/model=."""
    args = list(lm_eval_args)
    raw = ""
    for i, arg in enumerate(args):
        if arg == "--model_args" and i + 1 < len(args):
            raw = args[i + 1]
        elif arg.startswith("--model_args="):
            raw = arg.split("=", 1)[1]
    fields = dict(part.split("=", 1) for part in raw.split(",") if "=" in part)
    for key in ("gguf_file", "pretrained", "model"):
        if fields.get(key):
            return Path(fields[key].rstrip("/")).name.removesuffix(".gguf")
    return "model"


def run(args: argparse.Namespace) -> int:
    lm_args, screenshots = take_screenshot_option(args.lm_eval_args)
    command = lm_eval_command(lm_args)
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
