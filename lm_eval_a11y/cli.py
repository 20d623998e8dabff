"""The ``a11y-eval`` command line.

Each sub-command lives in its own module under :mod:`lm_eval_a11y.commands` and exposes
``register(subparsers)``; this file only wires them up and maps errors to exit codes:
0 success, 1 a page failed (or a validation did), 2 usage error, 3 the environment is not ready
(no Chromium, no axe-core) with the command that fixes it, 130 interrupted (Ctrl-C).

Everything the pages under test write reaches the terminal, so every line we print goes through
:func:`terminal_safe`: a page must not be able to move the cursor, erase our FAIL lines or print a
verdict of its own.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import math
import os
import re
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType
from typing import TextIO

from lm_eval_a11y import __version__
from lm_eval_a11y.engine.browser import DEFAULT_CONCURRENCY

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_ENVIRONMENT = 3
EXIT_INTERRUPTED = 130

_COMMANDS: tuple[str, ...] = (
    "lm_eval_a11y.commands.score",
    "lm_eval_a11y.commands.doctor",
    "lm_eval_a11y.commands.cases",
    "lm_eval_a11y.commands.report",
    "lm_eval_a11y.commands.run",
    "lm_eval_a11y.commands.tasks_dir",
    "lm_eval_a11y.commands.rescore",
    "lm_eval_a11y.commands.dataset",
    "lm_eval_a11y.commands.suite",
    "lm_eval_a11y.commands.corpus",
)

# C0 and C1 control characters (ESC, CSI, BEL, backspace, carriage return, newline...), and the
# Unicode controls that reorder or break text on screen (bidi overrides and isolates, line and
# paragraph separators): each is shown as a visible escape instead of acting on the terminal.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    if char in named:
        return named[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: object) -> str:
    """``text`` with every control character escaped, so it prints as exactly one line of itself."""
    return _UNSAFE.sub(_visible, str(text))


def say(*parts: object, file: TextIO | None = None) -> None:
    """Print one line built from untrusted parts (page snippets, file names, messages)."""
    print(terminal_safe(" ".join(str(p) for p in parts)), file=file or sys.stdout)


class UsageError(Exception):
    """Bad arguments found after parsing (missing file, unknown case, unusable folder)."""


def positive_seconds(text: str) -> float:
    """argparse type for a time budget: a finite number of seconds above zero.

    ``float()`` accepts ``nan`` and ``inf``; a NaN budget would make every comparison false and an
    infinite one would let a hostile page hold a slot for ever, so both are refused here."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds above 0, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """argparse type for a count that must be at least 1 (``--concurrency``, ``--repeat``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text!r}")
    return value


def add_pool_options(parser: argparse.ArgumentParser) -> None:
    """``--timeout`` and ``--concurrency``, for every command that evaluates pages."""
    parser.add_argument(
        "--timeout",
        type=positive_seconds,
        default=20.0,
        metavar="S",
        help="time budget per page (default 20), plus the time of the reloads the checks ask for, up to as much again",
    )
    parser.add_argument(
        "--concurrency",
        type=positive_int,
        default=DEFAULT_CONCURRENCY,
        metavar="N",
        help=f"pages evaluated at once (default {DEFAULT_CONCURRENCY}: two per CPU core, at most 8)",
    )


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


def _leave_at_once(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C: one line and exit 130, now.

    The browser runs on a private event-loop thread with Playwright's driver and Chromium as child
    processes; a real Ctrl-C reaches all of them at once, and unwinding that loop while its peers
    die prints screens of "Event loop is closed" tracebacks and says nothing useful. Nothing is
    half-written that a user needs: commands write their results only once they are complete.
    The driver and Chromium end with us (their pipes to this process close)."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    with contextlib.suppress(Exception):
        os.write(2, b"interrupted\n")
    os._exit(EXIT_INTERRUPTED)


def main(argv: Sequence[str] | None = None) -> int:
    from lm_eval_a11y.cases import CaseError
    from lm_eval_a11y.engine.browser import ChromiumNotFoundError
    from lm_eval_a11y.resources import MissingResourceError

    parser = build_parser()
    args = parser.parse_args(argv)
    # `run` waits for its lm_eval child, which handles Ctrl-C itself, and `corpus` for its pipeline
    # process, which it ends itself; only the commands that own a browser leave at once. Only as the
    # program itself (the console script passes no argv), never when a test or a notebook calls main().
    previous = None
    if args.command not in ("run", "corpus") and argv is None and threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, _leave_at_once)
    try:
        code: int = args.handler(args)
    except (UsageError, CaseError) as err:
        # Like argparse's own errors: message on stderr, SystemExit(2).
        parser.exit(EXIT_USAGE, terminal_safe(f"a11y-eval {args.command}: error: {err}") + "\n")
    except (ChromiumNotFoundError, MissingResourceError) as err:
        say(f"a11y-eval {args.command}: the environment is not ready: {err}", file=sys.stderr)
        return EXIT_ENVIRONMENT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # `a11y-eval score ... | head`: the reader is gone; say nothing more and stop quietly.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAIL
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    return code


if __name__ == "__main__":
    sys.exit(main())
