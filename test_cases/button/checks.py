"""Checks for the button case (APG button pattern: an action button and a toggle button).

A toggle may tell assistive technology its state with ``aria-pressed`` or by changing its name
("Mute" becomes "Unmute"); the APG allows either, so both count. A native checkbox or a switch
used as the mute control is accepted too.
"""

from __future__ import annotations

import re

from lm_eval_a11y.checks import (
    Element,
    Outcome,
    Session,
    best_practice,
    failed,
    not_applicable,
    passed,
    requirement,
)

TOGGLE_ROLES = ("button", "switch", "checkbox")
NO_MUTE = "No element has the class 'mute-button' the prompt asked for"
NO_LIKE = "No element has the class 'like-button' the prompt asked for"


async def _control(s: Session, selector: str) -> Element | None:
    hook = await s.find(selector)
    if hook is None or hook.role in TOGGLE_ROLES or hook.tag == "button":
        return hook
    return await s.find("button, [role='button'], [role='switch'], input[type='checkbox']", hook) or hook


def _toggle_state(element: Element) -> tuple[str, str]:
    """(pressed or checked state, name): what assistive technology can tell about the toggle."""
    state = element.state("pressed") or element.state("checked") or ""
    if element.role == "button" and element.attr("aria-pressed") is None:
        state = ""
    return state, element.name.strip().lower()


def _toggled(before: tuple[str, str], after: tuple[str, str]) -> bool:
    state_changed = before[0] in ("false", "true") and after[0] in ("false", "true") and before[0] != after[0]
    return state_changed or (before[1] != after[1] and bool(after[1]))


async def _count(s: Session) -> int | None:
    counter = await s.find(".like-count")
    if counter is None:
        return None
    digits = re.findall(r"\d+", counter.text)
    return int(digits[0]) if digits else None


@requirement("buttons-exposed", "Mute and Like are exposed as buttons with accessible names and take focus")
async def buttons_exposed(s: Session) -> Outcome:
    mute = await _control(s, ".mute-button")
    like = await _control(s, ".like-button")
    if mute is None:
        return failed(NO_MUTE)
    if like is None:
        return failed(NO_LIKE)
    for control, roles in ((mute, TOGGLE_ROLES), (like, ("button",))):
        if control.role not in roles:
            return failed(f"{control.describe()} is not announced as a button")
        if not control.name.strip():
            return failed(f"{control.describe()} has no accessible name; a screen reader says only 'button'")
        if not control.focusable:
            return failed(f"{control.describe()} cannot take keyboard focus")
    return passed(f"{mute.describe()} and {like.describe()} are named, focusable buttons")


@requirement("like-keyboard", "Enter and Space on the focused Like button each add one to the counter")
async def like_keyboard(s: Session) -> Outcome:
    like = await _control(s, ".like-button")
    if like is None:
        return failed(NO_LIKE)
    start = await _count(s)
    if start is None:
        return failed("No number was found in the element with the class 'like-count'")
    if not like.focusable or not await s.tab_to(like):
        return failed(f"Pressing Tab never reaches {like.describe()}")
    await s.press("Enter")
    after_enter = await _count(s)
    await s.press(" ")
    after_space = await _count(s)
    if after_enter != start + 1:
        return failed(f"Enter on the Like button changed the counter from {start} to {after_enter}")
    if after_space != start + 2:
        return failed(f"Space on the Like button changed the counter from {after_enter} to {after_space}")
    return passed(f"Enter and Space each add one like ({start} -> {after_space})")


@requirement("mute-state", "Using Mute changes what assistive technology is told (aria-pressed or its name)")
async def mute_state(s: Session) -> Outcome:
    mute = await _control(s, ".mute-button")
    if mute is None:
        return failed(NO_MUTE)
    before = _toggle_state(mute)
    await s.click(mute)
    after = _toggle_state(await _control(s, ".mute-button") or mute)
    if not _toggled(before, after):
        return failed(
            f"After a click the mute button still reads as {after[1]!r} with state {after[0] or 'none'}: "
            "a screen reader cannot tell whether sound is muted"
        )
    return passed(f"The mute button went from {before} to {after} (state, name)")


@requirement("mute-keyboard", "Space on the focused Mute button mutes, and Enter unmutes again")
async def mute_keyboard(s: Session) -> Outcome:
    mute = await _control(s, ".mute-button")
    if mute is None:
        return failed(NO_MUTE)
    if not mute.focusable or not await s.tab_to(mute):
        return failed(f"Pressing Tab never reaches {mute.describe()}")
    start = _toggle_state(await _control(s, ".mute-button") or mute)
    await s.press(" ")
    muted = _toggle_state(await _control(s, ".mute-button") or mute)
    if not _toggled(start, muted):
        return failed("Space on the focused mute button changes nothing assistive technology can perceive")
    if mute.role in ("checkbox", "switch"):
        await s.press(" ")
    else:
        await s.press("Enter")
    back = _toggle_state(await _control(s, ".mute-button") or mute)
    if back != start:
        return failed(f"A second key press left the mute button at {back} instead of {start}")
    return passed("Space and Enter toggle the mute button from the keyboard")


@best_practice(
    "toggle-name-steady", "A Mute button that exposes aria-pressed keeps its name when pressed", na_allowed=True
)
async def toggle_name_steady(s: Session) -> Outcome:
    """The APG: a toggle button's label must not change with its state; a design that renames the
    button (Mute / Unmute) is not a toggle button and drops aria-pressed. Both at once make a
    screen reader say "Unmute, toggle button, pressed", which reads either way."""
    mute = await _control(s, ".mute-button")
    if mute is None:
        return failed(NO_MUTE)
    await s.click(mute)
    after = await _control(s, ".mute-button") or mute
    pressed = [e.attr("aria-pressed") for e in (mute, after) if e.role == "button"]
    if not any(value is not None for value in pressed):
        return not_applicable("The mute control does not use aria-pressed; a change of name is how it tells its state")
    if mute.name.strip().lower() != after.name.strip().lower():
        return failed(
            f"The mute button uses aria-pressed and is also renamed from {mute.name!r} to {after.name!r} when pressed"
        )
    return passed(f"The mute button keeps its name {mute.name!r} while aria-pressed tells its state")


@best_practice("focus-visible", "The Like button shows a visible focus indicator when reached by keyboard")
async def focus_visible(s: Session) -> Outcome:
    like = await _control(s, ".like-button")
    if like is None:
        return failed(NO_LIKE)
    if not like.focusable or not await s.tab_to(like):
        return failed(f"Pressing Tab never reaches {like.describe()}")
    ok, message = await s.has_visible_focus_indicator(await s.active() or like)
    return passed(message) if ok else failed(message)
