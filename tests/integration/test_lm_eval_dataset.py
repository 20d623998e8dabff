"""The Hugging Face dataset: built from the cases, read back offline by the task, pushed with
push_to_hub (up to the upload call), and never a source of code: checks come from the package."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import datasets
import pytest

from lm_eval_a11y import dataset as ds
from lm_eval_a11y.cases import load_cases
from lm_eval_a11y.cli import main
from lm_eval_a11y.extract import extract_html
from lm_eval_a11y.harness import process_results, resolve_case
from lm_eval_a11y.lm_eval_args import lm_eval_command
from lm_eval_a11y.records import build_record
from lm_eval_a11y.resources import tasks_dir

CASES = load_cases()


def test_build_writes_parquet_and_card(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dataset", "build", "--out", str(tmp_path)]) == 0
    assert f"wrote {len(CASES)} cases" in capsys.readouterr().out
    table = datasets.load_dataset("parquet", data_files={"test": str(tmp_path / ds.PARQUET_NAME)})["test"]
    assert table.column_names == list(ds.COLUMNS)
    assert table["id"] == [c.id for c in CASES]
    first = table[0]
    case = CASES[0]
    assert first["prompt"] == case.prompt and first["version"] == case.version
    assert first["tags"] == list(case.tags) and first["wcag"] == list(case.wcag)
    assert first["category"] == case.category
    assert first["checks_source"] == (case.path / "checks.py").read_text(encoding="utf-8")
    card = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and f"path: {ds.PARQUET_NAME}" in card
    assert "checks_source" in card and "never executed" in card


def test_task_loads_a_built_copy_and_selects_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    ds.write_dataset(tmp_path, CASES)
    loaded = ds.load_task_dataset(a11y_dataset=str(tmp_path), pretrained="ignored-model-arg", version=1.0)
    assert loaded["test"]["id"] == [c.id for c in CASES]
    one = ds.load_task_dataset(a11y_cases=CASES[-1].id)
    assert one["test"]["id"] == [CASES[-1].id]
    with pytest.raises(ValueError, match="unknown case"):
        ds.load_task_dataset(a11y_cases="no-such-case")
    docs = ds.task_docs(loaded["test"])
    assert "checks_source" not in docs.column_names
    smoke = ds.smoke_docs(loaded["test"])
    assert sorted(smoke["category"]) == sorted({c.category for c in CASES})


def test_push_builds_and_uploads_dataset_and_card(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, Any]] = []

    def fake_push(self: datasets.DatasetDict, repo: str, **kwargs: Any) -> None:
        calls.append(("data", (repo, sorted(self.keys()), self["test"].num_rows, kwargs)))

    def fake_card_push(self: Any, repo: str, **kwargs: Any) -> None:
        calls.append(("card", (repo, str(self), kwargs)))

    from huggingface_hub import DatasetCard

    monkeypatch.setattr(datasets.DatasetDict, "push_to_hub", fake_push)
    monkeypatch.setattr(DatasetCard, "push_to_hub", fake_card_push)
    monkeypatch.setenv("HF_TOKEN", "hf_test_token_not_real")
    assert main(["dataset", "push", "--repo", "example-org/a11y-cases", "--private"]) == 0
    (kind, (repo, splits, rows, kwargs)), (card_kind, (card_repo, card, card_kwargs)) = calls
    assert (kind, repo, splits, rows) == ("data", "example-org/a11y-cases", ["test"], len(CASES))
    assert kwargs == {"private": True, "token": "hf_test_token_not_real"}
    assert (card_kind, card_repo, card_kwargs["repo_type"]) == ("card", "example-org/a11y-cases", "dataset")
    assert "example-org/a11y-cases" in card


def test_push_rejects_a_malformed_repo_name() -> None:
    with pytest.raises(SystemExit) as exc:
        main(["dataset", "push", "--repo", "not-a-repo"])
    assert exc.value.code == 2


def test_dataset_rows_never_supply_checks() -> None:
    case = CASES[0]
    ok, error = resolve_case({"id": case.id, "version": case.version, "checks_source": "raise SystemExit(9)"})
    assert ok is case and error is None
    _, error = resolve_case({"id": case.id, "version": case.version + "-hub"})
    assert error is not None and "installed case is version" in error
    _, error = resolve_case({"id": "case-from-the-hub", "version": "1"})
    assert error is not None and "not installed" in error
    # A refused doc is logged and left out of every mean rather than counted as a model failure.
    record = build_record({"id": case.id, "version": "0"}, extract_html("<p>x</p>"), None, error=error)
    assert process_results({"id": case.id}, [[json.dumps(record)]]) == {}


def test_tasks_dir_and_run_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks-dir"]) == 0
    printed = capsys.readouterr().out.strip()
    assert Path(printed) == tasks_dir() and (Path(printed) / "a11y_html" / "a11y_html.yaml").is_file()
    command = lm_eval_command(["--model", "hf", "--tasks", "a11y_html", "--limit", "2"])
    assert command == [
        sys.executable,
        "-m",
        "lm_eval",
        "run",
        "--include_path",
        str(tasks_dir()),
        "--model",
        "hf",
        "--tasks",
        "a11y_html",
        "--limit",
        "2",
    ]
    with pytest.raises(SystemExit) as exc:
        main(["run", "--include_path", "elsewhere", "--tasks", "x"])
    assert exc.value.code == 2


def test_lm_eval_lists_the_task_family() -> None:
    listing = subprocess.run(
        [sys.executable, "-m", "lm_eval", "ls", "tasks", "--include_path", str(tasks_dir())],
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    ).stdout
    for name in (
        "a11y_html",
        "a11y_html_pass_at_k",
        "a11y_html_instructed",
        "a11y_html_smoke",
        "a11y_html_widgets",
        "a11y_html_forms",
        "a11y_html_pages",
        "a11y_html_content",
        "a11y_html_by_category",
        "a11y_html_react",
        "a11y_html_dark",
        "a11y_html_modern",
        "a11y_html_react_dark",
        "a11y_html_react_modern",
        "a11y_html_variants",
    ):
        assert name in listing, f"{name} missing from lm_eval ls tasks"
