"""The README cannot drift from the CLI.

- Shell blocks marked ``<!-- runnable -->`` (or ``<!-- runnable: exit=N -->``) run as written, from
  the repository root, with the exit code they promise; a ``<!-- output -->`` block right after
  one is its exact standard output. Mark only fast, offline, self-contained commands.
- Every ``a11y-eval`` command line in the README and in ``docs/`` names a command, action and
  options that exist, and every benchmark option named exists.
- Every relative link resolves, and the README stays a ten-minute read (under 25 KB) that
  describes the project, never its development.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from cli.support import run_script
from lm_eval_a11y.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]

_FENCE = re.compile(r"^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)
_MARK = re.compile(r"<!-- runnable(?::\s*exit=(?P<exit>\d+))? -->\n+```bash\n(?P<body>.*?)^```$", re.M | re.S)
_OUTPUT = re.compile(r"\A\n*<!-- output -->\n+```text\n(?P<body>.*?)^```$", re.M | re.S)


@dataclass(frozen=True)
class Runnable:
    commands: str
    exit_code: int
    output: str | None


def runnable_blocks(text: str) -> list[Runnable]:
    blocks = []
    for mark in _MARK.finditer(text):
        after = _OUTPUT.match(text[mark.end() + 1 :])
        blocks.append(
            Runnable(mark.group("body"), int(mark.group("exit") or 0), after.group("body") if after else None)
        )
    return blocks


def test_the_readme_has_runnable_blocks() -> None:
    blocks = runnable_blocks(README.read_text(encoding="utf-8"))
    assert len(blocks) >= 2
    assert any(b.output is not None for b in blocks), "at least one block shows its output"


@pytest.mark.parametrize("block", runnable_blocks(README.read_text(encoding="utf-8")), ids=lambda b: b.commands[:50])
def test_runnable_block_runs_as_written(block: Runnable) -> None:
    done = run_script([], shell=f"cd '{ROOT}' && set -eo pipefail\n{block.commands}", timeout=300)
    assert done.returncode == block.exit_code, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    if block.output is not None:
        assert done.stdout == block.output


# ------------------------------------------------------------------ commands and options named


def _code(text: str) -> list[str]:
    """Every line of code: fenced blocks and inline code spans."""
    lines = [line for m in _FENCE.finditer(text) for line in m.group("body").splitlines()]
    outside = _FENCE.sub("", text)
    lines += re.findall(r"`([^`\n]+)`", outside)
    # A shell line continued with a backslash is one command.
    return re.sub(r"\\\n\s*", " ", "\n".join(lines)).splitlines()


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {opt for action in parser._actions for opt in action.option_strings}


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def named_invocations() -> list[tuple[str, str, list[str]]]:
    """``(page, command words, options)`` for every ``a11y-eval`` command line in the docs."""
    found = []
    for page in PAGES:
        for line in _code(page.read_text(encoding="utf-8")):
            for match in re.finditer(r"a11y-eval((?:\s+[a-z][a-z-]*)*)(?P<rest>[^|;&#)]*)", line):
                words = match.group(1).split()
                rest = match.group("rest")
                options = re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", rest)
                found.append((page.name, " ".join(words), options))
    return found


def test_every_command_and_option_named_exists() -> None:
    parser = build_parser()
    commands = _subparsers(parser)
    invocations = named_invocations()
    assert len(invocations) > 20
    problems = []
    for page, words, options in invocations:
        target = parser
        for word in words.split():
            sub = _subparsers(target)
            if not sub:
                break  # arguments (files, case ids, run folders)
            if word not in sub:
                problems.append(f"{page}: a11y-eval {words}: no command {word!r}")
                break
            target = sub[word]
        if words.split()[:1] == ["run"]:
            options = [o for o in options if o.startswith("--a11y-")]  # the rest belong to lm_eval
            known = {"--a11y-screenshots"}
        else:
            known = _options(target) | {"--help"}
        problems += [f"{page}: a11y-eval {words}: no option {o}" for o in options if o not in known]
    assert not problems, problems
    assert {"score", "report", "rescore", "cases", "dataset", "run", "tasks-dir", "doctor"} <= set(commands)


def test_every_benchmark_option_named_exists() -> None:
    help_text = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_evaluator.py"), "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    named = {
        option
        for page in PAGES
        for line in _code(page.read_text(encoding="utf-8"))
        if "bench_evaluator.py" in line
        for option in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", line)
    }
    assert named, "the README shows how to run the benchmark"
    assert not [o for o in named if o not in help_text]


# ------------------------------------------------------------------ the pages themselves


def test_relative_links_resolve() -> None:
    broken = []
    for page in PAGES:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://", "#", "mailto:")):
                continue
            path = (page.parent / target.split("#", 1)[0]).resolve()
            if not path.exists():
                broken.append(f"{page.name}: {target}")
    assert not broken, broken


def test_the_readme_is_a_short_guide() -> None:
    size = len(README.read_bytes())
    assert size < 25_000, f"README.md is {size:,} bytes; move reference material into docs/"
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        diary = re.findall(r"(?i)\bsession \d+\b|\bwhat moved it\b|\btried and left out\b|\bbefore session\b", text)
        assert not diary, f"{page.name} describes the project's development: {diary}"
