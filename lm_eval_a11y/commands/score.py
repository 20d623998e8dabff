"""``a11y-eval score FILE... [--case ID]``: the verdict on pages from any source.

Every input is checked before the browser starts (see :mod:`lm_eval_a11y.commands.page_input`),
and each gets its own outcome: a missing file, a directory, a FIFO or a page over the size limit
fails with a status and a reason, as an empty, binary or prose input does, while the other files
get their verdicts. The exit code is the worst outcome: 0 when every file passes, 1 when one
fails, 2 only when nothing could be judged because every path was a mistake (or an option was).
The text output leads with what decides the verdict (WCAG failures, then the requirement checks,
failing first) and sums up best practices in one line unless ``--verbose``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lm_eval_a11y.cli import EXIT_FAIL, EXIT_OK, UsageError, add_pool_options, terminal_safe
from lm_eval_a11y.commands.page_input import USAGE_STATUSES, PageInput, read_page
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import SampleScore, decided_violations, score_observation


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "score",
        help="render HTML files in Chromium and report the verdict",
        description=(
            "Render each file in headless Chromium, run axe-core (WCAG 2.2 A/AA and best practices) and, "
            "with --case, the case's behaviour checks. Every file gets its verdict or a status (too_large, "
            "not_found, not_a_file, ...). Exit code 0 when every file passes, 1 otherwise, 2 for a usage "
            "error (a bad option, or no file that could be read at all)."
        ),
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="HTML files; '-' reads standard input")
    parser.add_argument("--case", metavar="ID", help="run this test case's checks too (see `a11y-eval cases list`)")
    parser.add_argument(
        "--extract",
        action="store_true",
        help="the files are model answers: pull the HTML out of fences and prose as the lm-eval task does",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON document with every verdict, status and observation"
    )
    parser.add_argument("--verbose", action="store_true", help="list every best-practice finding and check")
    parser.add_argument("--screenshots", metavar="DIR", type=Path, help="save a full-page PNG of each file here")
    parser.add_argument(
        "--paced-keys",
        action="store_true",
        help="press the keys of keyboard walks 200 ms of the page's own time apart, as a person does (slower)",
    )
    parser.add_argument(
        "--page-clock",
        action="store_true",
        help="run a copy of each page 30 s ahead on its own clock for late changes, instead of waiting 2 s",
    )
    add_pool_options(parser)
    parser.set_defaults(handler=run)


def _safe_name(name: str, index: int) -> str:
    stem = "stdin" if name == "-" else Path(name).stem
    return f"{index:03d}-{re.sub(r'[^A-Za-z0-9._-]+', '_', stem)[:60]}"


def writable_folder(path: Path, option: str) -> Path:
    """``path`` as a folder we can write into (created if missing), or a usage error that says why.

    Checked once before any page is rendered: otherwise every page would become an evaluation
    error of its own, after the whole batch had been paid for."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"{option} {path} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".a11y-write-test-"):
            pass
    except OSError as err:
        raise UsageError(f"{option} {path}: cannot write there ({err.strerror or err})") from None
    return path


def run(args: argparse.Namespace) -> int:
    from lm_eval_a11y.cases import get_case
    from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings

    if args.files.count("-") > 1:
        raise UsageError("'-' (standard input) can be given only once")
    case = get_case(args.case) if args.case else None
    screenshots = writable_folder(args.screenshots, "--screenshots") if args.screenshots else None
    limit = EvaluatorSettings().max_html_bytes
    pages = [read_page(name, max_bytes=limit, extract=args.extract) for name in args.files]
    if all(page.status in USAGE_STATUSES for page in pages):
        # Nothing to judge: every path was a mistake on the command line.
        raise UsageError("; ".join(page.problem or "" for page in pages))
    to_render = [i for i, page in enumerate(pages) if page.problem is None]
    observations: dict[int, Observation] = {}
    if to_render:
        settings = EvaluatorSettings(
            concurrency=args.concurrency,
            timeout_s=args.timeout,
            screenshots=screenshots,
            page_clock=args.page_clock,
            paced_keys=args.paced_keys,
        )
        with Evaluator(settings) as evaluator:
            found = evaluator.evaluate_many(
                [(case, pages[i].html) for i in to_render],
                names=[_safe_name(pages[i].name, i) for i in to_render],
            )
        observations = dict(zip(to_render, found, strict=True))
    verdicts = [_verdict(page, observations.get(i)) for i, page in enumerate(pages)]
    if args.json:
        json.dump([v.to_dict() for v in verdicts], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for verdict in verdicts:
            print(format_verdict(verdict, verbose=args.verbose))
        passed = sum(v.passed for v in verdicts)
        print(f"{passed} of {len(verdicts)} file(s) passed")
    return EXIT_OK if all(v.passed for v in verdicts) else EXIT_FAIL


@dataclass(frozen=True)
class FileVerdict:
    """One input's outcome: the page as read, its observation (``None`` when not rendered), the score."""

    page: PageInput
    observation: Observation | None
    score: SampleScore | None

    @property
    def passed(self) -> bool:
        return self.score is not None and self.score.passed

    @property
    def status(self) -> str:
        """The evaluation's status (``ok``, ``timeout``, ``error``), or for an input that was not
        rendered, why (``empty``, ``not_html``, ``too_large``, ``not_found``, ``not_a_file``,
        ``unreadable``)."""
        if self.observation is not None:
            return self.observation.status
        return self.page.status or "error"

    @property
    def reasons(self) -> list[str]:
        if self.score is None:
            return [self.page.problem or "not evaluated"]
        return list(self.score.reasons)

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.page.name,
            "verdict": "pass" if self.passed else "fail",
            "status": self.status,
            "reasons": self.reasons,
            "input": self.page.input_record(),
            "observation": None if self.observation is None else self.observation.to_dict(),
        }


def _verdict(page: PageInput, observation: Observation | None) -> FileVerdict:
    return FileVerdict(page, observation, None if observation is None else score_observation(observation))


def library_lines(obs: Observation) -> list[str]:
    """The page's CDN libraries: those served from the local mirror (docs/cdn-mirror.md) on one
    line, each one not mirrored on its own (a library's is also a reason the page failed)."""
    served = [item for item in obs.events.libraries if item.mirrored]
    lines = []
    if served:
        named = ", ".join(
            f"{item.library} {item.version}" + (f" for {item.requested}" if item.outcome == "substituted" else "")
            for item in served
        )
        lines.append(f"  note libraries served from the local mirror: {named}")
    for item in obs.events.libraries:
        if not item.mirrored:
            lines.append(f"  library not mirrored: {item.reason} ({item.url[:120]})")
    return lines


def format_verdict(verdict: FileVerdict, *, verbose: bool = False) -> str:
    """A readable block for one input, every line terminal-safe.

    What decides the verdict comes first: the evaluation's status, the axe WCAG failures with
    their nodes, then the requirement checks (failing first). Best practices never fail a page, so
    they get one summary line unless ``verbose`` lists them."""
    page, obs = verdict.page, verdict.observation
    head = f"{'PASS' if verdict.passed else 'FAIL'}  {page.label}"
    lines = [head + (f"  [case {obs.case_id}]" if obs is not None and obs.case_id else "")]
    if obs is None:
        lines.append(f"  {page.problem}")
        return "\n".join(terminal_safe(line) for line in lines)
    if obs.status != "ok":
        lines.append(f"  evaluation {obs.status}: {obs.error}")
    # A sample passes only on what was audited: say what was not.
    for what in obs.audit.unaudited:
        lines.append(f"  not audited: {what}")
    for finding in (f for f in decided_violations(obs) if not f.best_practice):
        criteria = ", ".join(finding.wcag) or "no SC"
        lines.append(
            f"  axe  {finding.rule_id} ({finding.impact or 'n/a'}; WCAG {criteria}): "
            f"{finding.node_count} node(s) - {finding.help}"
        )
        for node in finding.nodes[:3]:
            lines.append(f"         {node.html[:120]}")
            if node.state != "initial":
                lines.append(f"           state: {node.state}")
    if obs.contrast is not None:
        c = obs.contrast
        lines.append(
            f"  contrast as rendered ({' and '.join(c.schemes)}): {c.overturned} axe failure(s) overturned, "
            f"{c.resolved_pass} 'can't tell' resolved to pass, {c.resolved_fail} to fail, "
            f"{c.still_incomplete} undecided"
        )
    requirements = [c for c in obs.checks if c.type == "R"]
    failing_first = sorted(requirements, key=lambda c: c.outcome in ("pass", "na"))
    for check in failing_first:
        lines.append(f"  R  {check.outcome:<6}{check.id}: {check.message}")
    bp_findings = obs.axe.best_practice_findings
    bp_checks = [c for c in obs.checks if c.type == "BP"]
    if verbose:
        for finding in bp_findings:
            lines.append(f"  axe  {finding.rule_id} (best practice, not counted): {finding.node_count} node(s)")
        for check in bp_checks:
            lines.append(f"  BP {check.outcome:<6}{check.id}: {check.message}")
    elif bp_findings or bp_checks:
        parts = []
        if bp_findings:
            parts.append(f"axe {', '.join(f.rule_id for f in bp_findings)}")
        if bp_checks:
            met = sum(c.outcome in ("pass", "na") for c in bp_checks)
            parts.append(f"{met} of {len(bp_checks)} BP check(s) met")
        lines.append(f"  best practices (not counted): {'; '.join(parts)} (--verbose lists them)")
    if page.extraction is not None:
        how = page.extraction.how + (", the answer was cut off" if page.extraction.truncated else "")
        lines.append(f"  note HTML extracted from the answer ({how})")
    if page.encoding != "utf-8":
        lines.append(f"  note decoded as {page.encoding} ({page.encoding_source})")
    lines.extend(library_lines(obs))
    if obs.events.blocked_requests or obs.events.blocked_navigations:
        blocked = len(obs.events.blocked_requests) + len(obs.events.blocked_navigations)
        lines.append(f"  note {blocked} network request(s) or navigation(s) were blocked")
    if obs.screenshot:
        lines.append(f"  screenshot {obs.screenshot}")
    return "\n".join(terminal_safe(line) for line in lines)
