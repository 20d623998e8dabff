"""Checks for the combobox case (APG combobox pattern, list autocomplete)."""

from __future__ import annotations

from lm_eval_a11y.checks import (
    Element,
    Outcome,
    Session,
    best_practice,
    failed,
    find_hook,
    focused_item,
    passed,
    requirement,
)

TYPED = "Ca"
NATIVE = "A native <datalist> suggestion list is drawn and driven by the browser"


async def _native(s: Session) -> bool:
    """A text input tied to a <datalist> that offers options."""
    return await s.find(".country-input[list]") is not None and bool(await s.find_all("datalist option"))


async def _open_options(s: Session) -> list[Element]:
    """Options a screen reader can reach inside a listbox that is shown now."""
    options: list[Element] = []
    for listbox in await s.by_role("listbox"):
        if not listbox.visible or listbox.hidden_from_at:
            continue
        for option in await s.by_role("option"):
            if option.visible and not option.hidden_from_at and await s.contains(listbox, option):
                options.append(option)
    return options


async def _type(s: Session, field: Element) -> list[Element]:
    """Type into the field; the options shown once suggestions have arrived (they are often
    filtered after a short debounce, so they are asked for again: Session.eventually)."""
    await s.focus(field)
    await s.type_text(TYPED)
    return await s.eventually(lambda: _open_options(s))


async def _closed(s: Session) -> bool:
    return not await _open_options(s)


@requirement("combobox-role", "The field is exposed as a named combobox")
async def combobox_role(s: Session) -> Outcome:
    field = await find_hook(s, ".country-input")
    if field.role != "combobox":
        return failed(f"The field is {field.describe()}; a screen reader is not told it offers suggestions")
    if not field.name:
        return failed("The combobox has no accessible name")
    return passed(f"The field is a combobox named {field.name!r}")


@requirement("suggestions-listbox", "Typing shows the suggestions as options of a listbox and marks the field expanded")
async def suggestions_listbox(s: Session) -> Outcome:
    field = await find_hook(s, ".country-input")
    if await _native(s):
        return passed(NATIVE)
    if field.attr("aria-expanded") == "true":
        return failed("The field says aria-expanded='true' before anything was typed")
    options = await _type(s, field)
    if not options:
        return failed(f"After typing {TYPED!r} no listbox with options is shown to assistive technology")
    expanded = (await s.refresh(field)).attr("aria-expanded")
    if expanded != "true":
        return failed(f"The suggestions are shown but the field has aria-expanded={expanded!r}, not 'true'")
    return passed(f"Typing {TYPED!r} shows {len(options)} options and the field is expanded")


@requirement(
    "arrow-and-enter",
    "Down Arrow reaches a suggestion and Enter puts it in the field, closes the list and marks it collapsed",
)
async def arrow_and_enter(s: Session) -> Outcome:
    field = await find_hook(s, ".country-input")
    if await _native(s):
        return passed(NATIVE)
    if not await _type(s, field):
        return failed(f"After typing {TYPED!r} no listbox with options is shown to assistive technology")
    await s.press("ArrowDown")
    current = await focused_item(s)
    if current is None or current.role != "option":
        where = current.describe() if current else "the page body"
        return failed(f"After Down Arrow the keyboard is on {where}, not on a suggestion")
    choice = current.name.strip()
    await s.press("Enter")
    await s.eventually(lambda: _closed(s))
    value = str((await s.refresh(field)).properties.get("value", "")).strip()
    if not value or (value.lower() not in choice.lower() and choice.lower() not in value.lower()):
        return failed(f"Enter on the suggestion {choice!r} leaves the field holding {value!r}")
    if await _open_options(s):
        return failed("After choosing a suggestion with Enter the list is still shown")
    if not await s.is_active(field):
        return failed("After choosing a suggestion focus is not back in the field")
    if (await s.refresh(field)).attr("aria-expanded") == "true":
        return failed("The list closed after Enter but the field still says aria-expanded='true'")
    return passed(f"Down Arrow and Enter fill the field with {choice!r} and close the list")


@requirement("escape-closes", "Escape closes the suggestions, keeps focus in the field and marks it collapsed")
async def escape_closes(s: Session) -> Outcome:
    field = await find_hook(s, ".country-input")
    if await _native(s):
        return passed(NATIVE)
    if not await _type(s, field):
        return failed(f"After typing {TYPED!r} no listbox with options is shown to assistive technology")
    await s.press("Escape")
    if not await s.eventually(lambda: _closed(s)):
        return failed("Escape does not close the suggestions")
    if not await s.is_active(field):
        return failed("After Escape focus is no longer in the field")
    if (await s.refresh(field)).attr("aria-expanded") == "true":
        return failed("The list closed but the field still says aria-expanded='true'")
    return passed("Escape closes the list and focus stays in the field")


@best_practice("active-option-selected", "The suggestion reached with the arrow keys is marked aria-selected")
async def active_option_selected(s: Session) -> Outcome:
    field = await find_hook(s, ".country-input")
    if await _native(s):
        return passed(NATIVE)
    await _type(s, field)
    await s.press("ArrowDown")
    current = await focused_item(s)
    if current is None or current.role != "option":
        return failed("Down Arrow does not reach a suggestion")
    if current.attr("aria-selected") != "true":
        return failed(f"The highlighted suggestion {current.name!r} is not marked aria-selected='true'")
    return passed(f"The highlighted suggestion {current.name!r} is marked selected")
