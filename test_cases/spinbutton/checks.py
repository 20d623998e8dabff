"""Checks for the spinbutton case (APG spinbutton pattern)."""

from __future__ import annotations

import re

from lm_eval_a11y.checks import (
    Element,
    Outcome,
    Session,
    best_practice,
    failed,
    find_hook,
    not_applicable,
    passed,
    requirement,
)

WORD = re.compile(r"[^\W\d_]{3,}")


def _value(field: Element) -> float | None:
    """The value assistive technology reads: a number input's value, else aria-valuenow."""
    raw: object = None
    if field.tag == "input" and field.attr("type") == "number":
        raw = field.properties.get("value")
    if raw is None:
        raw = field.attr("aria-valuenow")
    if raw is None and field.tag == "input":
        raw = field.properties.get("value")
    try:
        return float(str(raw)) if raw is not None and str(raw).strip() else None
    except ValueError:
        return None


def _show(value: float | None) -> str:
    return "no number" if value is None else f"{value:g}"


async def _buttons(s: Session) -> tuple[Element | None, Element | None]:
    return await s.find(".decrease"), await s.find(".increase")


@requirement("field-role", "The quantity field is exposed as a named spinbutton whose value is 1")
async def field_role(s: Session) -> Outcome:
    field = await find_hook(s, ".quantity")
    if field.role != "spinbutton":
        return failed(f"The field is {field.describe()}, not a spinbutton")
    if not field.name:
        return failed("The quantity field has no accessible name")
    value = _value(field)
    if value != 1:
        return failed(f"The field's exposed value is {_show(value)}, not 1")
    return passed(f"The field is a spinbutton named {field.name!r} with the value 1")


@requirement("arrow-keys", "Up and Down Arrow change the quantity by one and stop at the minimum")
async def arrow_keys(s: Session) -> Outcome:
    field = await find_hook(s, ".quantity")
    if not await s.tab_to(field):
        return failed("Pressing Tab never reaches the quantity field")
    for key, expected in (("ArrowUp", 2), ("ArrowUp", 3), ("ArrowDown", 2), ("ArrowDown", 1), ("ArrowDown", 1)):
        await s.press(key)
        value = _value(await s.refresh(field))
        if value != expected:
            return failed(f"After {key} the exposed quantity is {_show(value)}, not {expected}")
    return passed("Up and Down Arrow step the quantity and Down stops at 1")


@requirement("buttons-named", "The minus and plus controls are named buttons")
async def buttons_named(s: Session) -> Outcome:
    names = []
    for label, button in zip(("decrease", "increase"), await _buttons(s), strict=True):
        if button is None:
            return failed(f"No element has the class {label!r} the prompt asked for")
        if button.role != "button" or not button.focusable:
            return failed(f"The {label} control is {button.describe()}, not a focusable button")
        if not button.name:
            return failed(f"The {label} button has no accessible name")
        names.append(button.name)
    return passed(f"Buttons named {names}")


@requirement("buttons-change-value", "The plus and minus buttons change the quantity the field exposes")
async def buttons_change_value(s: Session) -> Outcome:
    field = await s.find(".quantity")
    minus, plus = await _buttons(s)
    if field is None or minus is None or plus is None:
        return failed("The quantity field or one of its buttons is missing")
    for button, expected in ((plus, 2), (plus, 3), (minus, 2)):
        await s.click(button)
        value = _value(await s.refresh(field))
        if value != expected:
            return failed(
                f"After clicking {button.name or button.text!r} the exposed quantity is {_show(value)}, not {expected}"
            )
    return passed("The buttons step the quantity and the field exposes each new value")


@best_practice("stops-at-maximum", "The quantity does not go above 10 from the keyboard")
async def stops_at_maximum(s: Session) -> Outcome:
    field = await find_hook(s, ".quantity")
    if not await s.tab_to(field):
        return failed("Pressing Tab never reaches the quantity field")
    for _ in range(12):
        await s.press("ArrowUp", settle=False)
    await s.settle()
    value = _value(await s.refresh(field))
    if value != 10:
        return failed(f"Twelve presses of Up Arrow leave the quantity at {_show(value)}, not at the maximum 10")
    return passed("Up Arrow stops at 10")


@best_practice("range-exposed", "The field tells assistive technology its range, 1 to 10")
async def range_exposed(s: Session) -> Outcome:
    """The APG sets aria-valuemin and aria-valuemax on a spinbutton that has limits (a native
    number field exposes its min and max attributes): without them a screen reader user learns the
    limits only by running into them."""
    field = await find_hook(s, ".quantity")
    reported = await s.range_value(field)
    low, high = reported.get("min"), reported.get("max")
    if (low, high) != (1, 10):
        return failed(f"The field reports its range as {low} to {high}, not 1 to 10")
    return passed("The field reports its range, 1 to 10")


@best_practice("home-end", "Home and End set a custom spinbutton to 1 and 10", na_allowed=True)
async def home_end(s: Session) -> Outcome:
    """The APG's Home and End keys; a native number field is exempt, as browsers keep those keys
    for moving the caret and a page cannot be faulted for the browser's own field."""
    field = await find_hook(s, ".quantity")
    if field.tag == "input" and field.attr("type") == "number":
        return not_applicable("A native number field: the browser gives Home and End to the caret")
    if field.role != "spinbutton":
        return failed(f"The field is {field.describe()}, not a spinbutton")
    if not await s.tab_to(field):
        return failed("Pressing Tab never reaches the quantity field")
    await s.press("End")
    high = _value(await s.refresh(field))
    await s.press("Home")
    low = _value(await s.refresh(field))
    if (low, high) != (1, 10):
        return failed(f"End gives {_show(high)} and Home gives {_show(low)}, not 10 and 1")
    return passed("End sets 10 and Home sets 1")


@best_practice("descriptive-button-names", "The buttons' names say what they do in words, not only '+' and '−'")
async def descriptive_button_names(s: Session) -> Outcome:
    minus, plus = await _buttons(s)
    if minus is None or plus is None:
        return failed("A button the prompt asked for is missing")
    vague = [b.name for b in (minus, plus) if not WORD.search(b.name)]
    if vague:
        return failed(f"Button names without words: {vague}")
    return passed(f"The buttons are named {minus.name!r} and {plus.name!r}")
