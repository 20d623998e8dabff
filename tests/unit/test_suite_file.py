"""Suite files are user input and release gates: every mistake is an error naming file and field.

A table of bad files, each with the field path and the words the error must contain; then what a
good file resolves to (defaults, overrides, selection) and the shipped suites themselves.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lm_eval_a11y.cases import load_cases
from lm_eval_a11y.pricing import ModelPrice
from lm_eval_a11y.resources import suites_dir
from lm_eval_a11y.suite import SuiteError, load_suite
from lm_eval_a11y.suite.expectations import Expectations

REF = "name: s\ndefaults: {mode: reference}\n"
MODEL = "name: s\nmodel: {name: hf, args: pretrained=x}\n"


def ref(entries: str) -> str:
    """A reference-mode suite with these case entries (YAML flow list items)."""
    return f"{REF}cases: [{entries}]\n"


def link(expect: str) -> str:
    """A reference-mode suite of the link case with this expect mapping's body."""
    return ref(f"{{id: link, expect: {{{expect}}}}}")


def model(top: str, entries: str = "{id: link}") -> str:
    """A model-mode suite with extra top-level YAML and these case entries."""
    return f"{MODEL}{top}cases: [{entries}]\n"


def bare_model(block: str) -> str:
    """A suite of the link case whose model block is ``block``."""
    return f"name: s\nmodel: {block}\ncases: [{{id: link}}]\n"


C0 = "cases[0]"
X0 = "cases[0].expect"

# (id, file text, field path, words the message must hold)
BAD = [
    ("not a mapping", "- a\n- b\n", "", "must be a mapping"),
    ("invalid yaml", "name: [unclosed\n", "", "is not valid YAML"),
    ("duplicate key", "name: a\nname: b\ncases: [{id: link}]\n", "", "found the key 'name' twice"),
    ("duplicate expect key", link("max_axe_failures: 0, max_axe_failures: 1"), "", "twice"),
    ("no name", "cases: [{id: link}]\n", "name", "is required"),
    ("empty name", "name: ''\ncases: [{id: link}]\n", "name", "non-empty string"),
    ("unknown top key", "name: s\ncase: [{id: link}]\n", "case", "did you mean 'cases'"),
    ("no cases", "name: s\n", "cases", "non-empty list"),
    ("cases not a list", "name: s\ncases: {id: link}\n", "cases", "non-empty list"),
    ("entry not a mapping", ref("link"), C0, "must be a mapping"),
    ("entry with neither", ref("{trials: 2}"), C0, "exactly one of id"),
    ("entry with both", ref("{id: link, select: {tags: [form]}}"), C0, "exactly one of id"),
    ("unknown entry key", ref("{id: link, trails: 2}"), f"{C0}.trails", "did you mean 'trials'"),
    ("unknown case", ref("{id: modal-dialgo}"), f"{C0}.id", "did you mean 'modal-dialog'"),
    ("case listed twice", ref("{id: link}, {id: link}"), "cases[1].id", "already listed at cases[0]"),
    ("unknown tag", ref("{select: {tags: [forms]}}"), f"{C0}.select.tags[0]", "did you mean 'form'"),
    ("tags not a list", ref("{select: {tags: form}}"), f"{C0}.select.tags", "list of strings"),
    ("unknown category", ref("{select: {category: widgets}}"), f"{C0}.select.category", "one of"),
    ("unknown select key", ref("{select: {tag: [form]}}"), f"{C0}.select.tag", "did you mean 'tags'"),
    ("empty select", ref("{select: {}}"), f"{C0}.select", "needs tags"),
    ("select matching nothing", ref("{select: {tags: [checkbox], category: page}}"), f"{C0}.select", "selects no"),
    (
        "two selects overlap",
        ref("{select: {tags: [form]}}, {select: {category: form}}"),
        "cases[1].select",
        "which cases[0] selects too",
    ),
    ("trials zero", ref("{id: link, trials: 0}"), f"{C0}.trials", "whole number from 1 to 1000"),
    ("trials text", model("defaults: {trials: five}\n"), "defaults.trials", "whole number"),
    ("trials bool", ref("{id: link, trials: true}"), f"{C0}.trials", "whole number"),
    ("trials too many", ref("{id: link, trials: 1001}"), f"{C0}.trials", "from 1 to 1000"),
    ("unknown mode", model("defaults: {mode: replay}\n"), "defaults.mode", "model, reference, repair"),
    ("unknown instructions", ref("{id: link, instructions: some}"), f"{C0}.instructions", "none, minimal, full"),
    ("unknown theme", ref("{id: link, theme: light}"), f"{C0}.theme", "default, dark"),
    ("unknown variant in a list", model("", "{id: link, instructions: [none, ful]}"), f"{C0}.instructions[1]", "full"),
    ("empty variant list", model("", "{id: link, theme: []}"), f"{C0}.theme", "non-empty list"),
    ("variant listed twice", model("defaults: {theme: [dark, dark]}\n"), "defaults.theme[1]", "listed twice"),
    ("unknown defaults key", model("defaults: {expects: {}}\n"), "defaults.expects", "did you mean 'expect'"),
    ("unknown expectation", link("min_pass_rate: 0.5"), f"{X0}.min_pass_rate", "allowed here"),
    ("expect not a mapping", ref("{id: link, expect: [must_pass]}"), X0, "must be a mapping"),
    ("must_pass not bool", link("must_pass: 1"), f"{X0}.must_pass", "true or false"),
    ("rate above 1", link("min_trial_pass_rate: 1.5"), f"{X0}.min_trial_pass_rate", "from 0 to 1"),
    ("rate nan", link("min_trial_pass_rate: .nan"), f"{X0}.min_trial_pass_rate", "from 0 to 1"),
    (
        "must_pass true and a rate",
        link("must_pass: true, min_trial_pass_rate: 0.5"),
        f"{X0}.min_trial_pass_rate",
        "contradicts must_pass",
    ),
    ("pass@k not a mapping", link("min_pass_at_k: 0.5"), f"{X0}.min_pass_at_k", "map k"),
    ("pass@k k zero", link("min_pass_at_k: {0: 0.5}"), f"{X0}.min_pass_at_k.0", "whole number"),
    ("pass@k value", link("min_pass_at_k: {1: 2}"), f"{X0}.min_pass_at_k.1", "from 0 to 1"),
    (
        "pass@k beyond the trials of a model case",
        model("", "{id: link, trials: 3, expect: {min_pass_at_k: {5: 0.5}}}"),
        f"{X0}.min_pass_at_k.5",
        "needs at least 5 trials",
    ),
    (
        "unknown check",
        link("checks_must_pass: [native-anchor]"),
        f"{X0}.checks_must_pass[0]",
        "did you mean 'native-anchors'",
    ),
    (
        "check unknown to one selected case",
        ref("{select: {tags: [link, breadcrumb]}, expect: {checks_must_pass: [native-anchors]}}"),
        f"{X0}.checks_must_pass[0]",
        "case 'breadcrumb' has no check 'native-anchors'",
    ),
    (
        "checks listed twice",
        link("checks_must_pass: [native-anchors, native-anchors]"),
        f"{X0}.checks_must_pass[1]",
        "listed twice",
    ),
    ("axe rule not an id", link("forbid_axe_rules: [Color Contrast]"), f"{X0}.forbid_axe_rules[0]", "lower-case"),
    ("negative axe failures", link("max_axe_failures: -1"), f"{X0}.max_axe_failures", "at least 0"),
    ("duration zero", link("max_duration_ms: 0"), f"{X0}.max_duration_ms", "above 0"),
    ("p95 text", link("max_p95_duration_ms: 1m"), f"{X0}.max_p95_duration_ms", "above 0"),
    (
        "tokens in reference mode",
        link("max_output_tokens: 3000"),
        f"{X0}.max_output_tokens",
        "cannot be measured in reference mode",
    ),
    (
        "cost from defaults in a reference case",
        model(
            "defaults: {pricing: {input_per_million_usd: 1, output_per_million_usd: 2}, "
            "expect: {max_estimated_cost_usd: 0.1}}\n",
            "{id: link, mode: reference}",
        ),
        "defaults.expect.max_estimated_cost_usd",
        "case 'link' (cases[0]) runs in reference mode",
    ),
    (
        "cost without pricing",
        model("", "{id: link, expect: {max_estimated_cost_usd: 0.1}}"),
        f"{X0}.max_estimated_cost_usd",
        "needs prices",
    ),
    (
        "pricing incomplete",
        model("defaults: {pricing: {input_per_million_usd: 1}}\n"),
        "defaults.pricing.output_per_million_usd",
        "is required",
    ),
    (
        "pricing negative",
        model("defaults: {pricing: {input_per_million_usd: -1, output_per_million_usd: 1}}\n"),
        "defaults.pricing.input_per_million_usd",
        "at least 0",
    ),
    (
        "pricing unknown key",
        model("defaults: {pricing: {input_per_million: 1, output_per_million_usd: 1}}\n"),
        "defaults.pricing.input_per_million",
        "did you mean 'input_per_million_usd'",
    ),
    (
        "repair outside repair mode",
        model("", "{id: link, expect: {repair: require}}"),
        f"{X0}.repair",
        "repair mode only",
    ),
    (
        "unknown repair policy",
        model("defaults: {mode: repair}\n", "{id: link, expect: {repair: maybe}}"),
        f"{X0}.repair",
        "allow, require, forbid",
    ),
    (
        "model mode without a model",
        "name: s\ncases: [{id: link}]\n",
        "model",
        "is required: case 'link' (cases[0]) runs in model mode",
    ),
    ("repair mode without a model", ref("{id: link, mode: repair}"), "model", "runs in repair mode"),
    ("model without a name", bare_model("{args: pretrained=x}"), "model.name", "is required"),
    ("unknown model key", bare_model("{name: hf, model_args: x}"), "model.model_args", "allowed here"),
    ("model args not text", bare_model("{name: hf, args: {pretrained: x}}"), "model.args", "must be a string"),
    (
        "chat template not bool",
        bare_model("{name: hf, apply_chat_template: yes please}"),
        "model.apply_chat_template",
        "true or false",
    ),
    ("gen_kwargs not a mapping", bare_model("{name: hf, gen_kwargs: [1]}"), "model.gen_kwargs", "must map names"),
    ("batch size zero", bare_model("{name: hf, batch_size: 0}"), "model.batch_size", "at least 1"),
]


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("text", "where", "words"), [row[1:] for row in BAD], ids=[row[0] for row in BAD])
def test_bad_suite_files(tmp_path: Path, text: str, where: str, words: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(SuiteError) as caught:
        load_suite(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    if where:
        assert message.startswith(f"{path}: {where}: "), message
    assert words in message, message
    assert "\n" not in message


def test_a_missing_file_a_folder_and_bad_bytes(tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match="no such file"):
        load_suite(tmp_path / "absent.yaml")
    with pytest.raises(SuiteError, match="is a directory"):
        load_suite(tmp_path)
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"name: \xff\xfe\n")
    with pytest.raises(SuiteError, match="not UTF-8"):
        load_suite(binary)


def test_settings_resolve_defaults_then_the_entry(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """
        name: gate
        model: {name: hf, args: pretrained=x, apply_chat_template: true, gen_kwargs: {max_gen_toks: 4096}}
        defaults:
          trials: 5
          instructions: minimal
          pricing: {input_per_million_usd: 0.15, output_per_million_usd: 0.6}
          expect: {max_axe_failures: 0, max_output_tokens: 3000}
        cases:
          - select: {tags: [checkbox, switch], category: form}
          - id: modal-dialog
            trials: 10
            theme: dark
            expect:
              min_trial_pass_rate: 0.8
              max_axe_failures: null
              min_pass_at_k: {"5": 0.9}
        """
    )
    suite = load_suite(_write(tmp_path, text))
    selected = sorted(c.id for c in load_cases() if {"checkbox", "switch"} & set(c.tags) and c.category == "form")
    assert "checkbox" in selected
    assert [c.id for c in suite.cases] == [*selected, "modal-dialog"]
    assert suite.model is not None and suite.model.gen_kwargs == (("max_gen_toks", 4096),)
    checkbox, dialog = suite.cases[0], suite.cases[-1]
    assert checkbox.settings.trials == 5 and checkbox.settings.instructions == "minimal"
    assert checkbox.settings.pricing == ModelPrice(0.15, 0.6)
    assert checkbox.settings.expect == Expectations(max_axe_failures=0, max_output_tokens=3000)
    assert (dialog.settings.trials, dialog.settings.theme, dialog.settings.instructions) == (10, "dark", "minimal")
    # expect merges key by key, and null drops a default for this case only.
    assert dialog.settings.expect == Expectations(
        min_trial_pass_rate=0.8, min_pass_at_k=((5, 0.9),), max_output_tokens=3000
    )
    assert suite.modes == ("model",) and suite.notes == ()


def test_an_id_entry_wins_over_a_select_in_any_order(tmp_path: Path) -> None:
    text = REF + "cases:\n  - id: checkbox\n    trials: 3\n  - select: {category: form}\n"
    suite = load_suite(_write(tmp_path, text))
    by_id = {c.id: c for c in suite.cases}
    assert by_id["checkbox"].settings.trials == 3 and by_id["checkbox"].entry == 0
    assert by_id["switch"].settings.trials == 1 and by_id["switch"].entry == 1
    assert {c.id for c in suite.cases} == {c.id for c in load_cases() if c.category == "form"}


def test_select_by_tags_is_any_and_category_narrows(tmp_path: Path) -> None:
    suite = load_suite(_write(tmp_path, REF + "cases: [{select: {tags: [table, img], category: [content]}}]\n"))
    expected = sorted(c.id for c in load_cases() if {"table", "img"} & set(c.tags) and c.category == "content")
    assert [c.id for c in suite.cases] == expected and expected


def test_a_reference_suite_may_carry_a_model_block_which_is_noted(tmp_path: Path) -> None:
    suite = load_suite(_write(tmp_path, MODEL + "defaults: {mode: reference}\ncases: [{id: link}]\n"))
    assert suite.modes == ("reference",)
    assert suite.notes == ("the model block is not used: every case runs in reference mode",)


def test_settings_reference_mode_does_not_use_are_noted(tmp_path: Path) -> None:
    suite = load_suite(_write(tmp_path, ref("{id: link, instructions: full}, {id: breadcrumb}")))
    assert suite.notes == ("pricing and instructions are not used in reference mode (case(s) link)",)


def test_lists_of_prompt_variants_run_a_case_once_per_combination(tmp_path: Path) -> None:
    """The same case asked with and without instructions, in both themes: four runs of it, side
    by side, in the order the lists give."""
    text = model(
        "defaults: {instructions: [none, full], theme: [default, dark]}\n", "{id: link}, {id: breadcrumb, theme: dark}"
    )
    suite = load_suite(_write(tmp_path, text))
    got = [(c.id, c.settings.instructions, c.settings.theme) for c in suite.cases]
    assert got == [
        ("link", "none", "default"),
        ("link", "none", "dark"),
        ("link", "full", "default"),
        ("link", "full", "dark"),
        ("breadcrumb", "none", "dark"),
        ("breadcrumb", "full", "dark"),
    ]


def test_a_reference_case_runs_once_whatever_instructions_it_lists(tmp_path: Path) -> None:
    suite = load_suite(_write(tmp_path, ref("{id: link, instructions: [none, full]}")))
    assert [c.id for c in suite.cases] == ["link"]
    assert suite.notes == ("pricing and instructions are not used in reference mode (case(s) link)",)


@pytest.mark.parametrize("name", ["self-test.yaml", "release-gate.yaml", "smoke-model.yaml"])
def test_the_shipped_suites_load(name: str) -> None:
    suite = load_suite(suites_dir() / name)
    assert suite.cases


def test_the_self_test_covers_every_case_in_reference_mode() -> None:
    suite = load_suite(suites_dir() / "self-test.yaml")
    assert {c.id for c in suite.cases} == {c.id for c in load_cases()}
    assert suite.modes == ("reference",)
    assert all(c.settings.expect == Expectations(max_axe_failures=0) for c in suite.cases)


def test_the_release_gate_shows_every_expectation() -> None:
    suite = load_suite(suites_dir() / "release-gate.yaml")
    stated = {name for c in suite.cases for name in c.settings.expect.stated()}
    from lm_eval_a11y.suite.expectations import EXPECTATION_NAMES

    assert set(EXPECTATION_NAMES) <= stated
    assert {"model", "repair"} <= set(suite.modes)
