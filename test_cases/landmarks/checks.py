"""Checks for the landmarks case (APG landmark regions).

Landmarks are read from what assistive technology exposes (``Session.landmarks``), so
``<header>`` and ``role="banner"`` count the same, and a ``<header>`` inside ``<main>`` (which is
no banner) does not.
"""

from __future__ import annotations

from collections import defaultdict

from lm_eval_a11y.checks import Outcome, Session, best_practice, failed, not_applicable, passed, requirement

# Elements that are (or may be) landmarks, for a CSS pre-filter of content outside them; the
# landmark list from the accessibility side stays the reference for everything else.
LANDMARKS_CSS = (
    "header, footer, nav, main, aside, search, form[aria-label], form[aria-labelledby], "
    "section[aria-label], section[aria-labelledby], [role='banner'], [role='navigation'], [role='main'], "
    "[role='complementary'], [role='contentinfo'], [role='search'], [role='region'], [role='form']"
)
CONTENT_CSS = (
    "h1, h2, h3, h4, h5, h6, p, li, a[href], button, input:not([type='hidden']), select, textarea, img, "
    "table, address, blockquote, figure, dl"
)


@requirement("one-main", "The page has exactly one main landmark")
async def one_main(s: Session) -> Outcome:
    mains = [m for m in await s.landmarks() if m.role == "main"]
    if len(mains) != 1:
        return failed(f"The page has {len(mains)} main landmarks; screen reader users jump to 'main' to skip chrome")
    return passed("The page has one main landmark")


@requirement("banner-and-contentinfo", "The site header is a banner landmark and the footer a contentinfo landmark")
async def banner_and_contentinfo(s: Session) -> Outcome:
    roles = [m.role for m in await s.landmarks()]
    missing = [role for role in ("banner", "contentinfo") if role not in roles]
    if missing:
        return failed(
            f"No {' or '.join(missing)} landmark: a <header>/<footer> inside <main> or <article>, or a <div>, "
            "is not announced as the page's header or footer"
        )
    return passed("The page has a banner and a contentinfo landmark")


@requirement("navigation-landmark", "The main menu is inside a navigation landmark")
async def navigation_landmark(s: Session) -> Outcome:
    navigations = [m for m in await s.landmarks() if m.role == "navigation"]
    words = ("catalogue", "events", "kids")
    menu_links = [a for a in await s.by_role("link") if any(w in a.name.strip().lower() for w in words)]
    if not menu_links:
        return failed("No links named Catalogue, Events or Kids were found")
    for nav in navigations:
        inside = [a for a in menu_links if await s.probe("contains", nav.ref, a.ref)]
        if len({w for a in inside for w in words if w in a.name.lower()}) >= 2:
            return passed(f"The menu is in a navigation landmark{f' named {nav.name!r}' if nav.name else ''}")
    return failed("The menu links are not inside any navigation landmark")


@requirement("content-in-landmarks", "All visible content sits inside some landmark")
async def content_in_landmarks(s: Session) -> Outcome:
    outside = await s.find_all(f":is({CONTENT_CSS}):not(:is({LANDMARKS_CSS}) *):not(:is({LANDMARKS_CSS}))")
    landmarks = await s.landmarks()
    stray = []
    for element in outside:
        if not element.visible or element.hidden_from_at:
            continue
        if element.tag == "a" and (element.attr("href") or "").startswith("#"):
            continue  # a skip link before the landmarks is expected
        if any([await s.probe("contains", m.ref, element.ref) for m in landmarks]):
            continue
        stray.append(element)
    if stray:
        sample = ", ".join(e.describe() for e in stray[:3])
        return failed(f"{len(stray)} visible element(s) are outside every landmark, e.g. {sample}")
    return passed("Every visible piece of content is inside a landmark")


@requirement(
    "duplicates-labelled",
    "Landmarks of the same kind (e.g. two navigations) have distinct names",
    na_allowed=True,
)
async def duplicates_labelled(s: Session) -> Outcome:
    by_role: dict[str, list[str]] = defaultdict(list)
    for landmark in await s.landmarks():
        by_role[landmark.role].append(landmark.name.strip().lower())
    repeated = {role: names for role, names in by_role.items() if len(names) > 1}
    if not repeated:
        return not_applicable("No landmark role is used more than once")
    for role, names in repeated.items():
        if "" in names or len(set(names)) != len(names):
            return failed(f"The page has {len(names)} {role} landmarks named {names}: they cannot be told apart")
    return passed(f"Repeated landmarks have distinct names: {dict(repeated)}")


@best_practice("search-landmark", "The catalogue search is inside a search landmark")
async def search_landmark(s: Session) -> Outcome:
    searches = [m for m in await s.landmarks() if m.role == "search"]
    fields = await s.by_role(["searchbox", "textbox", "combobox"])
    if not fields:
        return failed("No search field was found")
    for landmark in searches:
        if await s.probe("contains", landmark.ref, fields[0].ref):
            return passed("The search field is inside a search landmark")
    return failed("The search field is not inside a search landmark (role='search' or <search>)")


@best_practice("sidebar-complementary", "The sidebar with the opening hours is a complementary landmark")
async def sidebar_complementary(s: Session) -> Outcome:
    marks = [
        e
        for e in await s.find_all("h1, h2, h3, h4, h5, h6, [role='heading'], caption, dt, th, strong, b, p")
        if "hours" in e.text.lower() and e.visible
    ]
    if not marks:
        return failed("No heading or label for the opening hours was found")
    for landmark in await s.landmarks():
        if landmark.role == "complementary" and await s.probe("contains", landmark.ref, marks[0].ref):
            named = f" named {landmark.name!r}" if landmark.name else ""
            return passed(f"The opening hours are in a complementary landmark{named}")
    return failed("The opening hours sidebar is not in a complementary landmark (<aside> or role='complementary')")
