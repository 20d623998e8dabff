"""Checks for the shopping home page case (page structure: landmarks, headings, skip link).

The prompt does not mention a skip link, so having one is a best practice; a skip link that is
there but does not move the keyboard to the main content is a requirement failure, because it
promises keyboard users a shortcut and strands them.
"""

from __future__ import annotations

import re

from lm_eval_a11y.checks import (
    Element,
    Outcome,
    Session,
    best_practice,
    css_string,
    failed,
    id_selector,
    not_applicable,
    passed,
    requirement,
)

SKIP_NAME = re.compile(r"skip|main|content|jump", re.IGNORECASE)
SKIP_LINK_STOPS = 3


async def _skip_link(s: Session) -> Element | None:
    """An in-page link among the first Tab stops whose name says it skips to the content."""
    for stop in await s.tab_sequence(max_stops=SKIP_LINK_STOPS):
        href = stop.attr("href") or ""
        if stop.role == "link" and href.startswith("#") and len(href) > 1 and SKIP_NAME.search(stop.name):
            return stop
    return None


@requirement("page-landmarks", "The page has one main landmark plus banner, navigation and contentinfo landmarks")
async def page_landmarks(s: Session) -> Outcome:
    roles = [m.role for m in await s.landmarks()]
    problems = []
    if roles.count("main") != 1:
        problems.append(f"{roles.count('main')} main landmarks (expected exactly one)")
    for role in ("banner", "navigation", "contentinfo"):
        if role not in roles:
            problems.append(f"no {role} landmark")
    if problems:
        return failed("The page has " + ", ".join(problems) + f"; landmarks found: {roles or 'none'}")
    return passed(f"Landmarks: {', '.join(roles)}")


@requirement("single-h1", "The page has exactly one level-1 heading")
async def single_h1(s: Session) -> Outcome:
    top = [h.name for h in await s.headings() if h.level == 1]
    if len(top) != 1:
        return failed(f"The page has {len(top)} level-1 headings: {top}")
    return passed(f"The only level-1 heading is {top[0]!r}")


@requirement("heading-order", "Heading levels never skip a level on the way down (h2 after h1, h3 after h2)")
async def heading_order(s: Session) -> Outcome:
    headings = await s.headings()
    if not headings:
        return failed("The page has no headings at all")
    previous = 1
    for heading in headings:
        if heading.level > previous + 1:
            return failed(f"Heading {heading.name!r} is level {heading.level} right after a level {previous}")
        previous = heading.level
    return passed(f"{len(headings)} headings, none skips a level")


@requirement(
    "skip-link-works",
    "A skip link, when present, moves keyboard focus to the start of the main content",
    na_allowed=True,
)
async def skip_link_works(s: Session) -> Outcome:
    link = await _skip_link(s)
    if link is None:
        return not_applicable("The first Tab stops hold no skip link")
    fragment = (link.attr("href") or "#")[1:]
    target = await s.find(f"{id_selector(fragment)}, a[name={css_string(fragment)}]")
    if target is None:
        return failed(f"{link.describe()} points to {link.attr('href')!r}, which is not on the page")
    # Without a main landmark, the link's own target is the best statement of the main content.
    mains = {m.ref for m in await s.landmarks() if m.role == "main"}
    region = next((m for m in await s.find_all("main, [role=main]") if m.ref in mains), target)
    skipped = await s.content_before(target, region)
    if skipped is not None:
        return failed(
            f"{link.describe()} lands on {target.describe()}, past {skipped} at the start of the main content"
        )
    if not await s.tab_to(link):
        return failed(f"Tab never reaches {link.describe()}")
    await s.press("Enter")
    if await s.focus_within(region):
        return passed("Enter on the skip link moves focus into the main content")
    after = await s.press("Tab")
    if await s.focus_within(region):
        return passed("After the skip link, the next Tab stop is inside the main content")
    where = after.describe() if after else "the page body"
    return failed(f"After the skip link and one Tab, focus is on {where}, outside the main content")


@best_practice("has-skip-link", "One of the first Tab stops is a link that skips to the main content")
async def has_skip_link(s: Session) -> Outcome:
    link = await _skip_link(s)
    if link is None:
        return failed(f"None of the first {SKIP_LINK_STOPS} Tab stops is a skip link")
    return passed(f"Skip link: {link.describe()}")
