"""``a11y-eval rescore``: a saved lm-eval run is scored again from its samples file alone.

The run is made by lm-eval itself (fake model answering with example pages) and saved by lm-eval's
own EvaluationTracker, so the samples file has exactly the layout users get from --log_samples.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lm_eval.loggers import EvaluationTracker
from test_lm_eval_task import CASES, EXAMPLES, ExampleLM, expected, run

from lm_eval_a11y.cli import main
from lm_eval_a11y.records import newest_samples_by_task


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("run")
    results = run("a11y_html", ExampleLM(offset=0))
    tracker = EvaluationTracker(output_path=str(out))
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=samples)
    tracker.save_results_samples(task_name="a11y_html", samples=samples["a11y_html"])
    return out, results["results"]["a11y_html"]


def _rescored(run_dir: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    (folder,) = [p for p in run_dir.iterdir() if p.name.startswith("rescored-")]
    (results_file,) = folder.glob("results_*.json")
    (samples_file,) = folder.glob("samples_a11y_html_*.jsonl")
    samples = [json.loads(line) for line in samples_file.read_text(encoding="utf-8").splitlines()]
    return json.loads(results_file.read_text(encoding="utf-8"))["results"]["a11y_html"], samples


def test_rescore_in_the_browser_reproduces_the_run(saved_run: tuple[Path, dict[str, Any]]) -> None:
    run_dir, original = saved_run
    assert list(newest_samples_by_task(run_dir)) == ["a11y_html"]
    assert main(["rescore", str(run_dir)]) == 0
    again, samples = _rescored(run_dir)
    for name in ("pass", "req_pass_rate", "checks_passed", "axe_clean", "html_found"):
        assert again[f"{name},a11y"] == pytest.approx(original[f"{name},a11y"]), name
    assert again["samples"] == len(CASES)
    record = json.loads(samples[0]["filtered_resps"][0][0])
    assert record["observation"]["checks"], "the re-score holds fresh evidence"
    assert samples[0]["rescored"] is True


def test_rescore_from_observations_and_with_a_changed_page(
    saved_run: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    run_dir, original = saved_run
    (samples_file,) = newest_samples_by_task(run_dir).values()
    lines = [json.loads(line) for line in samples_file.read_text(encoding="utf-8").splitlines()]

    # No browser: the saved observations alone give the same numbers.
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / samples_file.name).write_text(samples_file.read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["rescore", str(plain), "--from-observations"]) == 0
    again, _ = _rescored(plain)
    assert again["pass,a11y"] == pytest.approx(original["pass,a11y"])

    # Swap the first doc's saved page for another example: the browser judges the new page.
    case = CASES[0]
    other = next(ex for ex in EXAMPLES[case.id] if ex.verdict != EXAMPLES[case.id][0].verdict)
    record = json.loads(lines[0]["filtered_resps"][0][0])
    record["html"] = other.html
    lines[0]["filtered_resps"] = [[json.dumps(record)]]
    changed = tmp_path / "changed"
    changed.mkdir()
    (changed / samples_file.name).write_text("".join(json.dumps(s) + "\n" for s in lines), encoding="utf-8")
    assert main(["rescore", str(changed)]) == 0
    _, samples = _rescored(changed)
    assert samples[0]["pass"] == expected(case, other)["pass"]
    assert samples[0]["req_pass_rate"] == pytest.approx(expected(case, other)["req_pass_rate"])


def test_rescore_refuses_a_folder_without_samples(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["rescore", str(tmp_path)])
    assert exc.value.code == 2
