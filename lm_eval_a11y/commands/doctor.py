"""``a11y-eval doctor``: prove that Chromium launches and axe-core runs, or say how to fix it."""

from __future__ import annotations

import argparse
from typing import Any

from lm_eval_a11y.cli import EXIT_FAIL, EXIT_OK


def register(sub: Any) -> None:
    parser = sub.add_parser("doctor", help="check that Chromium and axe-core work on this machine")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from lm_eval_a11y.engine.browser import find_chromium
    from lm_eval_a11y.engine.evaluator import Evaluator
    from lm_eval_a11y.resources import axe_path, cases_dir

    print(f"chromium   {find_chromium()}")
    print(f"axe-core   {axe_path()}")
    print(f"cases      {cases_dir()}")
    page = '<!doctype html><html lang="en"><head><title>t</title></head><body><img src="data:,"></body></html>'
    with Evaluator(concurrency=1, timeout_s=30) as evaluator:
        obs = evaluator.evaluate(None, page)
    if obs.status != "ok" or obs.environment is None:
        print(f"evaluation failed: {obs.error}")
        return EXIT_FAIL
    if "image-alt" not in obs.axe.failing_rule_ids():
        print("axe-core ran but did not find the missing alt text it should have found")
        return EXIT_FAIL
    print(f"versions   Chromium {obs.environment.chromium_version}, axe-core {obs.environment.axe_version}")
    ceiling = obs.environment.memory_ceiling
    held = "the kernel holds it" if ceiling.startswith("cgroup") else "no memory cgroup could be made; best effort"
    print(f"memory     browser ceiling kept by {ceiling} ({held}; docs/isolation.md)")
    print("ok: Chromium renders pages and axe-core finds violations")
    return EXIT_OK
