"""Checks for the "Copy link" hint (APG tooltip pattern, WCAG 1.4.13 content on hover or focus)."""

from __future__ import annotations

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement


async def _parts(s: Session) -> tuple[Element | None, Element | None, str]:
    trigger = await s.find(".trigger")
    tip = await s.find(".tip")
    if trigger is None:
        return None, None, "No element has the class 'trigger' the prompt asked for"
    if tip is None:
        return None, None, "No element has the class 'tip' the prompt asked for"
    return trigger, tip, ""


async def _focus_by_tab(s: Session, trigger: Element) -> str:
    """Tab to the trigger; an empty answer means it has focus."""
    if not trigger.focusable or not await s.tab_to(trigger):
        return f"Pressing Tab never reaches {trigger.describe()}"
    return ""


async def _tip_visible(s: Session, tip: Element) -> bool:
    return await s.is_visible(tip)


@requirement("shows-on-focus", "The hint is hidden at first and appears when the button receives keyboard focus")
async def shows_on_focus(s: Session) -> Outcome:
    trigger, tip, why = await _parts(s)
    if trigger is None or tip is None:
        return failed(why)
    if tip.visible:
        return failed("The hint is already shown before anyone points at or focuses the button")
    problem = await _focus_by_tab(s, trigger)
    if problem:
        return failed(problem)
    if not await _tip_visible(s, tip):
        return failed("The button has keyboard focus but the hint stays hidden: keyboard users never see it")
    return passed("The hint appears when the button receives keyboard focus")


@requirement("describes-trigger", "While shown, the hint's text reaches assistive technology as part of the button")
async def describes_trigger(s: Session) -> Outcome:
    trigger, tip, why = await _parts(s)
    if trigger is None or tip is None:
        return failed(why)
    problem = await _focus_by_tab(s, trigger)
    if problem:
        return failed(problem)
    trigger = await s.refresh(trigger)
    tip = await s.refresh(tip)
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


@requirement("escape-dismisses", "Escape hides the hint without moving focus away from the button")
async def escape_dismisses(s: Session) -> Outcome:
    trigger, tip, why = await _parts(s)
    if trigger is None or tip is None:
        return failed(why)
    problem = await _focus_by_tab(s, trigger)
    if problem:
        return failed(problem)
    if not await _tip_visible(s, tip):
        return failed("Keyboard focus does not show the hint, so it cannot be dismissed either")
    await s.press("Escape")
    if await _tip_visible(s, tip):
        return failed("The hint stays on screen after Escape: it cannot be dismissed without moving focus")
    if not await s.is_active(trigger):
        return failed("Escape hid the hint but focus left the button")
    return passed("Escape hides the hint and focus stays on the button")


@requirement("hover-persists", "Hovering shows the hint, and it stays while the pointer moves onto it")
async def hover_persists(s: Session) -> Outcome:
    trigger, tip, why = await _parts(s)
    if trigger is None or tip is None:
        return failed(why)
    await s.hover(trigger)
    if not await _tip_visible(s, tip):
        return failed("Resting the pointer on the button does not show the hint")
    await s.hover(await s.refresh(tip))
    if not await _tip_visible(s, tip):
        return failed("The hint vanishes when the pointer moves onto it, so it cannot be read when magnified")
    return passed("The hint appears on hover and stays while the pointer is over it")


@best_practice("tip-role-tooltip", "The hint has the tooltip role")
async def tip_role_tooltip(s: Session) -> Outcome:
    trigger, tip, why = await _parts(s)
    if trigger is None or tip is None:
        return failed(why)
    if tip.role == "tooltip":
        return passed("The hint has role tooltip")
    return failed(f"The hint is {tip.describe()}, not a tooltip")
