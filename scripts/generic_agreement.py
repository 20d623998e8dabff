"""How often the generic checks (``--case generic``) judge the cases' own example pages right.

Every case's examples are pages known to be correct (``pass-*.html``) or broken (``fail-*.html``).
Each is evaluated with the generic checks instead of its case's. A correct page should fail no
generic requirement; a generic best practice may fail on it (a component page has no ``main`` and
needs none). A broken page is caught when a generic requirement fails on it, and the table says by
which check. The per-check table goes to stdout; ``--json`` writes every page's outcomes.

    .venv/bin/python scripts/generic_agreement.py                 # every case
    .venv/bin/python scripts/generic_agreement.py --cases tabs menu --json out.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from lm_eval_a11y.cases import generic_case, load_cases, load_examples
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", nargs="*", help="case ids (default: every case)")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=20.0, help="time budget per page, s (default 20)")
    parser.add_argument("--json", type=Path, help="write each page's generic outcomes here")
    args = parser.parse_args(argv)

    generic = generic_case()
    pages = [
        (example.case_id, example.name, example.html)
        for case in load_cases()
        if not args.cases or case.id in args.cases
        for example in load_examples(case)
        if example.name.startswith(("pass-", "fail-"))
    ]
    started = time.monotonic()
    with Evaluator(EvaluatorSettings(concurrency=args.concurrency, timeout_s=args.timeout)) as evaluator:
        observations = evaluator.evaluate_many(
            [(generic, html) for _, _, html in pages], names=[f"{c}-{n}" for c, n, _ in pages]
        )
    elapsed = time.monotonic() - started

    records = []
    for (case_id, name, _), obs in zip(pages, observations, strict=True):
        records.append(
            {
                "case": case_id,
                "example": name,
                "kind": "pass" if name.startswith("pass-") else "fail",
                "status": obs.status,
                "checks": {c.id: (c.type, c.outcome, c.message) for c in obs.checks},
            }
        )
    if args.json:
        args.json.write_text(json.dumps(records, indent=1), encoding="utf-8")

    checks = [(c.id, c.type) for c in generic.checks]
    correct = [r for r in records if r["kind"] == "pass" and r["status"] == "ok"]
    broken = [r for r in records if r["kind"] == "fail" and r["status"] == "ok"]
    print(f"{len(records)} example pages of {len({r['case'] for r in records})} cases in {elapsed:.0f} s")
    print(
        f"correct (pass-*): {len(correct)}, broken (fail-*): {len(broken)}, not evaluated: "
        f"{len(records) - len(correct) - len(broken)}"
    )
    print()
    print("| check | type | correct pages passed (or na) | correct pages failed | broken pages it fails |")
    print("|---|---|---|---|---|")
    for cid, ctype in checks:
        outcomes = Counter(r["checks"].get(cid, ("", "missing", ""))[1] for r in correct)
        caught = sum(r["checks"].get(cid, ("", "", ""))[1] == "fail" for r in broken)
        ok = outcomes["pass"] + outcomes["na"]
        print(f"| `{cid}` | {ctype} | {ok} | {outcomes['fail']} | {caught} |")
    requirements = [cid for cid, ctype in checks if ctype == "R"]
    wrong = [r for r in correct if any(r["checks"].get(cid, ("", "", ""))[1] == "fail" for cid in requirements)]
    caught_any = [r for r in broken if any(r["checks"].get(cid, ("", "", ""))[1] == "fail" for cid in requirements)]
    print()
    print(f"correct pages failing a generic requirement: {len(wrong)} of {len(correct)}")
    print(f"broken pages a generic requirement fails: {len(caught_any)} of {len(broken)}")
    for r in wrong:
        for cid in requirements:
            _, outcome, message = r["checks"].get(cid, ("", "", ""))
            if outcome == "fail":
                print(f"  {r['case']}/{r['example']}: {cid}: {message}")
    for r in records:
        if r["status"] != "ok":
            print(f"  ! {r['case']}/{r['example']}: evaluation {r['status']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
