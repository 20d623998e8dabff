"""Checks for the disclosure case (APG disclosure pattern)."""

from __future__ import annotations

from lm_eval_a11y.checks import Outcome, Session, best_practice, failed, find_hook, passed, requirement

NATIVE_TRIGGER = "summary"


@requirement("trigger-is-button", "The trigger is exposed as a button (or is a native <summary>)")
async def trigger_is_button(s: Session) -> Outcome:
    trigger = await find_hook(s, ".trigger")
    if trigger.tag == NATIVE_TRIGGER or trigger.role == "button":
        return passed(f"The trigger is {trigger.describe()}")
    return failed(f"The trigger is {trigger.describe()}; assistive technology does not announce a button")


@requirement("collapsed-hidden", "While collapsed, the answer is neither shown nor read by a screen reader")
async def collapsed_hidden(s: Session) -> Outcome:
    panel = await find_hook(s, ".panel")
    if panel.visible:
        return failed("The answer is visible before the visitor asks for it")
    if not panel.hidden_from_at:
        return failed("The collapsed answer is invisible but a screen reader still reads it")
    return passed("The collapsed answer is hidden from sight and from assistive technology")


@requirement("keyboard-toggles", "Tab reaches the trigger; Enter shows the answer and Space hides it again")
async def keyboard_toggles(s: Session) -> Outcome:
    trigger = await find_hook(s, ".trigger")
    if not await s.tab_to(trigger):
        return failed(f"Pressing Tab never reaches {trigger.describe()}")
    await s.press("Enter")
    panel = await s.find(".panel")
    if panel is None or not panel.visible or panel.hidden_from_at:
        return failed("Enter on the focused trigger does not reveal the answer to sight and to screen readers")
    await s.press(" ")
    # A panel that collapses on a timer has collapsed by the end of this (Session.eventually).
    if not await s.eventually(lambda: _collapsed(s)):
        panel = await s.find(".panel")
        if panel is not None and panel.visible:
            return failed("Space on the focused trigger does not hide the answer again")
        return failed("After Space the answer is out of sight, but a screen reader still reads it")
    return passed("Enter reveals the answer and Space hides it, from the keyboard")


async def _collapsed(s: Session) -> bool:
    panel = await s.find(".panel")
    return panel is None or (not panel.visible and panel.hidden_from_at)


@requirement("expanded-state", "The trigger tells assistive technology whether the answer is expanded")
async def expanded_state(s: Session) -> Outcome:
    trigger = await find_hook(s, ".trigger")
    if trigger.tag == NATIVE_TRIGGER:
        return passed("A native <summary> exposes its expanded state through <details open>")
    before = trigger.attr("aria-expanded")
    if before != "false":
        return failed(f"Collapsed, the trigger has aria-expanded={before!r}, not 'false'")
    await s.click(trigger)
    after = (await s.refresh(trigger)).attr("aria-expanded")
    if after != "true":
        return failed(f"Expanded, the trigger has aria-expanded={after!r}, not 'true'")
    return passed("aria-expanded goes from 'false' to 'true' when the answer opens")


@best_practice("trigger-focus-visible", "The trigger shows a visible focus indicator when reached by keyboard")
async def trigger_focus_visible(s: Session) -> Outcome:
    trigger = await find_hook(s, ".trigger")
    if not await s.tab_to(trigger):
        return failed(f"Pressing Tab never reaches {trigger.describe()}")
    ok, message = await s.has_visible_focus_indicator(await s.active() or trigger)
    return passed(message) if ok else failed(message)
