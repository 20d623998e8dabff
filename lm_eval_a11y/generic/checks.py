"""Generic page checks: what a reviewer checks on any page with a keyboard and a screen reader.

They know nothing of what the page is meant to be, so each asserts only what holds for every page;
docs/generic.md says what each asserts, its bounds and what it cannot see.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lm_eval_a11y.checks import Outcome, Session, best_practice, failed, not_applicable, passed, requirement
from lm_eval_a11y.engine.walk import HOVER_EVENTS
from lm_eval_a11y.generic.mouse_only import (
    MAX_LABEL_TRIES,
    MOVE_EVENTS,
    focuses_labelled_control,
    hover_only_content,
)
from lm_eval_a11y.generic.native_keys import NativeKind, assumed, keys_do_the_click, listened_widget, native_kinds
from lm_eval_a11y.generic.popups import MAX_POPUP_KINDS, Triggers, open_popups, popup_triggers
from lm_eval_a11y.generic.same_effect import MAX_KINDS, MAX_PATHS, Plan, Step, Trial, plan, same_effect_by_keyboard

if TYPE_CHECKING:
    from lm_eval_a11y.engine.elements import KeyboardFacts, Listening

# What a mouse does to a control, and what the keyboard does.
MOUSE_EVENTS = ("click", "dblclick", "mousedown", "mouseup", "pointerdown", "pointerup")
KEY_EVENTS = ("keydown", "keyup", "keypress")
FOCUS_EVENTS = ("focus", "blur", "focusin", "focusout")
# A listener here hears the whole page: it delegates (or closes menus on a click outside them).
DOCUMENT_TAGS = ("html", "body")
# Elements listened on beyond this many are not judged, and the check fails for them.
MAX_LISTENED = 400
# The checks that walk the page with the keyboard or lay it out anew run one after another on one
# page load (checks.py, shares_page): each starts from the top or undoes what it changes.
KEYBOARD_AND_LAYOUT = "generic-keyboard-and-layout"
# Failures named in the message.
NAMED = 3
# Keys pressed in one keyboard walk, at most (each costs a round trip and the page's reaction).
MAX_PRESSES = 60
# Tab stops whose focus indicator is looked at, at most: the first stop of each kind (tag, role,
# type and classes, which is what pages style focus by), in Tab order.
MAX_FOCUS_CHECKS = 4
FRAME_TAGS = ("iframe", "frame", "object", "embed")
# WCAG 1.4.10: content reflows at 320 CSS pixels wide (1280 at 400 % zoom).
REFLOW_WIDTH = 320
# What a skip link says it does: skip or jump to, bypass, or go to the main content.
SKIP_LINK_WORDS = re.compile(r"\b(skip|jump|bypass)|\b(main|content)\b", re.IGNORECASE)


def _more(total: int) -> str:
    """What a message adds for the failures past the :data:`NAMED` it names: `` (and N more)``."""
    return f" (and {total - NAMED} more)" if total > NAMED else ""


@best_practice("one-main-landmark", "The page has exactly one main landmark, and it holds content")
async def one_main_landmark(s: Session) -> Outcome:
    mains = [m for m in await s.landmarks() if m.role == "main"]
    if not mains:
        return failed("The page has no main landmark (<main> or role=main): screen reader users cannot jump to it")
    if len(mains) > 1:
        return failed(f"The page has {len(mains)} main landmarks exposed to assistive technology; one is expected")
    if not (await s.element(mains[0].ref)).text.strip():
        return failed("The main landmark holds no text")
    return passed("The page has one main landmark with content")


@best_practice("one-h1", "The page has exactly one level-1 heading, with a name")
async def one_h1(s: Session) -> Outcome:
    tops = [h for h in await s.headings() if h.level == 1]
    if not tops:
        return failed("The page has no level-1 heading (<h1> or aria-level=1) exposed to assistive technology")
    if len(tops) > 1:
        names = ", ".join(repr(h.name[:40]) for h in tops[:4])
        return failed(f"The page has {len(tops)} level-1 headings ({names}); one is expected")
    if not tops[0].name.strip():
        return failed("The page's level-1 heading has no text")
    return passed(f"The page has one level-1 heading, {tops[0].name[:60]!r}")


@requirement(
    "mouse-targets-keyboard-operable",
    "Every element the page listens to the mouse on can be reached and worked from the keyboard",
    late=True,
)
async def mouse_targets_keyboard_operable(s: Session) -> Outcome:
    found = await s.event_listeners(MOUSE_EVENTS + KEY_EVENTS + HOVER_EVENTS + MOVE_EVENTS, limit=MAX_LISTENED)
    listening, truncated = found.targets, found.truncated
    on_elements = [t for t in listening if t.ref is not None and t.tag not in DOCUMENT_TAGS]
    on_document = [t for t in listening if t not in on_elements]
    mouse_types = {t.ref: set(t.types) & set(MOUSE_EVENTS) for t in on_elements}
    # Dragging with a button held: a move listener on something that looks dragged (docs/generic.md).
    moving = [t.ref for t in on_elements if set(t.types) & set(MOVE_EVENTS) and not mouse_types.get(t.ref)]
    for ref in await s.probe("dragLooking", moving) if moving else []:
        mouse_types[ref] = {"mousemove (with a button held)"}
    targets = [ref for ref, types in mouse_types.items() if types and ref is not None]
    hovering = [t.ref for t in on_elements if t.ref is not None and set(t.types) & set(HOVER_EVENTS)]
    # Clicks heard by the whole page are delegated to elements nothing marks but their looks: the
    # pointing-hand cursor a mouse user goes by stands for them.
    delegated = any(set(t.types) & set(MOUSE_EVENTS) for t in on_document)
    if delegated:
        targets += [ref for ref in await s.pointer_cursor_elements() if ref not in mouse_types]
    if not targets:
        hover_named, hover_note = await _hover_only(s, hovering)
        if hover_named:
            return failed(
                f"{len(hover_named)} element(s) show content only to a mouse: {'; '.join(hover_named[:NAMED])}"
                f"{_more(len(hover_named))}"
            )
        return passed(
            f"No element listens for the mouse, and nothing looks clickable under a listener on the page{hover_note}"
        )
    facts = await _keyboard_facts(s, targets, on_elements, on_document)
    problems = _problems(facts, mouse_types)
    # A label of a control (aria-labelledby) whose click only moves focus there: Tab does that.
    labels = []
    for fact, _problem in problems[:MAX_LABEL_TRIES]:
        if not fact.tab_stop and (control := await focuses_labelled_control(s, fact.ref)):
            labels.append((fact, control))
    label_note = ""
    if labels:
        problems = [(fact, problem) for fact, problem in problems if fact not in {f for f, _ in labels}]
        label_note = f"; a click on {len(labels)} label(s) only focuses the control they name ({labels[0][1]})"
    # Described and planned now: the tries below load the page afresh, and its references go with it.
    kinds = await _kinds(s, problems, targets)
    # Targets hidden at load may be in popups: their triggers, opened from the keyboard below (popups.py).
    hidden = [fact.ref for fact in facts if not fact.rendered]
    triggers = await popup_triggers(s, hidden)
    # Native buttons and links in the Tab order: Enter and Space tried on them (native_keys.py).
    natives = await native_kinds(
        s, [f.ref for f in facts if assumed(f) and _keyboard_problem(f, mouse_types.get(f.ref)) is None], targets
    )
    # ARIA widgets with a key listener: what the listener does is tried too (native_keys.py).
    natives += await native_kinds(s, [f.ref for f in _listened(facts, mouse_types)], targets, widgets=True)
    # Hovering and the keyboard walk change the page: judged once the facts above are read.
    hover_named, hover_note = await _hover_only(s, hovering)
    # Popups hidden at load, opened from the keyboard (on the page as loaded when hovering left it so).
    popup_failed, popup_note = await _popups(s, triggers)
    # The same effect by keyboard, judged by doing (same_effect.py): one target of each kind.
    described, effect_note = await _same_effect(s, kinds, _activated(problems, mouse_types))
    native_failed, native_note = await _native_keys(s, natives)
    effect_note += native_note + popup_note
    failures = [problem for _fact, problem in described] + native_failed + popup_failed + hover_named
    if truncated:
        problems_note = f"; the page listens on more than {MAX_LISTENED} elements, and the rest were not judged"
    else:
        problems_note = ""
    if not failures:
        if truncated:
            return failed(f"The first {MAX_LISTENED} elements listened on are keyboard operable{problems_note}")
        return passed(
            f"All {len(facts)} element(s) that listen for the mouse or look clickable work from the keyboard"
            f"{label_note}{effect_note}{hover_note}"
        )
    return failed(
        f"{len(failures)} element(s) a mouse can work are out of the keyboard's reach: {'; '.join(failures[:NAMED])}"
        f"{_more(len(failures))}"
        f"{problems_note}"
    )


Described = list[tuple["KeyboardFacts", str]]


# A kind of target: its members, whether its first is tried, and the plan of that try.
Kind = tuple[Described, bool, Plan | None]


async def _kinds(s: Session, problems: Described, targets: list[int], focus: int | None = None) -> list[Kind]:
    """The problems, each with its element described, by kind (tag, role and classes), each of the
    first :data:`MAX_KINDS` kinds with the plan of its first element's try (same_effect.py;
    ``targets``: every mouse target, the others of a widget clicked first when need be;
    ``focus``: the place of the element a popup's opening left focus on, tried first), the
    others untried."""
    kinds: dict[str, Described] = {}
    for fact, problem in problems:
        element = await s.element(fact.ref)
        kinds.setdefault(f"{element.tag}|{element.role}|{' '.join(sorted(element.classes))}", []).append(
            (fact, f"{element.describe()} {problem}")
        )
    planned: list[Kind] = []
    for index, members in enumerate(kinds.values()):
        tried = index < MAX_KINDS
        planned_one = await plan(s, members[0][0].ref, targets) if tried else None
        if planned_one is not None and focus is not None and focus not in planned_one[1]:
            place, paths, companions = planned_one
            planned_one = (place, [focus, *paths][:MAX_PATHS], companions)
        planned.append((members, tried, planned_one))
    return planned


async def _keyboard_facts(
    s: Session, refs: list[int], on_elements: list[Listening], on_document: list[Listening]
) -> list[KeyboardFacts]:
    """What the keyboard can do with ``refs``, given the listeners found on elements and on the
    document or window."""
    return await s.keyboard_facts(
        refs,
        [t.ref for t in on_elements if t.ref is not None and set(t.types) & set(KEY_EVENTS)],
        [t.ref for t in on_elements if t.ref is not None and "click" in t.types],
        keys_on_document=any(set(t.types) & set(KEY_EVENTS) for t in on_document),
        clicks_on_document=any("click" in t.types for t in on_document),
    )


def _problems(facts: list[KeyboardFacts], mouse_types: dict[int | None, set[str]]) -> Described:
    """The facts the rules of the check do not pass, each with why (:func:`_keyboard_problem`)."""
    return [
        (fact, problem) for fact in facts if (problem := _keyboard_problem(fact, mouse_types.get(fact.ref))) is not None
    ]


def _listened(facts: list[KeyboardFacts], mouse_types: dict[int | None, set[str]]) -> list[KeyboardFacts]:
    """The ARIA widgets the rules of the check pass on a key listener alone (:func:`listened_widget`),
    whose keys are then tried."""
    return [f for f in facts if listened_widget(f) and _keyboard_problem(f, mouse_types.get(f.ref)) is None]


def _activated(problems: Described, mouse_types: dict[int | None, set[str]]) -> set[int]:
    """Native controls among ``problems`` whose click Enter and Space fire, and which hear it (not
    mousedown alone)."""
    return {
        fact.ref
        for fact, _problem in problems
        if fact.control == "native"
        and fact.click_activated
        and (fact.click_heard or "click" in mouse_types.get(fact.ref, set()))
    }


async def _same_effect(
    s: Session, kinds: list[Kind], activated: set[int], opening: Step | None = None
) -> tuple[Described, str]:
    """The problems left once a keyboard path that does what the click does is looked for, and a
    note for a passing message. The first target of each kind (at most :data:`MAX_KINDS` kinds) is
    tried and stands for its kind (``activated``: native controls whose click Enter and Space
    fire; ``opening``: the key that opens their popup, popups.py). The page is left changed (the
    next check gets a fresh one)."""
    left: Described = []
    found = []
    for members, tried, planned in kinds:
        if not tried:
            left += [
                (f, f"{p}; not tried for the same effect by keyboard (beyond {MAX_KINDS} kinds)") for f, p in members
            ]
            continue
        trial = await same_effect_by_keyboard(s, planned, members[0][0].ref in activated, opening)
        if trial.path:
            found.append((len(members), trial.path))
        else:
            left += [(fact, f"{problem}; {trial.note}") for fact, problem in members]
    note = ""
    if found:
        note = f"; {sum(n for n, _ in found)} element(s) do by keyboard what their click does ({found[0][1]})"
    return left, note


async def _native_keys(s: Session, natives: list[NativeKind]) -> tuple[list[str], str]:
    """The native buttons and links whose click Enter and Space do not do (the first of each kind
    tried and standing for its kind), described, and a note for a passing message. The page is
    left changed (the next check gets a fresh one)."""
    failures: list[str] = []
    found = []
    for kind in natives:
        trial = await keys_do_the_click(s, kind)
        if not trial.path and kind.plan is not None:
            # A widget whose own Enter and Space do not: the keys of the widget around it may.
            path = (await same_effect_by_keyboard(s, kind.plan, False)).path
            trial = (
                Trial(path, "")
                if path
                else Trial("", f"{trial.note}; nor does a key tried from its widget's Tab stops")
            )
        if trial.path:
            found.append((len(kind.members), kind.members[0], trial.path))
        else:
            reached = "takes focus from Tab" if kind.native else "takes focus and has a key listener"
            failures += [f"{member} {reached}, but {trial.note}" for member in kind.members]
    note = ""
    if found:
        _count, first, path = found[0]
        note = (
            f"; {sum(n for n, _, _ in found)} button(s), link(s) or widget(s) taking focus do by keyboard "
            f"what their click does ({first}: {path})"
        )
    return failures, note


async def _mouse_targets(s: Session) -> list[int]:
    """The page's mouse targets as it is now, in document order: elements listened on for the mouse,
    and with a listener on the whole page the elements drawn with a pointing-hand cursor."""
    found = await s.event_listeners(MOUSE_EVENTS, limit=MAX_LISTENED)
    targets = [t.ref for t in found.targets if t.ref is not None and t.tag not in DOCUMENT_TAGS]
    if any(t.ref is None or t.tag in DOCUMENT_TAGS for t in found.targets):
        targets += [ref for ref in await s.pointer_cursor_elements() if ref not in targets]
    return targets


async def _popups(s: Session, triggers: Triggers) -> tuple[list[str], str]:
    """The mouse targets of popups hidden at load that the keyboard cannot work, described (each
    popup opened from the keyboard and judged by the rules above, popups.py), and a note for a
    passing message. The page is left changed (the next check gets a fresh one)."""
    failures: list[str] = []
    if triggers.unreached:
        failures.append(
            f"{triggers.unreached} element(s) in popups beyond the {MAX_POPUP_KINDS} opened, of kinds none of those "
            f"holds, were not judged (such as {triggers.example})"
        )
    opened = []
    judged: set[int] = set()  # places in document order, judged in an earlier popup
    async for popup in open_popups(s, list(triggers.chosen), _mouse_targets):
        found = await s.event_listeners(MOUSE_EVENTS + KEY_EVENTS, limit=MAX_LISTENED)
        on_elements = [t for t in found.targets if t.ref is not None and t.tag not in DOCUMENT_TAGS]
        on_document = [t for t in found.targets if t not in on_elements]
        mouse_types: dict[int | None, set[str]] = {t.ref: set(t.types) & set(MOUSE_EVENTS) for t in on_elements}
        places = {ref: await s.probe("effectPlace", ref) for ref in popup.revealed}
        fresh = [ref for ref in popup.revealed if places[ref] is None or places[ref] not in judged]
        judged.update(place for place in places.values() if place is not None)
        facts = await _keyboard_facts(s, fresh, on_elements, on_document)
        problems = _problems(facts, mouse_types)
        # The items of a popup the keyboard reaches with a key listener around them (menu items,
        # options): the listener may hear only Escape or only move a mark, so what their click does
        # is looked for along the keys of the popup's own widget, from its opening (same_effect.py).
        problems += [
            (fact, f"has role {fact.role}, and a key listener around it") for fact in _listened(facts, mouse_types)
        ]
        kinds = await _kinds(s, problems, list(popup.revealed), popup.focus)
        described, _note = await _same_effect(s, kinds, _activated(problems, mouse_types), popup.opening)
        failures += [f"in {popup.describe()}: {problem}" for _fact, problem in described]
        opened.append((popup, len(fresh)))
    note = ""
    if opened and not failures:
        note = (
            f"; {sum(n for _, n in opened)} element(s) in {len(opened)} popup(s) hidden at load, opened from the "
            f"keyboard, work from it too ({opened[0][0].describe()})"
        )
    return failures, note


async def _hover_only(s: Session, hovering: list[int]) -> tuple[list[str], str]:
    """What hovering shows and the keyboard does not (see mouse_only.py), named, and a note for a
    passing message."""
    findings, revealing = await hover_only_content(s, hovering)
    named = [
        f"{f.target} shows {f.revealed} element(s) (such as {f.example}) when the pointer rests on it, and no "
        "Tab stop or Enter on a collapsed button shows them"
        for f in findings
    ]
    note = f"; the keyboard shows what hovering shows on {revealing} element(s)" if revealing and not named else ""
    return named, note


def _keyboard_problem(fact: KeyboardFacts, mouse_types: set[str] | None) -> str | None:
    """Why the keyboard cannot do what the mouse does with this element, or None.

    ``mouse_types``: the mouse events it listens for; None for an element that only looks
    clickable under a listener on the whole page."""
    if not fact.rendered or fact.disabled:
        return None  # a mouse cannot work it either
    if fact.backdrop:
        return None  # clicking a dialog's backdrop is a shortcut for Escape and the dialog's buttons
    if fact.control is not None and fact.reachable:
        if fact.control == "widget" and not fact.key_handled:
            return (
                f"has role {fact.role} and takes focus, but no key listener on it, around it or on the page: "
                "Enter and Space do nothing"
            )
        # Enter and Space on a button or link fire click, never mousedown or pointerdown.
        deaf = mouse_types is not None and "click" not in mouse_types and not fact.click_heard
        if fact.control == "native" and fact.click_activated and deaf and not fact.key_handled:
            heard = ", ".join(sorted(mouse_types or ()))
            return f"listens only for {heard}, which the keyboard never fires (Enter and Space fire click)"
        if fact.control == "native" and not fact.tab_stop:
            # Out of the Tab order, in a widget: only the widget's keys bring focus to it, which is
            # tried (same_effect.py); the browser's Enter and Space work it once there.
            return "is no Tab stop: only the keys of the widget around it could bring focus to it"
        return None
    if fact.inside_workable is not None or fact.holds_workable:
        # Lenient on purpose: a keyboard user works the control around it or inside it, and
        # whether that does what this listener does cannot be seen without trying it.
        return None
    heard = "looks clickable (cursor: pointer) under a click listener on the page"
    if mouse_types is not None:
        heard = f"listens for {', '.join(sorted(mouse_types))}"
    if fact.control is not None:
        return f"{heard}, but the keyboard cannot reach it (it is no Tab stop, nor an item of a widget that is one)"
    if fact.tab_stop:
        return f"{heard} and takes focus, but has no role a keyboard or screen reader user can operate"
    return f"{heard}, but cannot take focus from the keyboard"


@requirement(
    "no-keyboard-trap",
    "Tab and Shift+Tab go through the whole page and out of it; focus is never held (Escape frees it from a dialog)",
    shares_page=KEYBOARD_AND_LAYOUT,
)
async def no_keyboard_trap(s: Session) -> Outcome:
    notes = []
    # Holding Shift+Tab back takes a listener for keys or focus; a page without one is walked
    # forwards only (which also meets a script that takes focus back on a timer).
    steering = await s.event_listeners(KEY_EVENTS + FOCUS_EVENTS)
    for backwards in (False, True) if steering.targets else (False,):
        walk = await s.keyboard_walk(backwards=backwards, max_presses=MAX_PRESSES)
        if walk.cycle and walk.released is False:
            held = [(await s.element(ref)).describe() for ref in walk.cycle[:NAMED]]
            more = f" and {len(walk.cycle) - NAMED} more" if len(walk.cycle) > NAMED else ""
            return failed(
                f"{walk.key} keeps focus going round {len(walk.cycle)} element(s) ({'; '.join(held)}{more}) "
                "and Escape does not let it out"
            )
        if walk.cycle:
            notes.append(f"{walk.key} went round {len(walk.cycle)} element(s) until Escape let focus out")
        elif not walk.left_page:
            notes.append(f"{walk.key} met {len(walk.stops)} stops in {MAX_PRESSES} presses without a trap (the bound)")
        else:
            notes.append(f"{walk.key} went through {len(walk.stops)} stop(s) and out of the page")
    return passed("; ".join(notes))


@requirement(
    "tab-stops-show-focus",
    "Focus is visible on the page's Tab stops (the first stop of each kind, up to 4, in Tab order)",
    na_allowed=True,
    shares_page=KEYBOARD_AND_LAYOUT,
)
async def tab_stops_show_focus(s: Session) -> Outcome:
    kinds: set[str] = set()
    problems = []
    stops = 0
    async for stop in s.tab_stops(MAX_PRESSES):
        # Focus on a frame is inside the frame's own document, which draws it (or not).
        if stop.kind.split("|")[0] in FRAME_TAGS:
            continue
        stops += 1
        if stop.kind in kinds or len(kinds) >= MAX_FOCUS_CHECKS:
            continue
        kinds.add(stop.kind)
        # "off screen": the browser scrolls a focused element into view, so one that stays out of
        # it (a skip link left at left: -9999px) shows its focus to nobody.
        status, detail = await s.focus_indicator(stop.ref)
        if status != "shown":
            problems.append(f"{(await s.element(stop.ref)).describe()}: {detail}")
    if not stops:
        return not_applicable("The page has no Tab stop of its own")
    if problems:
        named = "; ".join(problems[:NAMED])
        return failed(
            f"Focus does not show on {len(problems)} of {len(kinds)} kind(s) of Tab stop: {named}{_more(len(problems))}"
        )
    return passed(f"Focus shows on each of the {len(kinds)} kind(s) of Tab stop looked at ({stops} stop(s) in all)")


@best_practice(
    "skip-link-moves-focus",
    "A link to a place on the page at the first Tab stop (a skip link) moves focus to its target",
    na_allowed=True,
    shares_page=KEYBOARD_AND_LAYOUT,
)
async def skip_link_moves_focus(s: Session) -> Outcome:
    first = None
    async for stop in s.tab_stops(1):
        first = await s.element(stop.ref)
    href = (first.attr("href") or "") if first is not None and first.tag == "a" else ""
    if first is None or not href.startswith("#") or len(href) < 2:
        return not_applicable("The first Tab stop is not a link to a place on the page")
    said = f"{first.name} {first.text}"
    if not SKIP_LINK_WORDS.search(said):
        return not_applicable(
            f"The first Tab stop {first.describe()} links to {href!r} but does not say it skips to content: "
            "an ordinary link, not a skip link"
        )
    name = href[1:]
    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    target = await s.find(f'[id="{quoted}"]') or await s.find(f'a[name="{quoted}"]')
    if target is None:
        return failed(f"The skip link {first.describe()} points to {href!r}, which is not on the page")
    await s.press("Enter")
    landed = await s.active()
    if landed is not None and (landed.ref == target.ref or await s.contains(target, landed)):
        return passed(f"Enter on the skip link {first.describe()} moves focus to its target")
    # Focus moves in the key's own handlers: no settling needed to see where it went.
    after = await s.press("Tab", settle=False)
    # Out of the page, or round to the first stop: nothing the keyboard reaches follows the target.
    if after is None or after.ref == first.ref or await s.precedes(target, after):
        return passed(f"After Enter on the skip link {first.describe()}, Tab goes on from its target")
    return failed(
        f"Enter on the skip link {first.describe()} does not move focus to {href!r}: the next Tab goes to "
        f"{after.describe()}, which comes before it"
    )


@requirement(
    "reflow-320",
    "At 320 CSS px wide no text needs sideways scrolling or is cut off (tables, code, images and media excepted)",
    shares_page=KEYBOARD_AND_LAYOUT,
)
async def reflow_320(s: Session) -> Outcome:
    found = await s.text_overflow_at(REFLOW_WIDTH, limit=NAMED)
    if not found["total"]:
        return passed(f"At {REFLOW_WIDTH} px wide every piece of text fits the width")
    how = "the page scrolls sideways" if found["scrolls"] else "the page does not scroll sideways, so it is cut off"
    named = []
    for item in found["elements"]:
        element = await s.element(int(item["ref"]))
        named.append(f"{element.describe()} reaches {item['right']} px")
    return failed(
        f"At {REFLOW_WIDTH} px wide {found['total']} element(s) with text go past the edge "
        f"(the document is {found['document_width']} px wide; {how}): {'; '.join(named)}{_more(found['total'])}"
    )
