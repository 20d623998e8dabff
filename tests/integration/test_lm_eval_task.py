"""lm-eval end to end: the real task YAMLs, the real filter, real Chromium and axe-core, and a fake
model that answers each prompt with one of the case's own example pages wrapped in chat prose.

Because every example page states the outcome it must get, the numbers lm-eval reports can be
computed by hand from those statements: if they differ, the glue between lm-eval and the
evaluator (extraction, batching, records, process_results, aggregation) is wrong.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any

import pytest
from lm_eval import simple_evaluate
from lm_eval.api.model import LM
from lm_eval.tasks import TaskManager

from lm_eval_a11y.cases import Case, CaseError, Example, load_cases, load_examples
from lm_eval_a11y.records import SCHEMA
from lm_eval_a11y.resources import tasks_dir
from lm_eval_a11y.scoring import mean_stderr
from lm_eval_a11y.variants import FRAMEWORK_TEXT, STYLE_TEXT


def _pick(count: int) -> dict[Case, tuple[Example, ...]]:
    """The first ``count`` cases (by id) with both passing and failing examples, whatever the suite
    holds; a case whose examples do not load is left to tests/cases, which reports it."""
    picked: dict[Case, tuple[Example, ...]] = {}
    for case in load_cases():
        try:
            examples = load_examples(case)
        except CaseError:
            continue
        if {ex.verdict for ex in examples} == {"pass", "fail"}:
            picked[case] = examples
        if len(picked) == count:
            break
    assert picked, "no case has both passing and failing examples"
    return picked


_PICKED = _pick(2)
CASES: tuple[Case, ...] = tuple(_PICKED)
EXAMPLES: dict[str, tuple[Example, ...]] = {c.id: ex for c, ex in _PICKED.items()}
CASE_IDS = ",".join(c.id for c in CASES)


def chatty(html: str) -> str:
    """How chat models tend to answer: a preamble, a fenced block, notes after it."""
    return (
        "Sure! Here is a complete, self-contained page that does what you asked.\n\n"
        f"```html\n{html.strip()}\n```\n\n"
        "### Notes\n- The styles and the script are inline, as requested.\n"
        "- You can save this as `index.html` and open it in a browser.\n"
    )


class ExampleLM(LM):  # type: ignore[misc]
    """Answers a case's prompt with its example pages in turn: the j-th request for a prompt gets
    example ``(offset + j) mod m``, so repeats cycle through passing and failing pages."""

    def __init__(self, offset: int = 0) -> None:
        super().__init__()
        self.offset = offset
        self.calls: Counter[str] = Counter()
        self.contexts: list[str] = []

    def _case_for(self, context: str) -> Case:
        for case in CASES:
            if case.prompt in context:
                return case
        raise AssertionError(f"prompt of no known case: {context[:120]!r}")

    def generate_until(self, requests: list[Any]) -> list[str]:
        out = []
        for request in requests:
            context, gen_kwargs = request.args[0], request.args[1]
            assert gen_kwargs["until"] == [], "the task must not stop generation at a blank line"
            assert gen_kwargs["max_gen_toks"] >= 2048, "HTML needs a generous token budget"
            self.contexts.append(context)
            case = self._case_for(context)
            examples = EXAMPLES[case.id]
            j = self.calls[case.id]
            self.calls[case.id] += 1
            out.append(chatty(examples[(self.offset + j) % len(examples)].html))
        return out

    def loglikelihood(self, requests: list[Any]) -> list[tuple[float, bool]]:
        raise NotImplementedError("a11y_html only generates")

    def loglikelihood_rolling(self, requests: list[Any]) -> list[float]:
        raise NotImplementedError("a11y_html only generates")

    @property
    def tokenizer_name(self) -> str:
        return "example-lm"

    def chat_template(self, chat_template: bool | str = False) -> str | None:
        return "example-lm"

    def apply_chat_template(self, chat_history: list[dict[str, str]], add_generation_prompt: bool = True) -> str:
        text = "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in chat_history)
        return text + ("<|assistant|>\n" if add_generation_prompt else "")


def expected(case: Case, example: Example) -> dict[str, float]:
    """The example's numbers by hand, from the outcomes written in the page."""
    outcomes = dict(example.assertions)
    reqs = [outcomes[c.id] for c in case.checks if c.type == "R"]
    bps = [outcomes[c.id] for c in case.checks if c.type == "BP"]
    out = {
        "pass": 1.0 if example.verdict == "pass" else 0.0,
        "req_pass_rate": sum(o in ("pass", "na") for o in reqs) / len(reqs),
        "checks_passed": sum(o == "pass" for o in reqs) / len(reqs),
        "axe_clean": 0.0 if example.axe_rules else 1.0,
    }
    if bps:
        out["bp_pass_rate"] = sum(o in ("pass", "na") for o in bps) / len(bps)
    return out


def pass_at_k_by_hand(n: int, c: int, k: int) -> float:
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def run(task: str, lm: ExampleLM, **kwargs: Any) -> dict[str, Any]:
    results = simple_evaluate(
        model=lm,
        tasks=[task],
        task_manager=TaskManager(include_path=str(tasks_dir()), metadata={"a11y_cases": CASE_IDS}),
        log_samples=True,
        **kwargs,
    )
    assert isinstance(results, dict)
    return results


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def test_greedy_task_reports_the_examples_numbers() -> None:
    lm = ExampleLM(offset=0)
    results = run("a11y_html", lm)
    metrics = results["results"]["a11y_html"]
    firsts = [(case, EXAMPLES[case.id][0]) for case in CASES]
    by_hand = [expected(case, ex) for case, ex in firsts]
    assert metrics["pass,a11y"] == pytest.approx(mean([e["pass"] for e in by_hand]))
    assert metrics["pass@1,a11y"] == pytest.approx(mean([e["pass"] for e in by_hand]))
    assert metrics["req_pass_rate,a11y"] == pytest.approx(mean([e["req_pass_rate"] for e in by_hand]))
    assert metrics["checks_passed,a11y"] == pytest.approx(mean([e["checks_passed"] for e in by_hand]))
    assert metrics["axe_clean,a11y"] == pytest.approx(mean([e["axe_clean"] for e in by_hand]))
    assert metrics["html_found,a11y"] == 1.0
    assert metrics["truncated,a11y"] == 0.0
    assert "pass@5,a11y" not in metrics, "pass@5 is undefined with one sample per doc"
    # lm-eval computes a standard error for every metric aggregated with mean.
    _, stderr = mean_stderr([e["pass"] for e in by_hand])
    if len(CASES) > 1:
        assert metrics["pass_stderr,a11y"] == pytest.approx(stderr)

    samples = results["samples"]["a11y_html"]
    assert [s["doc"]["id"] for s in samples] == [c.id for c in CASES]
    for sample, (case, example) in zip(samples, firsts, strict=True):
        assert "checks_source" not in sample["doc"], "reference-only column must not bloat every sample"
        (records,) = sample["filtered_resps"]
        (raw,) = records
        record = json.loads(raw)
        assert record["schema"] == SCHEMA
        assert record["case_id"] == case.id and record["case_version"] == case.version
        assert record["html"] == example.html.strip()
        assert record["extraction"]["how"] == "fenced"
        assert record["score"]["verdict"] == example.verdict
        observed = {c["id"]: c["outcome"] for c in record["observation"]["checks"]}
        assert observed == dict(example.assertions)
        assert all(c["message"] for c in record["observation"]["checks"]), "every outcome carries a message"
        assert record["observation"]["environment"]["axe_version"]


def test_pass_at_k_task_matches_the_unbiased_estimator_by_hand() -> None:
    lm = ExampleLM(offset=1)
    results = run("a11y_html_pass_at_k", lm)
    metrics = results["results"]["a11y_html_pass_at_k"]
    n = 10
    per_doc: dict[str, list[float]] = {"pass": [], "req_pass_rate": [], "pass@1": [], "pass@5": [], "pass@10": []}
    for case in CASES:
        examples = EXAMPLES[case.id]
        drawn = [examples[(1 + j) % len(examples)] for j in range(n)]
        c = sum(ex.verdict == "pass" for ex in drawn)
        per_doc["pass"].append(c / n)
        per_doc["req_pass_rate"].append(mean([expected(case, ex)["req_pass_rate"] for ex in drawn]))
        for k in (1, 5, 10):
            per_doc[f"pass@{k}"].append(pass_at_k_by_hand(n, c, k))
    assert lm.calls == Counter({case.id: n for case in CASES})
    for name, values in per_doc.items():
        assert metrics[f"{name},a11y"] == pytest.approx(mean(values)), name
    (sample, *_) = results["samples"]["a11y_html_pass_at_k"]
    (records,) = sample["filtered_resps"]
    assert len(records) == n, "the filter keeps every repeat"


def test_instructed_task_with_chat_template_puts_the_instruction_in_the_system_turn() -> None:
    lm = ExampleLM(offset=0)
    results = run("a11y_html_instructed", lm, apply_chat_template=True, limit=1)
    assert lm.contexts, "the model was never asked"
    context = lm.contexts[0]
    assert context.startswith("<|system|>\nMake the page accessible")
    assert f"<|user|>\n{CASES[0].prompt}" in context
    metrics = results["results"]["a11y_html_instructed"]
    assert metrics["pass,a11y"] == expected(CASES[0], EXAMPLES[CASES[0].id][0])["pass"]


def test_a_variant_task_asks_in_its_variant_and_names_it_in_samples_and_results() -> None:
    """a11y_html_react_dark: the prompt gains the React and the dark sentence (after the case's
    own words, in that order), every doc and record says react+dark and <case>@react+dark, the
    results name the variant, and the numbers are those of the pages answered, as in a11y_html."""
    lm = ExampleLM(offset=0)
    results = run("a11y_html_react_dark", lm)
    for case, context in zip(CASES, lm.contexts, strict=True):
        assert context.endswith(f"{case.prompt}\n\n{FRAMEWORK_TEXT['react']}\n\n{STYLE_TEXT['dark']}")
    assert results["configs"]["a11y_html_react_dark"]["metadata"]["variant"] == "react+dark"
    metrics = results["results"]["a11y_html_react_dark"]
    firsts = [(case, EXAMPLES[case.id][0]) for case in CASES]
    assert metrics["pass,a11y"] == pytest.approx(mean([expected(c, ex)["pass"] for c, ex in firsts]))
    samples = results["samples"]["a11y_html_react_dark"]
    assert [s["doc"]["sample_id"] for s in samples] == [f"{c.id}@react+dark" for c in CASES]
    for sample, (case, example) in zip(samples, firsts, strict=True):
        assert (sample["doc"]["variant"], sample["doc"]["framework"], sample["doc"]["style"]) == (
            "react+dark",
            "react",
            "dark",
        )
        ((raw,),) = sample["filtered_resps"]
        record = json.loads(raw)
        assert (record["variant"], record["sample_id"]) == ("react+dark", f"{case.id}@react+dark")
        assert record["score"]["verdict"] == example.verdict


def test_the_default_task_logs_no_variant() -> None:
    """a11y_html's docs and records stay as they were: no variant columns, the case's prompt alone."""
    lm = ExampleLM(offset=0)
    results = run("a11y_html", lm, limit=1)
    (sample,) = results["samples"]["a11y_html"]
    assert not {"variant", "framework", "style", "sample_id"} & set(sample["doc"])
    assert sample["doc"]["prompt"] == CASES[0].prompt
    ((raw,),) = sample["filtered_resps"]
    assert not {"variant", "sample_id"} & set(json.loads(raw))


class BlocksLM(ExampleLM):
    """Answers in two HTML blocks. ``attack``: a failing example page of the case and a passing
    one (failing first for the first case, last for the second); else, honestly, a few lines of
    the passing page and then the whole of it."""

    def __init__(self, attack: bool) -> None:
        super().__init__()
        self.attack = attack

    def generate_until(self, requests: list[Any]) -> list[str]:
        out = []
        for request in requests:
            case = self._case_for(request.args[0])
            passing, failing = _pass_and_fail(case)
            if self.attack:
                blocks = [failing.html, passing.html] if case == CASES[0] else [passing.html, failing.html]
            else:
                body = passing.html.split("<body", 1)[1].split("\n")[1:4]
                blocks = ["\n".join(body), passing.html]
            out.append("".join(f"```html\n{b.strip()}\n```\n\nAnd:\n\n" for b in blocks))
        return out


def _pass_and_fail(case: Case) -> tuple[Example, Example]:
    examples = EXAMPLES[case.id]
    return next(e for e in examples if e.verdict == "pass"), next(e for e in examples if e.verdict == "fail")


def test_a_failing_page_beside_a_passing_one_fails_the_task() -> None:
    results = run("a11y_html", BlocksLM(attack=True))
    assert results["results"]["a11y_html"]["pass,a11y"] == 0.0
    for sample, case in zip(results["samples"]["a11y_html"], CASES, strict=True):
        passing, failing = _pass_and_fail(case)
        record = json.loads(sample["filtered_resps"][0][0])
        extraction = record["extraction"]
        scores, decided = extraction["page_scores"], extraction["decided"]
        assert extraction["pages"] == 2 and len(scores) == 2
        # The lowest page decided, and the record carries it; the failing page is never above it
        # (the passing one may tie it at 0.0 when a loaded machine runs it out of time).
        at_failing = 0 if case == CASES[0] else 1
        assert scores[decided] == min(scores) < 1.0 and scores[at_failing] == min(scores)
        assert record["html"] == (failing if decided == at_failing else passing).html.strip()
        assert record["score"]["verdict"] == "fail"


def test_an_excerpt_beside_its_page_passes_as_the_page_does() -> None:
    results = run("a11y_html", BlocksLM(attack=False))
    for sample, case in zip(results["samples"]["a11y_html"], CASES, strict=True):
        passing, _ = _pass_and_fail(case)
        record = json.loads(sample["filtered_resps"][0][0])
        # The excerpt is judged as part of the page: one page, the whole file, its verdict.
        assert record["extraction"]["covered"] == 1 and record["extraction"]["pages"] == 1
        assert record["html"] == passing.html.strip()
        # A machine loaded past the budget times the page out; a page judged passes.
        if record["observation"]["status"] == "ok":
            assert record["score"]["verdict"] == "pass"
