"""The ``lm_eval`` command line that ``a11y-eval run`` starts, built from the arguments given to it.

Every argument goes to lm-eval unchanged, except our own ``--a11y-screenshots DIR``
(:func:`take_screenshot_option`), and the task folder is added as ``--include_path``
(:func:`lm_eval_command`); :func:`model_label` names the model in screenshot file names.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["LmEvalArgsError", "lm_eval_command", "model_label", "take_screenshot_option"]


class LmEvalArgsError(ValueError):
    """Arguments for lm-eval that ``a11y-eval run`` cannot pass on (the message says why)."""


def lm_eval_command(lm_eval_args: Sequence[str]) -> list[str]:
    """The lm-eval command line for ``a11y-eval run``: ``lm_eval run`` with the task folder as
    ``--include_path`` and every argument after it."""
    from lm_eval_a11y.resources import tasks_dir

    args = list(lm_eval_args)
    if any(a == "--include_path" or a.startswith("--include_path=") for a in args):
        raise LmEvalArgsError(
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
                raise LmEvalArgsError("--a11y-screenshots needs a folder")
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
