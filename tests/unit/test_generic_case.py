"""The generic page checks: a case of its own that ships inside the package, is selected by its id
wherever a case is, and is never one of the cases a model is asked to write a page for."""

from __future__ import annotations

from pathlib import Path

import pytest

from lm_eval_a11y.cases import Case, CaseError, get_case, load_case, load_cases
from lm_eval_a11y.checks import Check, Outcome, Session, passed
from lm_eval_a11y.engine.check_order import guess_acts
from lm_eval_a11y.engine.evaluator import AsyncEvaluator
from lm_eval_a11y.generic import GENERIC_ID, generic_case, generic_dir

PACKAGE = Path(__file__).resolve().parents[2] / "lm_eval_a11y"


def test_generic_case_loads_from_the_package_once() -> None:
    case = generic_case()
    assert case.id == GENERIC_ID
    assert case.path == PACKAGE / "generic"
    assert case.prompt == ""
    assert generic_case() is case
    assert get_case(GENERIC_ID) is case
    assert {"mouse-targets-keyboard-operable", "no-keyboard-trap", "tab-stops-show-focus", "reflow-320"} <= set(
        case.requirement_ids
    )


def test_generic_is_no_generation_case() -> None:
    assert GENERIC_ID not in {c.id for c in load_cases()}


def test_a_case_folder_may_not_take_the_generic_id(tmp_path: Path) -> None:
    folder = tmp_path / GENERIC_ID
    folder.mkdir()
    (folder / "case.yaml").write_text("id: generic\ntitle: t\nversion: 1\ntags: [page]\nwcag: ['2.1.1']\n")
    with pytest.raises(CaseError, match="reserved"):
        load_case(folder)


def test_a_check_set_without_a_prompt_must_not_have_one(tmp_path: Path) -> None:
    folder = tmp_path / "checks-only"
    folder.mkdir()
    (folder / "case.yaml").write_text("id: checks-only\ntitle: t\nversion: 1\ntags: [page]\nwcag: ['2.1.1']\n")
    (folder / "prompt.md").write_text("Write a page.\n")
    with pytest.raises(CaseError, match=r"must not have a prompt\.md"):
        load_case(folder, prompted=False)


def test_generic_checks_that_only_read_are_told_from_those_that_act() -> None:
    acts = {c.id: guess_acts(c.func) for c in generic_case().checks}
    assert acts == {
        "one-main-landmark": False,
        "one-h1": False,
        "mouse-targets-keyboard-operable": True,
        "no-keyboard-trap": True,
        "tab-stops-show-focus": True,
        "reflow-320": True,
        "skip-link-moves-focus": True,
    }
    assert generic_dir().is_dir()


async def _read(s: Session) -> Outcome:
    return passed("")


async def _act(s: Session) -> Outcome:
    await s.press("Tab")
    return passed("")


def test_late_readers_run_after_the_readers_and_before_the_checks_that_act() -> None:
    checks = (
        Check("acts", "Acts.", "R", _act),
        Check("reads-late", "Reads late.", "R", _read, late=True),
        Check("reads", "Reads.", "R", _read),
    )
    case = Case("order", "t", "1", ("page",), "page", ("2.1.1",), None, (), "", checks, PACKAGE)
    order = AsyncEvaluator()._check_order(case)
    assert [checks[i].id for i in order] == ["reads", "reads-late", "acts"]


def test_checks_that_share_a_page_run_together_where_the_first_is_declared() -> None:
    checks = (
        Check("walks", "Walks.", "R", _read, shares_page="walks"),
        Check("acts", "Acts.", "R", _act),
        Check("reads", "Reads.", "R", _read),
        Check("walks-again", "Walks again.", "R", _read, shares_page="walks"),
    )
    case = Case("order", "t", "1", ("page",), "page", ("2.1.1",), None, (), "", checks, PACKAGE)
    order = AsyncEvaluator()._check_order(case)
    assert [checks[i].id for i in order] == ["reads", "walks", "walks-again", "acts"]


def test_the_task_refuses_generic_as_a_case_to_generate_and_says_why() -> None:
    from lm_eval_a11y.dataset import load_task_dataset

    with pytest.raises(ValueError, match="'generic' is no generation case"):
        load_task_dataset(a11y_cases="disclosure,generic")


def test_generic_check_ids_differ_from_every_case_check_id() -> None:
    # So that a page's case checks and the generic ones can be run and reported together.
    generic = {c.id for c in generic_case().checks}
    for case in load_cases():
        assert not generic & {c.id for c in case.checks}, case.id
