"""Checks for the checkbox case (APG checkbox pattern, dual-state and tri-state).

A checkbox is whatever assistive technology calls one: a native ``<input type="checkbox">`` or an
element with role ``checkbox``. Its state is ``aria-checked`` when present, else the native
``checked``/``indeterminate`` properties.
"""

from __future__ import annotations

from typing import Any

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement

NO_GROUP = "No element has the class 'toppings' the prompt asked for"
NO_ALL = "No element has the class 'select-all' the prompt asked for"


def checked(box: Element | None) -> str:
    """'true', 'false' or 'mixed', as assistive technology reads it."""
    if box is None:
        return "missing"
    aria = box.attr("aria-checked")
    if aria is not None and box.tag != "input":
        return aria
    if box.properties.get("indeterminate") is True:
        return "mixed"
    if isinstance(box.properties.get("checked"), bool):
        return "true" if box.properties["checked"] else "false"
    return aria or "none"


async def _select_all(s: Session) -> Element | None:
    hook = await s.find(".select-all")
    if hook is None or hook.role == "checkbox":
        return hook
    return await s.find("input[type='checkbox'], [role='checkbox']", hook) or hook


async def _toppings(s: Session) -> tuple[Element | None, list[Element]]:
    """The group and its topping options: everything in it that is, or looks like, an option."""
    group = await s.find(".toppings")
    if group is None:
        return None, []
    everything = await s.find_all("input[type='checkbox'], [role='checkbox']", group)
    select_all = await _select_all(s)
    boxes = [b for b in everything if select_all is None or b.ref != select_all.ref]
    if len(boxes) < 4:
        # Not real checkboxes: fall back to the elements whose whole text names a topping.
        inside = await s.find_all("*", group)
        boxes = []
        for word in ("Mushrooms", "Olives", "Peppers", "Onions"):
            match = next((c for c in inside if c.text.strip() == word), None)
            if match is not None:
                boxes.append(match)
    return group, boxes


async def _first_topping(s: Session) -> Element | None:
    """Looked up afresh after each interaction: a page may re-render its checkboxes."""
    _group, boxes = await _toppings(s)
    return boxes[0] if boxes else None


@requirement("checkboxes-exposed", "'All toppings' and every topping are checkboxes with a name and a state")
async def checkboxes_exposed(s: Session) -> Outcome:
    group, boxes = await _toppings(s)
    if group is None:
        return failed(NO_GROUP)
    select_all = await _select_all(s)
    if select_all is None:
        return failed(NO_ALL)
    if len(boxes) < 4:
        return failed(f"Only {len(boxes)} topping choices were found inside '.toppings'")
    for box in [select_all, *boxes]:
        if box.role != "checkbox":
            return failed(f"{box.describe()} is not announced as a checkbox")
        if not box.name.strip():
            return failed(f"{box.describe()} has no accessible name (no label)")
        if checked(box) not in ("true", "false", "mixed"):
            return failed(f"{box.describe()} does not expose whether it is checked")
        if not box.focusable:
            return failed(f"{box.describe()} cannot take keyboard focus")
    return passed(f"'All toppings' and {len(boxes)} toppings are named checkboxes with a state")


@requirement("space-toggles", "Space on a focused topping checks it, and Space again clears it")
async def space_toggles(s: Session) -> Outcome:
    _group, boxes = await _toppings(s)
    if not boxes:
        return failed("No topping checkbox was found inside '.toppings'")
    first = boxes[0]
    if not first.focusable:
        return failed(f"The first topping, {first.describe()}, cannot take keyboard focus")
    if not await s.tab_to(first):
        return failed(f"Pressing Tab never reaches the first topping, {first.describe()}")
    before = checked(await _first_topping(s))
    await s.press(" ")
    middle = checked(await _first_topping(s))
    await s.press(" ")
    after = checked(await _first_topping(s))
    if (before, middle, after) != ("false", "true", "false"):
        return failed(f"Space, Space on the first topping: its state went {before} -> {middle} -> {after}")
    return passed("Space checks and clears a topping, and its state tells assistive technology")


@requirement("select-all-toggles-all", "Space on 'All toppings' checks every topping; Space again clears them")
async def select_all_toggles_all(s: Session) -> Outcome:
    select_all = await _select_all(s)
    if select_all is None:
        return failed(NO_ALL)
    if not select_all.focusable:
        return failed(f"{select_all.describe()} cannot take keyboard focus")
    if not await s.tab_to(select_all):
        return failed(f"Pressing Tab never reaches {select_all.describe()}")
    await s.press(" ")
    _group, boxes = await _toppings(s)
    states = [checked(b) for b in boxes]
    if not boxes or states != ["true"] * len(boxes):
        return failed(f"After Space on 'All toppings' the toppings are {states}")
    all_state = checked(await _select_all(s))
    if all_state != "true":
        return failed(f"With every topping checked, 'All toppings' reads {all_state!r}, not checked")
    await s.press(" ")
    _group, boxes = await _toppings(s)
    states = [checked(b) for b in boxes]
    if states != ["false"] * len(boxes):
        return failed(f"After a second Space on 'All toppings' the toppings are {states}, not all cleared")
    return passed("'All toppings' checks and clears every topping from the keyboard")


@requirement(
    "mixed-state", "'All toppings' is partly checked (mixed) with some toppings chosen, and checked with all of them"
)
async def mixed_state(s: Session) -> Outcome:
    select_all = await _select_all(s)
    if select_all is None:
        return failed(NO_ALL)
    _group, boxes = await _toppings(s)
    if not boxes:
        return failed("No topping checkbox was found inside '.toppings'")
    await s.click(boxes[0])
    if checked(await _first_topping(s)) != "true":
        return failed("Clicking the first topping does not check it")
    state = checked(await _select_all(s))
    if state != "mixed":
        return failed(f"With one topping chosen, 'All toppings' reads {state!r} instead of mixed")
    # Choosing the rest one by one must make it fully checked: mixed means some, not "any".
    for index in range(1, len(boxes)):
        _group, current = await _toppings(s)
        if index < len(current) and checked(current[index]) == "false":
            await s.click(current[index])
    _group, current = await _toppings(s)
    states = [checked(b) for b in current]
    if states != ["true"] * len(current):
        return failed(f"Clicking each topping in turn leaves them {states}")
    state = checked(await _select_all(s))
    if state != "true":
        return failed(f"With every topping chosen one by one, 'All toppings' reads {state!r} instead of checked")
    return passed("With one topping chosen 'All toppings' is mixed, and with all four chosen it is checked")


@best_practice("group-labelled", "The toppings form a group with a name (fieldset and legend, or role group)")
async def group_labelled(s: Session) -> Outcome:
    group, boxes = await _toppings(s)
    if group is None:
        return failed(NO_GROUP)
    for container in await s.find_all("fieldset, [role='group']"):
        if boxes and await s.contains(container, boxes[0]) and container.name.strip():
            return passed(f"The toppings are grouped as {container.describe()}")
    return failed("The toppings are not in a named group, so the question they answer is not announced")


@best_practice("focus-visible", "A topping checkbox shows a visible focus indicator when reached by keyboard")
async def focus_visible(s: Session) -> Outcome:
    _group, boxes = await _toppings(s)
    if not boxes:
        return failed("No topping checkbox was found inside '.toppings'")
    if not boxes[0].focusable:
        return failed(f"The first topping, {boxes[0].describe()}, cannot take keyboard focus")
    if not await s.tab_to(boxes[0]):
        return failed("Pressing Tab never reaches the first topping")
    focused = await s.active() or boxes[0]
    if focused.visible and focused.rect.get("width", 0) >= 4:
        ok, message = await s.has_visible_focus_indicator(focused)
        return passed(message) if ok else failed(message)
    # A native box hidden behind a styled label: the indicator shows on the label around it.
    label = await s.find(f"label[for='{focused.attr('id')}']") if focused.attr("id") else None
    if label is None:
        label = await s.find("label:has(:focus)")
    if label is None or not label.visible:
        return failed(f"The focused checkbox {focused.describe()} is not visible and has no visible label")
    if await _looks_focused(s, label):
        return passed(f"The label {label.describe()} changes visibly while its checkbox has focus")
    return failed(f"Nothing changes on {label.describe()} while its hidden checkbox has focus")


async def _looks_focused(s: Session, area: Element) -> bool:
    """Pixels of the area with the (hidden) checkbox focused, compared with none focused."""
    rect = await s.probe("scrollIntoView", area.ref)
    x, y = max(rect["x"] - 6, 0), max(rect["y"] - 6, 0)
    clip: Any = {"x": x, "y": y, "width": rect["width"] + 12, "height": rect["height"] + 12}
    with_focus = await s.page.screenshot(clip=clip, animations="disabled", caret="hide")
    await s.blur()
    await s.settle(0)
    without = await s.page.screenshot(clip=clip, animations="disabled", caret="hide")
    return with_focus != without
