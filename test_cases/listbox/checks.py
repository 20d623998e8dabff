"""Checks for the listbox case (APG listbox pattern, single select)."""

from __future__ import annotations

from dataclasses import dataclass

from lm_eval_a11y.checks import (
    Element,
    Outcome,
    Session,
    best_practice,
    css_string,
    failed,
    focused_item,
    passed,
    requirement,
)

NO_LIST = "No element has the class 'crust-list' the prompt asked for"
COUNT = 5
# How long a typed letter may take to move the keyboard (a page may search on a short debounce).
TYPE_AHEAD_MS = 300


@dataclass(frozen=True)
class Picker:
    """What a screen reader meets: a native select, an ARIA listbox of options, or radio buttons."""

    kind: str  # "select" | "listbox" | "radio group"
    container: Element
    items: tuple[Element, ...]


async def _within(s: Session, outer: Element, role: str) -> list[Element]:
    return [e for e in await s.by_role(role) if not e.hidden_from_at and await s.contains(outer, e)]


async def _picker(s: Session) -> Picker | str:
    hooked = await s.find(".crust-list")
    if hooked is None:
        return NO_LIST
    selects = [hooked] if hooked.tag == "select" else await s.find_all("select", hooked)
    if selects and not selects[0].hidden_from_at:
        options = await s.find_all("option", selects[0])
        return Picker("select", selects[0], tuple(options))
    listboxes = [hooked] if hooked.role == "listbox" else await _within(s, hooked, "listbox")
    if listboxes:
        return Picker("listbox", listboxes[0], tuple(await _within(s, listboxes[0], "option")))
    radios = await _within(s, hooked, "radio")
    if radios:
        return Picker("radio group", hooked, tuple(radios))
    return f"{hooked.describe()} holds no listbox, select or radio buttons a screen reader can find"


async def _chosen(s: Session, p: Picker) -> list[int]:
    if p.kind == "select":
        index = (await s.refresh(p.container)).properties.get("selectedIndex")
        return [index] if isinstance(index, int) and index >= 0 else []
    items = [await s.refresh(i) for i in p.items]
    if p.kind == "listbox":
        # The APG listbox marks a selected option with aria-selected or aria-checked (not both).
        return [i for i, e in enumerate(items) if "true" in (e.attr("aria-selected"), e.attr("aria-checked"))]
    return [i for i, e in enumerate(items) if e.state("checked") == "true"]


async def _on(s: Session, p: Picker) -> int | None:
    """Index of the item the keyboard is on (for a select: its selected option)."""
    if p.kind == "select":
        chosen = await _chosen(s, p) if await s.is_active(p.container) else []
        return chosen[0] if chosen else None
    current = await focused_item(s)
    for index, item in enumerate(p.items):
        if current is not None and current.ref == item.ref:
            return index
    return None


async def _click(s: Session, item: Element) -> None:
    """Click an item as a person would: on itself, or on its label when the input is visually hidden."""
    if item.visible and item.rect.get("width", 0) > 2 and item.rect.get("height", 0) > 2:
        await s.click(item)
        return
    labels = [lab for lab in await s.find_all("label") if await s.contains(lab, item)]
    if not labels and item.attr("id"):
        labels = await s.find_all(f"label[for={css_string(item.attr('id') or '')}]")
    if not labels:
        raise ValueError(f"{item.describe()} is not visible and has no label to click")
    await s.click(labels[0])


async def _tab_in(s: Session, p: Picker) -> bool:
    """Press Tab from the top until the list (a radio group: its first button) has focus."""
    return await s.tab_to(p.container if p.kind != "radio group" else p.items[0])


@requirement("list-roles", "The crusts are exposed as five named options of one list (or radio buttons)")
async def list_roles(s: Session) -> Outcome:
    p = await _picker(s)
    if isinstance(p, str):
        return failed(p)
    names = [i.name or i.text for i in p.items]
    if len(names) != COUNT or not all(names):
        return failed(f"The {p.kind} offers {len(names)} items with names {names}; expected five named crusts")
    return passed(f"A {p.kind} with the options {names}")


@requirement("selected-state", "The chosen crust is exposed as selected, on load and after choosing another")
async def selected_state(s: Session) -> Outcome:
    p = await _picker(s)
    if isinstance(p, str):
        return failed(p)
    if len(p.items) < 3:
        return failed(f"The {p.kind} has only {len(p.items)} items")
    if await _chosen(s, p) != [0]:
        return failed(f"On load the selected items are {await _chosen(s, p)}, not only the first ('Classic')")
    if p.kind == "select":
        await s.focus(p.container)
        await s.press("ArrowDown")
        await s.press("ArrowDown")
    else:
        await _click(s, p.items[2])
    chosen = await _chosen(s, p)
    if chosen != [2]:
        return failed(f"After choosing the third crust the selected items are {chosen}, not only the third")
    return passed("Exactly the chosen crust is exposed as selected")


@requirement(
    "keyboard-selects", "Tab lands on the chosen crust; arrow keys move through the list and a crust can be chosen"
)
async def keyboard_selects(s: Session) -> Outcome:
    p = await _picker(s)
    if isinstance(p, str):
        return failed(p)
    if len(p.items) < 3:
        return failed(f"The {p.kind} has only {len(p.items)} items")
    if not await _tab_in(s, p):
        return failed("Pressing Tab never reaches the list")
    if await _on(s, p) != 0:
        return failed("Tabbing into the list does not land on the chosen crust 'Classic'")
    await s.press("ArrowDown")
    if await _on(s, p) != 1:
        return failed("Down Arrow does not move to the second crust")
    for key in ("", " ", "Enter"):
        if key:
            await s.press(key)
        if await _chosen(s, p) == [1]:
            break
    else:
        return failed("Neither Down Arrow, Space nor Enter makes the second crust the selected one")
    await s.press("ArrowUp")
    if await _on(s, p) != 0:
        return failed("Up Arrow does not move back to the first crust")
    return passed("Arrow keys move through the crusts and the one reached can be chosen")


@requirement("one-tab-stop", "The list is one stop in the Tab order, not one per crust")
async def one_tab_stop(s: Session) -> Outcome:
    p = await _picker(s)
    if isinstance(p, str):
        return failed(p)
    hooked = await s.find(".crust-list")
    stops = [e for e in await s.tab_sequence() if hooked is not None and await s.contains(hooked, e)]
    if not stops:
        return failed("Pressing Tab never reaches the list")
    if len(stops) > 1:
        return failed(f"Tab stops {len(stops)} times inside the list; arrow keys should move between crusts")
    return passed("The list takes a single stop in the Tab order")


@best_practice("home-end", "Home and End move to the first and last crust")
async def home_end(s: Session) -> Outcome:
    p = await _picker(s)
    if isinstance(p, str):
        return failed(p)
    if not await _tab_in(s, p):
        return failed("Pressing Tab never reaches the list")
    await s.press("End")
    if await _on(s, p) != len(p.items) - 1:
        return failed("End does not move to the last crust")
    await s.press("Home")
    if await _on(s, p) != 0:
        return failed("Home does not move to the first crust")
    return passed("Home and End reach the first and last crust")


def _initial(item: Element) -> str:
    """The first letter or digit of an item's name, lower-cased ('' when it has none)."""
    return next((c.lower() for c in item.name or item.text if c.isalnum()), "")


def _type_ahead_target(p: Picker, current: int) -> int | None:
    """The crust to type the initial of: one whose initial no other crust shares, and that none of
    the keys a page might wrongly answer every letter with would reach (the next item, the first
    or the last), so only a search by name lands on it."""
    initials = [_initial(i) for i in p.items]
    last = len(p.items) - 1
    for index in sorted(range(len(p.items)), key=lambda i: -abs(i - current)):
        if index in (current, current - 1, current + 1, 0, last):
            continue
        if initials[index] and initials.count(initials[index]) == 1 and initials[index] != initials[current]:
            return index
    return None


@best_practice("type-ahead", "Typing a crust's first letter moves to that crust (type-ahead)")
async def type_ahead(s: Session) -> Outcome:
    p = await _picker(s)
    if isinstance(p, str):
        return failed(p)
    if not await _tab_in(s, p):
        return failed("Pressing Tab never reaches the list")
    start = await _on(s, p)
    current = 0 if start is None else start
    target = _type_ahead_target(p, current)
    if target is None:
        return failed(f"The {p.kind}'s items {[i.name for i in p.items]} leave no crust to reach by its initial")
    letter = _initial(p.items[target])
    await s.press(letter)

    async def landed() -> bool:
        return await _on(s, p) == target

    if await s.eventually(landed, within_ms=TYPE_AHEAD_MS):
        return passed(f"Typing {letter!r} in the {p.kind} moves to {p.items[target].name!r}")
    if p.kind == "radio group" and p.items[0].tag == "input":
        return failed(
            f"Typing {letter!r} does not move to {p.items[target].name!r}: native radio buttons have no "
            "type-ahead (the APG recommends it for listboxes, so this only costs a best practice)"
        )
    now = await _on(s, p)
    where = "no crust" if now is None else repr(p.items[now].name)
    return failed(f"Typing {letter!r} in the {p.kind} leaves the keyboard on {where}, not {p.items[target].name!r}")
