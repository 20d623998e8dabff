"""Checks for the menu-button case (APG menu button pattern, or a disclosure of buttons)."""

from __future__ import annotations

from lm_eval_a11y.checks import (
    Element,
    Outcome,
    Session,
    best_practice,
    failed,
    find_hook,
    focused_item,
    not_applicable,
    passed,
    requirement,
)

NO_TRIGGER = "No element has the class 'menu-trigger' the prompt asked for"
NO_MENU = "No element has the class 'menu' the prompt asked for"
ITEM_ROLES = ("menuitem", "menuitemradio", "menuitemcheckbox", "button", "link")


async def _items(s: Session, menu: Element) -> list[Element]:
    return [e for e in await s.by_role(list(ITEM_ROLES)) if await s.contains(menu, e)]


async def _is_menu(s: Session, menu: Element) -> bool:
    """True for the ARIA menu flavour, which promises arrow keys and focus management."""
    return menu.role == "menu" or any(i.role and i.role.startswith("menuitem") for i in await _items(s, menu))


def _expanded(trigger: Element) -> str | None:
    if trigger.tag == "summary":
        return None  # <details> exposes its own open state
    return trigger.attr("aria-expanded")


def _on_screen(e: Element) -> bool:
    """False for the ``left: -9999px`` way of hiding, which the visibility test alone misses."""
    return e.rect.get("x", 0) + e.rect.get("width", 0) > 0 and e.rect.get("y", 0) + e.rect.get("height", 0) > 0


async def _shown(s: Session) -> bool:
    menu = await s.find(".menu")
    return menu is not None and menu.visible and _on_screen(menu) and not menu.hidden_from_at


async def _closed(s: Session) -> bool:
    """Out of sight and out of the accessibility tree (a menu faded away but still read is open)."""
    menu = await s.find(".menu")
    return menu is None or ((not menu.visible or not _on_screen(menu)) and menu.hidden_from_at)


async def _open_by_keyboard(s: Session, trigger: Element) -> str | None:
    """Tab to the trigger and press Enter; why the menu did not open, or None."""
    if not await s.tab_to(trigger):
        return f"Pressing Tab never reaches {trigger.describe()}"
    await s.press("Enter")
    if not await _shown(s):
        return "Enter on the focused trigger does not show the actions to sight and to screen readers"
    return None


@requirement("trigger-button", "The trigger is a named button that tells assistive technology it opens something")
async def trigger_button(s: Session) -> Outcome:
    trigger = await s.find(".menu-trigger")
    menu = await s.find(".menu")
    if trigger is None or menu is None:
        return failed(NO_TRIGGER if trigger is None else NO_MENU)
    if trigger.tag == "summary":
        return passed("A native <summary> announces itself and its expanded state")
    if trigger.role != "button" or not trigger.name:
        return failed(f"The trigger is {trigger.describe()}, not a named button")
    expanded = trigger.attr("aria-expanded")
    if await _is_menu(s, menu):
        if trigger.attr("aria-haspopup") not in ("true", "menu") and expanded != "false":
            return failed("The menu button has neither aria-haspopup='menu' nor aria-expanded='false'")
    elif expanded != "false":
        return failed(f"Closed, the trigger has aria-expanded={expanded!r}, not 'false'")
    return passed(f"The trigger is a button named {trigger.name!r} that announces its popup")


@requirement("menu-hidden-when-closed", "Before it is opened, the dropdown is neither shown nor read")
async def menu_hidden_when_closed(s: Session) -> Outcome:
    menu = await find_hook(s, ".menu")
    if menu.visible and _on_screen(menu):
        return failed("The actions are visible before the button is used")
    if not menu.hidden_from_at:
        return failed("The closed dropdown is out of sight but a screen reader still reads its actions")
    return passed("The closed dropdown is hidden from sight and from assistive technology")


@requirement(
    "opens-by-keyboard",
    "Enter on the trigger opens the dropdown, marks it expanded and, for a menu, focuses the first item",
)
async def opens_by_keyboard(s: Session) -> Outcome:
    trigger = await s.find(".menu-trigger")
    menu = await s.find(".menu")
    if trigger is None or menu is None:
        return failed(NO_TRIGGER if trigger is None else NO_MENU)
    problem = await _open_by_keyboard(s, trigger)
    if problem:
        return failed(problem)
    if trigger.tag != "summary" and (await s.refresh(trigger)).attr("aria-expanded") != "true":
        return failed("The dropdown opened but the trigger does not say aria-expanded='true'")
    if await _is_menu(s, menu):
        items = await _items(s, menu)
        current = await focused_item(s)
        if not items or current is None or current.ref != items[0].ref:
            where = current.describe() if current else "the page body"
            return failed(f"The menu opened but the keyboard is on {where}, not on its first item")
        return passed(f"Enter opens the menu on its first item {items[0].name!r}")
    return passed("Enter opens the dropdown and the trigger says it is expanded")


@requirement("items-by-keyboard", "The actions can be reached from the keyboard (arrow keys in a menu, Tab otherwise)")
async def items_by_keyboard(s: Session) -> Outcome:
    trigger = await s.find(".menu-trigger")
    menu = await s.find(".menu")
    if trigger is None or menu is None:
        return failed(NO_TRIGGER if trigger is None else NO_MENU)
    problem = await _open_by_keyboard(s, trigger)
    if problem:
        return failed(problem)
    items = [i for i in await _items(s, await s.refresh(menu)) if i.name]
    if len(items) < 3:
        return failed(f"The open dropdown offers {len(items)} named actions to assistive technology, not three")
    if await _is_menu(s, menu):
        for index in (1, 2):
            await s.press("ArrowDown")
            current = await focused_item(s)
            if current is None or current.ref != items[index].ref:
                return failed(f"Down Arrow does not move to the menu item {items[index].name!r}")
        return passed("Down Arrow moves through the menu items")
    await s.press("Tab")
    current = await focused_item(s)
    if current is None or current.ref not in {i.ref for i in items}:
        where = current.describe() if current else "the page body"
        return failed(f"Tab from the open dropdown's trigger goes to {where}, not to an action")
    return passed(f"Tab reaches the action {current.name!r}")


@requirement(
    "escape-returns-focus",
    "Escape closes the dropdown and puts focus back on the trigger (required for a menu)",
    na_allowed=True,
)
async def escape_returns_focus(s: Session) -> Outcome:
    trigger = await s.find(".menu-trigger")
    menu = await s.find(".menu")
    if trigger is None or menu is None:
        return failed(NO_TRIGGER if trigger is None else NO_MENU)
    is_menu = await _is_menu(s, menu)
    problem = await _open_by_keyboard(s, trigger)
    if problem:
        return failed(problem)
    if not is_menu:
        await s.press("Tab")
    await s.press("Escape")
    # A dropdown that fades out, or closes on a timer, has closed by the end of this.
    if not await s.eventually(lambda: _closed(s)):
        if not await _shown(s):
            return failed("After Escape the dropdown is out of sight, but a screen reader still reads it")
        if is_menu:
            return failed("Escape does not close the menu")
        return not_applicable("Escape does not close this disclosure dropdown; the APG makes that optional")
    if not await s.eventually(lambda: s.is_active(trigger)):
        where = await s.active()
        return failed(f"Escape closes the dropdown but focus goes to {where.describe() if where else 'the page body'}")
    return passed("Escape closes the dropdown and focus is back on the trigger")


@best_practice("menu-wraps", "In a menu, Up Arrow on the first item moves to the last", na_allowed=True)
async def menu_wraps(s: Session) -> Outcome:
    trigger = await s.find(".menu-trigger")
    menu = await s.find(".menu")
    if trigger is None or menu is None:
        return failed(NO_TRIGGER if trigger is None else NO_MENU)
    if not await _is_menu(s, menu):
        return not_applicable("A disclosure of buttons is navigated with Tab; there is no menu to wrap")
    problem = await _open_by_keyboard(s, trigger)
    if problem:
        return failed(problem)
    items = await _items(s, await s.refresh(menu))
    await s.press("ArrowUp")
    current = await focused_item(s)
    if not items or current is None or current.ref != items[-1].ref:
        return failed("Up Arrow on the first menu item does not move to the last one")
    return passed("Up Arrow wraps from the first to the last menu item")
