"""Checks for the settings page case (APG switch pattern, or checkboxes / toggle buttons).

The prompt's class ``toggle`` may land on the control itself, on a wrapper (often the <label>)
around it, or on the decorative track inside the control or its label; the control is whichever of those carries
a checkable role.
"""

from __future__ import annotations

import re

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, element_by_id, failed, passed, requirement

TOGGLE = ".toggle"
CHECKABLE = ("switch", "checkbox", "menuitemcheckbox")
INSIDE = 'input[type="checkbox"], [role="switch"], [role="checkbox"], button, [aria-pressed]'
SETTINGS = (
    ("Email notifications", re.compile(r"e-?mail", re.I), True),
    ("Dark mode", re.compile(r"dark", re.I), False),
    ("Two-factor authentication", re.compile(r"two|2fa|2-step|factor", re.I), False),
    ("Show online status", re.compile(r"online", re.I), True),
)
DARK_MODE = 1
PAD = 6


def _is_control(el: Element) -> bool:
    return el.role in CHECKABLE or (el.role == "button" and el.attr("aria-pressed") is not None)


def _state(el: Element) -> bool | None:
    """On/off as assistive technology is told; None when it is not told."""
    value = el.state("pressed") if el.role == "button" else el.state("checked")
    if value in ("true", "mixed"):
        return True
    if value == "false":
        return False
    return None


async def _control(s: Session, toggle: Element) -> Element | None:
    if _is_control(toggle):
        return toggle
    for el in await s.find_all(INSIDE, within=toggle):
        if _is_control(el):
            return el
    for el in await s.find_all(INSIDE):
        if _is_control(el) and await s.contains(el, toggle):
            return el
    for label in await s.find_all("label"):
        if await s.contains(label, toggle):
            for el in await s.find_all(INSIDE, within=label):
                if _is_control(el):
                    return el
            target = await element_by_id(s, label.attr("for") or "") if label.attr("for") else None
            if target is not None and _is_control(target):
                return target
    return None


async def _controls(s: Session, *, by_name: bool = True) -> tuple[dict[str, Element], str]:
    """Each setting's control, matched by accessible name, or why that is impossible.

    With ``by_name=False`` four controls that cannot be matched by name are taken in the
    prompt's order, so that one missing name does not fail the keyboard and state checks too.
    """
    toggles = await s.find_all(TOGGLE)
    if not toggles:
        return {}, "No element has the class 'toggle' the prompt asked for"
    controls: list[Element] = []
    for toggle in toggles:
        control = await _control(s, toggle)
        if control is None:
            return {}, f"{toggle.describe()} is not, and holds no, checkbox, switch or toggle button"
        if control.ref not in {c.ref for c in controls}:
            controls.append(control)
    found: dict[str, Element] = {}
    for label, pattern, _ in SETTINGS:
        match = next((c for c in controls if pattern.search(c.name)), None)
        if match is None:
            if not by_name and len(controls) == len(SETTINGS):
                return {label: c for (label, _, _), c in zip(SETTINGS, controls, strict=True)}, ""
            hidden = " (hidden from assistive technology)" if all(c.hidden_from_at for c in controls) else ""
            names = [c.name for c in controls]
            return {}, f"No switch is named after {label!r}; the switches{hidden} are named {names}"
        found[label] = match
    return found, ""


@requirement("toggles-named", "Each setting's switch is a checkbox, switch or toggle button named after its setting")
async def toggles_named(s: Session) -> Outcome:
    found, reason = await _controls(s)
    if not found:
        return failed(reason)
    return passed("Switches: " + ", ".join(repr(c.name) for c in found.values()))


@requirement("state-exposed", "Each switch exposes its on/off state, and the states match the page")
async def state_exposed(s: Session) -> Outcome:
    found, reason = await _controls(s, by_name=False)
    if not found:
        return failed(reason)
    for label, _, expected in SETTINGS:
        control = found[label]
        if control.hidden_from_at:
            return failed(f"The {label!r} switch is hidden from assistive technology")
        state = _state(control)
        if state is None:
            return failed(f"The {label!r} switch ({control.describe()}) does not expose an on/off state")
        if state != expected:
            return failed(f"The {label!r} switch reports {'on' if state else 'off'}; the page starts it the other way")
    return passed("Each switch exposes its state: on, off, off, on")


@requirement("keyboard-reachable", "Tab reaches every switch")
async def keyboard_reachable(s: Session) -> Outcome:
    found, reason = await _controls(s, by_name=False)
    if not found:
        return failed(reason)
    stops = {el.ref for el in await s.tab_sequence(max_stops=60)}
    missed = [label for label, control in found.items() if control.ref not in stops]
    if missed:
        return failed(f"Tab never reaches the switch for {', '.join(missed)}")
    return passed("Tab reaches all four switches")


@requirement("space-toggles", "Space on the focused 'Dark mode' switch turns it on, and Space again turns it off")
async def space_toggles(s: Session) -> Outcome:
    found, reason = await _controls(s, by_name=False)
    if not found:
        return failed(reason)
    control = found[SETTINGS[DARK_MODE][0]]
    if not control.focusable or not await s.tab_to(control):
        return failed(f"Pressing Tab never reaches {control.describe()}")
    before = _state(control)
    await s.press(" ")
    middle = _state(await s.refresh(control))
    await s.press(" ")
    after = _state(await s.refresh(control))
    if middle is None or middle == before:
        return failed(f"Space does not change the state assistive technology is told ({before} -> {middle})")
    if after != before:
        return failed(f"A second Space does not switch it back ({middle} -> {after})")
    return passed("Space flips the switch on and off again, and its exposed state follows")


@best_practice("focus-visible", "The focused switch shows a visible focus indicator")
async def focus_visible(s: Session) -> Outcome:
    found, reason = await _controls(s, by_name=False)
    if not found:
        return failed(reason)
    control = found[SETTINGS[DARK_MODE][0]]
    toggles = []
    for toggle in await s.find_all(TOGGLE):
        owner = await _control(s, toggle)
        if owner is not None and owner.ref == control.ref:
            toggles.append(toggle)
    if not control.focusable or not await s.tab_to(control):
        return failed(f"Pressing Tab never reaches {control.describe()}")
    # The visible part of a switch is often not the focused input, so compare the whole area.
    boxes = [await s.probe("scrollIntoView", control.ref)]
    labels = [el for el in await s.find_all("label") if await s.contains(el, control)]
    boxes += [(await s.refresh(el)).rect for el in [*toggles, *labels]]
    left = max(min(b["x"] for b in boxes) - PAD, 0)
    top = max(min(b["y"] for b in boxes) - PAD, 0)
    right = max(b["x"] + b["width"] for b in boxes) + PAD
    bottom = max(b["y"] + b["height"] for b in boxes) + PAD
    clip = {"x": left, "y": top, "width": max(right - left, 1), "height": max(bottom - top, 1)}
    focused = await s.page.screenshot(clip=clip, animations="disabled", caret="hide")  # type: ignore[arg-type]
    await s.blur()
    await s.settle(0)
    unfocused = await s.page.screenshot(clip=clip, animations="disabled", caret="hide")  # type: ignore[arg-type]
    if focused == unfocused:
        return failed("The 'Dark mode' switch looks the same focused and unfocused")
    return passed("The 'Dark mode' switch changes visibly when focused")
