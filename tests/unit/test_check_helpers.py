"""The helpers the check API gives case authors, over a stand-in for the page: the selectors they
ask for, what they answer, and the failure a missing hook ends a check with."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from lm_eval_a11y.checks import (
    Outcome,
    css_string,
    element_by_id,
    failed,
    find_hook,
    focused_item,
    id_selector,
    passed,
    requirement,
    table_in,
    table_rows,
)
from lm_eval_a11y.engine.elements import Element
from lm_eval_a11y.engine.session import Session


def _element(
    ref: int, role: str | None = None, *, hidden: bool = False, attributes: dict[str, str] | None = None
) -> Element:
    return Element(
        ref=ref,
        tag="div",
        role=role,
        name="",
        text="",
        attributes=dict(attributes or {}),
        properties={},
        visible=not hidden,
        hidden_from_at=hidden,
        focusable=False,
        rect={},
    )


class _Page:
    """Answers find_all by selector (and the element searched within), and active()."""

    def __init__(self, found: dict[tuple[str, int | None], list[Element]], active: Element | None = None) -> None:
        self.found = found
        self.focused = active
        self.asked: list[str] = []

    async def find_all(self, selector: str, within: Element | None = None) -> list[Element]:
        self.asked.append(selector)
        return self.found.get((selector, within.ref if within else None), [])

    async def find(self, selector: str, within: Element | None = None) -> Element | None:
        found = await self.find_all(selector, within)
        return found[0] if found else None

    async def active(self) -> Element | None:
        return self.focused


def _session(page: _Page) -> Session:
    return cast(Session, page)


def _run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def test_an_id_of_any_characters_becomes_one_exact_selector() -> None:
    assert css_string('say "hi"') == '"say \\"hi\\""'
    assert id_selector("a\\b") == '[id="a\\\\b"]'
    assert id_selector("plain") == '[id="plain"]'
    page = _Page({('[id="x y"]', None): [_element(1)]})
    assert _run(element_by_id(_session(page), "x y")).ref == 1
    assert _run(element_by_id(_session(page), "z")) is None


@requirement("trigger-role", "The trigger is a button")
async def _trigger_role(s: Session) -> Outcome:
    trigger = await find_hook(s, ".trigger")
    return passed("found") if trigger.ref == 1 else failed("wrong element")


@pytest.mark.parametrize(
    ("selector", "missing", "message"),
    [
        (".trigger", None, "No element has the class 'trigger' the prompt asked for"),
        ("nav .toggle", None, "No element matches 'nav .toggle', which the prompt asked for"),
        ("input[name=q]", "No input named 'q' as the prompt asked", "No input named 'q' as the prompt asked"),
    ],
)
def test_a_missing_hook_fails_the_check_with_its_message(selector: str, missing: str | None, message: str) -> None:
    @requirement("hook", "The hook is there")
    async def check(s: Session) -> Outcome:
        await find_hook(s, selector, missing)
        return passed("there")

    assert _run(check(_session(_Page({})))) == failed(message)


def test_a_found_hook_lets_the_check_go_on() -> None:
    page = _Page({(".trigger", None): [_element(1), _element(2)]})
    assert _run(_trigger_role(_session(page))) == passed("found")


def test_the_focused_item_follows_aria_activedescendant_to_an_element_that_exists() -> None:
    option = _element(7, "option")
    box = _element(3, "combobox", attributes={"aria-activedescendant": "opt-2"})
    assert _run(focused_item(_session(_Page({('[id="opt-2"]', None): [option]}, box)))) == option
    # A reference to no element leaves the screen reader on the focused element itself.
    assert _run(focused_item(_session(_Page({}, box)))) == box
    plain = _element(4, "button")
    page = _Page({}, plain)
    assert _run(focused_item(_session(page))) == plain
    assert page.asked == []
    assert _run(focused_item(_session(_Page({}, None)))) is None


def test_table_rows_are_the_rows_and_cells_a_screen_reader_reads() -> None:
    table = _element(1, "table")
    shown, hidden, empty, group = _element(2, "row"), _element(3, "row", hidden=True), _element(4, "row"), _element(5)
    cells = "th, td, [role=cell], [role=gridcell], [role=columnheader], [role=rowheader]"
    header, cell, gone, other = (
        _element(10, "columnheader"),
        _element(11, "cell"),
        _element(12, "cell", hidden=True),
        _element(13, "button"),
    )
    page = _Page(
        {
            ("tr, [role=row]", 1): [shown, hidden, empty, group],
            (cells, 2): [header, cell, gone, other],
            (cells, 3): [_element(14, "cell")],
        }
    )
    assert _run(table_rows(_session(page), table)) == [[header, cell]]


def test_the_table_of_a_hook_is_the_hook_or_the_first_table_inside_it() -> None:
    tables = "table, [role=table], [role=grid], [role=treegrid]"
    grid = _element(1, "grid")
    page = _Page({})
    assert _run(table_in(_session(page), grid)) == grid
    assert page.asked == []
    wrapper, presentational, inner = _element(2), _element(3, "presentation"), _element(4, "table")
    page = _Page({(tables, 2): [presentational, inner]})
    assert _run(table_in(_session(page), wrapper)) == inner
    assert _run(table_in(_session(_Page({(tables, 2): [presentational]})), wrapper)) is None
