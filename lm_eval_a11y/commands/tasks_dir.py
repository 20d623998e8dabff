"""``a11y-eval tasks-dir``: where the lm-eval task YAMLs are, for ``lm_eval --include_path``."""

from __future__ import annotations

import argparse
from typing import Any

from lm_eval_a11y.cli import EXIT_OK


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "tasks-dir",
        help="print the folder to give to lm_eval --include_path",
        description="Print the folder holding the a11y_html task YAMLs, e.g. "
        'lm_eval run --include_path "$(a11y-eval tasks-dir)" --tasks a11y_html ...',
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from lm_eval_a11y.resources import tasks_dir

    print(tasks_dir())
    return EXIT_OK
