"""Checks for the alert case (APG alert pattern).

A screen reader announces text that changes inside a live region. role="alert" is announced even
when the element is inserted together with its text; any other live region (aria-live, role
status or log) must already be in the page before the text is written into it.
"""

from __future__ import annotations

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement

MESSAGE = "sold out"
LIVE_CSS = "[role='alert'], [role='status'], [role='log'], [aria-live]"


async def _buy_button(s: Session) -> Element | None:
    """The 'Buy ticket' button, or else the smallest element that reads 'buy' (a clickable div)."""
    buttons = [b for b in await s.by_role("button", "buy") if b.visible]
    if buttons:
        return buttons[0]
    lookalikes = [e for e in await s.find_all("a, div, span, p, li") if "buy" in e.text.lower() and e.visible]
    return min(lookalikes, key=lambda e: len(e.text)) if lookalikes else None


async def _message(s: Session) -> Element | None:
    """The ``.notice`` element that shows the warning, once it does."""
    for notice in await s.find_all(".notice"):
        if MESSAGE in notice.text.lower():
            return notice
    return None


async def _message_after_action(s: Session) -> Element | None:
    """The visible warning once it has appeared: a page may show it after a pretend request to a
    server, so it is asked for again for a while (Session.eventually)."""

    async def shown() -> Element | None:
        message = await _message(s)
        return message if message is not None and message.visible else None

    return await s.eventually(shown) or await _message(s)


async def _use_button(s: Session) -> tuple[Element | None, str]:
    """Activate 'Buy ticket' from the keyboard, falling back to a click; returns (message, problem)."""
    button = await _buy_button(s)
    if button is None:
        return None, "No 'Buy ticket' control was found"
    if button.focusable and await s.tab_to(button):
        await s.press("Enter")
    else:
        await s.click(button)
    message = await _message_after_action(s)
    if message is None:
        return None, "After using 'Buy ticket' no element with the class 'notice' says the show is sold out"
    return message, ""


@requirement("keyboard-shows-message", "Enter on the focused 'Buy ticket' button shows the sold-out warning")
async def keyboard_shows_message(s: Session) -> Outcome:
    button = await _buy_button(s)
    if button is None:
        return failed("No 'Buy ticket' control was found")
    if button.role != "button" or not button.focusable:
        return failed(f"'Buy ticket' is {button.describe()}, not a button a keyboard can reach")
    if not await s.tab_to(button):
        return failed(f"Pressing Tab never reaches {button.describe()}")
    await s.press("Enter")
    message = await _message_after_action(s)
    if message is None or not message.visible:
        return failed("Enter on 'Buy ticket' does not show the warning in the '.notice' element")
    return passed("Enter on 'Buy ticket' shows the warning")


@requirement("message-announced", "The warning is written into a live region, so screen readers announce it")
async def message_announced(s: Session) -> Outcome:
    before = {region.ref for region in await s.find_all(LIVE_CSS)}
    message, problem = await _use_button(s)
    if message is None:
        return failed(problem)
    regions = []
    for region in await s.find_all(LIVE_CSS):
        if await s.contains(region, message) or (await s.contains(message, region) and MESSAGE in region.text.lower()):
            regions.append(region)
    if not regions:
        return failed("The warning is not inside any live region (role alert or status, or aria-live)")
    for region in regions:
        if region.attr("aria-live") == "off":
            continue
        if region.role == "alert":
            return passed(f"The warning is in {region.describe()}, announced when it appears")
        if region.ref in before:
            return passed(f"The warning was written into the live region {region.describe()}, present from the start")
    return failed(
        "The warning's live region was created together with the text, or is switched off; "
        "screen readers announce changes only inside live regions that already exist"
    )


@requirement("message-exposed", "Once shown, the warning is exposed to assistive technology (not aria-hidden)")
async def message_exposed(s: Session) -> Outcome:
    message, problem = await _use_button(s)
    if message is None:
        return failed(problem)
    if await s.is_hidden_from_at(message):
        return failed("The warning is visible but hidden from assistive technology (aria-hidden or similar)")
    return passed("The warning is exposed to assistive technology")


@best_practice("focus-stays", "Showing the warning does not move keyboard focus")
async def focus_stays(s: Session) -> Outcome:
    button = await _buy_button(s)
    if button is None or not button.focusable or not await s.tab_to(button):
        return failed("'Buy ticket' cannot be focused with Tab")
    where = await s.press("Enter")
    if where is None or where.ref != button.ref:
        return failed(f"After the warning appeared focus was on {where.describe() if where else 'the page body'}")
    return passed("Focus stays on 'Buy ticket' while the warning is announced")


@best_practice("stays-visible", "The warning does not vanish on its own within two seconds")
async def stays_visible(s: Session) -> Outcome:
    message, problem = await _use_button(s)
    if message is None:
        return failed(problem)
    await s.settle(2000)
    message = await _message(s)
    if message is None or not message.visible:
        return failed("The warning disappeared by itself within two seconds")
    return passed("The warning is still shown two seconds later")
