"""``a11y-eval score FILE.html... [--case ID]``: the verdict on pages from any source."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from lm_eval_a11y.cli import EXIT_FAIL, EXIT_OK, UsageError, add_pool_options, check_pool_options
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.scoring import SampleScore, decided_violations, score_observation


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "score",
        help="render HTML files in Chromium and report the verdict",
        description=(
            "Render each file in headless Chromium, run axe-core (WCAG 2.2 A/AA and best practices) and, "
            "with --case, the case's behaviour checks. Exit code 0 when every file passes, 1 otherwise."
        ),
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="HTML files; '-' reads standard input")
    parser.add_argument("--case", metavar="ID", help="run this test case's checks too (see `a11y-eval cases list`)")
    parser.add_argument("--json", action="store_true", help="print one JSON document with every observation")
    parser.add_argument("--screenshots", metavar="DIR", type=Path, help="save a full-page PNG of each file here")
    add_pool_options(parser)
    parser.set_defaults(handler=run)


def _read(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    path = Path(name)
    if not path.is_file():
        raise UsageError(f"no such file: {name}")
    return path.read_text(encoding="utf-8", errors="replace")


def _safe_name(name: str, index: int) -> str:
    stem = "stdin" if name == "-" else Path(name).stem
    return f"{index:03d}-{re.sub(r'[^A-Za-z0-9._-]+', '_', stem)[:60]}"


def run(args: argparse.Namespace) -> int:
    from lm_eval_a11y.cases import get_case
    from lm_eval_a11y.evaluator import Evaluator, EvaluatorSettings

    if args.files.count("-") > 1:
        raise UsageError("'-' (standard input) can be given only once")
    check_pool_options(args)
    case = get_case(args.case) if args.case else None
    pages = [_read(name) for name in args.files]
    settings = EvaluatorSettings(concurrency=args.concurrency, timeout_s=args.timeout, screenshots=args.screenshots)
    with Evaluator(settings) as evaluator:
        observations = evaluator.evaluate_many(
            [(case, html) for html in pages],
            names=[_safe_name(name, i) for i, name in enumerate(args.files)],
        )
    scores = [score_observation(obs) for obs in observations]
    if args.json:
        doc = [
            {
                "file": name,
                "verdict": "pass" if s.passed else "fail",
                "reasons": list(s.reasons),
                "observation": o.to_dict(),
            }
            for name, s, o in zip(args.files, scores, observations, strict=False)
        ]
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for name, score, obs in zip(args.files, scores, observations, strict=False):
            print(format_verdict(name, score, obs))
        passed = sum(s.passed for s in scores)
        print(f"{passed} of {len(scores)} file(s) passed")
    return EXIT_OK if all(s.passed for s in scores) else EXIT_FAIL


def format_verdict(name: str, score: SampleScore, obs: Observation) -> str:
    """A readable block for one page: verdict, axe failures with nodes, then every check."""
    label = "stdin" if name == "-" else name
    lines = [f"{'PASS' if score.passed else 'FAIL'}  {label}" + (f"  [case {obs.case_id}]" if obs.case_id else "")]
    if obs.status != "ok":
        lines.append(f"  evaluation {obs.status}: {obs.error}")
    for finding in (f for f in decided_violations(obs) if not f.best_practice):
        criteria = ", ".join(finding.wcag) or "no SC"
        lines.append(
            f"  axe  {finding.rule_id} ({finding.impact or 'n/a'}; WCAG {criteria}): "
            f"{finding.node_count} node(s) - {finding.help}"
        )
        for node in finding.nodes[:3]:
            lines.append(f"         {node.html[:120]}")
    for finding in obs.axe.best_practice_findings:
        lines.append(f"  axe  {finding.rule_id} (best practice, not counted): {finding.node_count} node(s)")
    if obs.contrast is not None:
        c = obs.contrast
        lines.append(
            f"  contrast as rendered ({' and '.join(c.schemes)}): {c.overturned} axe failure(s) overturned, "
            f"{c.resolved_pass} 'can't tell' resolved to pass, {c.resolved_fail} to fail, "
            f"{c.still_incomplete} undecided"
        )
    for check in obs.checks:
        lines.append(f"  {check.type:<3}{check.outcome:<6}{check.id}: {check.message}")
    if obs.events.blocked_requests or obs.events.blocked_navigations:
        blocked = len(obs.events.blocked_requests) + len(obs.events.blocked_navigations)
        lines.append(f"  note {blocked} network request(s) or navigation(s) were blocked")
    if obs.screenshot:
        lines.append(f"  screenshot {obs.screenshot}")
    return "\n".join(lines)
