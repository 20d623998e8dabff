"""Model and repair suites end to end: a fake model registered in lm-eval's own registry, built by
``create_from_arg_string`` and asked with lm-eval ``Instance`` requests, the real evaluator
(Chromium, axe-core), and the suite's outputs: exit code, summary, suite.json, the lm-eval style
samples that ``report`` and ``rescore`` read, and the report itself (axe: zero violations).

The fake model answers each case's prompt with example pages from a script, and a repair turn
(recognised by the opening line of the findings) with a page of its own, so the expected pass,
repair and rescue rates are known exactly. Each test evaluates a handful of pages.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model
from report.test_report_a11y import REPORT_CASE

from lm_eval_a11y.cases import get_case, load_examples
from lm_eval_a11y.cli import EXIT_ENVIRONMENT, EXIT_FAIL, main
from lm_eval_a11y.engine.evaluator import Evaluator, EvaluatorSettings
from lm_eval_a11y.report import load_runs
from lm_eval_a11y.suite.model import REPAIR_OPENING, SAMPLING_TEMPERATURE

_names = count()


def page(case_id: str, name: str) -> str:
    return next(e.html for e in load_examples(get_case(case_id)) if e.name == name)


def fake_model(first: dict[str, list[str]], repaired: dict[str, str] | None = None) -> tuple[str, list[Any]]:
    """Register a fake LM under a fresh name; its answers cycle through ``first[case]`` and, in a
    repair turn, give ``repaired[case]``. Returns the name and the list of requests it saw."""
    seen: list[Any] = []
    prompts = {case_id: get_case(case_id).prompt.strip() for case_id in first}

    class ScriptedLM(LM):  # type: ignore[misc]
        def __init__(self, **kwargs: Any) -> None:
            super().__init__()
            self.kwargs = kwargs
            self.calls: dict[str, int] = {}

        def generate_until(self, requests: list[Any]) -> list[str]:
            out = []
            for request in requests:
                seen.append(request)
                context = request.args[0]
                case_id = next(c for c, p in prompts.items() if p in context)
                if REPAIR_OPENING in context:
                    assert repaired is not None, "a repair turn in a suite that should not repair"
                    html = repaired[case_id]
                else:
                    j = self.calls.get(case_id, 0)
                    self.calls[case_id] = j + 1
                    html = first[case_id][j % len(first[case_id])]
                out.append(f"Here is the page.\n\n```html\n{html}\n```\n\nI hope this helps.")
            return out

        def tok_encode(self, text: str, **_: Any) -> list[int]:
            return list(range(len(text.split())))

        def apply_chat_template(self, chat: list[dict[str, str]], add_generation_prompt: bool = True) -> str:
            turns = "".join(f"<|{m['role']}|>\n{m['content']}\n" for m in chat)
            return turns + ("<|assistant|>\n" if add_generation_prompt else "")

        def loglikelihood(self, requests: list[Any]) -> list[tuple[float, bool]]:
            raise NotImplementedError

        def loglikelihood_rolling(self, requests: list[Any]) -> list[float]:
            raise NotImplementedError

    name = f"a11y-test-scripted-{next(_names)}"
    register_model(name)(ScriptedLM)
    return name, seen


def run_suite(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, dict[str, Any]]:
    suite = tmp_path / "suite.yaml"
    suite.write_text(textwrap.dedent(text), encoding="utf-8")
    code = main(["suite", "run", str(suite), "--out", str(tmp_path / "out"), "--concurrency", "2"])
    printed = capsys.readouterr().out
    result = json.loads((tmp_path / "out" / "suite.json").read_text(encoding="utf-8"))
    return code, printed, result


def by_id(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Cases by id; a case run in several variants by ``id variant`` as well (the last one by id)."""
    out = {c["id"]: c for c in result["cases"]}
    out.update({f"{c['id']} {c['variant']}": c for c in result["cases"]})
    return out


DISCLOSURE_PASS = page("disclosure", "pass-aria-button")
DISCLOSURE_FAIL = page("disclosure", "fail-clickable-div")
BREADCRUMB_PASS = page("breadcrumb", "pass-ordered-list-current-link")
BREADCRUMB_FAIL = page("breadcrumb", "fail-unnamed-nav")


@pytest.fixture(scope="module")
def model_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Model mode: two cases, two sampled trials each; one disclosure answer fails."""
    name, seen = fake_model({"disclosure": [DISCLOSURE_PASS, DISCLOSURE_FAIL], "breadcrumb": [BREADCRUMB_PASS]})
    tmp = tmp_path_factory.mktemp("model")
    suite = tmp / "suite.yaml"
    suite.write_text(
        textwrap.dedent(
            f"""
            name: fake-model-gate
            model: {{name: {name}, args: "flavour=test", apply_chat_template: true}}
            defaults:
              trials: 2
              instructions: full
              pricing: {{input_per_million_usd: 1.0, output_per_million_usd: 4.0}}
              expect: {{max_axe_failures: 0}}
            cases:
              - id: disclosure
                expect: {{min_pass_at_k: {{2: 0.9}}, checks_must_pass: [trigger-is-button]}}
              - id: breadcrumb
                theme: [default, dark]
                expect: {{max_output_tokens: 5, max_p95_duration_ms: 600000}}
            """
        ),
        encoding="utf-8",
    )
    code = main(["suite", "run", str(suite), "--out", str(tmp / "out"), "--concurrency", "2"])
    return {
        "code": code,
        "out": tmp / "out",
        "seen": seen,
        "result": json.loads((tmp / "out" / "suite.json").read_text(encoding="utf-8")),
    }


def test_model_mode_fails_its_gate_with_a_readable_list(
    model_run: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert model_run["code"] == EXIT_FAIL
    result = model_run["result"]
    cases = by_id(result)
    disclosure, breadcrumb = cases["disclosure"], cases["breadcrumb"]
    assert result["passed"] is False and result["totals"]["failed"] == 3
    failed = [(f["name"], f["subject"]) for f in disclosure["failed_checks"]]
    assert failed == [("must_pass", None), ("checks_must_pass", "trigger-is-button")]
    assert disclosure["failed_checks"][0]["actual"] == "1 of 2 trials passed (failed: #2)"
    # Breadcrumb's pages pass, but a 5-token answer bound cannot be met by any page.
    assert [f["name"] for f in breadcrumb["failed_checks"]] == ["max_output_tokens"]
    assert breadcrumb["failed_checks"][0]["actual"].endswith("output tokens at worst; over in 2 trial(s) (#1, #2)")
    assert disclosure["variant"] == "model_instructions-full"
    assert [c["variant"] for c in result["cases"] if c["id"] == "breadcrumb"] == [
        "model_instructions-full",
        "model_instructions-full@dark",
    ]


def test_model_mode_statistics(model_run: dict[str, Any]) -> None:
    cases = by_id(model_run["result"])
    stats = cases["disclosure"]["stats"]
    assert stats["trials"] == 2 and stats["trials_passed"] == 1 and stats["trial_pass_rate"] == 0.5
    assert stats["pass_at_k"] == {"1": 0.5, "2": 1.0, "5": None, "10": None}
    assert stats["repair"] is None
    trials = cases["disclosure"]["trials"]
    assert [t["passed"] for t in trials] == [True, False]
    assert [t["status"] for t in trials] == ["ok", "ok"]
    for t in trials:
        assert t["input_tokens"] > 50 and t["output_tokens"] > 50
        assert t["estimated_cost_usd"] == pytest.approx((t["input_tokens"] * 1.0 + t["output_tokens"] * 4.0) / 1e6)
        assert t["duration_ms"] == pytest.approx(t["generation_ms"] + t["evaluation_ms"])
        assert t["evaluation_ms"] > 0 and t["first_try_passed"] is None and t["repaired"] is False
    durations = [t["duration_ms"] for t in trials]
    assert stats["duration_ms"]["p95"] == max(durations)  # nearest rank of 2 trials: the slowest
    assert stats["duration_ms"]["mean"] == pytest.approx(sum(durations) / 2)
    assert stats["input_tokens"]["total"] == sum(t["input_tokens"] for t in trials)
    assert stats["estimated_cost_usd"]["total"] == pytest.approx(sum(t["estimated_cost_usd"] for t in trials))
    total = sum(c["stats"]["estimated_cost_usd"]["total"] for c in model_run["result"]["cases"])
    assert model_run["result"]["totals"]["estimated_cost_total_usd"] == pytest.approx(total)


def test_model_mode_asks_as_the_task_does(model_run: dict[str, Any]) -> None:
    """lm-eval requests: the chat template with the instructed task's system message, no stop
    sequence, a generous budget and sampling for several trials; dark theme adds its sentence."""
    from lm_eval.api.instance import Instance

    seen = model_run["seen"]
    assert len(seen) == 6 and all(isinstance(r, Instance) and r.request_type == "generate_until" for r in seen)
    for request in seen:
        context, kwargs = request.args
        assert context.startswith("<|system|>\nMake the page accessible: follow WCAG 2.2 level AA")
        assert kwargs == {"until": [], "max_gen_toks": 4096, "do_sample": True, "temperature": SAMPLING_TEMPERATURE}
    breadcrumb = [r.args[0] for r in seen if get_case("breadcrumb").prompt.strip() in r.args[0]]
    assert sorted("Use a dark colour scheme" in c for c in breadcrumb) == [False, False, True, True]


def test_report_and_samples_of_a_suite_run(model_run: dict[str, Any]) -> None:
    """The run is lm-eval output the report reads (one column per variant: breadcrumb in both
    themes side by side), and its report, with the suite section, passes axe with zero violations."""
    out = model_run["out"]
    series = {s.task: s for s in load_runs([out])}  # `a11y-eval report DIR` finds them
    assert sorted(series) == ["model_instructions-full", "model_instructions-full@dark"]
    assert (
        sorted(x.case_id for x in series["model_instructions-full"].samples) == ["breadcrumb"] * 2 + ["disclosure"] * 2
    )
    assert [x.case_id for x in series["model_instructions-full@dark"].samples] == ["breadcrumb"] * 2
    for s in series.values():
        assert all(x.tokens is not None for x in s.samples) and s.repeats == 2
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="suite"' in html and "fake-model-gate" in html and "max_output_tokens" in html
    with Evaluator(EvaluatorSettings(concurrency=1, timeout_s=180)) as ev:
        obs = ev.evaluate(REPORT_CASE, html, name="suite-report")
    assert obs.status == "ok", obs.error
    found = [f"{f.rule_id}: {f.help}; {[n.target for n in f.nodes[:3]]}" for f in obs.axe.violations]
    assert found == [], "the suite report must pass axe-core, best practices included"
    # The report's own keyboard checks: every link, summary and scrollable table reached, focus shown.
    assert {c.id: c.outcome for c in obs.checks} == {"tab-reaches-everything": "pass", "focus-visible": "pass"}, [
        c.message for c in obs.checks
    ]


def test_rescore_reads_a_suite_run(model_run: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    out = model_run["out"]
    assert main(["rescore", str(out), "--from-observations", "--out", str(out / "rescored")]) == 0
    printed = capsys.readouterr().out
    assert "model_instructions-full: 2 docs re-scored" in printed
    assert "model_instructions-full@dark: 1 docs re-scored" in printed
    assert len(list((out / "rescored").glob("samples_*.jsonl"))) == 2


def test_repair_mode_rates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Disclosure: 4 trials, 2 fail first and both are rescued (repair rate 0.5, rescue rate 1.0).
    Breadcrumb: 2 trials, both fail and the repair does not fix them (repair 1.0, rescue 0.0), so
    ``repair: require`` fails with the trials named."""
    name, seen = fake_model(
        {"disclosure": [DISCLOSURE_PASS, DISCLOSURE_FAIL], "breadcrumb": [BREADCRUMB_FAIL]},
        repaired={"disclosure": DISCLOSURE_PASS, "breadcrumb": BREADCRUMB_FAIL},
    )
    code, printed, result = run_suite(
        tmp_path,
        f"""
        name: fake-repair
        model: {{name: {name}}}
        defaults: {{mode: repair, trials: 2}}
        cases:
          - {{id: disclosure, trials: 4}}
          - {{id: breadcrumb, expect: {{repair: require}}}}
        """,
        capsys,
    )
    assert code == EXIT_FAIL
    cases = by_id(result)
    assert cases["disclosure"]["passed"] is True
    assert cases["disclosure"]["stats"]["repair"] == {
        "first_try_pass_rate": 0.5,
        "repair_rate": 0.5,
        "rescue_rate": 1.0,
    }
    assert cases["disclosure"]["stats"]["trial_pass_rate"] == 1.0
    assert [t["first_try_passed"] for t in cases["disclosure"]["trials"]] == [True, False, True, False]
    assert [t["repaired"] for t in cases["disclosure"]["trials"]] == [False, True, False, True]
    assert cases["breadcrumb"]["stats"]["repair"] == {
        "first_try_pass_rate": 0.0,
        "repair_rate": 1.0,
        "rescue_rate": 0.0,
    }
    names = [f["name"] for f in cases["breadcrumb"]["failed_checks"]]
    assert names == ["must_pass", "repair"]
    assert cases["breadcrumb"]["failed_checks"][1]["actual"] == "2 of 2 repaired trial(s) still failed (#1, #2)"
    assert "first try 50%, repair rate 50%, rescue rate 100%" in printed
    assert "repair: expected every first-try failure rescued, got 2 of 2 repaired trial(s) still failed" in printed
    # The second turn holds the prompt, the first answer with its page, and the findings.
    repairs = [r.args[0] for r in seen if REPAIR_OPENING in r.args[0]]
    assert len(repairs) == 4 and len(seen) == 4 + 2 + 4
    breadcrumb = next(c for c in repairs if get_case("breadcrumb").prompt.strip() in c)
    assert "```html" in breadcrumb.split(REPAIR_OPENING)[0]
    findings = breadcrumb.split(REPAIR_OPENING)[1]
    assert "- requirement 'in-named-navigation' (The trail is a navigation landmark" in findings, findings
    assert ": fail: The breadcrumb navigation has no name" in findings
    assert "reply with the whole corrected page" in findings
    # Sampling without a chat template: the turns are plain text, one after the other.
    assert all(r.args[1]["do_sample"] is True for r in seen)


def test_hostile_answers_are_failed_trials(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Empty, binary, missing and huge answers: each a failed trial with a reason, none lost."""

    class Hostile(LM):  # type: ignore[misc]
        def __init__(self, **_: Any) -> None:
            super().__init__()

        def generate_until(self, requests: list[Any]) -> list[Any]:
            huge = "<!doctype html><p>" + "x" * 3_100_000
            answers: list[Any] = ["", "\x00\ud800 \xff binary", None, huge]
            return [answers[i % 4] for i in range(len(requests))]

        def loglikelihood(self, requests: list[Any]) -> list[tuple[float, bool]]:
            raise NotImplementedError

        def loglikelihood_rolling(self, requests: list[Any]) -> list[float]:
            raise NotImplementedError

    name = f"a11y-test-hostile-{next(_names)}"
    register_model(name)(Hostile)
    code, printed, result = run_suite(
        tmp_path, f"name: hostile\nmodel: {{name: {name}}}\ncases: [{{id: breadcrumb, trials: 4}}]\n", capsys
    )
    assert code == EXIT_FAIL
    (case,) = result["cases"]
    assert [t["status"] for t in case["trials"]] == ["no-html"] * 3 + ["error"]
    assert all(t["reasons"][0].startswith("no HTML document found") for t in case["trials"][:3])
    assert case["trials"][0]["reasons"][0].endswith("(the response was empty)")
    assert "above the limit of 3,000,000 bytes" in case["trials"][3]["error"]
    assert all(t["axe_failures"] is None and t["input_tokens"] is None for t in case["trials"])
    assert "trial #1 failed: no HTML document found" in printed


def _broken_model(error: Exception) -> str:
    class Broken(LM):  # type: ignore[misc]
        def __init__(self, **_: Any) -> None:
            raise error

        generate_until = loglikelihood = loglikelihood_rolling = None  # never reached

    name = f"a11y-test-broken-{next(_names)}"
    register_model(name)(Broken)
    return name


@pytest.mark.parametrize(
    ("make", "code", "words"),
    [
        (lambda: "no-such-model-class", 2, "model.name: no lm-eval model class 'no-such-model-class'"),
        (
            lambda: _broken_model(FileNotFoundError("SmolLM2.gguf: no such file")),
            EXIT_ENVIRONMENT,
            "could not be loaded: FileNotFoundError: SmolLM2.gguf: no such file",
        ),
    ],
)
def test_a_model_that_cannot_load_is_an_exit_code_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: Callable[[], str], code: int, words: str
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"name: s\nmodel: {{name: {make()}}}\ncases: [{{id: breadcrumb}}]\n", encoding="utf-8")
    try:
        got = main(["suite", "run", str(suite), "--out", str(tmp_path / "out")])
    except SystemExit as stop:
        got = int(stop.code or 0)
    err = capsys.readouterr().err
    assert got == code, err
    assert words in err and "Traceback" not in err
    assert not (tmp_path / "out" / "suite.json").exists()


def test_a_model_that_fails_while_generating_is_exit_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    class Failing(LM):  # type: ignore[misc]
        def __init__(self, **_: Any) -> None:
            super().__init__()

        def generate_until(self, requests: list[Any]) -> list[str]:
            raise RuntimeError("CUDA out of memory")

        loglikelihood = loglikelihood_rolling = None  # never reached

    name = f"a11y-test-failing-{next(_names)}"
    register_model(name)(Failing)
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"name: s\nmodel: {{name: {name}}}\ncases: [{{id: breadcrumb}}]\n", encoding="utf-8")
    assert main(["suite", "run", str(suite), "--out", str(tmp_path / "out")]) == EXIT_ENVIRONMENT
    err = capsys.readouterr().err
    assert "the model failed while generating: RuntimeError: CUDA out of memory" in err
    assert "Traceback" not in err and not (tmp_path / "out" / "suite.json").exists()
