"""``a11y-eval dataset build|push``: the Hugging Face dataset of the cases (parquet + card)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from lm_eval_a11y.cli import EXIT_OK, UsageError


def register(sub: Any) -> None:
    parser = sub.add_parser("dataset", help="build or publish the Hugging Face dataset of the cases")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    build = actions.add_parser(
        "build",
        help="write the dataset as parquet with a dataset card",
        description="Write DIR/data/test-00000-of-00001.parquet (one row per case) and DIR/README.md "
        '(the dataset card). Use it with --metadata \'{"a11y_dataset": "DIR"}\'.',
    )
    build.add_argument("--out", type=Path, default=Path("out/dataset"), metavar="DIR", help="default: out/dataset")
    build.set_defaults(handler=run_build)
    push = actions.add_parser(
        "push",
        help="publish the dataset to the Hugging Face Hub (push_to_hub)",
        description="Build the dataset in memory and upload it with its card. Needs a token with write "
        "access (HF_TOKEN or huggingface-cli login).",
    )
    push.add_argument("--repo", required=True, metavar="ORG/NAME", help="dataset repository on the Hub")
    push.add_argument("--private", action="store_true", help="create the repository as private")
    push.set_defaults(handler=run_push)


def run_build(args: argparse.Namespace) -> int:
    from lm_eval_a11y.cases import load_cases
    from lm_eval_a11y.dataset import write_dataset

    cases = load_cases()
    parquet = write_dataset(args.out, cases)
    print(f"wrote {len(cases)} cases to {parquet}")
    print(f"dataset card: {args.out / 'README.md'}")
    return EXIT_OK


def run_push(args: argparse.Namespace) -> int:
    from lm_eval_a11y.dataset import push_dataset

    repo = args.repo.strip()
    if repo.count("/") != 1 or not all(repo.split("/")):
        raise UsageError(f"--repo must look like ORG/NAME, got {args.repo!r}")
    url = push_dataset(repo, private=args.private, token=os.environ.get("HF_TOKEN") or None)
    print(f"pushed to {url}")
    return EXIT_OK
