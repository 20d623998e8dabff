"""``a11y-eval rescore RUN_DIR``: score a finished lm-eval run again, without the model.

Reads every ``samples_<task>_<time>.jsonl`` under RUN_DIR (lm-eval's ``--log_samples`` output),
re-evaluates the saved HTML in Chromium with the checks and axe-core installed now, and writes new
samples and results under ``RUN_DIR/rescored-<UTC time>/``. The original files are never changed.

``--from-observations`` skips the browser and re-applies only the scoring rules to the saved
observations; ``--reextract`` cuts the HTML out of the saved raw answers again (new extraction
rules). A saved doc whose case version differs from the installed case is refused unless
``--allow-version-change`` says the installed checks should judge it anyway.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import time
from pathlib import Path
from typing import Any

from lm_eval_a11y.browser import DEFAULT_CONCURRENCY
from lm_eval_a11y.cli import EXIT_FAIL, EXIT_OK, UsageError, add_pool_options, check_pool_options

_SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[\d\-.]+)\.jsonl$")


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "rescore",
        help="re-score the saved samples of an lm-eval run with the current checks and axe-core",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="an lm-eval --output_path folder")
    parser.add_argument("--out", type=Path, metavar="DIR", help="where to write (default: RUN_DIR/rescored-<time>)")
    parser.add_argument("--from-observations", action="store_true", help="no browser: re-score saved observations")
    parser.add_argument("--reextract", action="store_true", help="extract the HTML from the raw answers again")
    parser.add_argument(
        "--allow-version-change",
        action="store_true",
        help="judge docs of an older case version by the installed checks",
    )
    add_pool_options(parser)
    parser.set_defaults(handler=run)


def find_sample_files(run_dir: Path) -> dict[str, Path]:
    """The newest samples file of each task under ``run_dir``."""
    newest: dict[str, tuple[str, Path]] = {}
    for path in sorted(run_dir.rglob("samples_*.jsonl")):
        if any(part.startswith("rescored-") for part in path.relative_to(run_dir).parts):
            continue
        match = _SAMPLES.match(path.name)
        task = match.group("task") if match else path.stem.removeprefix("samples_")
        stamp = match.group("stamp") if match else ""
        if task not in newest or stamp >= newest[task][0]:
            newest[task] = (stamp, path)
    return {task: path for task, (_, path) in sorted(newest.items())}


def _records_of(sample: dict[str, Any]) -> list[dict[str, Any]]:
    from lm_eval_a11y.harness import parse_record

    raw: list[Any] = []
    for item in sample.get("filtered_resps", []):
        raw.extend(item if isinstance(item, list) else [item])
    return [parse_record(r) for r in raw]


def _raw_answers(sample: dict[str, Any]) -> list[str]:
    answers: list[str] = []
    for item in sample.get("resps", []):
        answers.extend(str(a) for a in (item if isinstance(item, list) else [item]))
    return answers


def rescore_samples(
    samples: list[dict[str, Any]],
    *,
    from_observations: bool = False,
    reextract: bool = False,
    allow_version_change: bool = False,
    concurrency: int = DEFAULT_CONCURRENCY,
    timeout_s: float = 20.0,
) -> list[dict[str, Any]]:
    """New sample dicts (lm-eval's layout) with fresh records in ``filtered_resps`` and fresh metrics."""
    from lm_eval_a11y.cases import CaseError, get_case
    from lm_eval_a11y.extract import Extraction, extract_html
    from lm_eval_a11y.harness import evaluate_responses, process_results

    samples = [s for s in samples if s.get("filter", "a11y") == "a11y"]
    docs: list[dict[str, Any]] = []
    extractions: list[list[Extraction]] = []
    for sample in samples:
        doc = dict(sample["doc"])
        if allow_version_change:
            with contextlib.suppress(CaseError):  # an unknown case stays refused
                doc["version"] = get_case(str(doc.get("id"))).version
        docs.append(doc)
        if reextract:
            extractions.append([extract_html(a) for a in _raw_answers(sample)])
        else:
            extractions.append(
                [
                    Extraction(
                        html=r.get("html", ""),
                        found=bool(r.get("html_found")),
                        truncated=bool(r.get("truncated")),
                        how=str((r.get("extraction") or {}).get("how", "")),
                        blocks=int((r.get("extraction") or {}).get("blocks", 0)),
                        ignored=tuple((r.get("extraction") or {}).get("ignored", ())),
                        think=bool((r.get("extraction") or {}).get("think", False)),
                    )
                    for r in _records_of(sample)
                ]
            )
    if from_observations:
        records = [_records_of(s) for s in samples]
    else:
        records = evaluate_responses(
            docs,
            [[e.html for e in exts] for exts in extractions],
            concurrency=concurrency,
            timeout_s=timeout_s,
            extractions=extractions,
        )
    out = []
    for sample, doc, recs in zip(samples, docs, records, strict=True):
        metrics = process_results(doc, [recs])
        new = {k: v for k, v in sample.items() if k not in set(sample.get("metrics", []))}
        new["doc"] = doc
        new["filtered_resps"] = [[json.dumps(r, ensure_ascii=False) for r in recs]]
        new["metrics"] = sorted(metrics)
        new["rescored"] = True
        new.update(metrics)
        out.append(new)
    return out


def aggregate(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """lm-eval style ``metric,a11y`` / ``metric_stderr,a11y`` numbers over the docs that have each metric."""
    from lm_eval_a11y.scoring import mean_stderr

    names = sorted({m for s in samples for m in s.get("metrics", [])})
    result: dict[str, Any] = {}
    for name in names:
        values = [float(s[name]) for s in samples if name in s.get("metrics", [])]
        mean, stderr = mean_stderr(values)
        result[f"{name},a11y"] = mean
        result[f"{name}_stderr,a11y"] = "N/A" if stderr != stderr else stderr
    result["samples"] = len(samples)
    return result


def run(args: argparse.Namespace) -> int:
    if not args.run_dir.is_dir():
        raise UsageError(f"no such run folder: {args.run_dir}")
    check_pool_options(args)
    files = find_sample_files(args.run_dir)
    if not files:
        raise UsageError(f"no samples_*.jsonl under {args.run_dir}; run lm_eval with --log_samples --output_path")
    stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime())
    out_dir = args.out or args.run_dir / f"rescored-{stamp}"
    out_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {}
    for task, path in files.items():
        with path.open(encoding="utf-8") as fh:
            samples = [json.loads(line) for line in fh if line.strip()]
        rescored = rescore_samples(
            samples,
            from_observations=args.from_observations,
            reextract=args.reextract,
            allow_version_change=args.allow_version_change,
            concurrency=args.concurrency,
            timeout_s=args.timeout,
        )
        target = out_dir / f"samples_{task}_{stamp}.jsonl"
        with target.open("w", encoding="utf-8") as fh:
            for sample in rescored:
                fh.write(json.dumps(sample, ensure_ascii=False) + "\n")
        results[task] = {"alias": task, **aggregate(rescored)}
        print(f"{task}: {len(rescored)} docs re-scored from {path}")
        for key, value in results[task].items():
            if key.endswith(",a11y") and "_stderr" not in key:
                err = results[task].get(key.replace(",a11y", "_stderr,a11y"))
                shown = f" ± {err:.4f}" if isinstance(err, float) else ""
                print(f"  {key.removesuffix(',a11y'):<14} {value:.4f}{shown}")
    report = {
        "results": results,
        "rescored_from": {task: str(path) for task, path in files.items()},
        "mode": "observations" if args.from_observations else "browser",
        "reextract": args.reextract,
        "allow_version_change": args.allow_version_change,
        "date": stamp,
    }
    results_path = out_dir / f"results_{stamp}.json"
    results_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"results: {results_path}")
    return EXIT_OK if results else EXIT_FAIL
