"""Checks for the breadcrumb case (APG breadcrumb pattern)."""

from __future__ import annotations

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement

ANCESTORS = ("Home", "Men", "Footwear")
CURRENT = "trail runner 2"
SEPARATORS = (">", "/", "›", "»", "→", "|", "\\")
NO_TRAIL = "No element has the class 'breadcrumb' the prompt asked for"


async def _trail(s: Session) -> tuple[Element | None, Element | None]:
    """(the hooked element, the navigation landmark that holds it or that it holds)."""
    hook = await s.find(".breadcrumb")
    if hook is None:
        return None, None
    if hook.role == "navigation":
        return hook, hook
    for nav in await s.by_role("navigation"):
        if await s.contains(nav, hook) or await s.contains(hook, nav):
            return hook, nav
    return hook, None


async def _region(s: Session) -> Element | None:
    hook, nav = await _trail(s)
    if hook is None:
        return None
    if nav is not None and await s.contains(nav, hook):
        return nav
    return hook


@requirement("in-named-navigation", "The trail is a navigation landmark with its own name (e.g. 'Breadcrumb')")
async def in_named_navigation(s: Session) -> Outcome:
    hook, nav = await _trail(s)
    if hook is None:
        return failed(NO_TRAIL)
    if nav is None:
        return failed("The breadcrumb trail is not in a navigation landmark, so it cannot be found as one")
    if not nav.name.strip():
        return failed("The breadcrumb navigation has no name; it cannot be told apart from the main menu")
    others = [n for n in await s.by_role("navigation") if n.ref != nav.ref and not n.hidden_from_at]
    if any(o.name.strip().lower() == nav.name.strip().lower() for o in others):
        return failed(f"Another navigation landmark has the same name {nav.name!r}")
    return passed(f"The trail is a navigation landmark named {nav.name!r}")


@requirement("ancestor-links", "Home, Men and Footwear are links that take keyboard focus")
async def ancestor_links(s: Session) -> Outcome:
    region = await _region(s)
    if region is None:
        return failed(NO_TRAIL)
    links = [e for e in await s.find_all("*", region) if e.role == "link"]
    for word in ANCESTORS:
        match = [a for a in links if a.name.strip().lower() == word.lower()]
        if not match:
            return failed(f"'{word}' is not a link named {word!r} in the breadcrumb trail")
        if not match[0].focusable:
            return failed(f"The '{word}' link cannot take keyboard focus")
    return passed("Home, Men and Footwear are focusable links")


@requirement("current-page-marked", "A link to the current page, Trail Runner 2, is marked with aria-current")
async def current_page_marked(s: Session) -> Outcome:
    region = await _region(s)
    if region is None:
        return failed(NO_TRAIL)
    items = [e for e in await s.find_all("*", region) if CURRENT in e.text.lower()]
    if not items:
        return failed("The breadcrumb trail does not end with 'Trail Runner 2'")
    for item in items:
        if item.attr("aria-current") in ("page", "location", "true"):
            return passed(f"{item.describe()} has aria-current={item.attr('aria-current')!r}")
    # The APG asks for aria-current on a link to the current page; when the current page is
    # plain text rather than a link, the attribute is optional.
    if not [item for item in items if item.role == "link"]:
        return passed("'Trail Runner 2' is plain text, not a link; the APG makes aria-current optional there")
    return failed("The link to 'Trail Runner 2' does not tell assistive technology it is the current page")


@best_practice("separators-not-read", "Separators between items are decoration that screen readers do not read")
async def separators_not_read(s: Session) -> Outcome:
    region = await _region(s)
    if region is None:
        return failed(NO_TRAIL)
    containers = [e for e in await s.find_all("li, [role='listitem']", region)] or [region]
    for container in containers:
        remaining = container.text
        for child in await s.find_all("*", container):
            if child.hidden_from_at or child.role == "link":
                remaining = remaining.replace(child.text, " ")
        found = [sep for sep in SEPARATORS if sep in remaining]
        if found:
            return failed(f"The separator {found[0]!r} is text a screen reader reads out between the items")
    return passed("No separator characters are read between the items")


@best_practice("list-structure", "The items form a list, so a screen reader says how many there are")
async def list_structure(s: Session) -> Outcome:
    region = await _region(s)
    if region is None:
        return failed(NO_TRAIL)
    lists = [e for e in await s.find_all("ol, ul, [role='list']", region) if e.role == "list"]
    if region.role == "list" or lists:
        return passed("The breadcrumb items are a list")
    return failed("The breadcrumb items are not in a list")
