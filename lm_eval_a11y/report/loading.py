"""Reading lm-eval output folders into report series: results files, samples files and the
sample records in them.

A user may hand us the output folder, a model folder or a results file; all are found
(:mod:`lm_eval_a11y.records.files` knows lm-eval's layout). Every line of a samples file is one
doc; its ``filtered_resps`` hold the JSON sample records our filter wrote. Records are read
tolerantly (:func:`~lm_eval_a11y.records.parse_record_tolerant`): a key that is missing is
unknown, an entry that is no record becomes a sample that says so, and nothing here raises for
the content of a run, only for a path that holds no run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any

from lm_eval_a11y.observation import Observation
from lm_eval_a11y.records import (
    RunError,
    Verdict,
    date_id,
    find_results,
    flatten_responses,
    judge,
    parse_record_tolerant,
    samples_beside_results,
)
from lm_eval_a11y.scoring import SampleMetrics, SampleScore
from lm_eval_a11y.tokens import TokenUsage, parse_model_args

__all__ = ["RunError", "RunSeries", "Sample", "load_runs"]


@dataclass(frozen=True)
class Sample:
    """One generation of one doc, with its evidence; fields the record lacks are None."""

    case_id: str
    doc_id: int
    index: int
    response: str | None
    prompt_sent: str | None
    html: str | None
    html_found: bool
    truncated: bool
    extraction: str | None
    observation: Observation | None
    tokens: TokenUsage | None
    screenshot: Path | None
    problem: str | None = None
    task: str = ""

    @property
    def doc_key(self) -> tuple[str, int]:
        """A doc is identified by task and doc id: tasks merged into one column restart at 0."""
        return self.task, self.doc_id

    @cached_property
    def verdict(self) -> Verdict:
        """Judged from the saved observation with the rules installed now."""
        return judge(self.observation, html_found=self.html_found, truncated=self.truncated)

    @property
    def score(self) -> SampleScore | None:
        return self.verdict.score

    @property
    def metrics(self) -> SampleMetrics:
        return self.verdict.metrics

    @property
    def passed(self) -> bool:
        return self.problem is None and self.metrics.passed

    @property
    def reasons(self) -> tuple[str, ...]:
        if self.problem is not None:
            return (self.problem,)
        score = self.score
        if score is None:
            return ("no HTML document was found in the response",)
        return score.reasons


@dataclass(frozen=True)
class CaseDoc:
    """What the samples file says about a case (the dataset row), independent of the model."""

    case_id: str
    title: str
    prompt: str
    wcag: tuple[str, ...]
    category: str


@dataclass(frozen=True)
class RunSeries:
    """One task of one lm-eval run: a column of the report."""

    model: str
    model_name: str
    short_name: str
    task: str
    results_path: Path
    date: str
    results: Mapping[str, Any]
    reported: Mapping[str, tuple[float, float | None]]
    samples: tuple[Sample, ...]
    cases: Mapping[str, CaseDoc]
    samples_path: Path | None
    label: str = ""
    notes: tuple[str, ...] = field(default=())
    member_tasks: tuple[str, ...] = field(default=())

    @property
    def config(self) -> Mapping[str, Any]:
        value = self.results.get("config")
        return value if isinstance(value, Mapping) else {}

    @property
    def task_config(self) -> Mapping[str, Any]:
        """The task's lm-eval config; for tasks merged under a tag, the first one's."""
        configs = self.results.get("configs")
        if not isinstance(configs, Mapping):
            return {}
        for name in (self.task, *self.member_tasks):
            value = configs.get(name)
            if isinstance(value, Mapping):
                return value
        return {}

    @property
    def model_args(self) -> dict[str, str]:
        return parse_model_args(self.config.get("model_args"))

    @property
    def repeats(self) -> int:
        counts = _count_by_doc(self.samples)
        return max(counts.values(), default=0)

    @property
    def max_gen_toks(self) -> int | None:
        gen = self.task_config.get("generation_kwargs")
        value = gen.get("max_gen_toks") if isinstance(gen, Mapping) else None
        return value if isinstance(value, int) and not isinstance(value, bool) else None


def _count_by_doc(samples: tuple[Sample, ...]) -> dict[tuple[str, int], int]:
    counts: dict[tuple[str, int], int] = {}
    for s in samples:
        counts[s.doc_key] = counts.get(s.doc_key, 0) + 1
    return counts


# ---------------------------------------------------------------------------------------- parsing


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _resolve_screenshot(value: Any, base: Path) -> Path | None:
    if not isinstance(value, str) or not value:
        return None
    path = Path(value)
    tries = [path] if path.is_absolute() else [base / path, Path.cwd() / path]
    tries += [base / path.name, base / "screenshots" / path.name]
    for candidate in tries:
        if candidate.is_file():
            return candidate.resolve()
    # Copied from another machine: an absolute path that no longer exists; look beside the run.
    for pattern in (f"*/{path.name}", f"*/*/{path.name}"):
        found = next(iter(sorted(base.glob(pattern))), None)
        if found is not None and found.is_file():
            return found.resolve()
    return None


def _sample_from(
    raw: Any, case_id: str, doc_id: int, index: int, response: str | None, prompt_sent: str | None, base: Path
) -> Sample:
    record = parse_record_tolerant(raw)
    if record is None:
        text = raw if isinstance(raw, str) else repr(raw)
        return Sample(
            case_id=case_id,
            doc_id=doc_id,
            index=index,
            response=response,
            prompt_sent=prompt_sent,
            html=None,
            html_found=False,
            truncated=False,
            extraction=None,
            observation=None,
            tokens=None,
            screenshot=None,
            problem="this filtered response is not an lm-eval-a11y sample record (was the task's a11y filter "
            f"used?): {text[:120]!r}",
        )
    observation = None
    problem = record.get("error") if isinstance(record.get("error"), str) and record.get("error") else None
    obs_data = record.get("observation")
    if isinstance(obs_data, Mapping):
        try:
            observation = Observation.from_dict(dict(obs_data))
        except (KeyError, TypeError, ValueError) as err:
            problem = f"the saved observation cannot be read ({type(err).__name__}: {err})"
    html = record.get("html")
    html_found = _bool(record.get("html_found"))
    extraction = record.get("extraction")
    how = extraction.get("how") if isinstance(extraction, Mapping) else extraction
    tokens_data = record.get("tokens")
    return Sample(
        case_id=str(record.get("case_id") or case_id),
        doc_id=doc_id,
        index=index,
        response=response,
        prompt_sent=prompt_sent,
        html=html if isinstance(html, str) else None,
        html_found=bool(html) if html_found is None else html_found,
        truncated=bool(_bool(record.get("truncated"))),
        extraction=str(how) if how else None,
        observation=observation,
        tokens=TokenUsage.from_dict(tokens_data) if isinstance(tokens_data, Mapping) else None,
        screenshot=_resolve_screenshot(observation.screenshot if observation else None, base),
        problem=problem,
    )


def _prompt_sent(line: Mapping[str, Any]) -> str | None:
    args = line.get("arguments")
    if isinstance(args, Mapping):
        first = args.get("gen_args_0")
        if isinstance(first, Mapping) and isinstance(first.get("arg_0"), str):
            return str(first["arg_0"])
    if isinstance(args, list) and args and isinstance(args[0], list) and args[0] and isinstance(args[0][0], str):
        return str(args[0][0])
    return None


def _case_doc(doc: Mapping[str, Any], fallback_id: str) -> CaseDoc:
    wcag = doc.get("wcag")
    return CaseDoc(
        case_id=str(doc.get("id") or fallback_id),
        title=str(doc.get("title") or doc.get("id") or fallback_id),
        prompt=str(doc.get("prompt") or ""),
        wcag=tuple(str(w) for w in wcag) if isinstance(wcag, list) else (),
        category=str(doc.get("category") or ""),
    )


def read_samples(path: Path, task: str = "") -> tuple[list[Sample], dict[str, CaseDoc], list[str]]:
    """Samples, case rows and notes (lines that could not be read) of one samples file."""
    samples: list[Sample] = []
    cases: dict[str, CaseDoc] = {}
    notes: list[str] = []
    base = path.parent
    with path.open(encoding="utf-8") as handle:
        for number, text in enumerate(handle, 1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
            except json.JSONDecodeError as err:
                notes.append(f"{path.name} line {number}: not JSON ({err.msg}); skipped")
                continue
            if not isinstance(line, dict):
                notes.append(f"{path.name} line {number}: not a JSON object; skipped")
                continue
            raw_doc = line.get("doc")
            doc: Mapping[str, Any] = raw_doc if isinstance(raw_doc, Mapping) else {}
            raw_id = line.get("doc_id")
            doc_id = raw_id if isinstance(raw_id, int) else number - 1
            case = _case_doc(doc, f"doc-{doc_id}")
            cases.setdefault(case.case_id, case)
            filtered = flatten_responses(line.get("filtered_resps", []))
            responses = flatten_responses(line.get("resps", []))
            prompt = _prompt_sent(line)
            for index, raw in enumerate(filtered):
                response = responses[index] if len(responses) == len(filtered) else None
                sample = _sample_from(
                    raw, case.case_id, doc_id, index, response if isinstance(response, str) else None, prompt, base
                )
                samples.append(replace(sample, task=task))
    return samples, cases, notes


# ---------------------------------------------------------------------------------------- results


def _reported(task_results: Mapping[str, Any]) -> dict[str, tuple[float, float | None]]:
    """``{"pass": (value, stderr)}`` from lm-eval's ``metric,filter`` keys (one filter chosen)."""
    by_filter: dict[str, dict[str, float]] = {}
    for key, value in task_results.items():
        metric, sep, filter_name = str(key).rpartition(",")
        if not sep or isinstance(value, bool) or not isinstance(value, int | float):
            continue
        by_filter.setdefault(filter_name, {})[metric] = float(value)
    if not by_filter:
        return {}
    chosen = max(by_filter.values(), key=len)
    out: dict[str, tuple[float, float | None]] = {}
    for metric, value in chosen.items():
        if metric.endswith("_stderr"):
            continue
        stderr = chosen.get(f"{metric}_stderr")
        out[metric] = (value, None if stderr is None or math.isnan(stderr) else stderr)
    return out


def _short_name(model: str, args: Mapping[str, str], model_name: str) -> str:
    gguf = args.get("gguf_file")
    if gguf:
        return Path(gguf).name.removesuffix(".gguf")
    for key in ("pretrained", "model", "engine", "path"):
        value = args.get(key)
        if value:
            local = value.startswith(("/", ".", "~")) or "\\" in value
            return value.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1] if local else value
    # No model argument names it (lm-eval then makes up a random name): the model type says more.
    return model or model_name or "model"


def _date(results: Mapping[str, Any], path: Path) -> str:
    value = results.get("date")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(float(value), tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    stamp = date_id(path)
    return stamp.replace("T", " ").split(".")[0] if stamp else "unknown"


def _tag(task_config: Any) -> str | None:
    tag = task_config.get("tag") if isinstance(task_config, Mapping) else None
    if isinstance(tag, list):
        tag = next((t for t in tag if isinstance(t, str)), None)
    return tag if isinstance(tag, str) and tag else None


def _task_groups(tasks: list[str], configs: Any, loaded: Mapping[str, tuple[Any, ...]]) -> list[tuple[str, list[str]]]:
    """Tasks shown as one column: those sharing a tag (``--tasks a11y_html_by_category``) whose
    cases do not overlap, so a run split by category reads as one model, not four half-empty ones."""
    by_tag: dict[str, list[str]] = {}
    for task in tasks:
        tag = _tag(configs.get(task) if isinstance(configs, Mapping) else None)
        by_tag.setdefault(tag or f"\0{task}", []).append(task)
    out: list[tuple[str, list[str]]] = []
    for key, members in by_tag.items():
        case_sets = [set(loaded[t][1]) for t in members]
        disjoint = sum(len(c) for c in case_sets) == len(set().union(*case_sets))
        if len(members) > 1 and disjoint:
            out.append((key, members))
        else:
            out.extend((t, [t]) for t in members)
    return out


def load_results(path: Path) -> list[RunSeries]:
    """One series per task (or per tag of tasks over distinct cases) of one results file."""
    results = json.loads(path.read_text(encoding="utf-8"))
    config = results.get("config") if isinstance(results.get("config"), Mapping) else {}
    args = parse_model_args(config.get("model_args"))
    model = str(config.get("model") or results.get("model_source") or "")
    model_name = str(results.get("model_name") or args.get("pretrained") or args.get("model") or model)
    configs = results.get("configs")
    tasks = list(configs) if isinstance(configs, Mapping) and configs else list(results["results"])
    loaded: dict[str, tuple[list[Sample], dict[str, CaseDoc], list[str], Path | None]] = {}
    for task in tasks:
        samples_path = samples_beside_results(path, task)
        if samples_path is None:
            note = f"no samples file for task {task} beside {path.name}: run lm_eval with --log_samples"
            loaded[task] = ([], {}, [note], None)
        else:
            loaded[task] = (*read_samples(samples_path, task), samples_path)
    out: list[RunSeries] = []
    for name, members in _task_groups(tasks, configs, loaded):
        samples: list[Sample] = []
        cases: dict[str, CaseDoc] = {}
        notes: list[str] = []
        for task in members:
            samples.extend(loaded[task][0])
            cases.update(loaded[task][1])
            notes.extend(loaded[task][2])
        task_results = results["results"].get(name)
        out.append(
            RunSeries(
                model=model,
                model_name=model_name,
                short_name=_short_name(model, args, model_name),
                task=name,
                results_path=path,
                date=_date(results, path),
                results=results,
                reported=_reported(task_results) if isinstance(task_results, Mapping) else {},
                samples=tuple(samples),
                cases=cases,
                samples_path=loaded[members[0]][3],
                notes=tuple(notes),
                member_tasks=tuple(members),
            )
        )
    return out


def _label(series: list[RunSeries]) -> list[RunSeries]:
    """Give each series a unique, short label: the model, then the task, then the date if needed."""

    def labels(parts: int) -> list[str]:
        out = []
        for s in series:
            bits = [s.short_name, s.task, s.date][:parts]
            out.append(" · ".join(bits))
        return out

    for parts in (1, 2, 3):
        chosen = labels(parts)
        if len(set(chosen)) == len(chosen):
            break
    else:
        chosen = [f"{label} #{i + 1}" for i, label in enumerate(labels(3))]
    return [replace(s, label=label) for s, label in zip(series, chosen, strict=True)]


def load_runs(paths: list[Path]) -> list[RunSeries]:
    """Every series under the given paths, labelled; a results file reached twice counts once."""
    seen: set[Path] = set()
    series: list[RunSeries] = []
    for path in paths:
        for results_path in find_results(Path(path)):
            resolved = results_path.resolve()
            if resolved in seen:
                continue
            seen.add(resolved)
            series.extend(load_results(results_path))
    return _label(series)
