"""Screenshots from the task: off by default, on with A11Y_SCREENSHOTS / a11y-eval run --a11y-screenshots."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lm_eval_a11y.cases import get_case, load_examples
from lm_eval_a11y.dataset import case_rows
from lm_eval_a11y.harness import A11yTaskFilter
from lm_eval_a11y.lm_eval_args import model_label, take_screenshot_option
from lm_eval_a11y.records import parse_record_strict

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _doc_and_answer() -> tuple[dict[str, object], str]:
    case = get_case("disclosure")
    example = next(ex for ex in load_examples(case) if ex.verdict == "pass")
    return case_rows([case])[0], f"Here is the page:\n\n```html\n{example.html}\n```\n"


def test_screenshots_are_off_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("A11Y_SCREENSHOTS", raising=False)
    doc, answer = _doc_and_answer()
    (records,) = A11yTaskFilter(concurrency=1).apply([[answer]], [doc])
    assert parse_record_strict(records[0])["observation"]["screenshot"] is None


def test_screenshot_per_model_case_and_sample(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("A11Y_SCREENSHOTS", str(tmp_path / "shots"))
    monkeypatch.setenv("A11Y_MODEL_LABEL", "SmolLM2 135M/Q4")
    doc, answer = _doc_and_answer()
    (records,) = A11yTaskFilter(concurrency=1).apply([[answer, answer]], [doc])
    paths = [Path(parse_record_strict(r)["observation"]["screenshot"]) for r in records]
    assert [p.name for p in paths] == ["SmolLM2_135M_Q4__disclosure__0.png", "SmolLM2_135M_Q4__disclosure__1.png"]
    for path in paths:
        assert path.is_absolute() and path.parent == (tmp_path / "shots").resolve()
        assert path.read_bytes()[:8] == PNG_MAGIC
    json.loads(records[0])  # the record stays plain JSON


def test_run_wrapper_takes_its_own_option_and_names_the_model() -> None:
    args = ["--model", "hf", "--model_args", "pretrained=/m/dir,gguf_file=Small.Q4.gguf", "--a11y-screenshots", "s"]
    rest, folder = take_screenshot_option(args)
    assert folder == "s" and "--a11y-screenshots" not in rest and len(rest) == 4
    assert model_label(rest) == "Small.Q4"
    assert model_label(["--model_args=pretrained=/models/my-model/"]) == "my-model"
    assert model_label(["--model", "dummy"]) == "model"
    assert take_screenshot_option(["--a11y-screenshots=x", "--limit", "1"]) == (["--limit", "1"], "x")


def test_main_job_shows_what_it_saw(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The main job's path: scripts/run_main.sh points A11Y_SCREENSHOTS into the run folder, lm-eval
    runs the task (a fake model here), and the report shows every rendered sample's screenshot as
    an embedded thumbnail that opens full size."""
    from lm_eval.loggers import EvaluationTracker
    from test_lm_eval_task import CASES, ExampleLM, run

    from lm_eval_a11y.cli import main

    script = (Path(__file__).resolve().parents[2] / "scripts" / "run_main.sh").read_text(encoding="utf-8")
    assert 'export A11Y_SCREENSHOTS="${A11Y_SCREENSHOTS-$out_abs/screenshots}"' in script
    out = tmp_path / "run"
    monkeypatch.setenv("A11Y_SCREENSHOTS", str(out / "screenshots"))
    monkeypatch.setenv("A11Y_MODEL_LABEL", "fake")
    results = run("a11y_html", ExampleLM(offset=0))
    tracker = EvaluationTracker(output_path=str(out))
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    tracker.save_results_samples(task_name="a11y_html", samples=samples["a11y_html"])
    shots = sorted((out / "screenshots").glob("*.png"))
    assert [p.name for p in shots] == sorted(f"fake__{case.id}__0.png" for case in CASES)

    report = out / "report.html"
    assert main(["report", str(out), "--out", str(report)]) == 0
    html = report.read_text(encoding="utf-8")
    thumbnails = re.findall(r'<details class="shot">\s*<summary><img src="([^"]+)" alt="([^"]+)"', html)
    assert len(thumbnails) == len(CASES)
    for src, alt in thumbnails:
        assert src.startswith("data:image/png;base64,")
        assert alt.startswith("Screenshot of sample 1 of ") and "as rendered in Chromium" in alt
