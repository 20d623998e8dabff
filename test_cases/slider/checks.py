"""Checks for the slider case (APG slider pattern)."""

from __future__ import annotations

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement

NO_CONTROL = "No element has the class 'volume' the prompt asked for"


async def _slider(s: Session) -> tuple[Element | None, Element | None]:
    """The hooked element, and the slider itself (the hooked element or a slider inside it)."""
    hooked = await s.find(".volume")
    if hooked is None:
        return None, None
    if hooked.role == "slider":
        return hooked, hooked
    for slider in await s.by_role("slider"):
        if await s.contains(hooked, slider):
            return hooked, slider
    return hooked, None


def _number(raw: str | None, default: float) -> float | None:
    """An ARIA number attribute; absent means the ARIA default, unparsable means unknown."""
    if raw is None:
        return default
    try:
        return float(raw)
    except ValueError:
        return None


def _value(slider: Element) -> float | None:
    """The value assistive technology reads: aria-valuenow, else a native input's value."""
    raw = slider.attr("aria-valuenow")
    if raw is None and slider.tag == "input":
        raw = str(slider.properties.get("value", ""))
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


@requirement("slider-role", "The volume control is exposed as a named slider")
async def slider_role(s: Session) -> Outcome:
    hooked, slider = await _slider(s)
    if hooked is None:
        return failed(NO_CONTROL)
    if slider is None:
        return failed(f"{hooked.describe()} is not a slider and holds none")
    if not slider.name:
        return failed(f"{slider.describe()} has no accessible name")
    return passed(f"The control is a slider named {slider.name!r}")


@requirement("initial-value", "The slider tells assistive technology its range 0–100 and its value 50")
async def initial_value(s: Session) -> Outcome:
    hooked, slider = await _slider(s)
    if hooked is None:
        return failed(NO_CONTROL)
    if slider is None:
        return failed(f"{hooked.describe()} is not a slider and holds none")
    value = _value(slider)
    if value != 50:
        return failed(f"The slider's value is {value!r}, not 50")
    if slider.tag == "input":
        # A native range's min and max are its properties (0 and 100 when the attributes are absent).
        reported = await s.range_value(slider)
        low, high = reported.get("min"), reported.get("max")
    else:
        low, high = _number(slider.attr("aria-valuemin"), 0), _number(slider.attr("aria-valuemax"), 100)
    if (low, high) != (0, 100):
        return failed(f"The slider says its range is {low!r} to {high!r}, not 0 to 100")
    return passed("The slider reports the value 50 in the range 0–100")


@requirement("arrow-keys", "Arrow keys raise and lower the value, and the new value is exposed")
async def arrow_keys(s: Session) -> Outcome:
    hooked, slider = await _slider(s)
    if hooked is None:
        return failed(NO_CONTROL)
    if slider is None:
        return failed(f"{hooked.describe()} is not a slider and holds none")
    if not await s.tab_to(slider):
        return failed("Pressing Tab never reaches the slider")
    last = _value(slider)
    for key, direction in (("ArrowRight", 1), ("ArrowUp", 1), ("ArrowLeft", -1), ("ArrowDown", -1)):
        await s.press(key)
        value = _value(await s.refresh(slider))
        if value is None or last is None or (value - last) * direction <= 0:
            return failed(f"After {key} the exposed value went from {last!r} to {value!r}")
        last = value
    return passed("Right/Up raise and Left/Down lower the exposed value")


@requirement("home-end", "Home and End set the minimum and maximum")
async def home_end(s: Session) -> Outcome:
    _, slider = await _slider(s)
    if slider is None:
        return failed("There is no slider")
    if not await s.tab_to(slider):
        return failed("Pressing Tab never reaches the slider")
    await s.press("End")
    high = _value(await s.refresh(slider))
    await s.press("Home")
    low = _value(await s.refresh(slider))
    if (low, high) != (0, 100):
        return failed(f"Home gives {low!r} and End gives {high!r}, not 0 and 100")
    return passed("Home sets 0 and End sets 100")


@best_practice("focus-visible", "The slider shows a visible focus indicator")
async def focus_visible(s: Session) -> Outcome:
    _, slider = await _slider(s)
    if slider is None:
        return failed("There is no slider")
    if not await s.tab_to(slider):
        return failed("Pressing Tab never reaches the slider")
    ok, message = await s.has_visible_focus_indicator(slider)
    return passed(message) if ok else failed(message)
