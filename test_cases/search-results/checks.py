"""Checks for the search results page case.

A new search changes the page without loading a new one, so a screen-reader user has to be told
the outcome: the count must land in a live region that already existed (or role="alert"), or
focus must move to the results (their heading, the count or the list).
"""

from __future__ import annotations

import re

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, find_hook, passed, requirement

QUERY = "input[name=q]"
COUNT = ".result-count"
RESULT = ".result"
NEW_QUERY = "soup"
RESULTS_HEADING = re.compile(r"result|match|found|recipe|search|lemon|soup", re.IGNORECASE)
SITE_NAME = re.compile(r"panful(\s+recipes)?", re.IGNORECASE)
ASIDE_ROLES = ("banner", "navigation", "complementary", "search", "form", "contentinfo")
LANDMARK_ELEMENTS = "header, nav, aside, footer, form, search, [role]"
HEADING_ELEMENTS = "h1, h2, h3, h4, h5, h6, [role='heading']"
SEARCH = re.compile(r"search|find|go", re.IGNORECASE)
LIVE_REGIONS = '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"], output'


async def _search_button(s: Session) -> Element | None:
    buttons = [b for b in await s.by_role("button") if b.visible]
    for wanted in (lambda b: b.name.strip().lower() == "search", lambda b: bool(SEARCH.search(b.name))):
        for button in buttons:
            if wanted(button):
                return button
    return next((b for b in buttons if b.attr("type") == "submit"), None)


async def _new_search(s: Session) -> tuple[Element | None, str]:
    """Type a new query and click the search button; return the count element afterwards."""
    field = await s.find(QUERY)
    if field is None:
        return None, "No input named 'q' as the prompt asked"
    count = await s.find(COUNT)
    if count is None or not count.text.strip():
        return None, "No element with the class 'result-count' shows a count when the page opens"
    button = await _search_button(s)
    if button is None:
        return None, "No visible 'Search' button"
    await s.focus(field)
    await s.press("Control+a")
    await s.type_text(NEW_QUERY)
    await s.click(button)

    async def changed() -> Element | None:
        now = await s.find(COUNT)
        return now if now is not None and now.text != count.text else None

    # Results often arrive after a pretend request to a server: asked for again for a while.
    after = await s.eventually(changed) or await s.find(COUNT)
    if after is None or after.text == count.text:
        return None, f"After searching for {NEW_QUERY!r} the result count still reads {count.text!r}"
    return after, ""


@requirement("search-field-named", "The search field has an accessible name")
async def search_field_named(s: Session) -> Outcome:
    field = await find_hook(s, QUERY, "No input named 'q' as the prompt asked")
    if not field.name.strip():
        return failed(f"The search field {field.describe()} has no accessible name")
    return passed(f"The search field is named {field.name!r}")


@requirement("results-heading", "A heading introduces the results")
async def results_heading(s: Session) -> Outcome:
    headings = {h.ref: h for h in await s.headings()}
    # Headings of the site header, navigation, sidebars and the search form do not introduce results.
    aside_refs = {m.ref for m in await s.landmarks() if m.role in ASIDE_ROLES}
    asides = [el for el in await s.find_all(LANDMARK_ELEMENTS) if el.ref in aside_refs]
    for el in await s.find_all(f"{HEADING_ELEMENTS}, {RESULT}"):
        if el.ref not in headings:
            if RESULT[1:] in el.classes:
                break
            continue
        name = headings[el.ref].name.strip()
        if not name or SITE_NAME.fullmatch(name) or any([await s.contains(a, el) for a in asides]):
            continue
        return passed(f"The heading {name!r} introduces the results")
    names = [h.name for h in headings.values()]
    return failed(f"No heading comes before the results to introduce them; the headings are {names}")


@requirement("results-structured", "The results are items of one list, or each result has its own heading")
async def results_structured(s: Session) -> Outcome:
    results = await s.find_all(RESULT)
    if len(results) < 2:
        return failed(f"Expected several elements with the class 'result' for 'lemon', found {len(results)}")
    items = await s.find_all("li, [role='listitem']")
    lists = await s.find_all("ul, ol, [role='list']")
    holders: set[int] = set()
    for result in results:
        item = result if result.role == "listitem" else None
        if item is None:
            for candidate in items:
                if candidate.role == "listitem" and await s.contains(candidate, result):
                    item = candidate
        if item is not None:
            holders.update([lst.ref for lst in lists if lst.role == "list" and await s.contains(lst, item)][-1:])
            continue
        if not await s.find_all(HEADING_ELEMENTS, within=result):
            return failed(f"{result.describe()} is neither a list item nor headed: the results read as one block")
    if len(holders) > 1:
        return failed("The results are spread over several lists")
    return passed(f"{len(results)} results are structured as a list or under headings")


@requirement("count-announced", "After a new search, the new count is announced or focus moves to the results")
async def count_announced(s: Session) -> Outcome:
    before = {r.ref for r in await s.find_all(LIVE_REGIONS)}
    count, reason = await _new_search(s)
    if count is None:
        return failed(reason)
    why = "it is in no live region"
    for region in await s.find_all(LIVE_REGIONS):
        if region.hidden_from_at or not (await s.contains(region, count) or await s.contains(count, region)):
            continue
        if region.role == "alert" or region.ref in before:
            return passed(f"The new count {count.text!r} is written into a live region that was already there")
        why = "the live region holding it was created anew with the results, so it is not announced"
    active = await s.active()
    if active is not None:
        if await s.contains(active, count) or await s.contains(count, active):
            return passed("Focus moves to the result count")
        if active.role == "heading" and RESULTS_HEADING.search(active.name):
            return passed("Focus moves to the results heading")
        first = await s.find(RESULT)
        if first is not None and await s.contains(active, first):
            return passed("Focus moves to the results")
    where = active.describe() if active else "the page body"
    return failed(f"The count changes to {count.text!r} silently ({why}); focus stays on {where}")


@best_practice("search-landmark", "The search form is a search landmark (role='search' or <search>)")
async def search_landmark(s: Session) -> Outcome:
    field = await find_hook(s, QUERY, "No input named 'q' as the prompt asked")
    marks = {m.ref for m in await s.landmarks() if m.role == "search"}
    for candidate in await s.find_all("[role='search'], search, form"):
        if candidate.ref in marks and await s.contains(candidate, field):
            return passed("The search form is a search landmark")
    return failed("The search form is not inside a search landmark")
