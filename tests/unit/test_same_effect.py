"""The comparison behind "the same effect by keyboard" (lm_eval_a11y/generic/same_effect.py): a
keyboard path's change covers a click's only when it changes the same facts to the same values
(numbers aside), adds what the click added, and, for a click that only moves focus, moves focus
there. The pages that exercise it in a real browser are the generic examples (docs/generic.md)."""

from __future__ import annotations

from typing import Any

from lm_eval_a11y.generic.same_effect import MAX_PREPARATIONS, covers, effect_between, preparations


def _state(focus: int | None, *items: tuple[int, str, dict[str, str]]) -> dict[str, Any]:
    return {"focus": focus, "items": [list(item) for item in items]}


BEFORE = _state(
    None,
    (1, "div", {"@role": "slider", "@aria-valuenow": "20", "@style": "left: 20%", "$shown": "true"}),
    (2, "ul", {"@hidden": "", "$shown": "false"}),
    (3, "div", {"@role": "radio", "@aria-checked": "false", "@class": "item", "$shown": "true"}),
)


def _after(**changes: dict[str, str | None]) -> dict[str, Any]:
    items = []
    for ref, tag, facts in BEFORE["items"]:
        facts = dict(facts)
        for key, value in changes.get(f"e{ref}", {}).items():
            if value is None:
                facts.pop(key, None)
            else:
                facts[key] = value
        items.append([ref, tag, facts])
    return {"focus": None, "items": items}


def test_a_slider_moved_to_another_number_covers_a_rail_click() -> None:
    click = effect_between(BEFORE, _after(e1={"@aria-valuenow": "50", "@style": "left: 50%"}))
    arrow = effect_between(BEFORE, _after(e1={"@aria-valuenow": "21", "@style": "left: 21%"}))
    assert covers(arrow, click)


def test_a_state_changed_to_another_word_does_not_cover() -> None:
    click = effect_between(BEFORE, _after(e3={"@aria-checked": "true"}))
    assert not covers(effect_between(BEFORE, _after(e3={"@aria-checked": "mixed"})), click)
    assert covers(effect_between(BEFORE, _after(e3={"@aria-checked": "true"})), click)


def test_a_change_elsewhere_does_not_cover() -> None:
    click = effect_between(BEFORE, _after(e2={"@hidden": None, "$shown": "true"}))
    assert not covers(effect_between(BEFORE, _after(e1={"@aria-valuenow": "21"})), click)
    # Only part of the click's change: the list's attribute goes, and it is still not shown.
    assert not covers(effect_between(BEFORE, _after(e2={"@hidden": None})), click)
    # More than the click's change still covers it (Enter on a toolbar's first button first).
    both = _after(e2={"@hidden": None, "$shown": "true"}, e3={"@aria-checked": "true"})
    assert covers(effect_between(BEFORE, both), click)


def test_classes_compare_as_sets() -> None:
    click = effect_between(BEFORE, _after(e3={"@class": "item on"}))
    assert covers(effect_between(BEFORE, _after(e3={"@class": "on item focused"})), click)
    assert not covers(effect_between(BEFORE, _after(e3={"@class": "item focused"})), click)


def test_added_elements_must_be_added_by_the_keys_too() -> None:
    added = _after()
    added["items"].append([9, "li", {"@role": "option", "$text": "Apple 3"}])
    click = effect_between(BEFORE, added)
    assert not covers(effect_between(BEFORE, _after()), click)
    other = _after()
    other["items"].append([12, "li", {"@role": "option", "$text": "Pear"}])
    assert not covers(effect_between(BEFORE, other), click)
    same = _after()
    same["items"].append([12, "li", {"@role": "option", "$text": "Apple 4"}])
    assert covers(effect_between(BEFORE, same), click)


def test_a_removed_element_must_be_removed_by_the_keys_too() -> None:
    gone = {"focus": None, "items": BEFORE["items"][:2]}
    click = effect_between(BEFORE, gone)
    assert not covers(effect_between(BEFORE, _after()), click)
    assert covers(effect_between(BEFORE, gone), click)


def test_a_click_that_only_moves_focus_needs_focus_in_the_same_place() -> None:
    click = effect_between(BEFORE, {**_after(), "focus": 3})
    assert click and not click.changed
    assert covers(effect_between(BEFORE, {**_after(), "focus": 3}), click)
    assert not covers(effect_between(BEFORE, {**_after(), "focus": 1}), click)
    assert not covers(effect_between(BEFORE, _after()), click)


def test_nothing_changed_is_no_effect() -> None:
    assert not effect_between(BEFORE, _after())


def test_a_number_moved_the_other_way_does_not_cover() -> None:
    # A decrease button's click lowers the value; an arrow key that raises it does not do the same.
    click = effect_between(BEFORE, _after(e1={"@aria-valuenow": "19", "@style": "left: 19%"}))
    assert not covers(effect_between(BEFORE, _after(e1={"@aria-valuenow": "21", "@style": "left: 21%"})), click)
    assert covers(effect_between(BEFORE, _after(e1={"@aria-valuenow": "0", "@style": "left: 0%"})), click)


def test_the_steps_before_a_click_that_changed_nothing() -> None:
    # Its own click first (a click that works from the second), then the other targets of its
    # widget, then keys on its first keyboard path; bounded.
    steps = preparations(5, [9, 11], [4, 6, 7])
    assert steps[0] == ("click", 5, "")
    assert steps[1:3] == [("click", 4, ""), ("click", 6, "")]
    assert all(step[:2] == ("key", 9) for step in steps[3:])
    assert {"ArrowUp", "ArrowDown"} <= {step[2] for step in steps[3:]}
    assert len(steps) == MAX_PREPARATIONS
    assert preparations(5, [], []) == [("click", 5, "")]
