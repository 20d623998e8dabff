"""Checks for the switch case (APG switch pattern, or a checkbox or toggle button doing its job)."""

from __future__ import annotations

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement

NO_TOGGLE = "No element has the class 'switch' the prompt asked for"


def _is_control(e: Element) -> bool:
    if e.hidden_from_at:
        return False
    return e.role in ("switch", "checkbox") or (e.role == "button" and e.attr("aria-pressed") is not None)


def _state(control: Element) -> str | None:
    return control.attr("aria-pressed") if control.role == "button" else control.state("checked")


async def _toggle(s: Session) -> tuple[Element | None, Element | None]:
    """The hooked element, and the control a screen reader meets (it or one inside it)."""
    hooked = await s.find(".switch")
    if hooked is None:
        return None, None
    if _is_control(hooked):
        return hooked, hooked
    for candidate in await s.by_role(["switch", "checkbox", "button"]):
        if _is_control(candidate) and await s.contains(hooked, candidate):
            return hooked, candidate
    return hooked, None


def _shows(e: Element) -> bool:
    return e.visible and e.rect.get("width", 0) > 4 and e.rect.get("height", 0) > 4


async def _target(s: Session, hooked: Element, control: Element) -> Element | None:
    """What a person sees and clicks: the control, the hooked wrapper, or the control's label."""
    if _shows(control):
        return control
    if hooked.ref != control.ref and _shows(hooked):
        return hooked
    labels = [lab for lab in await s.find_all("label") if _shows(lab) and await s.contains(lab, control)]
    if not labels and control.attr("id"):
        quoted = (control.attr("id") or "").replace("\\", "\\\\").replace('"', '\\"')
        labels = [lab for lab in await s.find_all(f'label[for="{quoted}"]') if _shows(lab)]
    return labels[0] if labels else None


async def _shot(s: Session, rect: dict[str, float]) -> bytes:
    """Pixels of an area with a small margin, where a focus ring or glow would be drawn."""
    x, y = max(rect["x"] - 6, 0), max(rect["y"] - 6, 0)
    width, height = rect["width"] + 12, rect["height"] + 12
    return await s.page.screenshot(
        clip={"x": x, "y": y, "width": width, "height": height}, animations="disabled", caret="hide"
    )


@requirement("switch-role", "The toggle is a named switch, checkbox or toggle button")
async def switch_role(s: Session) -> Outcome:
    hooked, control = await _toggle(s)
    if hooked is None:
        return failed(NO_TOGGLE)
    if control is None:
        return failed(f"{hooked.describe()} is not a switch, checkbox or toggle button a screen reader can find")
    if not control.name:
        return failed(f"{control.describe()} has no accessible name")
    return passed(f"The toggle is {control.describe()}")


@requirement("state-exposed", "The on/off state is exposed: off on load, on after a click, off after another")
async def state_exposed(s: Session) -> Outcome:
    hooked, control = await _toggle(s)
    if hooked is None:
        return failed(NO_TOGGLE)
    if control is None:
        return failed(f"{hooked.describe()} is not a switch, checkbox or toggle button a screen reader can find")
    target = await _target(s, hooked, control)
    if target is None:
        return failed("Nothing visible can be clicked to change the toggle")
    state = _state(control)
    if state != "false":
        return failed(f"On load the toggle's exposed state is {state!r}, not 'false' (off)")
    for expected in ("true", "false"):
        await s.click(target)
        state = _state(await s.refresh(control))
        if state != expected:
            return failed(f"After a click the toggle's exposed state is {state!r}, not {expected!r}")
    return passed("The exposed state follows each click")


@requirement("keyboard-toggle", "Tab reaches the toggle and Space turns it on and off")
async def keyboard_toggle(s: Session) -> Outcome:
    hooked, control = await _toggle(s)
    if hooked is None:
        return failed(NO_TOGGLE)
    if control is None:
        return failed(f"{hooked.describe()} is not a switch, checkbox or toggle button a screen reader can find")
    if not await s.tab_to(control):
        return failed("Pressing Tab never reaches the toggle")
    for expected in ("true", "false"):
        await s.press(" ")
        state = _state(await s.refresh(control))
        if state != expected:
            return failed(f"After Space the toggle's exposed state is {state!r}, not {expected!r}")
    return passed("Space turns the toggle on and off again")


@best_practice("focus-visible", "The toggle looks different when it has keyboard focus")
async def focus_visible(s: Session) -> Outcome:
    hooked, control = await _toggle(s)
    if hooked is None or control is None:
        return failed("There is no toggle to focus")
    target = await _target(s, hooked, control)
    if target is None:
        return failed("The toggle has nothing visible on screen")
    if not await s.tab_to(control):
        return failed("Pressing Tab never reaches the toggle")
    rect = await s.probe("scrollIntoView", target.ref)
    focused = await _shot(s, rect)
    await s.blur()
    await s.settle(0)
    unfocused = await _shot(s, rect)
    if focused == unfocused:
        return failed(f"{target.describe()} looks the same with and without keyboard focus")
    return passed(f"{target.describe()} changes visibly when the toggle has keyboard focus")
