"""Checks for the delivery date calendar (APG grid pattern; a table of day buttons is accepted)."""

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
    table_in,
)

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
TARGET_DAY = 15
MAX_STEPS = 14
DAY_SELECTOR = "td, [role=gridcell], [role=cell], button, [role=button], [tabindex], a[href]"
SELECTED_WORDS = re.compile(r"\bselected\b|\bchosen\b", re.IGNORECASE)


async def _calendar(s: Session) -> tuple[Element | None, Element | None, str]:
    """The hooked element and the table or grid inside it (or itself)."""
    hook = await s.find(".calendar")
    if hook is None:
        return None, None, "No element has the class 'calendar' the prompt asked for"
    return hook, await table_in(s, hook), ""


def _day(element: Element | None) -> int | None:
    if element is None:
        return None
    match = re.match(r"^\D*?(\d{1,2})\b", element.text or element.name)
    return int(match.group(1)) if match else None


async def _day_elements(s: Session, hook: Element, day: int) -> list[Element]:
    pattern = rf"^\D*\b{day}\b\D*$"
    # Cells and controls first; every element only when the page uses neither (slow but rare).
    for selector in (DAY_SELECTOR, "*"):
        found = [e for e in await s.find_all(selector, hook) if re.match(pattern, e.text)]
        if found:
            return found
    return []


async def _current(s: Session) -> Element | None:
    active = await s.active()
    if active is None:
        return None
    pointer = active.attr("aria-activedescendant")
    if pointer:
        return await s.find(f'[id="{pointer}"]')
    return active


async def _walk_to(s: Session, day: int) -> Element | None:
    """From the current cell, use arrow keys to reach ``day``; None when it cannot."""
    current = await _current(s)
    for _ in range(MAX_STEPS):
        number = _day(current)
        if number is None:
            return None
        if number == day:
            return current
        gap = day - number
        key = "ArrowDown" if gap >= 7 else "ArrowUp" if gap <= -7 else "ArrowRight" if gap > 0 else "ArrowLeft"
        await s.press(key)
        following = await _current(s)
        if following is not None and current is not None and following.ref == current.ref:
            return None
        current = following
    return None


async def _delivery_text(s: Session) -> str:
    body = await s.find("body")
    return body.text if body is not None else ""


@requirement("weekday-headers", "The days are a table or grid under column headers naming the weekdays")
async def weekday_headers(s: Session) -> Outcome:
    hook, table, why = await _calendar(s)
    if hook is None:
        return failed(why)
    if table is None:
        return failed(f"{hook.describe()} is not exposed as a table or grid; days are read without their weekday")
    headers = [h for h in await s.find_all("th, [role=columnheader]", table) if h.role == "columnheader"]
    missing = [d for d in WEEKDAYS if not any(d.lower() in h.name.lower() for h in headers)]
    if missing:
        return failed(f"No column header names {', '.join(missing)}")
    return passed(f"{table.describe()} has a column header for each weekday")


@requirement("choose-day-by-keyboard", "A keyboard user can reach March 15 and choose it with Enter or Space")
async def choose_day_by_keyboard(s: Session) -> Outcome:
    hook, table, why = await _calendar(s)
    if hook is None:
        return failed(why)
    if table is not None and table.role == "grid":
        if not await s.tab_to(table):
            return failed("Pressing Tab never reaches the calendar grid")
        if await _walk_to(s, TARGET_DAY) is None:
            return failed(f"The arrow keys do not lead from the focused cell to day {TARGET_DAY}")
    else:
        targets = [e for e in await _day_elements(s, hook, TARGET_DAY) if e.focusable]
        if not targets or not await s.tab_to(targets[-1]):
            return failed(f"Pressing Tab never reaches day {TARGET_DAY}")
    # Both keys choose a date in the APG date picker's grid; a page may handle only one of them.
    for key in ("Enter", " "):
        await s.press(key)
        if "march 15, 2027" in (await _delivery_text(s)).lower():
            return passed(f"Day {TARGET_DAY} was reached and chosen from the keyboard")
    return failed(f"Neither Enter nor Space on day {TARGET_DAY} chooses it: the delivery date line does not show it")


@requirement("chosen-day-state", "The chosen day tells assistive technology that it is the selected one")
async def chosen_day_state(s: Session) -> Outcome:
    hook, _table, why = await _calendar(s)
    if hook is None:
        return failed(why)
    days = await _day_elements(s, hook, TARGET_DAY)
    clickable = [e for e in days if e.visible]
    if not clickable:
        return failed(f"Day {TARGET_DAY} is not on screen")
    await s.click(clickable[-1])
    for element in await _day_elements(s, hook, TARGET_DAY):
        for state in ("selected", "pressed", "checked", "current"):
            if element.attr(f"aria-{state}") not in (None, "false"):
                return passed(f"Day {TARGET_DAY} reports aria-{state}={element.attr(f'aria-{state}')!r}")
        if SELECTED_WORDS.search(element.name):
            return passed(f"Day {TARGET_DAY}'s name says it is selected: {element.name!r}")
    return failed(f"Day {TARGET_DAY} is highlighted after it is chosen, but nothing tells a screen reader so")


@requirement(
    "grid-arrow-navigation",
    "An ARIA grid is one Tab stop, and arrow keys move one day sideways and one week up or down",
    na_allowed=True,
)
async def grid_arrow_navigation(s: Session) -> Outcome:
    hook, table, why = await _calendar(s)
    if hook is None:
        return failed(why)
    if table is None or table.role != "grid":
        return not_applicable("The calendar is not an ARIA grid; Tab moves between its day buttons")
    if not await s.tab_to(table):
        return failed("Pressing Tab never reaches the calendar grid")
    start = await _walk_to(s, 10)
    if start is None:
        return failed("The arrow keys do not move between days")
    for key, expected in (("ArrowRight", 11), ("ArrowDown", 18), ("ArrowLeft", 17), ("ArrowUp", 10)):
        await s.press(key)
        number = _day(await _current(s))
        if number != expected:
            return failed(f"{key} leads to {number}, not day {expected}")
    # Count Tab stops from the top: pressing Tab once from the widget is unreliable when it is the
    # last stop on the page, since focus then leaves the document and activeElement stays put.
    inside = [stop for stop in await s.tab_sequence() if await s.contains(table, stop)]
    if len(inside) > 1:
        return failed(f"Tab stops on {len(inside)} days inside the grid: it is not a single Tab stop")
    return passed("Arrow keys move by day and by week, and the grid is a single Tab stop")


@best_practice(
    "home-end-keys", "In an ARIA grid, Home and End move to the first and last day of the week", na_allowed=True
)
async def home_end_keys(s: Session) -> Outcome:
    hook, table, why = await _calendar(s)
    if hook is None:
        return failed(why)
    if table is None or table.role != "grid":
        return not_applicable("The calendar is not an ARIA grid; Tab moves between its day buttons")
    if not await s.tab_to(table):
        return failed("Pressing Tab never reaches the calendar grid")
    if await _walk_to(s, 17) is None:
        return failed("The arrow keys do not lead to day 17")
    # March 2027 starts on a Monday, so the week of the 17th runs from the 15th to the 21st.
    for key, expected in (("Home", 15), ("End", 21)):
        await s.press(key)
        number = _day(await _current(s))
        if number != expected:
            return failed(f"{key} in the week of March 17 leads to {number}, not day {expected}")
    return passed("Home and End move to the first and last day of the week")


@best_practice("choice-announced", "The delivery date line is a live region, so the choice is announced")
async def choice_announced(s: Session) -> Outcome:
    hook, _table, why = await _calendar(s)
    if hook is None:
        return failed(why)
    days = [e for e in await _day_elements(s, hook, TARGET_DAY) if e.visible]
    if not days:
        return failed(f"Day {TARGET_DAY} is not on screen")
    await s.click(days[-1])
    for region in await s.find_all("[aria-live], [role=status], output"):
        live = region.attr("aria-live") not in (None, "off") or region.role == "status" or region.tag == "output"
        if live and "delivery" in region.text.lower():
            return passed(f"The delivery date is in the live region {region.describe()}")
    return failed("The delivery date line is not a live region; screen reader users hear nothing when they choose")
