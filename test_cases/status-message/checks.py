"""Checks for the "Added to cart" status message case.

Screen readers announce text that changes inside a live region they already know about; a region
created together with its text is usually missed, except ``role="alert"``, which browsers
announce on insertion. So the live regions are recorded before the button is pressed and the
message must land in one of them (or in an alert).
"""

from __future__ import annotations

import re

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, find_hook, passed, requirement

BUTTON = ".add-to-cart"
MESSAGE = ".cart-message"
ADDED = re.compile(r"added", re.IGNORECASE)
BUTTON_NAME = re.compile(r"add\s+to\s+cart", re.IGNORECASE)
LIVE_REGIONS = '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"], output'
POLITE = ("status", "log")
NO_BUTTON = "No element has the class 'add-to-cart' the prompt asked for"


async def _shown_message(s: Session) -> Element | None:
    for el in await s.find_all(MESSAGE):
        if el.visible and ADDED.search(el.text):
            return el
    return None


async def _message_after_action(s: Session) -> Element | None:
    """The confirmation once it has appeared: pages often show it after a pretend request to a
    server, so it is asked for again for a while (Session.eventually)."""
    return await s.eventually(lambda: _shown_message(s))


async def _carrying_region(s: Session, message: Element, before: set[int]) -> tuple[Element | None, str]:
    """The live region that carries the message, and why none does."""
    for region in await s.find_all(LIVE_REGIONS):
        if not (await s.contains(region, message) or await s.contains(message, region)):
            continue
        if not ADDED.search(region.text):
            continue
        if region.hidden_from_at:
            return None, f"the live region {region.describe()} is hidden from assistive technology"
        if region.role == "alert" or region.ref in before:
            return region, ""
        return None, f"the live region {region.describe()} was created together with the message"
    return None, "the message is not inside any live region"


@requirement("button-is-button", "The 'Add to cart' control is exposed as a button with that name")
async def button_is_button(s: Session) -> Outcome:
    button = await find_hook(s, BUTTON)
    if button.role != "button":
        return failed(f"The control is {button.describe()}; assistive technology does not announce a button")
    if not BUTTON_NAME.search(button.name):
        return failed(f"The button's accessible name is {button.name!r}, not 'Add to cart'")
    return passed(f"The control is {button.describe()}")


@requirement("keyboard-adds", "Tab reaches 'Add to cart' and Enter on it shows the confirmation")
async def keyboard_adds(s: Session) -> Outcome:
    button = await find_hook(s, BUTTON)
    if not await s.tab_to(button):
        return failed(f"Pressing Tab never reaches {button.describe()}")
    await s.press("Enter")
    if await _message_after_action(s) is None:
        return failed("Enter on the focused button shows no visible '.cart-message' saying the item was added")
    return passed("Enter on the focused button shows the confirmation")


@requirement(
    "message-announced",
    "The confirmation is written into a live region that was already on the page (or into role='alert')",
)
async def message_announced(s: Session) -> Outcome:
    button = await find_hook(s, BUTTON)
    before = {r.ref for r in await s.find_all(LIVE_REGIONS)}
    await s.click(button)
    message = await _message_after_action(s)
    if message is None:
        return failed("Pressing the button shows no visible '.cart-message' saying the item was added")
    region, reason = await _carrying_region(s, message, before)
    if region is not None:
        return passed(f"The confirmation is announced through {region.describe()}")
    active = await s.active()
    if active is not None and (await s.contains(active, message) or await s.contains(message, active)):
        return passed("Focus moves to the confirmation, so it is read (though focus is taken away)")
    return failed(f"The confirmation appears silently: {reason}")


@requirement("focus-stays", "Pressing 'Add to cart' leaves focus on the button; the message does not take it")
async def focus_stays(s: Session) -> Outcome:
    button = await find_hook(s, BUTTON)
    await s.click(button)
    if await _message_after_action(s) is None:
        return failed("Pressing the button shows no visible '.cart-message' saying the item was added")
    active = await s.active()
    if active is not None and await s.contains(button, active):
        return passed("Focus is still on 'Add to cart' after the confirmation appears")
    if not button.focusable:
        return failed(f"{button.describe()} cannot take focus, so keyboard users lose their place")
    where = active.describe() if active else "the page body (focus was lost)"
    return failed(f"After pressing 'Add to cart' focus is on {where}")


@best_practice("polite-status", "The confirmation uses a polite live region (role='status'), not an assertive alert")
async def polite_status(s: Session) -> Outcome:
    button = await find_hook(s, BUTTON)
    before = {r.ref for r in await s.find_all(LIVE_REGIONS)}
    await s.click(button)
    message = await _message_after_action(s)
    if message is None:
        return failed("Pressing the button shows no visible '.cart-message' saying the item was added")
    region, reason = await _carrying_region(s, message, before)
    if region is None:
        return failed(f"No live region announces the confirmation: {reason}")
    live = region.attr("aria-live")
    if live == "assertive" or (live is None and region.role not in POLITE and region.tag != "output"):
        return failed(f"{region.describe()} interrupts the user; a cart confirmation can wait its turn")
    return passed(f"{region.describe()} announces politely")
