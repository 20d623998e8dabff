"""Checks for the pricing page case (plan cards and a comparison table).

Each card's call to action is its last button (or, failing that, its last link): cards often hold
other links ("Learn more") above it.
"""

from __future__ import annotations

import re

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, element_by_id, failed, passed, requirement

PLAN = ".plan"
PLANS = (
    ("Free", re.compile(r"\bfree\b", re.I)),
    ("Pro", re.compile(r"\bpro\b", re.I)),
    ("Team", re.compile(r"\bteams?\b", re.I)),
)
HEADINGS = "h1, h2, h3, h4, h5, h6, [role='heading']"
TABLES = "table, [role='table'], [role='grid']"
CELLS = ":scope > th, :scope > td, :scope > [role]"
MIN_FEATURES = 5
MAX_STOPS = 80


def _plan_of(text: str) -> str | None:
    """The plan a card is about: the plan name it mentions first ("Team ... everything in Pro")."""
    hits = [(m.start(), label) for label, pattern in PLANS if (m := pattern.search(text))]
    return min(hits)[1] if hits else None


async def _cards(s: Session) -> tuple[dict[str, Element], str]:
    cards = await s.find_all(PLAN)
    found: dict[str, Element] = {}
    for card in cards:
        label = _plan_of(card.text)
        if label is not None and label not in found:
            found[label] = card
    missing = [label for label, _ in PLANS if label not in found]
    if missing:
        return {}, f"No element with the class 'plan' is the {', '.join(missing)} plan ({len(cards)} found)"
    return found, ""


async def _cta(s: Session, card: Element) -> Element | None:
    controls = await s.find_all("button, a[href], [role='button'], [role='link'], input[type='submit']", within=card)
    buttons = [c for c in controls if c.role == "button" and c.visible]
    links = [c for c in controls if c.role == "link" and c.visible]
    chosen = buttons or links
    return chosen[-1] if chosen else None


async def _described(s: Session, el: Element) -> str:
    parts = [el.name]
    for ref_id in (el.attr("aria-describedby") or "").split():
        target = await element_by_id(s, ref_id)
        parts.append(target.text if target else "")
    return " ".join(p.strip() for p in parts if p.strip()).lower()


@requirement("plan-headings", "Each plan card starts with a heading that names the plan")
async def plan_headings(s: Session) -> Outcome:
    cards, reason = await _cards(s)
    if not cards:
        return failed(reason)
    for label, pattern in PLANS:
        headings = await s.find_all(HEADINGS, within=cards[label])
        if not any(h.role == "heading" and not h.hidden_from_at and pattern.search(h.name) for h in headings):
            return failed(f"The {label} card has no heading naming the plan, so it cannot be found by heading")
    return passed("Each plan card has a heading with the plan's name")


@requirement("cta-operable", "Each card's call to action is a button or link reached with Tab")
async def cta_operable(s: Session) -> Outcome:
    cards, reason = await _cards(s)
    if not cards:
        return failed(reason)
    ctas: dict[str, Element] = {}
    for label, card in cards.items():
        cta = await _cta(s, card)
        if cta is None:
            return failed(f"The {label} card holds no button or link to choose it")
        ctas[label] = cta
    stops = {el.ref for el in await s.tab_sequence(max_stops=MAX_STOPS)}
    missed = [label for label, cta in ctas.items() if cta.ref not in stops]
    if missed:
        return failed(f"Tab never reaches the call to action of {', '.join(missed)}")
    return passed("Each plan's call to action is a button or link in the Tab order")


async def _table_rows(s: Session, table: Element) -> list[list[Element]]:
    rows = await s.find_all("tr, [role='row']", within=table)
    return [await s.find_all(CELLS, within=row) for row in rows]


def _header_kind(cell: Element, first_row: bool) -> str | None:
    """'col', 'row' or None, as a screen reader takes the cell (explicit role or scope first)."""
    role = cell.attr("role")
    if role in ("columnheader", "rowheader"):
        return "col" if role == "columnheader" else "row"
    if cell.tag != "th" or role is not None:
        return None
    scope = (cell.attr("scope") or "").lower()
    if scope in ("col", "colgroup"):
        return "col"
    if scope in ("row", "rowgroup"):
        return "row"
    return "col" if first_row else "row"


@requirement("comparison-table", "The comparison is a table whose plan columns and feature rows have header cells")
async def comparison_table(s: Session) -> Outcome:
    tables = [t for t in await s.find_all(TABLES) if not t.hidden_from_at]
    if not tables:
        return failed("The comparison is not a table: screen readers cannot tell a cell's plan and feature")
    problems = []
    for table in tables:
        rows = await _table_rows(s, table)
        columns = [c for i, row in enumerate(rows) for c in row if _header_kind(c, i == 0) == "col"]
        row_heads = [c for i, row in enumerate(rows) for c in row if _header_kind(c, i == 0) == "row"]
        named = sum(1 for _, pattern in PLANS if any(pattern.search(c.text) for c in columns))
        if named < len(PLANS):
            problems.append(f"{len(columns)} column headers name {named} of the three plans")
        elif len(row_heads) < MIN_FEATURES:
            problems.append(f"only {len(row_heads)} feature rows start with a row header (<th>)")
        else:
            return passed(f"The comparison table has plan column headers and {len(row_heads)} feature row headers")
    return failed("The comparison table lacks header cells: " + "; ".join(problems))


@best_practice("cta-names-distinct", "The three calls to action can be told apart by name or description")
async def cta_names_distinct(s: Session) -> Outcome:
    cards, reason = await _cards(s)
    if not cards:
        return failed(reason)
    texts = []
    for label, card in cards.items():
        cta = await _cta(s, card)
        if cta is None:
            return failed(f"The {label} card holds no button or link to choose it")
        texts.append(await _described(s, cta))
    if len(set(texts)) < len(texts):
        return failed(f"The calls to action read the same out of context: {texts}")
    return passed(f"The calls to action differ: {texts}")


@best_practice("comparison-cells-have-text", "Every comparison cell says something (text or a named icon)")
async def comparison_cells_have_text(s: Session) -> Outcome:
    tables = [t for t in await s.find_all(TABLES) if not t.hidden_from_at]
    if not tables:
        return failed("There is no comparison table")
    for table in tables:
        for row in (await _table_rows(s, table))[1:]:
            for cell in row:
                if _header_kind(cell, False) or cell.hidden_from_at:
                    continue
                if not (cell.name.strip() or cell.text.strip()):
                    return failed(f"A comparison cell says nothing to a screen reader: {cell.describe()}")
    return passed("Every comparison cell has text")
