"""Checks for the sortable staff directory (APG table pattern, sortable column headers)."""

from __future__ import annotations

import re

from lm_eval_a11y.checks import (
    Element,
    Outcome,
    Session,
    best_practice,
    failed,
    passed,
    requirement,
    table_in,
    table_rows,
)

COLUMNS = ("Name", "Department", "Start date")
SORT_COLUMN = "Department"
INITIAL_ORDER = ["Engineering", "Sales", "Design", "Support", "Finance"]
SORT_WORDS = re.compile(r"\b(ascending|descending)\b", re.IGNORECASE)


async def _table(s: Session) -> tuple[Element | None, str]:
    hook = await s.find(".staff")
    if hook is None:
        return None, "No element has the class 'staff' the prompt asked for"
    table = await table_in(s, hook)
    if table is None:
        return None, (
            f"The directory {hook.describe()} is not exposed as a table: "
            "a screen reader cannot navigate its rows and columns"
        )
    return table, ""


def _is_header_row(cells: list[Element]) -> bool:
    # A <th> in a row that also holds data cells is a row header to browsers even where axe's
    # role guess says column header (no scope), so only all-header rows hold column headers.
    return all(c.role == "columnheader" or c.tag == "th" for c in cells)


def _header_index(rows: list[list[Element]], title: str) -> int | None:
    for cells in filter(_is_header_row, rows):
        for index, cell in enumerate(cells):
            if cell.role == "columnheader" and title.lower() in cell.name.lower():
                return index
    return None


async def _column(s: Session, table: Element, title: str) -> list[str] | None:
    rows = await table_rows(s, table)
    index = _header_index(rows, title)
    if index is None:
        return None
    data = [cells for cells in rows if not _is_header_row(cells)]
    return [cells[index].text for cells in data if index < len(cells)]


async def _header(s: Session, table: Element, title: str) -> Element | None:
    rows = await table_rows(s, table)
    index = _header_index(rows, title)
    if index is None:
        return None
    return next(cells[index] for cells in rows if _is_header_row(cells) and index < len(cells))


async def _sort_button(s: Session, table: Element, title: str) -> Element | None:
    header = await _header(s, table, title)
    if header is None:
        return None
    for inner in await s.find_all("*", header):
        if inner.role == "button" and not inner.hidden_from_at:
            return inner
    return None


def _direction(values: list[str]) -> str | None:
    keys = [v.strip().lower() for v in values]
    if keys == sorted(keys):
        return "ascending"
    if keys == sorted(keys, reverse=True):
        return "descending"
    return None


async def _told_direction(s: Session, header: Element) -> str | None:
    """What a screen reader hears about the header's sort: aria-sort, else words in its name."""
    header = await s.refresh(header)
    sort = header.attr("aria-sort")
    if sort in ("ascending", "descending"):
        return sort
    match = SORT_WORDS.search(header.name)
    return match.group(1).lower() if match else None


@requirement(
    "table-structure",
    "The directory is exposed as a table with a column header for each column and a row per person",
)
async def table_structure(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    rows = await table_rows(s, table)
    missing = [title for title in COLUMNS if _header_index(rows, title) is None]
    if missing:
        names = ", ".join(missing)
        return failed(f"No column header is exposed for {names}; cells are not announced with their column")
    data = [cells for cells in rows if not _is_header_row(cells)]
    if len(data) < len(INITIAL_ORDER):
        return failed(f"Only {len(data)} data rows are exposed as table rows; the five people should each be a row")
    return passed(f"{table.describe()} has column headers {', '.join(COLUMNS)} and {len(data)} data rows")


@requirement(
    "sort-controls-are-buttons",
    "Each column title holds a button that sorts, so users know it can be activated",
)
async def sort_controls_are_buttons(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    for title in COLUMNS:
        header = await _header(s, table, title)
        if header is None:
            return failed(f"No column header is exposed for {title}")
        if await _sort_button(s, table, title) is None:
            return failed(f"The {title} header {header.describe()} holds no button; nothing tells users it sorts")
    return passed("Every column header holds a sort button")


@requirement(
    "keyboard-sorts",
    "Tab reaches the Department sort control; Enter sorts by department and Space reverses the order",
)
async def keyboard_sorts(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    header = await _header(s, table, SORT_COLUMN)
    if header is None:
        return failed("No column header is exposed for Department")
    target = await _sort_button(s, table, SORT_COLUMN) or header
    if not target.focusable or not await s.tab_to(target):
        return failed(f"Pressing Tab never reaches the Department sort control {target.describe()}")
    await s.press("Enter")
    first = await _column(s, table, SORT_COLUMN) or []
    direction = _direction(first)
    if direction is None:
        return failed(f"After Enter the departments read {first}, not sorted")
    await s.press(" ")
    second = await _column(s, table, SORT_COLUMN) or []
    again = _direction(second)
    if again is None or again == direction:
        return failed(f"After Enter the order was {direction}; Space on the same control left it as {second}")
    return passed(f"Enter sorted the departments {direction} and Space reversed them")


@requirement(
    "sort-state-exposed",
    "The sorted column's header tells assistive technology the sort direction, and only that header does",
)
async def sort_state_exposed(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    header = await _header(s, table, SORT_COLUMN)
    if header is None:
        return failed("No column header is exposed for Department")
    target = await _sort_button(s, table, SORT_COLUMN) or header
    for step in ("first", "second"):
        await s.click(target)
        shown = _direction(await _column(s, table, SORT_COLUMN) or [])
        if shown is None:
            return failed(f"After the {step} click the departments are not sorted, so there is no state to tell")
        told = await _told_direction(s, header)
        if told != shown:
            heard = told or "nothing"
            return failed(f"After the {step} click the departments are {shown} but the header tells {heard}")
        for title in COLUMNS:
            if title != SORT_COLUMN:
                other = await _header(s, table, title)
                if other is not None and await _told_direction(s, other) is not None:
                    return failed(f"Sorted by Department, the {title} header still claims to be sorted")
    return passed("The Department header tells the sort direction after each click, and no other header claims one")


@best_practice("sort-focus-visible", "The sort control shows a visible focus indicator when reached by keyboard")
async def sort_focus_visible(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    target = await _sort_button(s, table, SORT_COLUMN) or await _header(s, table, SORT_COLUMN)
    if target is None:
        return failed("No Department sort control was found")
    if not target.focusable or not await s.tab_to(target):
        return failed(f"Pressing Tab never reaches {target.describe()}")
    ok, message = await s.has_visible_focus_indicator(await s.active() or target)
    return passed(message) if ok else failed(message)


@best_practice("table-named", "The table has an accessible name (a caption, aria-labelledby or aria-label)")
async def table_named(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    # The APG table pattern labels every table, so a screen reader can tell tables apart and
    # say what this one holds when entering it.
    # Only a name the author gave counts: a name computed from the cells' text says nothing.
    caption = await s.find("caption", table)
    given = any((table.attr(a) or "").strip() for a in ("aria-label", "aria-labelledby", "title"))
    if not table.name.strip() or not (given or (caption is not None and caption.text.strip())):
        return failed(f"{table.describe()} has no accessible name: no caption, aria-labelledby or aria-label")
    return passed(f"The table is named {table.name!r}")
