"""Checks for the threaded inbox (APG treegrid pattern; a table with disclosure buttons is accepted)."""

from __future__ import annotations

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

COLUMNS = ("Subject", "From", "Date")
THREAD = "Quarterly report"
REPLY_MARK = "Sam Ortiz"  # only a reply row of the first thread holds this name
HIDDEN_REPLIES = ("Sam Ortiz", "Luis Kim")
MAX_STEPS = 8
# What the treegrid's own Tab stop is: a row or a cell (the treegrid itself with an active descendant).
GRID_ITEM_ROLES = ("row", "gridcell", "rowheader", "columnheader", "treegrid")


async def _table(s: Session) -> tuple[Element | None, str]:
    hook = await s.find(".threads")
    if hook is None:
        return None, "No element has the class 'threads' the prompt asked for"
    table = await table_in(s, hook)
    if table is None:
        return None, f"{hook.describe()} is not exposed as a table: messages are read without their columns"
    return table, ""


async def _rows(s: Session, table: Element) -> list[Element]:
    return [r for r in await s.find_all("tr, [role=row]", table) if r.role == "row"]


async def _row_with(s: Session, table: Element, text: str) -> Element | None:
    for row in await _rows(s, table):
        if text.lower() in row.text.lower():  # the thread's row comes before its replies
            return row
    return None


async def _reply_shown(s: Session, table: Element, mark: str) -> bool:
    for row in await _rows(s, table):
        if mark.lower() in row.text.lower() and row.visible and not row.hidden_from_at:
            return True
    return False


async def _toggle(s: Session, table: Element, row: Element) -> Element | None:
    """What carries the thread's expanded state: the row in a treegrid, else a button in it."""
    if table.role == "treegrid":
        return row
    for element in await s.find_all("button, summary, [role=button], [aria-expanded]", row):
        if element.role == "button" or element.tag == "summary":
            return element
    return None


async def _focused_item(s: Session) -> Element | None:
    """The element a screen reader reports as focused: the focused element, or the row or cell
    its aria-activedescendant points at."""
    active = await s.active()
    if active is None:
        return None
    pointer = active.attr("aria-activedescendant")
    if pointer:
        return await s.find(f'[id="{pointer}"]')
    return active


async def _row_of_focus(s: Session, table: Element) -> Element | None:
    active = await _focused_item(s)
    if active is None:
        return None
    for row in await _rows(s, table):
        if await s.contains(row, active):
            return row
    return None


@requirement("column-headers", "The inbox is a table or treegrid with Subject, From and Date column headers")
async def column_headers(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    headers = [h for h in await s.find_all("th, [role=columnheader]", table) if h.role == "columnheader"]
    missing = [c for c in COLUMNS if not any(c.lower() in h.name.lower() for h in headers)]
    if missing:
        return failed(f"No column header names {', '.join(missing)}")
    return passed(f"{table.describe()} has Subject, From and Date column headers")


@requirement("thread-state", "A collapsed thread tells assistive technology that it can be expanded")
async def thread_state(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    row = await _row_with(s, table, THREAD)
    if row is None:
        return failed(f"No row holds the {THREAD!r} thread")
    toggle = await _toggle(s, table, row)
    if toggle is None:
        return failed(f"The {THREAD!r} row holds no button, so nothing says it can be expanded")
    if toggle.attr("aria-expanded") != "false":
        return failed(f"The collapsed thread's {toggle.describe()} has aria-expanded={toggle.attr('aria-expanded')!r}")
    return passed(f"The thread's {toggle.tag} reports aria-expanded='false'")


@requirement("collapsed-replies-hidden", "Replies in collapsed threads are neither shown nor read")
async def collapsed_replies_hidden(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    for mark in HIDDEN_REPLIES:
        for row in await _rows(s, table):
            if mark.lower() in row.text.lower():
                if row.visible:
                    return failed(f"The reply from {mark} is on screen although its thread starts collapsed")
                if not row.hidden_from_at:
                    return failed(f"The reply from {mark} is hidden from sight but a screen reader still reads it")
    return passed("Replies in collapsed threads are hidden from sight and from screen readers")


@requirement(
    "keyboard-expand-collapse",
    "The Quarterly report thread opens and closes from the keyboard, and reports each state",
)
async def keyboard_expand_collapse(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    row = await _row_with(s, table, THREAD)
    if row is None:
        return failed(f"No row holds the {THREAD!r} thread")
    toggle = await _toggle(s, table, row)
    if table.role == "treegrid":
        if not await s.tab_to(table):
            return failed("Pressing Tab never reaches the treegrid")
        current = await _row_of_focus(s, table)
        for _ in range(MAX_STEPS):
            if current is None or current.ref == row.ref:
                break
            await s.press("ArrowDown")
            current = await _row_of_focus(s, table)
        if current is None or current.ref != row.ref:
            return failed(f"Tab and Down arrow never reach the {THREAD!r} row")
        # Focus on the row: Right and Left arrows open and close it. Focus on a cell: Right arrow
        # moves to the next cell, and Enter on the first cell opens and closes the thread (APG).
        item = await _focused_item(s)
        on_row = item is not None and item.role == "row"
        keys = ("ArrowRight", "ArrowLeft") if on_row else ("Enter", "Enter")
    else:
        if toggle is None or not toggle.focusable or not await s.tab_to(toggle):
            return failed(f"Pressing Tab never reaches a control that expands the {THREAD!r} thread")
        keys = ("Enter", "Enter")
    await s.press(keys[0])
    if not await _reply_shown(s, table, REPLY_MARK) and table.role == "treegrid":
        # Some treegrids expand with the other key (Enter on a focused row, Right arrow on a cell).
        keys = ("Enter", "Enter") if keys[0] == "ArrowRight" else ("ArrowRight", "ArrowLeft")
        await s.press(keys[0])
    if not await _reply_shown(s, table, REPLY_MARK):
        tried = "Right arrow or Enter" if table.role == "treegrid" else keys[0]
        return failed(f"{tried} does not show the thread's replies")
    if toggle is not None and (await s.refresh(toggle)).attr("aria-expanded") != "true":
        return failed(f"The thread opened with {keys[0]} but still reports it is collapsed")
    await s.press(keys[1])

    async def closed() -> bool:
        # Closed for everyone: a reply row faded to nothing but still in the accessibility tree
        # is still read by screen readers.
        replies = [r for r in await _rows(s, table) if REPLY_MARK.lower() in r.text.lower()]
        return all(not r.visible and r.hidden_from_at for r in replies)

    # Rows that slide away, or are hidden on a timer, are gone by the end of this.
    if not await s.eventually(closed):
        if await _reply_shown(s, table, REPLY_MARK):
            return failed(f"{keys[1]} does not close the open thread")
        return failed(f"{keys[1]} hides the thread's replies from sight, but a screen reader still reads them")
    if toggle is not None and (await s.refresh(toggle)).attr("aria-expanded") != "false":
        return failed(f"The thread closed with {keys[1]} but still reports it is expanded")
    return passed(f"{keys[0]} opens the thread and {keys[1]} closes it, and its state follows")


@requirement(
    "treegrid-arrow-navigation",
    "A treegrid is one Tab stop and Down/Up arrows move between rows",
    na_allowed=True,
)
async def treegrid_arrow_navigation(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    if table.role != "treegrid":
        return not_applicable("The inbox is a table with disclosure buttons, not a treegrid")
    if not await s.tab_to(table):
        return failed("Pressing Tab never reaches the treegrid")
    first = await _row_of_focus(s, table)
    if first is None:
        return failed("Focus inside the treegrid is not in any row")
    await s.press("ArrowDown")
    second = await _row_of_focus(s, table)
    if second is None or second.ref == first.ref:
        return failed("Down arrow does not move to the next row")
    await s.press("ArrowUp")
    back = await _row_of_focus(s, table)
    if back is None or back.ref != first.ref:
        return failed("Up arrow does not return to the row above")
    # Count Tab stops from the top: pressing Tab once from the widget is unreliable when it is the
    # last stop on the page, since focus then leaves the document and activeElement stays put.
    # Only rows and cells count: Tab goes on to the focusable elements inside a row (a sender's
    # mail link), as the APG treegrid says.
    inside = [stop for stop in await s.tab_sequence() if await s.contains(table, stop)]
    rows = [stop for stop in inside if stop.ref == table.ref or stop.role in GRID_ITEM_ROLES]
    if len(rows) > 1:
        return failed(f"Tab stops on {len(rows)} rows or cells inside the treegrid: it is not a single Tab stop")
    links = f"; Tab also stops on {len(inside) - len(rows)} control(s) inside rows" if len(inside) > len(rows) else ""
    return passed(f"Tab enters and leaves the treegrid in one stop; Down and Up move between rows{links}")


@best_practice(
    "reply-level", "In a treegrid, reply rows report that they sit one level below their thread", na_allowed=True
)
async def reply_level(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    if table.role != "treegrid":
        return not_applicable("Only a treegrid can report row levels")
    thread = await _row_with(s, table, THREAD)
    reply = next((r for r in await _rows(s, table) if REPLY_MARK.lower() in r.text.lower()), None)
    if thread is None or reply is None:
        return failed("The thread or its reply row is missing")
    top, below = thread.attr("aria-level"), reply.attr("aria-level")
    if top is None or below is None or not (top.isdigit() and below.isdigit()) or int(below) != int(top) + 1:
        return failed(f"The thread row has aria-level={top!r} and its reply aria-level={below!r}")
    return passed(f"Thread rows are level {top} and replies level {below}")


@best_practice(
    "home-end-keys",
    "In a treegrid, Home and End (Ctrl+Home and Ctrl+End from a cell) reach the first and last row",
    na_allowed=True,
)
async def home_end_keys(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    if table.role != "treegrid":
        return not_applicable("The inbox is a table with disclosure buttons, not a treegrid")
    if not await s.tab_to(table):
        return failed("Pressing Tab never reaches the treegrid")
    active = await _focused_item(s)
    # The APG treegrid: with focus on a row, Home and End move between rows; with focus on a
    # cell they stay in the row, and Ctrl+Home and Ctrl+End move to the first and last row.
    on_row = active is not None and active.role == "row"
    keys = ("End", "Home") if on_row else ("Control+End", "Control+Home")
    for key, text in zip(keys, ("Printer is fixed", THREAD), strict=True):
        await s.press(key)
        row = await _row_of_focus(s, table)
        if row is None or text.lower() not in row.text.lower():
            return failed(f"{key} does not move to the {text!r} row")
    return passed(f"{keys[0]} and {keys[1]} reach the last and first rows")
