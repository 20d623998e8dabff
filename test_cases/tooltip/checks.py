"""Checks for the "Copy link" hint (APG tooltip pattern, WCAG 1.4.13 content on hover or focus).

The hint may exist from the start or be created when needed, and may fade in or out or wait a
moment before showing (hover intent), so checks look for it again after each step: the session
settles fades, and Session.eventually asks again for what happens on a timer.
"""

from __future__ import annotations

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement

STAY_MS = 400  # a hint that hides this long after the pointer reached it did not stay


async def _trigger(s: Session) -> Element | None:
    return await s.find(".trigger")


async def _shown_tip(s: Session) -> Element | None:
    """The hint as it is now, if one is on screen."""
    for tip in await s.find_all(".tip"):
        if tip.visible:
            return tip
    return None


async def _wait_shown(s: Session) -> Element | None:
    return await s.eventually(lambda: _shown_tip(s))


async def _hidden(s: Session) -> bool:
    return await _shown_tip(s) is None


async def _wait_hidden(s: Session) -> bool:
    return await s.eventually(lambda: _hidden(s))


async def _focus_by_tab(s: Session, trigger: Element) -> str:
    """Tab to the trigger; an empty answer means it has focus."""
    if not trigger.focusable or not await s.tab_to(trigger):
        return f"Pressing Tab never reaches {trigger.describe()}"
    return ""


async def _focused_tip(s: Session) -> tuple[Element | None, Element | None, str]:
    """Tab to the trigger and return it with the hint that appears."""
    trigger = await _trigger(s)
    if trigger is None:
        return None, None, "No element has the class 'trigger' the prompt asked for"
    problem = await _focus_by_tab(s, trigger)
    if problem:
        return None, None, problem
    tip = await _wait_shown(s)
    if tip is None:
        return trigger, None, "The button has keyboard focus but no hint appears: keyboard users never see it"
    return trigger, tip, ""


async def _any_tip(s: Session) -> tuple[Element | None, Element | None, str]:
    """Show the hint by focus or, failing that, by hover: for checks about what it says, not
    about how it is reached."""
    trigger, tip, why = await _focused_tip(s)
    if trigger is not None and tip is None:
        await s.hover(trigger)
        tip = await _wait_shown(s)
        why = "Neither keyboard focus nor the pointer shows the hint"
    return trigger, tip, why


@requirement("shows-on-focus", "The hint is hidden at first and appears when the button receives keyboard focus")
async def shows_on_focus(s: Session) -> Outcome:
    if await _shown_tip(s) is not None:
        return failed("The hint is already shown before anyone points at or focuses the button")
    _trigger_el, tip, why = await _focused_tip(s)
    if tip is None:
        return failed(why)
    return passed("The hint appears when the button receives keyboard focus")


@requirement("describes-trigger", "While shown, the hint's text reaches assistive technology as part of the button")
async def describes_trigger(s: Session) -> Outcome:
    trigger, tip, why = await _any_tip(s)
    if trigger is None or tip is None:
        return failed(why)
    trigger = await s.refresh(trigger)
    words = tip.text.strip().lower()
    if not words:
        return failed("The hint has no text")
    described = []
    for ref in (trigger.attr("aria-describedby") or "").split():
        target = await s.find(f'[id="{ref}"]')
        if target is not None:
            described.append(target.text.strip().lower())
    if any(words in text or (text and text in words) for text in described):
        return passed("The button is described by the hint (aria-describedby)")
    if words in trigger.name.lower():
        return passed("The hint's text is part of the button's accessible name")
    return failed(
        f"Screen readers meet {trigger.describe()} without the hint: it is neither its description nor in its name"
    )


@requirement(
    "escape-dismisses", "Escape hides the hint, shown by focus or by hover, without moving focus or the pointer"
)
async def escape_dismisses(s: Session) -> Outcome:
    trigger, tip, why = await _focused_tip(s)
    if trigger is None or tip is None:
        return failed(why or "Keyboard focus does not show the hint, so it cannot be dismissed either")
    await s.press("Escape")
    if not await _wait_hidden(s):
        return failed("The hint stays on screen after Escape: it cannot be dismissed without moving focus")
    if not await s.is_active(trigger):
        return failed("Escape hid the hint but focus left the button")
    # A hint shown by the pointer must be dismissible without moving the pointer too (WCAG
    # 1.4.13): a key handler on the button alone never hears Escape while focus is elsewhere.
    await s.blur()
    await s.hover(trigger)
    if await _wait_shown(s) is None:
        return passed("Escape hides the hint and focus stays on the button (the pointer shows no hint)")
    await s.press("Escape")
    if not await _wait_hidden(s):
        return failed("Escape hides the hint shown by focus, but not the one shown by pointing at the button")
    return passed("Escape hides the hint, shown by focus or by the pointer, and focus stays on the button")


@requirement("hover-persists", "Hovering shows the hint, and it stays while the pointer moves onto it")
async def hover_persists(s: Session) -> Outcome:
    trigger = await _trigger(s)
    if trigger is None:
        return failed("No element has the class 'trigger' the prompt asked for")
    await s.hover(trigger)
    tip = await _wait_shown(s)
    if tip is None:
        return failed("Resting the pointer on the button does not show the hint")
    await s.hover(tip)
    await s.settle(STAY_MS)
    if await _shown_tip(s) is None:
        return failed("The hint vanishes when the pointer moves onto it, so it cannot be read when magnified")
    return passed("The hint appears on hover and stays while the pointer is over it")


@best_practice("tip-role-tooltip", "The hint has the tooltip role")
async def tip_role_tooltip(s: Session) -> Outcome:
    _trigger_el, tip, why = await _any_tip(s)
    if tip is None:
        return failed(why)
    if tip.role == "tooltip":
        return passed("The hint has role tooltip")
    return failed(f"The hint is {tip.describe()}, not a tooltip")
