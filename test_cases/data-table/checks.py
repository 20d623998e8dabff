"""Checks for the sales table (page-level data table with row and column headers)."""

from __future__ import annotations

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

QUARTERS = ("Q1", "Q2", "Q3", "Q4")
REGIONS = ("North", "South", "East", "West")
# (region, quarter, figure): spread over rows and columns so a shifted column shows.
SAMPLES = (("North", "Q3", "151"), ("East", "Q4", "171"), ("West", "Q1", "87"), ("South", "Q2", "104"))
TITLE = "sales by region"


async def _table(s: Session) -> tuple[Element | None, str]:
    hook = await s.find(".sales")
    if hook is None:
        return None, "No element has the class 'sales' the prompt asked for"
    table = await table_in(s, hook)
    if table is None:
        return None, f"{hook.describe()} is not exposed as a table: a screen reader cannot move by rows and columns"
    return table, ""


def _is_row_header(cell: Element) -> bool:
    # A <th> without scope in a body row is a row header to browsers (simple tables need no
    # scope), although axe's own role guess calls it a column header; scope=col rules it out.
    if cell.role == "rowheader":
        return True
    scope = (cell.attr("scope") or "").lower()
    return cell.tag == "th" and cell.attr("role") is None and scope not in ("col", "colgroup")


def _column_index(rows: list[list[Element]], title: str) -> int | None:
    for cells in rows:
        for index, cell in enumerate(cells):
            if cell.role == "columnheader" and title.lower() in cell.name.lower():
                return index
    return None


@requirement("exposed-as-table", "The figures are exposed as a table that screen readers can navigate")
async def exposed_as_table(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    return passed(f"The figures are in {table.describe()}")


@requirement("column-headers", "Each quarter is a column header")
async def column_headers(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    rows = await table_rows(s, table)
    missing = [q for q in QUARTERS if _column_index(rows, q) is None]
    if missing:
        return failed(f"{', '.join(missing)} are not column headers; figures are read without their quarter")
    return passed("Q1 to Q4 are column headers")


@requirement("row-headers", "Each region is a row header")
async def row_headers(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    rows = await table_rows(s, table)
    found = {r for r in REGIONS for cells in rows for c in cells if _is_row_header(c) and r.lower() in c.name.lower()}
    missing = [r for r in REGIONS if r not in found]
    if missing:
        return failed(f"{', '.join(missing)} are not row headers; figures are read without their region")
    return passed("North, South, East and West are row headers")


@requirement("figures-under-headers", "Each figure sits in the row of its region and the column of its quarter")
async def figures_under_headers(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    rows = await table_rows(s, table)
    for region, quarter, figure in SAMPLES:
        index = _column_index(rows, quarter)
        if index is None:
            return failed(f"There is no {quarter} column header to read {region}'s figure under")
        row = next(
            (cells for cells in rows if cells and cells[0].text.strip().lower().startswith(region.lower())), None
        )
        if row is None:
            row = next((cells for cells in rows if any(c.text.strip().lower() == region.lower() for c in cells)), None)
        if row is None:
            return failed(f"No row of the table starts with {region}")
        cell = row[index] if index < len(row) else None
        if cell is None or figure not in cell.text:
            heard = cell.text if cell is not None else "no cell at all"
            return failed(f"Under {quarter} the {region} row holds {heard!r}, not {figure}: the columns do not line up")
    return passed("Sampled figures are in their region's row and their quarter's column")


@best_practice("table-has-name", "The table is named by its title (caption, aria-labelledby or aria-label)")
async def table_has_name(s: Session) -> Outcome:
    table, why = await _table(s)
    if table is None:
        return failed(why)
    if TITLE not in table.name.lower():
        return failed(f"The table's accessible name is {table.name!r}; its title is not tied to it")
    return passed(f"The table is named {table.name!r}")
