"""``a11y-eval cases list|validate``: what the suite holds, and proof that its checks are right.

``validate`` renders every example page of the selected cases with the real evaluator and compares
each observed check outcome, the set of failing axe WCAG rules and the verdict with what the page
says it expects. A mismatch means either the check or the page is wrong, and with it every number
the benchmark publishes, so the command exits 1 on any mismatch (and on any flaky example when
``--repeat`` asks for several runs).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lm_eval_a11y.case_validation import format_case, format_table, validate, validation_summary
from lm_eval_a11y.cases import Case, CaseError, load_case, load_examples
from lm_eval_a11y.cli import EXIT_FAIL, EXIT_OK, UsageError, add_pool_options, positive_int
from lm_eval_a11y.resources import cases_dir


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "cases",
        help="list the test cases or validate them against their example pages",
        description="Inspect the test-case suite.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    listing = actions.add_parser(
        "list",
        help="show every case with its category, tags, WCAG criteria and check counts",
        description="Show every case with its category, tags, WCAG criteria, number of checks and examples.",
    )
    listing.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    listing.set_defaults(handler=run_list)

    validate = actions.add_parser(
        "validate",
        help="evaluate every example page and compare the outcomes with its expectations",
        description=(
            "Render each example page of the selected cases (by default every case and the generic page checks, "
            "or the cases of A11Y_CASES_DIR alone; 'generic' names the generic checks) in Chromium, run axe-core "
            "and the case's checks, and compare every check outcome, the failing axe WCAG rules and the verdict "
            "with the expectations the page carries. Exit code 0 when everything matches, 1 otherwise."
        ),
    )
    validate.add_argument(
        "ids", nargs="*", metavar="ID", help="case ids to validate; 'generic': the generic page checks (default: all)"
    )
    validate.add_argument(
        "--repeat",
        type=positive_int,
        default=1,
        metavar="N",
        help="evaluate each example N times and report flaky ones",
    )
    validate.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    add_pool_options(validate)
    validate.set_defaults(handler=run_validate)


# ----------------------------------------------------------------------------------- discovery


def discover(root: Path | None = None) -> list[tuple[str, Case | CaseError]]:
    """Every case folder with its loaded case, or the reason it does not load.

    Unlike :func:`lm_eval_a11y.cases.load_cases` this loads each folder on its own, so that one
    malformed case (say, one still being written) is reported instead of hiding all the others.
    """
    base = Path(root or cases_dir())
    folders = sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    found: list[tuple[str, Case | CaseError]] = []
    for folder in folders:
        try:
            found.append((folder.name, load_case(folder)))
        except CaseError as err:
            found.append((folder.name, err))
    return found


def _select(ids: Sequence[str]) -> tuple[list[Case], list[tuple[str, CaseError]]]:
    """The cases named in ``ids`` and the folders that failed to load. No ids: every case, and
    with the bundled cases the generic page checks too (lm_eval_a11y.generic, shipped with the
    package); a cases folder of one's own (``A11Y_CASES_DIR``) is validated alone."""
    from lm_eval_a11y.generic import GENERIC_ID, generic_case

    base = cases_dir()
    if not ids:
        found = discover(base)
        cases = [c for _, c in found if isinstance(c, Case)]
        broken = [(n, e) for n, e in found if isinstance(e, CaseError)]
        if not os.environ.get("A11Y_CASES_DIR"):
            try:
                cases.append(generic_case())
            except CaseError as err:
                broken.append((GENERIC_ID, err))
        return cases, broken
    cases = []
    for case_id in dict.fromkeys(ids):
        if case_id == GENERIC_ID:
            cases.append(generic_case())
            continue
        folder = base / case_id
        if not (folder / "case.yaml").is_file():
            known = ", ".join(name for name, _ in discover(base))
            raise UsageError(f"unknown case {case_id!r}; known cases: {known}")
        cases.append(load_case(folder))
    return cases, []


# ---------------------------------------------------------------------------------------- list


def _example_count(case: Case) -> int | None:
    """Number of examples, or None when they do not load (so one broken case does not hide the rest)."""
    try:
        return len(load_examples(case))
    except CaseError:
        return None


def case_summary(case: Case) -> dict[str, Any]:
    examples = _example_count(case)
    return {
        "id": case.id,
        "title": case.title,
        "version": case.version,
        "category": case.category,
        "tags": list(case.tags),
        "apg_pattern": case.apg_pattern,
        "wcag": list(case.wcag),
        "requirement_checks": sum(c.type == "R" for c in case.checks),
        "best_practice_checks": sum(c.type == "BP" for c in case.checks),
        "examples": examples,
    }


def run_list(args: argparse.Namespace) -> int:
    found = discover()
    rows = [case_summary(case) for _, case in found if isinstance(case, Case)]
    broken = [(name, err) for name, err in found if isinstance(err, CaseError)]
    code = EXIT_FAIL if broken else EXIT_OK
    if args.json:
        invalid = [{"id": name, "error": str(err)} for name, err in broken]
        json.dump({"cases": rows, "invalid": invalid}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return code
    table = [
        [
            row["id"],
            row["category"],
            ", ".join(t for t in row["tags"] if t != row["category"]),
            ", ".join(row["wcag"]),
            str(row["requirement_checks"]),
            str(row["best_practice_checks"]),
            "invalid" if row["examples"] is None else str(row["examples"]),
        ]
        for row in rows
    ]
    print(format_table(["id", "category", "tags", "wcag", "R", "BP", "examples"], table))
    for name, err in broken:
        print(f"invalid case {name}: {err}")
    print(f"{len(rows)} case(s)" + (f", {len(broken)} invalid" if broken else ""))
    return code


# ------------------------------------------------------------------------------------ validate


def run_validate(args: argparse.Namespace) -> int:
    selected, broken = _select(args.ids)
    cases = []
    for case in selected:
        try:
            load_examples(case)
        except CaseError as problem:
            broken.append((case.id, problem))
        else:
            cases.append(case)
    results = validate(cases, repeat=args.repeat, timeout_s=args.timeout, concurrency=args.concurrency)
    ok = all(r.ok for r in results) and not broken
    summary = validation_summary(cases, results, args.repeat)
    summary["invalid_cases"] = len(broken)
    if args.json:
        doc = {
            "ok": ok,
            "summary": summary,
            "invalid": [{"id": name, "error": str(err)} for name, err in broken],
            "examples": [r.to_dict() for r in results],
        }
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for case in cases:
            print(format_case(case, [r for r in results if r.case_id == case.id]))
            print()
        for name, error in broken:
            print(f"invalid case {name}: {error}\n")
        print(
            f"{'OK' if ok else 'FAILED'}: {summary['cases']} case(s), {summary['examples']} example(s), "
            f"{summary['comparisons']} comparison(s), {summary['mismatches']} mismatch(es) in "
            f"{summary['examples_with_mismatches']} example(s), {summary['flaky']} flaky example(s)"
            + (f" over {args.repeat} runs each" if args.repeat > 1 else "")
            + (f"; {len(broken)} case(s) failed to load" if broken else "")
        )
    return EXIT_OK if ok else EXIT_FAIL
