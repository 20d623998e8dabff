"""Prompt variants without a browser: crossing, ids, prompts, and the default left exactly as it was.

The default variant is the contract with every published number: its prompt, dataset row, suite
task name and sample id must be those of a run without dimensions. The other variants must each
get their own id everywhere (suite task, sample id, lm-eval task) and their own sentences.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from lm_eval_a11y.cases import CaseError, get_case, load_case, load_cases, load_examples
from lm_eval_a11y.dataset import case_rows
from lm_eval_a11y.resources import cases_dir, tasks_dir
from lm_eval_a11y.suite import SuiteError, load_suite
from lm_eval_a11y.suite.model import DARK_THEME, prompt_messages
from lm_eval_a11y.suite.run import case_sample_id, suite_row, variant_task
from lm_eval_a11y.variants import (
    DEFAULT_VARIANT,
    FRAMEWORK_TEXT,
    FRAMEWORKS,
    STYLE_TEXT,
    STYLES,
    PromptVariant,
    cross,
    parse_variant,
    sample_id,
    variant_row,
)

ALL = cross(FRAMEWORKS, STYLES)
MODEL = "name: s\nmodel: {name: hf, args: pretrained=x}\n"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_crossing_gives_every_combination_with_its_own_id() -> None:
    assert [v.label for v in ALL] == [
        "vanilla+default",
        "vanilla+dark",
        "vanilla+modern",
        "react+default",
        "react+dark",
        "react+modern",
    ]
    assert [v.key for v in ALL] == ["", "dark", "modern", "react", "react+dark", "react+modern"]
    assert [sample_id("modal-dialog", v) for v in ALL] == [
        "modal-dialog",
        "modal-dialog@dark",
        "modal-dialog@modern",
        "modal-dialog@react",
        "modal-dialog@react+dark",
        "modal-dialog@react+modern",
    ]
    assert [v.task_suffix() for v in ALL] == ["", "_dark", "_modern", "_react", "_react_dark", "_react_modern"]
    assert len({sample_id("x", v) for v in ALL}) == len(ALL)


@pytest.mark.parametrize("variant", ALL, ids=lambda v: v.label)
def test_a_key_and_a_label_read_back_as_the_same_variant(variant: PromptVariant) -> None:
    assert parse_variant(variant.key) == variant
    assert parse_variant(variant.label) == variant


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("angular", "unknown variant part 'angular'"),
        ("dark+modern", "names the style twice"),
        ("react+vanilla", "names the framework twice"),
    ],
)
def test_a_bad_variant_is_named(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        parse_variant(text)


def test_unknown_values_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown framework 'vue'"):
        PromptVariant(framework="vue")
    with pytest.raises(ValueError, match="unknown style 'light'"):
        PromptVariant(style="light")


def test_the_default_variant_leaves_every_prompt_and_row_as_it_was() -> None:
    """Byte for byte: the prompt sent, the dataset row, the suite task and the sample id."""
    cases = load_cases()
    for case, row in zip(cases, case_rows(cases), strict=True):
        assert DEFAULT_VARIANT.prompt(case.prompt) == case.prompt
        assert variant_row(row, DEFAULT_VARIANT) == row
        assert prompt_messages(case, "none") == [{"role": "user", "content": case.prompt.rstrip()}]
        assert sample_id(case.id, DEFAULT_VARIANT) == case.id


def test_each_variant_appends_its_sentences_after_the_prompt_framework_first() -> None:
    prompt = get_case("modal-dialog").prompt
    react_dark = PromptVariant("react", "dark").prompt(prompt)
    assert react_dark == f"{prompt}\n\n{FRAMEWORK_TEXT['react']}\n\n{STYLE_TEXT['dark']}"
    assert PromptVariant(style="modern").prompt(prompt) == f"{prompt}\n\n{STYLE_TEXT['modern']}"
    assert PromptVariant("react").prompt(prompt) == f"{prompt}\n\n{FRAMEWORK_TEXT['react']}"
    # The sentences say what they ask for (React 18 from a CDN in one document; dark; modern).
    assert all(w in FRAMEWORK_TEXT["react"] for w in ("React 18", "CDN", "one standalone HTML document"))
    assert "dark" in STYLE_TEXT["dark"] and "modern" in STYLE_TEXT["modern"]
    # The suite's earlier `theme: dark` asked with exactly this sentence: its runs stay comparable.
    assert STYLE_TEXT["dark"] == DARK_THEME == "Use a dark colour scheme: light text on a dark background."
    prompts = {v.prompt(prompt) for v in ALL}
    assert len(prompts) == len(ALL), "every variant asks something different"


def test_a_variant_row_names_its_variant() -> None:
    (row,) = case_rows([get_case("tabs")])
    got = variant_row(row, PromptVariant("react", "modern"))
    assert (got["variant"], got["framework"], got["style"], got["sample_id"]) == (
        "react+modern",
        "react",
        "modern",
        "tabs@react+modern",
    )
    assert got["prompt"].startswith(row["prompt"]) and got["prompt"] != row["prompt"]
    added = ("variant", "framework", "style", "sample_id")
    kept = {k: v for k, v in got.items() if k not in ("prompt", *added)}
    assert kept == {k: v for k, v in row.items() if k != "prompt"}
    assert not set(added) & set(row)


def test_a_suite_crosses_framework_and_style_in_model_mode(tmp_path: Path) -> None:
    text = MODEL + (
        "defaults: {instructions: [none, full], framework: [vanilla, react], style: [default, dark]}\n"
        "cases: [{id: link}, {id: breadcrumb, framework: react, style: modern}]\n"
    )
    suite = load_suite(_write(tmp_path, text))
    got = [(c.id, variant_task(c.settings), case_sample_id(c)) for c in suite.cases]
    assert got == [
        ("link", "model", "link"),
        ("link", "model@dark", "link@dark"),
        ("link", "model@react", "link@react"),
        ("link", "model@react+dark", "link@react+dark"),
        ("link", "model_instructions-full", "link"),
        ("link", "model_instructions-full@dark", "link@dark"),
        ("link", "model_instructions-full@react", "link@react"),
        ("link", "model_instructions-full@react+dark", "link@react+dark"),
        ("breadcrumb", "model@react+modern", "breadcrumb@react+modern"),
        ("breadcrumb", "model_instructions-full@react+modern", "breadcrumb@react+modern"),
    ]
    react_dark = next(c for c in suite.cases if variant_task(c.settings) == "model@react+dark")
    (message,) = prompt_messages(react_dark.case, "none", react_dark.settings.variant)
    assert (
        message["content"]
        == suite_row(react_dark)["prompt"]
        == PromptVariant("react", "dark").prompt(react_dark.case.prompt)
    )


def test_a_suite_without_dimensions_keeps_its_task_names(tmp_path: Path) -> None:
    suite = load_suite(_write(tmp_path, MODEL + "defaults: {instructions: [none, full]}\ncases: [{id: link}]\n"))
    assert [variant_task(c.settings) for c in suite.cases] == ["model", "model_instructions-full"]
    assert [suite_row(c) for c in suite.cases] == case_rows([get_case("link")]) * 2
    ref = load_suite(_write(tmp_path, "name: r\ndefaults: {mode: reference}\ncases: [{id: link}]\n"))
    assert [variant_task(c.settings) for c in ref.cases] == ["reference"]


def test_theme_is_the_earlier_name_of_style(tmp_path: Path) -> None:
    old = load_suite(_write(tmp_path, MODEL + "cases: [{id: link, theme: [default, dark]}]\n"))
    new = load_suite(_write(tmp_path, MODEL + "cases: [{id: link, style: [default, dark]}]\n"))
    assert [c.settings for c in old.cases] == [c.settings for c in new.cases]
    assert [c.settings.theme for c in old.cases] == ["default", "dark"]
    # A case's `style` replaces the defaults' `theme` whole, like any other setting.
    mixed = load_suite(_write(tmp_path, MODEL + "defaults: {theme: dark}\ncases: [{id: link, style: modern}]\n"))
    assert [c.settings.style for c in mixed.cases] == ["modern"]


@pytest.mark.parametrize(
    ("entry", "where", "words"),
    [
        ("{id: link, framework: vue}", "cases[0].framework", "vanilla, react"),
        ("{id: link, style: light}", "cases[0].style", "default, dark, modern"),
        ("{id: link, style: dark, theme: dark}", "cases[0].", "state one of the two"),
        ("{id: link, framework: [react, react]}", "cases[0].framework[1]", "listed twice"),
    ],
)
def test_bad_dimensions_are_named(tmp_path: Path, entry: str, where: str, words: str) -> None:
    with pytest.raises(SuiteError) as err:
        load_suite(_write(tmp_path, MODEL + f"cases: [{entry}]\n"))
    assert where in str(err.value) and words in str(err.value)


def test_an_example_declares_its_variant_and_a_bad_one_is_named(tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "breadcrumb"
    shutil.copytree(cases_dir() / "breadcrumb", folder)
    assert {e.variant for e in load_examples(load_case(folder))} == {DEFAULT_VARIANT}
    page = folder / "examples" / "pass-ordered-list-current-link.html"
    html = page.read_text(encoding="utf-8")
    page.write_text(html.replace('"verdict": "pass"}', '"verdict": "pass", "framework": "react"}'), encoding="utf-8")
    declared = {e.name: e.variant for e in load_examples(load_case(folder))}
    assert declared["pass-ordered-list-current-link"] == PromptVariant("react")
    page.write_text(html.replace('"verdict": "pass"}', '"verdict": "pass", "style": "neon"}'), encoding="utf-8")
    with pytest.raises(CaseError, match="'style' must be one of default, dark, modern, got 'neon'"):
        load_examples(load_case(folder))


def test_each_variant_task_asks_its_own_variant() -> None:
    """Every a11y_html_<variant>.yaml: task name, process_docs function and metadata agree, and
    together they cover every variant but the default (which is a11y_html itself)."""
    import importlib.util

    folder = tasks_dir() / "a11y_html"
    spec = importlib.util.spec_from_file_location("a11y_task_utils_for_test", folder / "utils.py")
    assert spec is not None and spec.loader is not None
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    seen = []
    for path in sorted(folder.glob("a11y_html_*.yaml")):
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text.replace("!function ", ""))
        key = (data.get("metadata") or {}).get("variant")
        if key is None:
            continue
        variant = parse_variant(key)
        seen.append(variant)
        assert data["task"] == "a11y_html" + variant.task_suffix() == path.stem
        assert data["process_docs"] == f"utils.{variant.task_suffix().lstrip('_')}_docs"
        assert data["tag"] == "a11y_html_variants"
        assert callable(getattr(utils, data["process_docs"].removeprefix("utils.")))
    assert sorted(seen) == sorted(v for v in ALL if not v.is_default)
