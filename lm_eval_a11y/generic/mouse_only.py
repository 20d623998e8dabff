"""Mouse functions the generic check `mouse-targets-keyboard-operable` judges by doing: content
that a pointer resting on an element reveals (CSS ``:hover``, ``mouseenter``/``mouseover``
listeners) must also be shown by the keyboard; docs/generic.md states the rule.

The pointer rests on each hover target and notes what hidden content it shows. When it shows
something, the page is loaded afresh and walked with Tab from the top, noting which of that content
each stop shows (and, on a collapsed button, Enter). What hovering showed that no keyboard step
showed is out of the keyboard's reach.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lm_eval_a11y.engine.tab import ProbeError

if TYPE_CHECKING:
    from lm_eval_a11y.checks import Session

# What dragging with a button held is heard by.
MOVE_EVENTS = ("mousemove", "pointermove")
# Hover targets tried, hidden elements followed, and Tab presses, at most.
MAX_HOVERS = 6
MAX_HIDDEN = 1500
MAX_PRESSES = 60


@dataclass(frozen=True)
class HoverFinding:
    """A hover target that shows what no keyboard step showed."""

    target: str  # the element, described
    revealed: int  # how many hidden elements the pointer showed
    example: str  # one of them, described


async def hover_only_content(s: Session, listening: list[int]) -> tuple[list[HoverFinding], int]:
    """Hover targets (``listening``: elements with a hover listener; and what ``:hover`` rules
    show or hide things for) whose revealed content no keyboard step shows, and how many
    targets revealed anything at all.

    The pointer goes first, as it costs a move per target; only when it reveals something is the
    page loaded afresh (which puts the pointer off the page) and walked with the keyboard. The
    hidden content is matched between the two documents by its place in document order."""
    targets = await s.probe("hoverTargets", MAX_HOVERS, listening)
    if not targets:
        return [], 0
    hidden: list[int] = await s.probe("hiddenContent", MAX_HIDDEN)
    if not hidden:
        return [], 0
    place = {ref: index for index, ref in enumerate(hidden)}
    revealing: list[tuple[str, list[int], str]] = []
    for item in targets:
        target = await s.element(int(item["ref"]))
        before = set(await s.probe("shownAmong", hidden))
        try:
            await s.hover(target)
        except ProbeError:  # no size on screen now (what another target showed covers or moved it)
            continue
        now = [ref for ref in await s.probe("shownAmong", hidden) if ref not in before]
        if now:
            # Described while shown: hidden again, it has no name for assistive technology.
            revealing.append((target.describe(), [place[ref] for ref in now], (await s.element(now[0])).describe()))
    if not revealing:
        return [], 0
    await s.reset()
    fresh: list[int] = await s.probe("hiddenContent", MAX_HIDDEN)
    by_keyboard: set[int] = set()
    async for stop in s.tab_stops(MAX_PRESSES):
        by_keyboard.update(await s.probe("shownAmong", fresh))
        element = await s.element(stop.ref)
        # A collapsed button (a menu's disclosure) is opened with Enter, as a visitor does.
        if element.attr("aria-expanded") == "false" and element.role == "button":
            await s.press("Enter")
            by_keyboard.update(await s.probe("shownAmong", fresh))
    shown_places = {index for index, ref in enumerate(fresh) if ref in by_keyboard}
    findings = [
        HoverFinding(target_name, len(revealed), example)
        for target_name, revealed, example in revealing
        if not shown_places.intersection(revealed)
    ]
    return findings, len(revealing)


# Elements whose click is tried to see whether it only moves focus to a control the keyboard
# reaches, at most.
MAX_LABEL_TRIES = 3


async def focuses_labelled_control(s: Session, ref: int) -> str:
    """The control a click on ``ref`` sends focus to, described, when ``ref`` labels it
    (``aria-labelledby``) and the keyboard reaches it (a Tab stop or a widget's item); '' when
    not. Judged by doing: the element is clicked and focus is looked at. Clicking a label that
    only focuses its control is a mouse shortcut for Tab."""
    element = await s.element(ref)
    ident = element.attr("id")
    if not ident:
        return ""
    quoted = ident.replace("\\", "\\\\").replace("'", "\\'")
    labelled = {e.ref for e in await s.find_all(f"[aria-labelledby~='{quoted}']")}
    if not labelled:
        return ""
    try:
        await s.click(element)
    except ProbeError:
        return ""
    active = await s.active()
    if active is None or active.ref not in labelled:
        return ""
    facts = await s.keyboard_facts([active.ref], [], [], keys_on_document=False, clicks_on_document=False)
    return active.describe() if facts and facts[0].reachable else ""
