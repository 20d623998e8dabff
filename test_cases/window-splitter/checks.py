"""Checks for the mail app's pane divider (APG window splitter pattern)."""

from __future__ import annotations

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement

SPLITTER_ROLES = ("separator", "slider")
COLLAPSED_WIDTH = 8.0


async def _parts(s: Session) -> tuple[Element | None, Element | None, str]:
    splitter = await s.find(".splitter")
    sidebar = await s.find(".sidebar")
    if splitter is None:
        return None, None, "No element has the class 'splitter' the prompt asked for"
    if sidebar is None:
        return None, None, "No element has the class 'sidebar' the prompt asked for"
    return splitter, sidebar, ""


async def _width(s: Session, sidebar: Element) -> float:
    return float((await s.refresh(sidebar)).rect.get("width", 0.0))


async def _reach(s: Session, splitter: Element) -> str:
    if not splitter.focusable or not await s.tab_to(splitter):
        return f"Pressing Tab never reaches the divider {splitter.describe()}"
    return ""


@requirement("splitter-role", "The divider is exposed as a separator (or a slider)")
async def splitter_role(s: Session) -> Outcome:
    splitter, _sidebar, why = await _parts(s)
    if splitter is None:
        return failed(why)
    if splitter.role not in SPLITTER_ROLES:
        return failed(f"The divider is {splitter.describe()}; assistive technology does not know it is a splitter")
    return passed(f"The divider is {splitter.describe()}")


@requirement("reachable-and-named", "Tab reaches the divider, and it has an accessible name")
async def reachable_and_named(s: Session) -> Outcome:
    splitter, _sidebar, why = await _parts(s)
    if splitter is None:
        return failed(why)
    if not splitter.name.strip():
        return failed(f"The divider {splitter.describe()} has no accessible name; nothing says which pane it sizes")
    problem = await _reach(s, splitter)
    if problem:
        return failed(problem)
    return passed(f"Tab reaches the divider named {splitter.name!r}")


@requirement("arrow-keys-resize", "Right arrow widens the folder list and Left arrow narrows it again")
async def arrow_keys_resize(s: Session) -> Outcome:
    splitter, sidebar, why = await _parts(s)
    if splitter is None or sidebar is None:
        return failed(why)
    problem = await _reach(s, splitter)
    if problem:
        return failed(problem)
    start = await _width(s, sidebar)
    await s.press("ArrowRight")
    wider = await _width(s, sidebar)
    if wider <= start:
        return failed(f"Right arrow on the divider leaves the folder list {wider:.0f}px wide (was {start:.0f}px)")
    await s.press("ArrowLeft")
    narrower = await _width(s, sidebar)
    if narrower >= wider:
        return failed(f"Left arrow does not narrow the folder list again ({narrower:.0f}px)")
    return passed(f"The arrow keys resize the folder list ({start:.0f}px, {wider:.0f}px, {narrower:.0f}px)")


@requirement("position-reported", "The divider reports its position as a value that follows the keyboard")
async def position_reported(s: Session) -> Outcome:
    splitter, sidebar, why = await _parts(s)
    if splitter is None or sidebar is None:
        return failed(why)
    before = (await s.range_value(splitter)).get("now")
    if before is None:
        return failed("The divider reports no value (aria-valuenow), so its position is unknown to screen readers")
    problem = await _reach(s, splitter)
    if problem:
        return failed(problem)
    await s.press("ArrowRight")
    after = (await s.range_value(await s.refresh(splitter))).get("now")
    if after is None or after <= before:
        return failed(f"After Right arrow the divider still reports {after} (was {before})")
    return passed(f"The divider's reported position goes from {before} to {after}")


@best_practice("enter-collapses", "Enter collapses the folder list and Enter again restores it")
async def enter_collapses(s: Session) -> Outcome:
    splitter, sidebar, why = await _parts(s)
    if splitter is None or sidebar is None:
        return failed(why)
    problem = await _reach(s, splitter)
    if problem:
        return failed(problem)
    start = await _width(s, sidebar)
    await s.press("Enter")
    collapsed = await _width(s, sidebar)
    if collapsed > COLLAPSED_WIDTH:
        return failed(f"Enter leaves the folder list {collapsed:.0f}px wide")
    await s.press("Enter")
    restored = await _width(s, sidebar)
    if abs(restored - start) > 2:
        return failed(f"A second Enter brings the folder list back to {restored:.0f}px, not {start:.0f}px")
    return passed("Enter collapses the folder list and restores it")
