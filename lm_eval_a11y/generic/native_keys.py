"""Enter and Space on a native button or link, tried: the keyboard's click is not the mouse's.

The browser turns Enter on a button or link, and Space on a button, into a ``click``, but a page
can tell that click from a mouse's (``event.detail`` is 0, ``pointerType`` is '', the coordinates
are 0), can do its work on ``pointerdown`` and only stop a default on ``click``, or can stop the keys
before they become a click. So a native button or link in the Tab order that the page listens to
the mouse on is not assumed to work from the keyboard: the generic check
`mouse-targets-keyboard-operable` judges it by doing, with the comparison of same_effect.py
(docs/generic.md states the rule and its bounds):

1. the page is loaded afresh, the pointer rests on the target, it is clicked: the change is the
   click's effect (what hovering changes is not, nor a class attribute added empty). A click that changes nothing is
   clicked again after one step (its own click first, then a click on each other mouse target of
   its widget, at most 2); one that changes nothing after those passes: Enter fires its click,
   whatever it does;
2. for each key a person presses on it (Enter, then Space on a button), the page is loaded afresh
   (and the step taken; the pointer rests on the target first when that changed the page for the
   click), the target takes focus and the key is pressed: the key does the same when the change
   since that load covers the click's (:func:`same_effect.covers`);
3. when no key does, the page is loaded afresh (and the step taken) and pressed with the mouse on
   itself, where nothing is on it: what that press changes too (a mark of the mouse's use,
   ``using-mouse``; a menu a click outside closes) is no function of the target and is left out
   of the click's effect; when the viewport has no such point, the classes and ``data-*``
   attributes of ``<html>`` and ``<body>`` are (:func:`markers`);
4. when no key does still and a key changes the same facts as the click to other values
   (:func:`in_kind`), the click and that key are taken again in turn on fresh loads (at most
   :data:`MAX_AGAIN`): when either changes the page differently from its first time (a random
   tip), the key does the same.

The first element of each kind (tag, role and classes) is tried and stands for its kind, at most
:data:`MAX_NATIVE_KINDS` kinds; the kinds past those pass untried, as all did before.

An ARIA widget the page works itself (``div role=button tabindex=0``, a ``role=switch``...) with a
key listener on it, around it or on the page is judged the same way: a listener is no proof that
it does anything (it may count presses, or serve a page shortcut). Its keys (Enter and Space, the
usual one for its role first, :data:`WIDGET_KEYS`) must do what its click does; the browser fires
no click for them, so a click that changes nothing this check sees leaves nothing to compare, and
the widget passes. When neither key does, the keyboard paths of same_effect.py are tried for it,
and from the other mouse targets of its widget (a listbox's option selected by the arrow keys that
bring focus to it from the option that holds the Tab stop, a tab by the arrows and then Enter): one
that does the same passes it. Only a widget that takes focus itself (a
``tabindex``) is tried: the options of a list that keeps focus on itself (``aria-activedescendant``)
are worked by its keys, not theirs.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lm_eval_a11y.engine.tab import ProbeError
from lm_eval_a11y.generic.same_effect import (
    MAX_COMPANIONS,
    MAX_STATE,
    Effect,
    Plan,
    Step,
    Trial,
    covers,
    describe_step,
    effect_between,
    fresh_target,
    plan,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from lm_eval_a11y.checks import Session
    from lm_eval_a11y.engine.elements import Element, KeyboardFacts

# Kinds of native button or link tried, at most (each costs two to four fresh loads); as many kinds
# of ARIA widget with a key listener again.
MAX_NATIVE_KINDS = 4
# What the browser turns into a click: Enter and Space on a button, Enter on a link.
BUTTON_KEYS = ("Enter", "Space")
LINK_KEYS = ("Enter",)
# The keys a person presses on an ARIA widget that the page works itself, the usual one first:
# either doing what the click does is enough (WCAG asks for the function, not for a key).
WIDGET_KEYS = {
    "button": ("Enter", "Space"),
    "link": ("Enter", "Space"),
    "checkbox": ("Space", "Enter"),
    "switch": ("Space", "Enter"),
    "radio": ("Space", "Enter"),
    "menuitem": ("Enter", "Space"),
    "menuitemcheckbox": ("Enter", "Space"),
    "menuitemradio": ("Enter", "Space"),
    "option": ("Enter", "Space"),
    "tab": ("Enter", "Space"),
}
# Fresh loads taken, at most, to see a click or key change the page differently from one load to
# the next (a random tip), when a key changes what the click changes to other values.
MAX_AGAIN = 4


@dataclass(frozen=True)
class NativeKind:
    """The native buttons or links of one kind: their descriptions, and the first one's place in
    document order, the places of the other mouse targets of its widget and the keys tried."""

    members: tuple[str, ...]
    place: int | None
    companions: tuple[int, ...]
    keys: tuple[str, ...]
    native: bool = True
    plan: Plan | None = None


def keys_of(element: Element) -> tuple[str, ...] | None:
    """The keys the browser turns into a click on ``element``, None if it is no button or link."""
    if element.role == "button" and element.tag in ("button", "input"):
        return BUTTON_KEYS
    if element.role == "link" and element.tag == "a" and element.attr("href") is not None:
        return LINK_KEYS
    return None


def widget_keys_of(element: Element) -> tuple[str, ...] | None:
    """The keys a person presses on ``element`` when it is an ARIA widget the page must work
    itself (no native button or link) and can take focus; None otherwise."""
    if keys_of(element) is not None or element.tag in ("button", "input", "select", "textarea", "summary"):
        return None
    if element.attr("tabindex") is None:
        return None  # focus is not its own (an active descendant): the widget's keys are tried elsewhere
    return WIDGET_KEYS.get(element.role or "")


def listened_widget(fact: KeyboardFacts) -> bool:
    """Whether the rules of the check let ``fact`` pass as an ARIA widget the keyboard reaches with
    a key listener on it, around it or on the page (what that listener does then tried here)."""
    return fact.rendered and not fact.disabled and fact.control == "widget" and fact.reachable and fact.key_handled


def assumed(fact: KeyboardFacts) -> bool:
    """Whether the rules of the check let ``fact`` pass as a native control in the Tab order (its
    function then tried here)."""
    return fact.rendered and not fact.disabled and fact.control == "native" and fact.tab_stop and fact.reachable


async def native_kinds(s: Session, refs: list[int], targets: list[int], *, widgets: bool = False) -> list[NativeKind]:
    """The buttons and links among ``refs`` by kind (with ``widgets``, the ARIA widgets of
    :func:`widget_keys_of` instead), the first :data:`MAX_NATIVE_KINDS` kinds only, read on the
    document as it is (before anything loads it afresh); ``targets``: every mouse target, whose
    others in the first one's widget are clicked first when need be."""
    kinds: dict[str, tuple[list[str], int, tuple[str, ...]]] = {}
    for ref in refs:
        element = await s.element(ref)
        keys = widget_keys_of(element) if widgets else keys_of(element)
        if keys is None:
            continue
        kind = f"{element.tag}|{element.role}|{' '.join(sorted(element.classes))}"
        if kind in kinds:
            kinds[kind][0].append(element.describe())
        elif len(kinds) < MAX_NATIVE_KINDS:
            kinds[kind] = ([element.describe()], ref, keys)
    planned = []
    for members, ref, keys in kinds.values():
        if widgets:
            # A widget's own keys are not its only path: a list's arrow keys select its options,
            # from whichever of its items holds the Tab stop once another was clicked.
            paths = await plan(s, ref, targets)
            if paths is None:
                planned.append(NativeKind(tuple(members), None, (), keys, native=False))
                continue
            place, keyboard, companions = paths
            paths = (place, [*keyboard, *(p for p in companions if p not in keyboard)], companions)
            planned.append(NativeKind(tuple(members), place, tuple(companions), keys, False, paths))
            continue
        place = await s.probe("effectPlace", ref)
        others = [await s.probe("effectPlace", p) for p in await s.probe("companions", ref, targets, MAX_COMPANIONS)]
        planned.append(NativeKind(tuple(members), place, tuple(p for p in others if p is not None), keys))
    return planned


@dataclass(frozen=True)
class Click:
    """What a click on a target changed (``effect``), whether resting the pointer on it first
    changed anything (``hovered``), and the places of ``<html>`` and ``<body>`` (``roots``)."""

    effect: Effect
    hovered: bool
    roots: frozenset[int]


async def _click(s: Session, place: int, step: Step | None = None) -> Click | None:
    """What a click on the element at ``place`` changes on a fresh load (after ``step``; the
    pointer rests on it first, and what that changes is not the click's); None when it cannot be
    clicked."""
    ref = await fresh_target(s, place, step)
    if ref is None:
        return None
    target = await s.element(ref)
    try:
        first = await s.probe("effectState", MAX_STATE)
        await s.hover(target)
        before = await s.probe("effectState", MAX_STATE)
        await s.click(target)
    except ProbeError:
        return None
    roots = frozenset(index for index, item in enumerate(first["items"]) if item[1] in ("html", "body"))
    effect = without(effect_between(before, await s.probe("effectState", MAX_STATE)), same_classes)
    if not effect.changed and not effect.added and effect.focus == str(place):
        effect = Effect()  # a click focuses what it clicks: no function of its own
    return Click(effect, bool(effect_between(first, before)), roots)


async def _pressed_anywhere(s: Session, step: Step | None) -> set[str] | None:
    """The facts a mouse press on the page itself (``<html>`` or ``<body>``, nothing on them)
    changes on a fresh load (after ``step``); None when no such point is in view."""
    if await fresh_target(s, 0, step) is None:
        return None
    point = await s.probe("blankPoint")
    if point is None:
        return None
    before = await s.probe("effectState", MAX_STATE)
    await s.page.mouse.click(point["x"], point["y"])
    await s.settle()
    return set(effect_between(before, await s.probe("effectState", MAX_STATE)).changed)


async def _key_effect(s: Session, place: int, key: str, step: Step | None, hover: bool) -> Effect | None:
    """What ``key`` on the element at ``place`` changes on a fresh load (after ``step``; with the
    pointer resting on it first when ``hover``, as it did for the click, when that changed the
    page: a menu a pointer opens, which the click then closes), focus moved there first counted
    in; None when the element is not there."""
    ref = await fresh_target(s, place, step)
    if ref is None:
        return None
    target = await s.element(ref)
    try:
        if hover:
            await s.hover(target)
        before = await s.probe("effectState", MAX_STATE)
        await s.focus(target)
        await s.press(key)
    except ProbeError:
        return None
    return effect_between(before, await s.probe("effectState", MAX_STATE))


def same_classes(key: str, change: tuple[str | None, str | None]) -> bool:
    """A class attribute whose classes stay the same (added empty): no change."""
    return key.endswith(" @class") and set((change[0] or "").split()) == set((change[1] or "").split())


def without(effect: Effect, dropped: Callable[[str, tuple[str | None, str | None]], bool]) -> Effect:
    """``effect`` less the changes ``dropped`` picks."""
    changed = {key: change for key, change in effect.changed.items() if not dropped(key, change)}
    return Effect(changed, effect.added, effect.focus if changed or effect.added else None)


def markers(effect: Effect, roots: frozenset[int]) -> set[str]:
    """The classes and ``data-*`` attributes ``effect`` changed on ``<html>`` and ``<body>`` (at
    ``roots``): where pages mark the input in use (``using-mouse``, ``data-input``) to show focus
    rings to keyboard users only, and where a theme switch sets its theme."""
    found = set()
    for key in effect.changed:
        place, fact = key.split(" ", 1)
        if int(place) in roots and (fact == "@class" or fact.startswith("@data-")):
            found.add(key)
    return found


def in_kind(done: Effect, wanted: Effect) -> bool:
    """Whether ``done`` changes every fact ``wanted`` changes, to any value (present or gone as
    there), and adds as many elements of each tag and role: the comparison for a click whose own
    effect differs from one load to the next (a random tip)."""
    for key, (_before, after) in wanted.changed.items():
        if key not in done.changed or (after is None) != (done.changed[key][1] is None):
            return False
    kinds = Counter(sig.split(">", 1)[0] for sig in done.added.elements())
    return not Counter(sig.split(">", 1)[0] for sig in wanted.added.elements()) - kinds


async def _varies(
    s: Session, place: int, step: Step | None, hover: bool, wanted: Effect, key_done: tuple[str, Effect]
) -> bool:
    """Whether a click on the element at ``place``, or ``key_done``'s key on it, changes the page
    differently from ``wanted`` (the first click's change) or ``key_done``'s on another fresh
    load, tried :data:`MAX_AGAIN` times, click and key in turn."""
    key, done = key_done
    for turn in range(MAX_AGAIN):
        if turn % 2 == 0:
            again = await _click(s, place, step)
            if again is not None and again.effect != wanted:
                return True
        elif await _key_effect(s, place, key, step, hover) not in (None, done):
            return True
    return False


async def keys_do_the_click(s: Session, kind: NativeKind) -> Trial:
    """Whether Enter (and Space on a button) on the first of ``kind`` does what its click does
    (see the module's docstring). Leaves the page changed: the caller loads it afresh after."""
    if kind.place is None:
        return Trial("its place in the document's order is unknown (a shadow root): not tried", "")
    clicked = await _click(s, kind.place)
    if clicked is None:
        return Trial("it could not be clicked on a fresh load: not tried", "")
    step: Step | None = None
    if not clicked.effect:
        for candidate in [("click", kind.place, ""), *(("click", p, "") for p in kind.companions)]:
            prepared = await _click(s, kind.place, candidate)
            if prepared is not None and prepared.effect:
                step, clicked = candidate, prepared
                break
        if step is None:
            if not kind.native:
                return Trial("its click changed nothing this check sees: its keys were not compared with it", "")
            return Trial(f"{' or '.join(kind.keys)} fires its click, which changed nothing this check sees", "")
    wanted = clicked.effect
    after = f"after {await describe_step(s, step)}, " if step is not None else ""
    tried: list[tuple[str, Effect]] = []
    for key in kind.keys:
        done = await _key_effect(s, kind.place, key, step, clicked.hovered)
        if done is None:
            continue
        if covers(done, wanted):
            return Trial(f"{after}{key} on it", "")
        tried.append((key, done))
    # What a press anywhere changes (a mark of the mouse's use, a menu closed by a click outside
    # it) is no function of the target.
    if tried:
        anywhere = await _pressed_anywhere(s, step)
        marks = markers(wanted, clicked.roots) if anywhere is None else anywhere
        wanted = without(wanted, lambda key, _change: key in marks)
        if not wanted:
            return Trial(f"{after}its click changes only what a mouse press anywhere on the page changes", "")
        for key, done in tried:
            if covers(done, wanted):
                return Trial(f"{after}{key} on it (past what a mouse press anywhere on the page changes)", "")
    # A click whose effect differs from one load to the next (a random tip) is compared by what
    # it changes: a key that changes the same facts to other values passes once the click or the
    # key is seen to change them differently on another load.
    similar = [(key, done) for key, done in tried if in_kind(done, wanted)]
    if similar and await _varies(s, kind.place, step, clicked.hovered, wanted, similar[0]):
        return Trial(f"{after}{similar[0][0]} on it (changing what its click changes, which differs between loads)", "")
    keys = "neither Enter nor Space on it does" if len(kind.keys) > 1 else "Enter on it does not do"
    why = (
        "its click handler tells a keyboard's click from a mouse's, or the keys never become one"
        if kind.native
        else "the key listener it has does not do what its click does"
    )
    return Trial("", f"{after}its click {wanted.describe()}, and {keys} the same ({why})")
