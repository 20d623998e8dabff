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
from pathlib import Path
from typing import Any

from lm_eval_a11y.cli import EXIT_FAIL, EXIT_OK, UsageError, add_pool_options, say
from lm_eval_a11y.engine.browser import DEFAULT_CONCURRENCY
from lm_eval_a11y.records import (
    RecordError,
    aggregate_samples,
    filtered_resps,
    flatten_responses,
    newest_samples_by_task,
    parse_record_strict,
    records_doc_metrics,
    results_file_name,
    samples_file_name,
    saved_extraction,
    utc_stamp,
    write_results_file,
    write_samples_file,
)


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


def load_samples(path: Path, *, need_records: bool) -> list[dict[str, Any]]:
    """The samples of one file, each checked before anything is evaluated or written.

    Raises :class:`UsageError` naming the file and line of the first sample that is not valid
    JSON (a line cut off when the run was killed), has no ``doc``, or, when the saved records are
    needed (everything but ``--reextract`` in the browser), has a ``filtered_resps`` entry that
    is not a sample record of this package."""
    samples: list[dict[str, Any]] = []
    with path.open(encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            where = f"{path}, line {number}"
            try:
                sample = json.loads(line)
            except json.JSONDecodeError as err:
                cut = " (the line is cut off: was the run interrupted?)" if not line.endswith("\n") else ""
                raise UsageError(f"{where} is not valid JSON{cut}: {err.msg}") from None
            if not isinstance(sample, dict):
                raise UsageError(f"{where} is not an lm-eval sample (a JSON object)")
            if sample.get("filter", "a11y") != "a11y":
                continue
            if not isinstance(sample.get("doc"), dict):
                raise UsageError(f"{where} has no 'doc' (the dataset row), so its case is unknown")
            if need_records:
                try:
                    _records_of(sample)
                except RecordError as err:
                    raise UsageError(f"{where}: {err}") from None
            samples.append(sample)
    return samples


def _records_of(sample: dict[str, Any]) -> list[dict[str, Any]]:
    resps = sample.get("filtered_resps", [])
    if not isinstance(resps, list):
        raise RecordError(f"'filtered_resps' is not a list of sample records: {str(resps)[:80]!r}")
    return [parse_record_strict(r) for r in flatten_responses(resps)]


def _raw_answers(sample: dict[str, Any]) -> list[str]:
    return [str(a) for a in flatten_responses(sample.get("resps", []))]


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
    from lm_eval_a11y.harness import evaluate_responses

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
            extractions.append([saved_extraction(r) for r in _records_of(sample)])
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
        # Saved observations are judged again by the rules installed now; fresh records carry theirs.
        metrics = records_doc_metrics(doc, recs, rejudge_observations=from_observations)
        new = {k: v for k, v in sample.items() if k not in set(sample.get("metrics", []))}
        new["doc"] = doc
        new["filtered_resps"] = filtered_resps(recs, "per-request")
        new["metrics"] = sorted(metrics)
        new["rescored"] = True
        new.update(metrics)
        out.append(new)
    return out


def run(args: argparse.Namespace) -> int:
    if not args.run_dir.is_dir():
        raise UsageError(f"no such run folder: {args.run_dir}")
    files = newest_samples_by_task(args.run_dir)
    if not files:
        raise UsageError(f"no samples_*.jsonl under {args.run_dir}; run lm_eval with --log_samples --output_path")
    need_records = args.from_observations or not args.reextract
    loaded = {task: load_samples(path, need_records=need_records) for task, path in files.items()}
    stamp = utc_stamp(fraction=False)
    rescored: dict[str, list[dict[str, Any]]] = {}
    results: dict[str, Any] = {}
    for task, samples in loaded.items():
        rescored[task] = rescore_samples(
            samples,
            from_observations=args.from_observations,
            reextract=args.reextract,
            allow_version_change=args.allow_version_change,
            concurrency=args.concurrency,
            timeout_s=args.timeout,
        )
        results[task] = {"alias": task, **aggregate_samples(rescored[task])}
    # Written only now that every task is done: a bad input or Ctrl-C leaves no half-made folder.
    out_dir = args.out or args.run_dir / f"rescored-{stamp}"
    out_dir.mkdir(parents=True, exist_ok=True)
    for task, path in files.items():
        write_samples_file(out_dir / samples_file_name(task, stamp), rescored[task])
        say(f"{task}: {len(rescored[task])} docs re-scored from {path}")
        for key, value in results[task].items():
            if key.endswith(",a11y") and "_stderr" not in key:
                err = results[task].get(key.replace(",a11y", "_stderr,a11y"))
                shown = f" ± {err:.4f}" if isinstance(err, float) else ""
                say(f"  {key.removesuffix(',a11y'):<14} {value:.4f}{shown}")
    report = {
        "results": results,
        "rescored_from": {task: str(path) for task, path in files.items()},
        "mode": "observations" if args.from_observations else "browser",
        "reextract": args.reextract,
        "allow_version_change": args.allow_version_change,
        "date": stamp,
    }
    results_path = out_dir / results_file_name(stamp)
    write_results_file(results_path, report)
    say(f"results: {results_path}")
    return EXIT_OK if results else EXIT_FAIL
