"""The ``a11y-eval`` command line.

Each sub-command lives in its own module under :mod:`lm_eval_a11y.commands` and exposes
``register(subparsers)``; this file only wires them up and maps errors to exit codes:
0 success, 1 a page failed (or a validation did), 2 usage error, 3 the environment is not ready
(no Chromium, no axe-core) with the command that fixes it.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from lm_eval_a11y import __version__
from lm_eval_a11y.browser import DEFAULT_CONCURRENCY

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_ENVIRONMENT = 3

_COMMANDS: tuple[str, ...] = (
    "lm_eval_a11y.commands.score",
    "lm_eval_a11y.commands.doctor",
    "lm_eval_a11y.commands.cases",
    "lm_eval_a11y.commands.report",
    "lm_eval_a11y.commands.run",
    "lm_eval_a11y.commands.tasks_dir",
    "lm_eval_a11y.commands.rescore",
    "lm_eval_a11y.commands.dataset",
)


class UsageError(Exception):
    """Bad arguments found after parsing (missing file, unknown case)."""


def add_pool_options(parser: argparse.ArgumentParser) -> None:
    """``--timeout`` and ``--concurrency``, for every command that evaluates pages."""
    parser.add_argument("--timeout", type=float, default=20.0, metavar="S", help="time budget per page (default 20)")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"pages evaluated at once (default {DEFAULT_CONCURRENCY}: two per CPU core, at most 8)",
    )


def check_pool_options(args: argparse.Namespace) -> None:
    if args.concurrency < 1 or args.timeout <= 0:
        raise UsageError("--concurrency must be at least 1 and --timeout positive")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="a11y-eval",
        description="Evaluate the accessibility of HTML in a real browser with axe-core and behaviour checks.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in _COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from lm_eval_a11y.browser import ChromiumNotFoundError
    from lm_eval_a11y.cases import CaseError
    from lm_eval_a11y.resources import MissingResourceError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
    except (UsageError, CaseError) as err:
        # Like argparse's own errors: message on stderr, SystemExit(2).
        parser.exit(EXIT_USAGE, f"a11y-eval {args.command}: error: {err}\n")
    except (ChromiumNotFoundError, MissingResourceError) as err:
        print(f"a11y-eval {args.command}: the environment is not ready: {err}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
