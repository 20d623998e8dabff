"""Popups hidden at load, opened from the keyboard so that what they hold is judged.

A menu button's items, a combobox's options, a date picker's days are mouse targets like any
other, but at load they are not rendered, and the rules of `mouse-targets-keyboard-operable`
let a target a mouse cannot work either (hidden) pass. A person opens the popup first: its
trigger takes focus and a key opens it. So, when mouse targets are hidden at load, the check
(docs/generic.md states the rule and its bounds):

1. reads the triggers on the page as loaded (:func:`popup_triggers`, the probe's
   ``popupTriggers``, the walk's openers in the Tab order and controls with ``aria-haspopup``
   or ``aria-controls``): first, one after another, the trigger whose popup (``aria-controls``,
   ``popovertarget``, a ``<details>``) holds the most kinds (tag, role, classes) of hidden
   targets no trigger chosen before holds, so that decoy popups first in the page cannot keep a
   kind out of reach (at most :data:`MAX_POPUP_KINDS`); then, to :data:`MAX_POPUPS` in all,
   those whose popup is built when it opens (``aria-haspopup`` with no popup named, or a named
   popup that is empty at load), then the other triggers holding hidden targets. Hidden targets
   held by the popups left out, of a kind no opened popup holds, are not judged, and fail the
   check (:attr:`Triggers.unreached`);
2. for each, on a fresh load, notes which mouse targets are rendered, gives the trigger focus and
   presses :data:`OPENING_KEYS` in turn (:data:`COMBOBOX_KEYS` on a combobox), each from a fresh
   load, until one renders mouse targets that were not: the popup is open, and
   :func:`open_popups` hands the page over in that state with the targets it revealed and the
   step that opened it;
3. the check judges those targets by the same rules as the targets rendered at load, and the
   same effect by keyboard (same_effect.py) takes the opening step on every fresh load first;
   the element the opening left focus on (a menu's first item) is the first keyboard path tried.

A popup that no key opens is not judged here: its trigger's own click is a mouse target, judged
as any other (its function is opening the popup).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lm_eval_a11y.engine.tab import ProbeError

if TYPE_CHECKING:
    from lm_eval_a11y.checks import Session
    from lm_eval_a11y.generic.same_effect import Step

# Triggers opened per page (each costs up to one fresh load per opening key): at most
# MAX_POPUPS, or more while each opens a kind of hidden target no other holds, to MAX_POPUP_KINDS.
MAX_POPUPS = 3
MAX_POPUP_KINDS = 6
# What a person presses on a focused trigger to open its popup, in this order: Enter and Space
# work a button, a summary and a popover invoker; ArrowDown a menu button or a combobox;
# Alt+ArrowDown a combobox. A combobox gets its own keys first (Enter and Space in a text field
# open nothing, and Space types).
OPENING_KEYS = ("Enter", "Space", "ArrowDown", "Alt+ArrowDown")
COMBOBOX_KEYS = ("ArrowDown", "Alt+ArrowDown", "Enter", "Space")


@dataclass(frozen=True)
class Trigger:
    """A popup trigger on the page as loaded: its place in document order and how it reads."""

    place: int
    described: str
    role: str | None


@dataclass(frozen=True)
class Popup:
    """A popup opened from the keyboard: its trigger, the key that opened it, the step that
    opens it again on a fresh load (same_effect.py), and the mouse targets it revealed
    (references valid until the page is loaded again)."""

    trigger: Trigger
    key: str
    opening: Step
    revealed: tuple[int, ...]
    focus: int | None = None  # where the opening left focus (its place), when not on the page itself

    def describe(self) -> str:
        return f"the popup {self.key} on {self.trigger.described} opens"


@dataclass(frozen=True)
class Triggers:
    """The popup triggers to open, and the hidden mouse targets left out of reach: held by
    popups beyond :data:`MAX_POPUP_KINDS`, of a kind none of the opened ones holds (how many, and
    the first described)."""

    chosen: tuple[Trigger, ...]
    unreached: int
    example: str | None


async def popup_triggers(s: Session, hidden: list[int]) -> Triggers:
    """The triggers of popups that may hold the ``hidden`` mouse targets or are built when they
    open, read on the document as it is (before anything loads it afresh), at most
    :data:`MAX_POPUP_KINDS` (see the module's docstring for the choice)."""
    found = await s.probe("popupTriggers", hidden, MAX_POPUPS, MAX_POPUP_KINDS)
    chosen = []
    for item in found["triggers"]:
        ref = int(item["ref"])
        place = await s.probe("effectPlace", ref)
        if place is not None:
            element = await s.element(ref)
            chosen.append(Trigger(int(place), element.describe(), element.role))
    example = None
    if found["example"] is not None:
        example = (await s.element(int(found["example"]))).describe()
    return Triggers(tuple(chosen), int(found["unreached"]), example)


async def _rendered(s: Session, targets: list[int]) -> set[int]:
    return {int(ref) for ref in await s.probe("renderedRefs", targets)}


async def open_popups(
    s: Session, triggers: list[Trigger], mouse_targets: Callable[[Session], Awaitable[list[int]]]
) -> AsyncIterator[Popup]:
    """Open each trigger's popup from the keyboard (see the module's docstring) and yield it with
    the page in the opened state; ``mouse_targets`` lists the page's mouse targets as it is. The
    caller may act on the page between two popups: each starts from a fresh load."""
    for trigger in triggers:
        for key in COMBOBOX_KEYS if trigger.role == "combobox" else OPENING_KEYS:
            if s.dirty:
                await s.reset()
            ref = await s.probe("elementAtPlace", trigger.place)
            if ref is None:
                break
            shown = await _rendered(s, await mouse_targets(s))
            try:
                await s.focus(await s.element(ref))
                await s.press(key)
            except ProbeError:
                break
            now = await mouse_targets(s)
            rendered = await _rendered(s, now)
            # In document order: the first target of each kind stands for its kind.
            revealed = tuple(target for target in now if target in rendered and target not in shown)
            if revealed:
                active = await s.active()
                focus = None if active is None else await s.probe("effectPlace", active.ref)
                yield Popup(trigger, key, ("key", trigger.place, key), revealed, None if focus is None else int(focus))
                break
