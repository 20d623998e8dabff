"""Checks for the link case (APG link pattern).

The links are the entries of the ``.toc`` element: elements with role link when there are any,
otherwise whatever element names each section, so that a clickable ``<span>`` is found and failed
rather than missed.
"""

from __future__ import annotations

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement

SECTIONS = ("Shipping", "Returns", "Contact")
NO_TOC = "No element has the class 'toc' the prompt asked for"


async def _entries(s: Session) -> list[Element] | None:
    """One element per section in the table of contents, in order; None without a ``.toc``."""
    toc = await s.find(".toc")
    if toc is None:
        return None
    inside = await s.find_all("*", toc)
    links = [e for e in inside if e.role == "link"]
    pool = links or inside
    found = []
    for word in SECTIONS:
        matches = [e for e in pool if word.lower() in e.text.lower()]
        # The innermost element that carries the word is the entry a person would click.
        for candidate in matches:
            if not [o for o in matches if o.ref != candidate.ref and await s.contains(candidate, o)]:
                found.append(candidate)
                break
    return found


async def _section_heading(s: Session, word: str) -> Element | None:
    toc = await s.find(".toc")
    for heading in await s.by_role("heading"):
        if word.lower() in heading.name.lower() and (toc is None or not await s.contains(toc, heading)):
            return heading
    return None


@requirement("links-exposed", "Each table-of-contents entry is exposed as a link named after its section")
async def links_exposed(s: Session) -> Outcome:
    entries = await _entries(s)
    if entries is None:
        return failed(NO_TOC)
    if len(entries) < len(SECTIONS):
        return failed(f"Only {len(entries)} of the {len(SECTIONS)} entries were found in the table of contents")
    for entry, word in zip(entries, SECTIONS, strict=True):
        if entry.role != "link":
            return failed(f"The '{word}' entry is {entry.describe()}; a screen reader does not announce a link")
        if word.lower() not in entry.name.lower():
            return failed(f"The '{word}' link is named {entry.name!r}")
    return passed("All three entries are links named after their sections")


@requirement("links-focusable", "Tab reaches every link of the table of contents, in reading order")
async def links_focusable(s: Session) -> Outcome:
    entries = await _entries(s)
    if entries is None:
        return failed(NO_TOC)
    if len(entries) < len(SECTIONS):
        return failed(f"Only {len(entries)} of the {len(SECTIONS)} entries were found in the table of contents")
    stops = [e.ref for e in await s.tab_sequence(max_stops=30)]
    positions = []
    for entry, word in zip(entries, SECTIONS, strict=True):
        if entry.ref not in stops:
            return failed(f"Pressing Tab never reaches the '{word}' entry, {entry.describe()}")
        positions.append(stops.index(entry.ref))
    if positions != sorted(positions):
        return failed("Tab visits the table-of-contents links out of reading order")
    return passed("Tab reaches the three links in order")


@requirement("enter-follows", "Enter on the focused 'Returns' link takes the reader to the Returns section")
async def enter_follows(s: Session) -> Outcome:
    entries = await _entries(s)
    if entries is None:
        return failed(NO_TOC)
    if len(entries) < 2:
        return failed("No 'Returns' entry was found in the table of contents")
    target = await _section_heading(s, "Returns")
    if target is None:
        return failed("No heading names the Returns section")
    if not await s.tab_to(entries[1]):
        return failed(f"Pressing Tab never reaches {entries[1].describe()}")
    hash_before = await s.page.evaluate("location.hash")
    await s.press("Enter")

    async def arrived() -> str:
        """How the reader got to the section ('' while they have not): a smooth scroll, or a
        script that scrolls after a moment, is asked again (Session.eventually)."""
        hash_after = await s.page.evaluate("location.hash")
        heading = await s.refresh(target)
        if hash_after and hash_after != hash_before:
            anchors = await s.find_all(f"[id='{hash_after[1:]}'], a[name='{hash_after[1:]}']")
            if anchors and (await s.contains(anchors[0], heading) or await _near(s, anchors[0], heading)):
                return f"Enter followed the link to {hash_after}"
        if -20 <= heading.rect["y"] < 200 and heading.rect["y"] != target.rect["y"]:
            return "Enter scrolled the Returns section to the top of the window"
        if await s.active() is not None and await s.focus_within(heading):
            return "Enter moved focus to the Returns section"
        return ""

    how = await s.eventually(arrived)
    if how:
        return passed(how)
    return failed("Enter on the focused 'Returns' link neither followed it nor brought the section into view")


async def _near(s: Session, anchor: Element, heading: Element) -> bool:
    """The anchor is the heading itself, its section, or an empty marker right above it."""
    if anchor.ref == heading.ref or await s.contains(heading, anchor):
        return True
    return abs(anchor.rect["y"] - heading.rect["y"]) < 120


@best_practice("native-anchors", "The links are native <a href> elements (open in new tab, copy link, visited)")
async def native_anchors(s: Session) -> Outcome:
    entries = await _entries(s)
    if not entries:
        return failed("No table-of-contents entries were found")
    for entry in entries:
        if entry.tag != "a" or entry.attr("href") is None:
            return failed(f"{entry.describe()} is not an <a href>, so browser link features do not work on it")
    return passed("Every entry is a native <a href>")


@best_practice("focus-visible", "A focused link shows a visible focus indicator")
async def focus_visible(s: Session) -> Outcome:
    entries = await _entries(s)
    if not entries:
        return failed("No table-of-contents entries were found")
    if not await s.tab_to(entries[0]):
        return failed(f"Pressing Tab never reaches {entries[0].describe()}")
    ok, message = await s.has_visible_focus_indicator(await s.active() or entries[0])
    return passed(message) if ok else failed(message)
