"""Checks for the sign-up form case (inline validation errors).

Every check submits the empty form with a mouse click on "Create account", as a person would, and
then looks at what assistive technology can learn: which error text each field is tied to (its
name, ``aria-describedby`` or, while it is marked invalid, ``aria-errormessage``), where focus went
and whether a live region carries the errors.
"""

from __future__ import annotations

import re

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, element_by_id, failed, passed, requirement

FIELDS = (
    ("#full-name", "full name", re.compile(r"name", re.I)),
    ("#email", "email", re.compile(r"e-?mail", re.I)),
    ("#password", "password", re.compile(r"pass", re.I)),
)
ERROR = ".field-error"
SUBMIT = re.compile(r"create\s+account|sign\s*up|register", re.I)
LIVE_REGIONS = '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"], output'
MISSING = "The page has no element with the id {} the prompt asked for"


async def _field(s: Session, selector: str) -> Element | None:
    return await s.find(selector)


async def _submit_button(s: Session) -> Element | None:
    for el in await s.by_role("button"):
        if SUBMIT.search(el.name) and el.visible:
            return el
    return None


async def _submit(s: Session) -> str | None:
    """Click "Create account"; return a reason when that is impossible."""
    button = await _submit_button(s)
    if button is None:
        return "No visible button named 'Create account' to submit the form with"
    await s.click(button)
    return None


async def _visible_errors(s: Session) -> list[Element]:
    return [e for e in await s.find_all(ERROR) if e.visible and e.text.strip()]


async def _errors_after_submit(s: Session) -> list[Element]:
    """The visible errors once they have appeared (asked for again for a while: a page may
    validate after a pretend request to a server)."""
    return await s.eventually(lambda: _visible_errors(s))


async def _tied_text(s: Session, field: Element) -> str:
    """What a screen reader reads for the field: its name and the text it points to."""
    attrs = ["aria-describedby"]
    if field.attr("aria-invalid") not in (None, "false"):
        attrs.append("aria-errormessage")
    parts = [field.name]
    for attr in attrs:
        for ref_id in (field.attr(attr) or "").split():
            target = await element_by_id(s, ref_id)
            if target is not None:
                parts.append(target.text)
    return " ".join(parts).lower()


async def _tied_errors(s: Session, field: Element, errors: list[Element]) -> list[Element]:
    text = await _tied_text(s, field)
    return [e for e in errors if e.text.strip().lower() in text]


@requirement("fields-named", "Each field has an accessible name that says what to enter")
async def fields_named(s: Session) -> Outcome:
    problems = []
    for selector, label, pattern in FIELDS:
        field = await _field(s, selector)
        if field is None:
            return failed(MISSING.format(selector))
        if not pattern.search(field.name):
            problems.append(f"the {label} field is named {field.name!r}")
    if problems:
        return failed("; ".join(problems).capitalize())
    return passed("The three fields are named")


@requirement("errors-tied-to-fields", "After submitting the empty form, each field is tied to its visible error")
async def errors_tied_to_fields(s: Session) -> Outcome:
    reason = await _submit(s)
    if reason:
        return failed(reason)
    errors = await _errors_after_submit(s)
    if not errors:
        return failed("Submitting the empty form shows no visible '.field-error' message on the page")
    untied = []
    for selector, label, _ in FIELDS:
        field = await _field(s, selector)
        if field is None:
            return failed(MISSING.format(selector))
        if not await _tied_errors(s, field, errors):
            untied.append(label)
    if untied:
        return failed(
            f"{len(errors)} error message(s) are shown, but none is in the name or description of the"
            f" {', '.join(untied)} field(s), so a screen reader on that field does not hear it"
        )
    return passed("Each field's name or description carries its visible error message")


@requirement(
    "submit-focus-or-announce",
    "On a failed submit, focus moves to a field in error or to an error summary, or the errors are announced",
)
async def submit_focus_or_announce(s: Session) -> Outcome:
    before = {r.ref for r in await s.find_all(LIVE_REGIONS)}
    reason = await _submit(s)
    if reason:
        return failed(reason)
    errors = await _errors_after_submit(s)
    if not errors:
        return failed("Submitting the empty form shows no visible '.field-error' message on the page")
    active = await s.active()
    if active is not None:
        for selector, label, _ in FIELDS:
            field = await _field(s, selector)
            if field is not None and field.ref == active.ref:
                return passed(f"Focus moves to the {label} field, which is in error")
        text = active.text.lower()
        if any(e.text.strip().lower() in text for e in errors):
            return passed(f"Focus moves to {active.describe()}, which lists the errors")
    for region in await s.find_all(LIVE_REGIONS):
        if region.hidden_from_at or not (region.role == "alert" or region.ref in before):
            continue
        if any(e.text.strip().lower() in region.text.lower() for e in errors):
            return passed(f"The errors are written into the live region {region.describe()}")
    where = active.describe() if active else "the page body"
    return failed(f"After the failed submit focus is on {where} and no live region carries the errors")


@requirement("errors-clear-when-fixed", "Fixing the full name and submitting again removes that field's error")
async def errors_clear_when_fixed(s: Session) -> Outcome:
    field = await _field(s, "#full-name")
    if field is None:
        return failed(MISSING.format("#full-name"))
    reason = await _submit(s)
    if reason:
        return failed(reason)
    first = await _errors_after_submit(s)
    if not first:
        return failed("Submitting the empty form shows no visible '.field-error' message on the page")
    await s.focus(field)
    await s.type_text("Ada")
    await _submit(s)

    async def fewer() -> list[Element] | None:
        errors = await _visible_errors(s)
        return errors if len(errors) < len(first) else None

    second = await s.eventually(fewer) or await _visible_errors(s)
    field = await s.refresh(field)
    if len(second) >= len(first):
        return failed(f"After fixing the full name {len(second)} error message(s) are shown, {len(first)} before")
    stale = await _tied_errors(s, field, first)
    if stale or field.attr("aria-invalid") == "true":
        return failed("The fixed full-name field is still described as in error")
    return passed(f"Fixing the full name takes its error away ({len(first)} -> {len(second)} messages)")


@best_practice("invalid-state", "Fields in error are marked aria-invalid='true', and the mark goes once fixed")
async def invalid_state(s: Session) -> Outcome:
    reason = await _submit(s)
    if reason:
        return failed(reason)
    unmarked = []
    for selector, label, _ in FIELDS:
        field = await _field(s, selector)
        if field is None:
            return failed(MISSING.format(selector))
        if field.attr("aria-invalid") != "true":
            unmarked.append(label)
    if unmarked:
        return failed(f"After a failed submit the {', '.join(unmarked)} field(s) are not marked aria-invalid='true'")
    field = await _field(s, "#full-name")
    if field is None:
        return failed(MISSING.format("#full-name"))
    await s.focus(field)
    await s.type_text("Ada")
    await _submit(s)
    if (await s.refresh(field)).attr("aria-invalid") == "true":
        return failed("The fixed full-name field keeps aria-invalid='true'")
    return passed("aria-invalid follows each field's state")
