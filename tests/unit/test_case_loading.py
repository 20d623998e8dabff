"""The case loader rejects malformed cases with the file, the field and what is allowed.

Each test builds a small valid case in a temporary folder, breaks one thing, and asserts the error
names it: a silently accepted bad case would corrupt every number the benchmark publishes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lm_eval_a11y.cases import CaseError, load_case, load_examples

CHECKS = """\
from __future__ import annotations

from lm_eval_a11y.checks import Outcome, Session, best_practice, failed, passed, requirement


@requirement("has-title", "The page has a title")
async def has_title(s: Session) -> Outcome:
    info = await s.document_info()
    return passed("titled") if info["title"] else failed("no title")


@best_practice("has-main", "The page has a main landmark")
async def has_main(s: Session) -> Outcome:
    return passed("main") if await s.find("main") else failed("no main")
"""

CASE_YAML = """\
id: {id}
title: A tiny case
version: 1
tags: [content]
wcag: ["2.4.2"]
"""


def _page(assertions: dict[str, str] | None, verdict: str = "pass", axe_rules: list[str] | None = None) -> str:
    block = json.dumps({"assertions": assertions, "axe_rules": axe_rules or [], "verdict": verdict})
    return (
        '<!doctype html><html lang="en"><head><title>t</title>'
        f'<script id="a11y-assertions" type="application/json">{block}</script></head>'
        "<body><main><h1>t</h1></main></body></html>"
    )


def make_case(root: Path, folder: str = "tiny-case", *, yaml_text: str | None = None) -> Path:
    path = root / folder
    (path / "examples").mkdir(parents=True)
    (path / "case.yaml").write_text(yaml_text if yaml_text is not None else CASE_YAML.format(id=folder))
    (path / "prompt.md").write_text("Write a page.\n")
    (path / "checks.py").write_text(CHECKS)
    (path / "examples" / "pass-plain.html").write_text(_page({"has-title": "pass", "has-main": "pass"}))
    return path


def test_a_valid_case_loads(tmp_path: Path) -> None:
    case = load_case(make_case(tmp_path))
    assert case.id == "tiny-case"
    assert case.category == "content"
    assert case.wcag == ("2.4.2",)
    assert [c.id for c in case.checks] == ["has-title", "has-main"]
    (example,) = load_examples(case)
    assert dict(example.assertions) == {"has-title": "pass", "has-main": "pass"}


def test_bad_id_is_rejected(tmp_path: Path) -> None:
    folder = make_case(tmp_path, "Bad_Id", yaml_text=CASE_YAML.format(id="Bad_Id"))
    with pytest.raises(CaseError, match=r"case\.yaml: field 'id' must be kebab-case, got 'Bad_Id'"):
        load_case(folder)


def test_id_must_match_the_folder(tmp_path: Path) -> None:
    folder = make_case(tmp_path, "tiny-case", yaml_text=CASE_YAML.format(id="other-case"))
    with pytest.raises(CaseError, match=r"field 'id' is 'other-case' but the folder is named 'tiny-case'"):
        load_case(folder)


def test_unknown_field_is_rejected_with_the_allowed_ones(tmp_path: Path) -> None:
    folder = make_case(tmp_path, yaml_text=CASE_YAML.format(id="tiny-case") + "colour: blue\n")
    with pytest.raises(CaseError, match=r"unknown field\(s\) colour \(allowed: id, title, version, tags, wcag"):
        load_case(folder)


@pytest.mark.parametrize("criterion", ["2.1", "WCAG 2.1.1", "5.1.1", "keyboard"])
def test_bad_wcag_criterion_is_rejected(tmp_path: Path, criterion: str) -> None:
    text = CASE_YAML.format(id="tiny-case").replace('["2.4.2"]', json.dumps([criterion]))
    folder = make_case(tmp_path, yaml_text=text)
    with pytest.raises(CaseError, match=r"field 'wcag' holds .*; use success-criterion numbers such as '2\.1\.1'"):
        load_case(folder)


def test_example_without_assertions_is_an_error(tmp_path: Path) -> None:
    folder = make_case(tmp_path)
    page = '<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1>t</h1></main></body></html>'
    (folder / "examples" / "fail-no-block.html").write_text(page)
    case = load_case(folder)
    with pytest.raises(CaseError, match=r"fail-no-block\.html: needs exactly one <script id=\"a11y-assertions\""):
        load_examples(case)


def test_example_with_empty_assertions_is_an_error(tmp_path: Path) -> None:
    folder = make_case(tmp_path)
    (folder / "examples" / "fail-empty.html").write_text(_page({}, verdict="fail"))
    with pytest.raises(CaseError, match=r"fail-empty\.html: a11y-assertions needs a non-empty 'assertions'"):
        load_examples(load_case(folder))


def test_assertion_naming_an_unknown_check_is_an_error(tmp_path: Path) -> None:
    folder = make_case(tmp_path)
    page = _page({"has-title": "pass", "has-main": "pass", "has-footer": "fail"}, verdict="fail")
    (folder / "examples" / "fail-typo.html").write_text(page)
    expected = r"asserts unknown check 'has-footer'; the case's checks are has-main, has-title"
    with pytest.raises(CaseError, match=expected):
        load_examples(load_case(folder))


def test_na_on_a_check_that_does_not_allow_it_is_an_error(tmp_path: Path) -> None:
    folder = make_case(tmp_path)
    (folder / "examples" / "pass-na.html").write_text(_page({"has-title": "pass", "has-main": "na"}))
    with pytest.raises(CaseError, match=r"check 'has-main' expects 'na' but the check does not allow na"):
        load_examples(load_case(folder))


def test_every_check_needs_an_expectation(tmp_path: Path) -> None:
    folder = make_case(tmp_path)
    (folder / "examples" / "pass-partial.html").write_text(_page({"has-title": "pass"}))
    with pytest.raises(CaseError, match=r"pass-partial\.html: has no expectation for check\(s\) has-main"):
        load_examples(load_case(folder))


def test_verdict_must_agree_with_the_file_name(tmp_path: Path) -> None:
    folder = make_case(tmp_path)
    (folder / "examples" / "pass-wrong.html").write_text(_page({"has-title": "pass", "has-main": "pass"}, "fail"))
    with pytest.raises(CaseError, match=r"pass-wrong\.html: is named pass-… but its verdict is 'fail'"):
        load_examples(load_case(folder))
