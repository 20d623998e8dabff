"""Mouse functions the generic check `mouse-targets-keyboard-operable` judges by doing: content
that a pointer resting on an element reveals (CSS ``:hover``, ``mouseenter``/``mouseover``
listeners) must also be shown by the keyboard; docs/generic.md states the rule.

The keyboard goes first, on the page as loaded: a walk with Tab from the top notes which hidden
content each stop shows (and, on a collapsed button, Enter). Then the pointer rests on each hover
target, and what it shows that no keyboard step showed is out of the keyboard's reach.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lm_eval_a11y.engine.tab import ProbeError

if TYPE_CHECKING:
    from lm_eval_a11y.checks import Session

# What a pointer resting on an element is heard by.
HOVER_EVENTS = ("mouseover", "mouseenter", "pointerover", "pointerenter")
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
    targets revealed anything at all."""
    targets = await s.probe("hoverTargets", MAX_HOVERS, listening)
    if not targets:
        return [], 0
    hidden: list[int] = await s.probe("hiddenContent", MAX_HIDDEN)
    if not hidden:
        return [], 0
    by_keyboard: set[int] = set()
    async for stop in s.tab_stops(MAX_PRESSES):
        by_keyboard.update(await s.probe("shownAmong", hidden))
        element = await s.element(stop.ref)
        # A collapsed button (a menu's disclosure) is opened with Enter, as a visitor does.
        if element.attr("aria-expanded") == "false" and element.role == "button":
            await s.press("Enter")
            by_keyboard.update(await s.probe("shownAmong", hidden))
    findings = []
    revealing = 0
    for item in targets:
        target = await s.element(int(item["ref"]))
        before = set(await s.probe("shownAmong", hidden))
        try:
            await s.hover(target)
        except ProbeError:  # no size on screen now (a menu the walk left open covers or moved it)
            continue
        revealed = [ref for ref in await s.probe("shownAmong", hidden) if ref not in before]
        if not revealed:
            continue
        revealing += 1
        if by_keyboard.intersection(revealed):
            continue
        example = await s.element(revealed[0])
        findings.append(HoverFinding(target.describe(), len(revealed), example.describe()))
    return findings, revealing
