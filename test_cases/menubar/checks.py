"""Checks for the menubar case (APG menu and menubar pattern, or a row of disclosure buttons)."""

from __future__ import annotations

from lm_eval_a11y.checks import (
    Element,
    Outcome,
    Session,
    best_practice,
    failed,
    focused_item,
    not_applicable,
    passed,
    requirement,
)

MISSING = "The prompt's hooks are missing: one '.menubar', three '.top-item' and three '.submenu' elements"
TOP_ROLES = ("menuitem", "button")
ITEM_ROLES = ("menuitem", "menuitemcheckbox", "menuitemradio", "button", "link")


async def _control(s: Session, hooked: Element) -> Element:
    """The hooked entry itself when it is a menuitem or button, else the first one inside it."""
    if hooked.role in TOP_ROLES:
        return hooked
    for candidate in await s.by_role(list(TOP_ROLES)):
        if await s.contains(hooked, candidate):
            return candidate
    return hooked


async def _parts(s: Session) -> tuple[Element, list[Element], list[Element]] | None:
    bar = await s.find(".menubar")
    tops = await s.find_all(".top-item")
    subs = await s.find_all(".submenu")
    if bar is None or len(tops) < 3 or len(subs) < 3:
        return None
    return bar, [await _control(s, t) for t in tops[:3]], subs[:3]


async def _is_menubar(s: Session, bar: Element) -> bool:
    """True for the ARIA flavour, which promises arrow keys and focus management."""
    return bar.role == "menubar" or any([await s.contains(bar, m) for m in await s.by_role("menubar")])


async def _items(s: Session, submenu: Element) -> list[Element]:
    return [e for e in await s.by_role(list(ITEM_ROLES)) if not e.hidden_from_at and await s.contains(submenu, e)]


def _on_screen(e: Element) -> bool:
    """False for the ``left: -9999px`` way of hiding, which the visibility test alone misses."""
    return e.rect.get("x", 0) + e.rect.get("width", 0) > 0 and e.rect.get("y", 0) + e.rect.get("height", 0) > 0


async def _shown(s: Session, submenu: Element) -> bool:
    now = await s.refresh(submenu)
    return now.visible and _on_screen(now) and not now.hidden_from_at


async def _enter_bar(s: Session, bar: Element, first: Element) -> str | None:
    if not await s.tab_to(bar):
        return "Pressing Tab never reaches the menu bar"
    current = await focused_item(s)
    if current is None or current.ref != first.ref:
        return f"Tab enters the menu bar on {current.describe() if current else 'nothing'}, not on File"
    return None


@requirement("top-items", "File, Edit and View are named menu items or buttons that announce their popups")
async def top_items(s: Session) -> Outcome:
    parts = await _parts(s)
    if parts is None:
        return failed(MISSING)
    bar, tops, _ = parts
    menubar = await _is_menubar(s, bar)
    for top in tops:
        if top.role not in TOP_ROLES or not top.name:
            return failed(f"{top.describe()} is not a named menu item or button")
        expanded = top.attr("aria-expanded")
        if menubar and top.attr("aria-haspopup") not in ("true", "menu") and expanded != "false":
            return failed(f"{top.name!r} has neither aria-haspopup nor aria-expanded='false'")
        if not menubar and expanded != "false":
            return failed(f"Closed, {top.name!r} has aria-expanded={expanded!r}, not 'false'")
    return passed(f"Top entries {[t.name for t in tops]} announce their popups")


@requirement("submenus-hidden", "Closed dropdowns are neither shown nor read")
async def submenus_hidden(s: Session) -> Outcome:
    parts = await _parts(s)
    if parts is None:
        return failed(MISSING)
    for submenu in parts[2]:
        if submenu.visible and _on_screen(submenu):
            return failed(f"A dropdown ({submenu.text[:40]!r}) is visible before any menu is opened")
        if not submenu.hidden_from_at:
            return failed(
                f"A closed dropdown ({submenu.text[:40]!r}) is out of sight but still read by a screen reader"
            )
    return passed("The closed dropdowns are hidden from sight and from assistive technology")


@requirement(
    "opens-by-keyboard", "Enter on File opens its dropdown, marks it expanded, and the first command can be reached"
)
async def opens_by_keyboard(s: Session) -> Outcome:
    parts = await _parts(s)
    if parts is None:
        return failed(MISSING)
    bar, tops, subs = parts
    menubar = await _is_menubar(s, bar)
    problem = await _enter_bar(s, bar, tops[0])
    if problem:
        return failed(problem)
    await s.press("Enter")
    if not await _shown(s, subs[0]):
        return failed("Enter on File does not show its dropdown to sight and to screen readers")
    if (await s.refresh(tops[0])).attr("aria-expanded") != "true":
        return failed("File's dropdown opened but File does not say aria-expanded='true'")
    items = await _items(s, subs[0])
    if not items:
        return failed("The open File dropdown has no commands a screen reader can reach")
    if not menubar:
        await s.press("Tab")
    current = await focused_item(s)
    if current is None or current.ref != items[0].ref:
        where = current.describe() if current else "the page body"
        how = "after opening" if menubar else "after Tab from the open File button"
        return failed(f"The keyboard is on {where} {how}, not on the first command {items[0].name!r}")
    return passed(f"Enter opens File and the keyboard reaches {items[0].name!r}")


@requirement(
    "reach-next-menu", "From File the keyboard reaches Edit (Right Arrow in a menubar, which Tab leaves; Tab otherwise)"
)
async def reach_next_menu(s: Session) -> Outcome:
    parts = await _parts(s)
    if parts is None:
        return failed(MISSING)
    bar, tops, _ = parts
    problem = await _enter_bar(s, bar, tops[0])
    if problem:
        return failed(problem)
    menubar = await _is_menubar(s, bar)
    key = "ArrowRight" if menubar else "Tab"
    await s.press(key)
    current = await focused_item(s)
    if current is None or current.ref != tops[1].ref:
        return failed(f"{key} on File goes to {current.describe() if current else 'the page body'}, not to Edit")
    if menubar:
        # A menubar is one Tab stop (roving tabindex): Tab leaves it instead of walking its items.
        after = await s.press("Tab")
        if after is not None and after.ref in {t.ref for t in tops}:
            return failed(f"Tab from Edit goes to {after.describe()}: the menubar is not a single Tab stop")
        return passed("ArrowRight moves from File to Edit, and Tab leaves the menubar")
    return passed(f"{key} moves from File to Edit")


@requirement(
    "escape-closes",
    "Escape closes an open dropdown and puts focus back on its menu (required in a menubar)",
    na_allowed=True,
)
async def escape_closes(s: Session) -> Outcome:
    parts = await _parts(s)
    if parts is None:
        return failed(MISSING)
    bar, tops, subs = parts
    menubar = await _is_menubar(s, bar)
    problem = await _enter_bar(s, bar, tops[0])
    if problem:
        return failed(problem)
    await s.press("Enter")
    if not await _shown(s, subs[0]):
        return failed("Enter on File does not open its dropdown")
    if not menubar:
        await s.press("Tab")
    await s.press("Escape")

    async def closed() -> bool:
        """Out of sight and out of the accessibility tree (a menu faded away but still read is open)."""
        now = await s.refresh(subs[0])
        return not now.connected or ((not now.visible or not _on_screen(now)) and now.hidden_from_at)

    # A dropdown that fades out, or closes on a timer, has closed by the end of this.
    if not await s.eventually(closed):
        if not await _shown(s, subs[0]):
            return failed("After Escape File's dropdown is out of sight, but a screen reader still reads it")
        if menubar:
            return failed("Escape does not close File's menu")
        return not_applicable("Escape does not close this disclosure dropdown; the APG makes that optional")
    if not await s.eventually(lambda: s.is_active(tops[0])):
        where = await s.active()
        return failed(f"Escape closes the dropdown but focus goes to {where.describe() if where else 'the page body'}")
    return passed("Escape closes File's dropdown and focus is back on File")


@best_practice("submenu-arrows", "In an open menu, Down Arrow moves to the next command", na_allowed=True)
async def submenu_arrows(s: Session) -> Outcome:
    parts = await _parts(s)
    if parts is None:
        return failed(MISSING)
    bar, tops, subs = parts
    if not await _is_menubar(s, bar):
        return not_applicable("A row of disclosure buttons is navigated with Tab")
    problem = await _enter_bar(s, bar, tops[0])
    if problem:
        return failed(problem)
    await s.press("Enter")
    items = await _items(s, subs[0])
    await s.press("ArrowDown")
    current = await focused_item(s)
    if len(items) < 2 or current is None or current.ref != items[1].ref:
        return failed("Down Arrow in the open File menu does not move to the second command")
    return passed(f"Down Arrow moves to {items[1].name!r}")
