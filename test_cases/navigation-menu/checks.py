"""Checks for the site navigation case (APG disclosure navigation; an ARIA menubar also passes).

The toggle may be a button with ``aria-expanded``, a native ``<summary>``, or a ``menuitem`` with
``aria-expanded``; a link with a working ``aria-expanded`` is accepted too, since screen readers
announce its state (the APG's button is better, but that is not a failure). Opening from the
keyboard counts when, after Enter, focus is in the submenu (menubar style) or the next Tab stop
is (disclosure style).
"""

from __future__ import annotations

import re

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement

NAV = ".site-nav"
TOGGLE = ".submenu-toggle"
SUBMENU = ".submenu"
TOGGLE_ROLES = ("button", "menuitem", "link")  # a link announces aria-expanded too
HOME = re.compile(r"^\s*home\b", re.IGNORECASE)
CURRENT_OFF = (None, "", "false")
ARROW_STEPS = 6


async def _submenu_open(s: Session) -> bool:
    submenu = await s.find(SUBMENU)
    return submenu is not None and submenu.visible and not submenu.hidden_from_at


def _missing(selector: str) -> Outcome:
    return failed(f"No element matches {selector!r}, which the prompt asked for")


async def _reach(s: Session, toggle: Element) -> bool:
    """Tab to the toggle; in a menubar with one Tab stop, Tab into it and arrow right to the toggle."""
    if await s.tab_to(toggle):
        return True
    nav = await s.find(NAV)
    if nav is None or not await s.tab_to(nav):
        return False
    for _ in range(ARROW_STEPS):
        if await s.is_active(toggle):
            return True
        await s.press("ArrowRight")
    return await s.is_active(toggle)


async def _open_from_keyboard(s: Session, toggle: Element) -> str | None:
    """Reach the toggle and press Enter; return why the submenu did not open, if it did not."""
    if not await _reach(s, toggle):
        return f"Neither Tab nor the arrow keys reach {toggle.describe()}"
    await s.press("Enter")
    if not await _submenu_open(s):
        return "Enter on the focused toggle does not show the submenu to sight and to screen readers"
    return None


@requirement("nav-landmark", "The site navigation is inside a navigation landmark")
async def nav_landmark(s: Session) -> Outcome:
    toggle = await s.find(TOGGLE) or await s.find(NAV)
    if toggle is None:
        return _missing(NAV)
    navs = [m for m in await s.landmarks() if m.role == "navigation"]
    for candidate in await s.find_all("nav, [role=navigation]"):
        if candidate.ref in {m.ref for m in navs} and await s.contains(candidate, toggle):
            return passed(f"The menu is inside {candidate.describe()}")
    return failed("The menu is not inside a <nav> or role='navigation' landmark")


@requirement("current-page", "The Home link tells assistive technology it is the current page (aria-current)")
async def current_page(s: Session) -> Outcome:
    nav = await s.find(NAV)
    if nav is None:
        return _missing(NAV)
    links = [el for el in await s.find_all("a, [role=link]", within=nav) if HOME.search(el.name)]
    if not links:
        return failed("The navigation has no link named 'Home'")
    home = links[0]
    if home.attr("aria-current") not in CURRENT_OFF:
        return passed(f"The Home link has aria-current={home.attr('aria-current')!r}")
    for item in await s.find_all("li[aria-current]", within=nav):
        if item.attr("aria-current") not in CURRENT_OFF and await s.contains(item, home):
            return passed("The list item holding the Home link has aria-current")
    return failed("The current page is not marked with aria-current, so it is shown only visually")


@requirement("submenu-hidden-when-closed", "While closed, the submenu is neither shown nor read by a screen reader")
async def submenu_hidden_when_closed(s: Session) -> Outcome:
    submenu = await s.find(SUBMENU)
    if submenu is None:
        return _missing(SUBMENU)
    if submenu.visible:
        return failed("The submenu is visible before it is opened")
    if not submenu.hidden_from_at:
        return failed("The closed submenu is invisible but screen readers still read it")
    for link in await s.find_all("a, button, [tabindex]", within=submenu):
        if link.focusable and not link.hidden_from_at:
            return failed(f"{link.describe()} in the closed submenu can still take focus")
    return passed("The closed submenu is hidden from sight and from assistive technology")


@requirement("toggle-state", "The submenu toggle exposes an expanded state that follows the submenu")
async def toggle_state(s: Session) -> Outcome:
    toggle = await s.find(TOGGLE)
    if toggle is None:
        return _missing(TOGGLE)
    if toggle.tag == "summary":
        return passed("A native <summary> exposes its expanded state through <details open>")
    if toggle.role not in TOGGLE_ROLES:
        return failed(f"The toggle is {toggle.describe()}; it is not announced as something that opens a submenu")
    before = toggle.attr("aria-expanded")
    if before is None:
        return failed(f"{toggle.describe()} has no aria-expanded: nobody is told whether the submenu is open")
    if before != "false":
        return failed(f"Closed, the toggle has aria-expanded={before!r}, not 'false'")
    # Enter first: a click also hovers, and menus that open on hover and toggle on click close again.
    await s.focus(toggle)
    await s.press("Enter")
    clicked = False
    if not await _submenu_open(s):
        await s.click(toggle)
        clicked = True
    if not await _submenu_open(s):
        return failed("Neither Enter on the toggle nor a click on it opens the submenu")
    after = (await s.refresh(toggle)).attr("aria-expanded")
    if after != "true":
        return failed(f"Open, the toggle has aria-expanded={after!r}, not 'true'")
    # The same action again toggles a disclosure shut; whether or not it does, the state must
    # follow (a toggle that closes the submenu but still says 'true' misleads).
    if clicked:
        await s.click(toggle)
    elif await s.is_active(toggle):
        await s.press("Enter")
    else:
        return passed("aria-expanded goes from 'false' to 'true' when the submenu opens")
    if not await _submenu_open(s):
        again = (await s.refresh(toggle)).attr("aria-expanded")
        if again != "false":
            return failed(f"Closed again, the toggle still has aria-expanded={again!r}, not 'false'")
        return passed("aria-expanded follows the submenu as it opens and closes")
    return passed("aria-expanded goes from 'false' to 'true' when the submenu opens")


@requirement("submenu-keyboard", "Enter on the toggle opens the submenu, and its links are reached from the keyboard")
async def submenu_keyboard(s: Session) -> Outcome:
    toggle = await s.find(TOGGLE)
    if toggle is None:
        return _missing(TOGGLE)
    reason = await _open_from_keyboard(s, toggle)
    if reason:
        return failed(reason)
    submenu = await s.find(SUBMENU)
    if submenu is None:
        return _missing(SUBMENU)
    if await s.focus_within(submenu):
        return passed("Enter opens the submenu and moves focus into it")
    after = await s.press("Tab")
    if await s.focus_within(submenu):
        return passed("Enter opens the submenu and Tab moves into its links")
    where = after.describe() if after else "the page body"
    return failed(f"The submenu opens, but the next Tab goes to {where}, not into the submenu")


@best_practice("escape-closes", "Escape inside the open submenu closes it and returns focus to the toggle")
async def escape_closes(s: Session) -> Outcome:
    toggle = await s.find(TOGGLE)
    if toggle is None:
        return _missing(TOGGLE)
    reason = await _open_from_keyboard(s, toggle)
    if reason:
        return failed(reason)
    submenu = await s.find(SUBMENU)
    if submenu is None:
        return _missing(SUBMENU)
    if not await s.focus_within(submenu):
        await s.press("Tab")
    await s.press("Escape")
    shut = submenu

    async def closed() -> bool:
        return not (await s.refresh(shut)).visible

    # A submenu that fades out, or closes on a timer, has closed by the end of this.
    if not await s.eventually(closed):
        return failed("Escape does not close the open submenu")
    if not await s.eventually(lambda: s.is_active(toggle)):
        active = await s.active()
        return failed(f"Escape closes the submenu but focus goes to {active.describe() if active else 'the body'}")
    return passed("Escape closes the submenu and focus returns to the toggle")
