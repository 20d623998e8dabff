"""Checks for the radio-group case (APG radio group pattern)."""

from __future__ import annotations

from lm_eval_a11y.checks import (
    Element,
    Outcome,
    Session,
    best_practice,
    css_string,
    failed,
    focused_item,
    passed,
    requirement,
)

NO_GROUP = "No element has the class 'shipping-options' the prompt asked for"


async def _radios(s: Session) -> tuple[Element | None, list[Element]]:
    """The wrapper and the radios inside it that assistive technology can reach."""
    group = await s.find(".shipping-options")
    if group is None:
        return None, []
    radios = [r for r in await s.by_role("radio") if not r.hidden_from_at and await s.contains(group, r)]
    return group, radios


def _checked(radios: list[Element]) -> list[int]:
    return [i for i, r in enumerate(radios) if r.state("checked") == "true"]


async def _refresh(s: Session, radios: list[Element]) -> list[Element]:
    return [await s.refresh(r) for r in radios]


async def _click(s: Session, radio: Element) -> None:
    """Click a radio as a person would: on itself, or on its label when the input is visually hidden."""
    if radio.visible and radio.rect.get("width", 0) > 2 and radio.rect.get("height", 0) > 2:
        await s.click(radio)
        return
    labels = []
    if radio.attr("id"):
        labels = await s.find_all(f"label[for={css_string(radio.attr('id') or '')}]")
    if not labels:
        labels = [lab for lab in await s.find_all("label") if await s.contains(lab, radio)]
    if not labels:
        raise ValueError(f"{radio.describe()} is not visible and has no label to click")
    await s.click(labels[0])


@requirement("radio-roles", "The three choices are exposed as named radio buttons")
async def radio_roles(s: Session) -> Outcome:
    group, radios = await _radios(s)
    if group is None:
        return failed(NO_GROUP)
    if len(radios) < 3:
        return failed(f"Assistive technology finds {len(radios)} radio buttons in the group, not three")
    unnamed = [r.describe() for r in radios if not r.name]
    if unnamed:
        return failed(f"Radio buttons without an accessible name: {unnamed}")
    return passed(f"Radio buttons {[r.name for r in radios]}")


@requirement("checked-state", "The chosen method is exposed as checked, before and after choosing another")
async def checked_state(s: Session) -> Outcome:
    group, radios = await _radios(s)
    if group is None:
        return failed(NO_GROUP)
    if len(radios) < 3:
        return failed(f"Assistive technology finds {len(radios)} radio buttons in the group, not three")
    if _checked(radios) != [0]:
        return failed(f"On load the checked radios are {[radios[i].name for i in _checked(radios)]}, not Standard")
    await _click(s, radios[2])
    radios = await _refresh(s, radios)
    if _checked(radios) != [2]:
        return failed(
            f"After clicking {radios[2].name!r} the checked radios are {[radios[i].name for i in _checked(radios)]}"
        )
    return passed("The checked state follows the choice")


@requirement("one-tab-stop", "The group is one Tab stop, on the checked radio")
async def one_tab_stop(s: Session) -> Outcome:
    group, radios = await _radios(s)
    if group is None:
        return failed(NO_GROUP)
    if not radios:
        return failed("Assistive technology finds no radio buttons in the group")
    refs = {r.ref for r in radios}
    stops = [
        e for e in await s.tab_sequence() if e.ref in refs or (e.role == "radiogroup" and await s.contains(group, e))
    ]
    if not stops:
        return failed("Pressing Tab never reaches the radio buttons")
    if len(stops) > 1:
        return failed(f"Tab stops on {len(stops)} radio buttons; the group should be one stop")
    await s.focus(stops[0])
    current = await focused_item(s)
    if current is None or current.ref != radios[0].ref:
        where = current.describe() if current else "nothing"
        return failed(f"Tab reaches {where}, not the checked radio {radios[0].name!r}")
    return passed("Tab enters the group once, on the checked radio")


@requirement("arrow-keys", "Down/Right and Up/Left arrows move to the next and previous radio and check it")
async def arrow_keys(s: Session) -> Outcome:
    group, radios = await _radios(s)
    if group is None:
        return failed(NO_GROUP)
    if len(radios) < 3:
        return failed(f"Assistive technology finds {len(radios)} radio buttons in the group, not three")
    if not await s.tab_to(group):
        return failed("Pressing Tab never reaches the radio buttons")
    # The APG gives Right the job of Down and Left the job of Up; a group may be laid out either way.
    for key, index in (("ArrowDown", 1), ("ArrowRight", 2), ("ArrowUp", 1), ("ArrowLeft", 0)):
        await s.press(key)
        current = await focused_item(s)
        if current is None or current.ref != radios[index].ref:
            where = current.describe() if current else "the page body"
            return failed(f"After {key} the keyboard is on {where}, not on {radios[index].name!r}")
        checked = _checked(await _refresh(s, radios))
        if checked != [index]:
            return failed(f"After {key} the checked radios are {[radios[i].name for i in checked]}")
    return passed("Down/Right and Up/Left move through the radios and check the one reached")


@best_practice("arrows-wrap", "Arrow keys wrap from the last radio to the first and back")
async def arrows_wrap(s: Session) -> Outcome:
    group, radios = await _radios(s)
    if group is None or len(radios) < 3:
        return failed("The group or its three radio buttons are missing")
    if not await s.tab_to(group):
        return failed("Pressing Tab never reaches the radio buttons")
    await s.press("ArrowUp")
    current = await focused_item(s)
    if current is None or current.ref != radios[-1].ref:
        return failed("ArrowUp on the first radio does not move to the last one")
    await s.press("ArrowDown")
    current = await focused_item(s)
    if current is None or current.ref != radios[0].ref:
        return failed("ArrowDown on the last radio does not move to the first one")
    return passed("Arrow keys wrap around the group")


@best_practice("group-labelled", "The radios sit in a named group (fieldset with legend, or a labelled radiogroup)")
async def group_labelled(s: Session) -> Outcome:
    group, radios = await _radios(s)
    if group is None or not radios:
        return failed("The group or its radio buttons are missing")
    for candidate in await s.by_role(["radiogroup", "group"]):
        if await s.contains(candidate, radios[0]):
            if candidate.name:
                return passed(f"The radios are in a {candidate.role} named {candidate.name!r}")
            return failed(f"The radios are in a {candidate.role} without an accessible name")
    return failed("The radios are not inside a group or radiogroup, so the question is not announced with them")
