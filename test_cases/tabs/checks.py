"""Checks for the tabs case (APG tabs pattern)."""

from __future__ import annotations

from lm_eval_a11y.checks import (
    Element,
    Outcome,
    Session,
    best_practice,
    element_by_id,
    failed,
    focused_item,
    passed,
    requirement,
)

NO_TABS = "Fewer than two elements have the class 'tab' the prompt asked for"


async def _tablist(s: Session, tabs: list[Element]) -> Element | None:
    for tablist in await s.by_role("tablist"):
        if await s.contains(tablist, tabs[0]):
            return tablist
    return None


async def _tabs(s: Session) -> list[Element]:
    """Each hooked tab, or the tab inside it when the class sits on a wrapper such as an <li>."""
    hooked = await s.find_all(".tab")
    if all(h.role == "tab" for h in hooked):
        return hooked
    inner = [t for t in await s.by_role("tab") if not t.hidden_from_at]
    tabs = []
    for h in hooked:
        found = h
        for t in inner:
            if await s.contains(h, t):
                found = t
                break
        tabs.append(found)
    return tabs


def _selected(tabs: list[Element]) -> list[int]:
    return [i for i, t in enumerate(tabs) if t.attr("aria-selected") == "true"]


async def _panel_for(s: Session, tabs: list[Element], panels: list[Element], index: int) -> Element | None:
    """The panel a tab shows: the one its aria-controls names, else the panel in the same position."""
    controls = tabs[index].attr("aria-controls")
    if controls:
        named = await element_by_id(s, controls)
        if named is not None:
            return named
    return panels[index] if index < len(panels) else None


async def _panels_problem(s: Session, shown: int) -> str | None:
    """Why the panels do not match tab ``shown`` being chosen, or None when they do."""
    tabs = await _tabs(s)
    panels = await s.find_all(".panel")
    if len(panels) < len(tabs):
        return f"There are {len(tabs)} tabs but only {len(panels)} elements with the class 'panel'"
    wanted = await _panel_for(s, tabs, panels, shown)
    for panel in panels:
        if wanted is not None and panel.ref == wanted.ref:
            if not panel.visible or panel.hidden_from_at:
                return f"The panel of tab {tabs[shown].name!r} is not shown while that tab is chosen"
        elif panel.visible:
            return f"A panel of another tab ({panel.text[:40]!r}) is visible while {tabs[shown].name!r} is chosen"
        elif not panel.hidden_from_at:
            return f"A panel of another tab ({panel.text[:40]!r}) is invisible but still read by a screen reader"
    return None


@requirement("tab-roles", "The tabs are exposed as named tabs inside a tablist")
async def tab_roles(s: Session) -> Outcome:
    tabs = await _tabs(s)
    if len(tabs) < 2:
        return failed(NO_TABS)
    for tab in tabs:
        if tab.role != "tab":
            return failed(f"{tab.describe()} is not exposed as a tab")
        if not tab.name:
            return failed(f"{tab.describe()} has no accessible name")
    if await _tablist(s, tabs) is None:
        return failed("The tabs are not inside an element with role 'tablist'")
    return passed(f"{len(tabs)} named tabs inside a tablist")


@requirement("selected-state", "Exactly one tab is marked selected, and choosing another tab moves the mark")
async def selected_state(s: Session) -> Outcome:
    tabs = await _tabs(s)
    if len(tabs) < 2:
        return failed(NO_TABS)
    before = _selected(tabs)
    if before != [0]:
        names = [tabs[i].name for i in before]
        return failed(f"On load the tabs marked aria-selected='true' are {names}; expected only the first")
    await s.click(tabs[-1])
    tabs = [await s.refresh(t) for t in tabs]
    after = _selected(tabs)
    if after != [len(tabs) - 1]:
        names = [tabs[i].name for i in after]
        return failed(f"After clicking {tabs[-1].name!r} the tabs marked selected are {names}")
    return passed("aria-selected marks the chosen tab, before and after clicking another")


@requirement("panels-hidden", "Only the chosen tab's panel is shown; the rest are hidden from sight and screen readers")
async def panels_hidden(s: Session) -> Outcome:
    tabs = await _tabs(s)
    if len(tabs) < 2:
        return failed(NO_TABS)
    problem = await _panels_problem(s, 0)
    if problem:
        return failed(f"On load: {problem}")
    await s.click(tabs[-1])
    problem = await _panels_problem(s, len(tabs) - 1)
    if problem:
        return failed(f"After clicking {tabs[-1].name!r}: {problem}")
    return passed("Only the chosen tab's panel is shown and read, before and after switching")


@requirement("arrow-keys", "Tab lands on the chosen tab; arrow keys move between tabs and can show the one reached")
async def arrow_keys(s: Session) -> Outcome:
    tabs = await _tabs(s)
    if len(tabs) < 2:
        return failed(NO_TABS)
    tablist = await _tablist(s, tabs)
    if not await s.tab_to(tablist or tabs[0]):
        return failed("Pressing Tab never reaches the tabs")
    current = await focused_item(s)
    if current is None or current.ref != tabs[0].ref:
        where = current.describe() if current else "the page body"
        return failed(f"Tabbing into the tabs lands on {where}, not on the chosen tab {tabs[0].name!r}")
    vertical = tablist is not None and tablist.attr("aria-orientation") == "vertical"
    forward, back = ("ArrowDown", "ArrowUp") if vertical else ("ArrowRight", "ArrowLeft")
    await s.press(forward)
    current = await focused_item(s)
    if current is None or current.ref != tabs[1].ref:
        where = current.describe() if current else "the page body"
        return failed(f"{forward} on the first tab leaves the keyboard on {where}, not on {tabs[1].name!r}")
    if _selected([await s.refresh(t) for t in tabs]) != [1]:
        await s.press("Enter")  # manual activation: the arrow only moves focus
    if _selected([await s.refresh(t) for t in tabs]) != [1]:
        return failed(f"Neither {forward} nor Enter makes {tabs[1].name!r} the selected tab")
    problem = await _panels_problem(s, 1)
    if problem:
        return failed(f"After choosing {tabs[1].name!r} from the keyboard: {problem}")
    await s.press(back)
    current = await focused_item(s)
    if current is None or current.ref != tabs[0].ref:
        return failed(f"{back} does not move back to {tabs[0].name!r}")
    return passed(f"{forward}/{back} move between tabs and the chosen tab's panel is shown")


@requirement("single-tab-stop", "The tab list is one stop in the Tab order, on the chosen tab, also after switching")
async def single_tab_stop(s: Session) -> Outcome:
    tabs = await _tabs(s)
    if len(tabs) < 2:
        return failed(NO_TABS)
    tablist = await _tablist(s, tabs)
    refs = {t.ref for t in tabs} | ({tablist.ref} if tablist else set())
    stops = [e for e in await s.tab_sequence() if e.ref in refs]
    if not stops:
        return failed("Pressing Tab never reaches the tabs")
    if len(stops) > 1:
        return failed(f"Tab stops on {len(stops)} tabs one after another; arrow keys should move between them")
    # The stop must follow the selection: a tab left in the Tab order after another was chosen
    # gives the list two stops, and Tab into the list lands on a tab that is not the chosen one.
    # The walk starts where the click left focus (a walk from the top would start after it).
    await s.click(tabs[-1])
    tabs = await _tabs(s)
    tablist = await _tablist(s, tabs)
    # The clicked tab counts as chosen even if aria-selected did not follow (selected-state's failure).
    chosen = {tabs[i].ref for i in [*_selected(tabs), -1]} | ({tablist.ref} if tablist else set())
    refs = {t.ref for t in tabs} | ({tablist.ref} if tablist else set())
    name = tabs[-1].name
    where = await s.active()
    if where is not None and where.ref in refs:
        where = await s.press("Tab")
        if where is not None and where.ref in refs:
            return failed(f"After clicking {name!r}, Tab from it stops on another tab, {where.describe()}")
    where = await s.press("Shift+Tab")
    if where is None or where.ref not in chosen:
        found = where.describe() if where else "the page body"
        return failed(f"After clicking {name!r}, Shift+Tab back into the tabs lands on {found}, not on the chosen tab")
    where = await s.press("Shift+Tab")
    if where is not None and where.ref in refs:
        return failed(f"After clicking {name!r}, the tabs still have a second Tab stop, {where.describe()}")
    return passed("The tabs take a single stop in the Tab order, on the chosen tab, before and after switching")


@best_practice("home-end", "Home and End move to the first and last tab")
async def home_end(s: Session) -> Outcome:
    tabs = await _tabs(s)
    if len(tabs) < 2:
        return failed(NO_TABS)
    if not await s.tab_to(await _tablist(s, tabs) or tabs[0]):
        return failed("Pressing Tab never reaches the tabs")
    await s.press("End")
    current = await focused_item(s)
    if current is None or current.ref != tabs[-1].ref:
        return failed(f"End does not move to the last tab {tabs[-1].name!r}")
    await s.press("Home")
    current = await focused_item(s)
    if current is None or current.ref != tabs[0].ref:
        return failed(f"Home does not move to the first tab {tabs[0].name!r}")
    return passed("Home and End reach the first and last tab")


@best_practice("panel-role", "The shown panel is a tabpanel named after its tab")
async def panel_role(s: Session) -> Outcome:
    tabs = await _tabs(s)
    panels = await s.find_all(".panel")
    if len(tabs) < 2 or not panels:
        return failed("The tabs or panels the prompt asked for are missing")
    panel = await _panel_for(s, tabs, panels, 0)
    if panel is None or panel.role != "tabpanel":
        return failed("The first panel does not have role 'tabpanel'")
    if not panel.name:
        return failed("The first tabpanel has no accessible name (aria-labelledby its tab)")
    return passed(f"The panel is a tabpanel named {panel.name!r}")


@best_practice("tabs-control-panels", "Each tab names its panel with aria-controls")
async def tabs_control_panels(s: Session) -> Outcome:
    tabs = await _tabs(s)
    if len(tabs) < 2:
        return failed(NO_TABS)
    panels = await s.find_all(".panel")
    for index, tab in enumerate(tabs):
        controls = tab.attr("aria-controls")
        if not controls:
            return failed(f"{tab.describe()} has no aria-controls naming its panel")
        named = await element_by_id(s, controls.split()[0])
        if named is None:
            return failed(f"{tab.describe()} has aria-controls={controls!r}, but no element has that id")
        if (
            index < len(panels)
            and named.ref != panels[index].ref
            and not await s.contains(named, panels[index])
            and not await s.contains(panels[index], named)
        ):
            return failed(f"{tab.describe()} controls {named.describe()}, not the panel in its position")
    return passed("Every tab names its panel with aria-controls")
