"""The same effect by keyboard: a mouse target whose function the keyboard reaches another way.

WCAG 2.1.1 asks that every *function* be operable from the keyboard, not every element: a
combobox's popup button may stay out of the Tab order when the combobox's own Alt+Down opens the
list, a spinbutton's increment buttons when its arrow keys do the same, a slider's rail when its
thumb's arrow keys move it, a toolbar's radios when its arrow keys reach and check them. The
generic check `mouse-targets-keyboard-operable` judges such a target by doing
(docs/generic.md states the rule and its bounds):

1. the page is loaded afresh (unless no check acted on it yet), the pointer rests on the target
   (what hovering changes is not the click's effect), the page's state is noted (every element's attributes, form value,
   checkedness, whether it is shown, its own text and place; new elements; focus), the target is
   clicked and the state noted again: the change is the click's effect;
2. for each keyboard path (a Tab stop that controls the same element or points at the target, one
   inside it, the nearest around it, the Tab stops of the nearest element around it that holds
   any; at most :data:`MAX_PATHS`) the page is loaded afresh, the Tab stop takes focus and the keys
   a person would press are pressed in turn (:data:`KEYS`, Alt+ArrowDown on a combobox only; an
   arrow key again while it leads somewhere new, up to :data:`MAX_REPEATS` times; Enter and Space
   on the target itself when an arrow key brings focus to it), each key from a fresh load when the
   one before changed the page. The path does the same when the change since the fresh load covers
   the click's: every fact the click changed has changed to the same value (numbers may differ: a rail
   click and an arrow key both move a slider), every element the click added was added, and, when
   the click changed nothing but focus, focus went to the same place;
3. when the click changes nothing on a fresh load (a spinbutton's decrease button at its minimum,
   a radio already checked), a state where it does is looked for by doing: the page is loaded
   afresh and one step is taken before the click (:func:`preparations`: the target clicked once
   already, a click on another mouse target of the same widget, a key on the first keyboard path),
   and the first step after which the click changes something is taken on every fresh load of
   step 2 before the keys are tried. A click that changes nothing after every step keeps the
   failure (a bounded search cannot tell a click with no function from one that works only on the
   third try, after a minute or after a press elsewhere), unless the target is a native control
   whose click Enter and Space fire and a keyboard path's keys bring focus to it (a toolbar's
   Copy button): whatever its click does, the keyboard does there.

Elements are matched between the two loads by their place in document order.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lm_eval_a11y.engine.tab import ProbeError

if TYPE_CHECKING:
    from lm_eval_a11y.checks import Session
    from lm_eval_a11y.engine.elements import Element

# Kinds of target (tag, role and classes) tried, keyboard paths per target, elements whose state
# is noted, and presses of one arrow key in a row, at most.
MAX_KINDS = 4
MAX_PATHS = 3
MAX_STATE = 3000
MAX_REPEATS = 8
# Mouse targets of the same widget clicked before the target, and steps tried in all, at most, when
# the target's click changes nothing on a fresh load.
MAX_COMPANIONS = 2
MAX_PREPARATIONS = 8
# What a person presses on a widget, in this order; the arrows are pressed again while they change
# something (a toolbar's arrow keys go from item to item).
KEYS = ("Enter", "Space", "ArrowDown", "ArrowUp", "ArrowRight", "ArrowLeft", "Home", "End", "Alt+ArrowDown")
# Keys pressed on the first keyboard path before the click, to find a state where it changes
# something (a value away from its limit first).
PREPARING_KEYS = ("ArrowUp", "ArrowRight", "End", "ArrowDown", "ArrowLeft", "Home", "Enter")
REPEATED = frozenset({"ArrowDown", "ArrowUp", "ArrowRight", "ArrowLeft"})
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Effect:
    """What changed between two states of one document, keyed by the element's place in the
    first: ``changed`` maps ``place fact`` to (before, after) (after None: the element went);
    ``added`` counts new elements by tag, role and own text; ``focus`` is where focus went (a
    place, or an added element's signature), None if it did not move."""

    changed: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    added: Counter[str] = field(default_factory=Counter)
    focus: str | None = None

    def __bool__(self) -> bool:
        return bool(self.changed or self.added or self.focus is not None)

    def describe(self) -> str:
        """A few of the changes, in words."""
        parts = [f"{key.split(' ', 1)[1]} {before!r} -> {after!r}" for key, (before, after) in self.changed.items()]
        parts += [f"adds {sig}" for sig in self.added]
        if not parts and self.focus is not None:
            parts.append("moves focus")
        return ", ".join(parts[:3]) + (" ..." if len(parts) > 3 else "")


@dataclass(frozen=True)
class Trial:
    """The outcome for one target: ``path`` the keyboard path that does what its click does ('' if
    none), ``note`` what was tried or why nothing could be."""

    path: str
    note: str


def _signature(tag: str, facts: dict[str, str]) -> str:
    return f"<{tag} role={facts.get('@role', '')}> {_NUMBER.sub('#', facts.get('$text', ''))!r}"


def effect_between(before: dict[str, Any], after: dict[str, Any]) -> Effect:
    """The change from one ``effectState`` of a document to a later one."""
    place = {item[0]: index for index, item in enumerate(before["items"])}
    old = {item[0]: item[2] for item in before["items"]}
    changed: dict[str, tuple[str | None, str | None]] = {}
    added: Counter[str] = Counter()
    seen = set()
    for ref, tag, facts in after["items"]:
        seen.add(ref)
        if ref not in old:
            added[_signature(tag, facts)] += 1
            continue
        prior = old[ref]
        for key in prior.keys() | facts.keys():
            if prior.get(key) != facts.get(key):
                changed[f"{place[ref]} {key}"] = (prior.get(key), facts.get(key))
    for ref in old.keys() - seen:
        changed[f"{place[ref]} $present"] = ("true", None)
    focus = None
    if after["focus"] != before["focus"] and after["focus"] is not None:
        if after["focus"] in place:
            focus = str(place[after["focus"]])
        else:
            new = {item[0]: _signature(item[1], item[2]) for item in after["items"]}
            focus = new.get(after["focus"], "elsewhere")
    return Effect(changed, added, focus)


def _directions(before: str | None, after: str) -> list[int] | None:
    """Which way each number in a value moved (1 up, -1 down, 0 not), None when the two do not
    hold the same numbers in the same places."""
    if before is None or _NUMBER.sub("#", before) != _NUMBER.sub("#", after):
        return None
    pairs = zip(_NUMBER.findall(before), _NUMBER.findall(after), strict=True)
    return [(float(b) < float(a)) - (float(b) > float(a)) for b, a in pairs]


def _same_value(key: str, wanted: tuple[str | None, str | None], got: tuple[str | None, str | None]) -> bool:
    """Whether a fact changed by the keys (``got``, before and after) ends as the click left it
    (``wanted``)."""
    if wanted[1] == got[1]:
        return True
    if wanted[1] is None or got[1] is None:
        return False
    if key.endswith(" @class"):
        return set(_NUMBER.sub("#", wanted[1]).split()) <= set(_NUMBER.sub("#", got[1]).split())
    # Numbers may differ: a click on a slider's rail and an arrow key both move it. But they move
    # the same way: raising a value does not do what a decrease button does.
    if _NUMBER.sub("#", wanted[1]) != _NUMBER.sub("#", got[1]):
        return False
    ways = _directions(wanted[0], wanted[1])
    return ways is None or ways == _directions(got[0], got[1])


def covers(done: Effect, wanted: Effect) -> bool:
    """Whether ``done`` (a keyboard path's change) includes ``wanted`` (a click's)."""
    for key, change in wanted.changed.items():
        if key not in done.changed or not _same_value(key, change, done.changed[key]):
            return False
    if wanted.added - done.added:
        return False
    if not wanted.changed and not wanted.added:
        return wanted.focus is not None and done.focus == wanted.focus
    return True


def _print(state: dict[str, Any]) -> str:
    """A state as one string, to tell a state seen before."""
    return json.dumps(state, sort_keys=True)


async def _state(s: Session) -> dict[str, Any]:
    state: dict[str, Any] = await s.probe("effectState", MAX_STATE)
    return state


# A step taken on a fresh load before the target's click: ("click", place, "") clicks the element
# at a place in document order, ("key", place, key) focuses it and presses the key.
Step = tuple[str, int, str]


async def fresh_target(s: Session, place: int, step: Step | None = None, opening: Step | None = None) -> int | None:
    """Load the page afresh (unless no check acted on it yet) and take ``opening`` (the key that
    opens the popup the target is in, popups.py), then ``step``; the reference of the element at
    ``place`` there (None when it or a step's element is not there)."""
    if s.dirty:
        await s.reset()
    for taken in (opening, step):
        if taken is None:
            continue
        kind, at, key = taken
        ref_at = await s.probe("elementAtPlace", at)
        if ref_at is None:
            return None
        element = await s.element(ref_at)
        try:
            if kind == "click":
                await s.click(element)
            else:
                await s.focus(element)
                await s.press(key)
        except ProbeError:
            return None
    ref: int | None = await s.probe("elementAtPlace", place)
    return ref


async def describe_step(s: Session, step: Step) -> str:
    """A step, in words (its element as it is now)."""
    kind, at, key = step
    ref = await s.probe("elementAtPlace", at)
    name = (await s.element(ref)).describe() if ref is not None else "an element gone since"
    return f"a click on {name}" if kind == "click" else f"{key} on {name}"


def preparations(place: int, paths: list[int], companions: list[int]) -> list[Step]:
    """The steps tried before the click on the target at ``place`` when it changes nothing on a
    fresh load, in order: the target's own click (one that works from the second), a click on
    each of ``companions`` (the increase button beside a decrease button at its minimum, another
    radio of a group), and :data:`PREPARING_KEYS` on the first of ``paths``; at most
    :data:`MAX_PREPARATIONS`."""
    steps: list[Step] = [("click", place, "")]
    steps += [("click", other, "") for other in companions[:MAX_COMPANIONS]]
    if paths:
        steps += [("key", paths[0], key) for key in PREPARING_KEYS]
    return steps[:MAX_PREPARATIONS]


async def click_effect(s: Session, place: int, step: Step | None = None, opening: Step | None = None) -> Effect | None:
    """What a click on the element at ``place`` changes on a fresh load (after ``opening`` and
    ``step``; the pointer rests on it first); None when it cannot be clicked."""
    ref = await fresh_target(s, place, step, opening)
    if ref is None:
        return None
    target = await s.element(ref)
    try:
        await s.hover(target)
        before = await _state(s)
        await s.click(target)
    except ProbeError:
        return None
    effect = effect_between(before, await _state(s))
    if not effect.changed and not effect.added and effect.focus == str(place):
        return Effect()  # a click focuses what it clicks: no function of its own
    return effect


async def _start(
    s: Session, place: int, path_place: int, step: Step | None, opening: Step | None
) -> tuple[int, Element, dict[str, Any], dict[str, Any]] | None:
    """A fresh load (and ``step``) with focus on the Tab stop at ``path_place``: the target's
    reference there, the Tab stop, and the states before and after it took focus; None when
    either is not there."""
    target = await fresh_target(s, place, step, opening)
    path_ref = await s.probe("elementAtPlace", path_place)
    if target is None or path_ref is None:
        return None
    path = await s.element(path_ref)
    before = await _state(s)
    await s.focus(path)
    return target, path, before, await _state(s)


async def _try_path(
    s: Session, place: int, path_place: int, wanted: Effect, step: Step | None, opening: Step | None
) -> str:
    """The keys on the Tab stop at ``path_place`` that do ``wanted``, in words; '' if none. Each
    key starts from a fresh load when the one before changed the page: what two keys do together
    is not what one does (Next twice is no Previous)."""
    started = await _start(s, place, path_place, step, opening)
    if started is None:
        return ""
    target, path, before, focused = started
    if covers(effect_between(before, focused), wanted):
        return f"focusing {path.describe()}"
    last = focused
    reached = False  # an arrow brought focus to the target, and Enter and Space were tried there
    for key in KEYS:
        if (key == "Alt+ArrowDown" and path.role != "combobox") or (reached and key in REPEATED):
            continue
        if _print(last) != _print(focused):
            started = await _start(s, place, path_place, step, opening)
            if started is None:
                return ""
            target, path, before, focused = started
            last = focused
        on_target = False
        seen = {_print(last)}
        for count in range(1, (MAX_REPEATS if key in REPEATED else 1) + 1):
            active = await s.press(key)
            now = await _state(s)
            times = f" {count} times" if count > 1 else ""
            if covers(effect_between(before, now), wanted):
                return f"{key}{times} on {path.describe()}"
            if active is not None and active.ref == target and not on_target:
                # The arrows brought focus to the target itself: a person activates it there.
                on_target = reached = True
                for activate in ("Enter", "Space"):
                    await s.press(activate)
                    now = await _state(s)
                    if covers(effect_between(before, now), wanted):
                        return f"{key}{times} from {path.describe()} to it, then {activate}"
            # Nothing changed, or the key came round to a state it had left (a toolbar's arrows wrap).
            again = _print(now) in seen
            seen.add(_print(now))
            last = now
            if again or on_target:
                break
    return ""


# A target's place in document order, its keyboard paths' places and the places of the other
# mouse targets of its widget (:func:`plan`).
Plan = tuple[int, list[int], list[int]]


async def plan(s: Session, ref: int, targets: list[int]) -> Plan | None:
    """The place of ``ref`` in document order, of its keyboard paths and of the ``targets`` (the
    page's mouse targets) in the nearest element around it that holds any, read on the document
    as it is (before anything loads it afresh); None when it has no place (in a shadow root)."""
    place = await s.probe("effectPlace", ref)
    if place is None:
        return None
    paths = [await s.probe("effectPlace", p) for p in await s.probe("keyboardPaths", ref, MAX_PATHS)]
    others = [await s.probe("effectPlace", p) for p in await s.probe("companions", ref, targets, MAX_COMPANIONS)]
    return place, [p for p in paths if p is not None], [p for p in others if p is not None]


async def same_effect_by_keyboard(
    s: Session, planned: Plan | None, activated: bool, opening: Step | None = None
) -> Trial:
    """Whether a keyboard path does what a click on the target does (see the module's docstring),
    ``planned`` by :func:`plan`; ``activated``: the target is a native control whose click Enter
    and Space fire; ``opening``: the key that opens the popup the target is in, taken on every
    fresh load first (popups.py). Leaves the page changed: the caller loads it afresh after."""
    if planned is None:
        return Trial("", "it has no place in the document's order (a shadow root), so its click was not tried")
    place, paths, companions = planned
    wanted = await click_effect(s, place, None, opening)
    if wanted is None:
        return Trial("", "it could not be clicked on a fresh load")
    step, after = None, ""
    if not wanted:
        steps = preparations(place, paths, companions)
        for candidate in steps:
            effect = await click_effect(s, place, candidate, opening)
            if effect:
                step, wanted = candidate, effect
                break
        if step is None:
            tried = [await describe_step(s, candidate) for candidate in steps]
            nothing = (
                f"its click changed nothing this check sees on a fresh load, nor after {len(steps)} step(s) taken "
                f"first ({'; '.join(tried[:3])}{' ...' if len(tried) > 3 else ''})"
            )
            if activated:
                for path_place in paths:
                    found = await _try_path(s, place, path_place, Effect(focus=str(place)), None, opening)
                    if found:
                        reached = (
                            f"{found} brings focus to it, where Enter and Space fire its click (which changed "
                            f"nothing this check sees, on a fresh load nor after {len(steps)} step(s) taken first)"
                        )
                        return Trial(reached, "")
            return Trial("", f"{nothing}, so no keyboard path could be compared")
        after = f"after {await describe_step(s, step)}, "
    if not paths:
        return Trial("", f"{after}its click {wanted.describe()}, and no Tab stop controls it, holds it or is beside it")
    tried = []
    for path_place in paths:
        found = await _try_path(s, place, path_place, wanted, step, opening)
        if found:
            return Trial(f"{after}{found}" if after else found, "")
        ref_now = await s.probe("elementAtPlace", path_place)
        tried.append((await s.element(ref_now)).describe() if ref_now is not None else "a Tab stop")
    return Trial(
        "",
        f"{after}its click {wanted.describe()}, and no key tried (Enter, Space, the arrows, Home, End; Alt+ArrowDown "
        f"on a combobox) on {'; '.join(tried)} does the same",
    )
