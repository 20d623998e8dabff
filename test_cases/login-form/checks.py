"""Checks for the log-in form case.

A failed sign-in is the moment a screen-reader user most needs to be told something; the message
counts as announced when it sits in ``role="alert"``, in a live region that was on the page before
the attempt (a region created together with its text is usually not read), or when focus moves to
it or to a field it describes.
"""

from __future__ import annotations

import re

from lm_eval_a11y.checks import (
    Element,
    Outcome,
    Session,
    best_practice,
    css_string,
    element_by_id,
    failed,
    id_selector,
    passed,
    requirement,
)

EMAIL = "#email"
PASSWORD = "#password"
ERROR = ".form-error"
WRONG_EMAIL = "x@example.com"
WRONG_PASSWORD = "not-the-password"  # long enough for any minlength
LIVE_REGIONS = '[aria-live]:not([aria-live="off"]), [role="status"], [role="alert"], [role="log"], output'
EMAIL_NAME = re.compile(r"e-?mail|user", re.IGNORECASE)
PASSWORD_NAME = re.compile(r"pass", re.IGNORECASE)
LOG_IN = re.compile(r"\blog\s*-?\s*in\b", re.IGNORECASE)
EMAIL_TOKENS = ("email", "username")
PASSWORD_TOKENS = ("current-password",)


async def _fields(s: Session) -> tuple[Element | None, Element | None]:
    return await s.find(EMAIL), await s.find(PASSWORD)


async def _log_in_button(s: Session) -> Element | None:
    for button in await s.by_role("button"):
        if LOG_IN.search(button.name) and button.visible:
            return button
    return None


async def _fill_wrong_credentials(s: Session, email: Element, password: Element) -> None:
    await s.focus(email)
    await s.type_text(WRONG_EMAIL)
    await s.focus(password)
    await s.type_text(WRONG_PASSWORD)


async def _shown_error(s: Session) -> Element | None:
    for el in await s.find_all(ERROR):
        if el.visible and el.text.strip():
            return el
    return None


async def _error_after_submit(s: Session) -> Element | None:
    """The sign-in error once it has appeared: pages often show it after a pretend request to a
    server, so it is asked for again for a while (Session.eventually)."""
    return await s.eventually(lambda: _shown_error(s))


async def _described_by(s: Session, el: Element) -> str:
    """The text a screen reader reads after the field's name (aria-describedby, aria-errormessage)."""
    attrs = ["aria-describedby"]
    if el.attr("aria-invalid") not in (None, "false"):
        attrs.append("aria-errormessage")
    parts = []
    for attr in attrs:
        for ref_id in (el.attr(attr) or "").split():
            target = await element_by_id(s, ref_id)
            if target is not None:
                parts.append(target.text)
    return " ".join(parts)


@requirement("fields-named", "The email and password fields have accessible names that say what to enter")
async def fields_named(s: Session) -> Outcome:
    email, password = await _fields(s)
    if email is None or password is None:
        return failed("The page has no element with the id 'email' or 'password' the prompt asked for")
    problems = []
    if not EMAIL_NAME.search(email.name):
        problems.append(f"the email field is named {email.name!r}")
    if not PASSWORD_NAME.search(password.name):
        problems.append(f"the password field is named {password.name!r}")
    if problems:
        return failed("; ".join(problems).capitalize() + ", which does not say what to enter")
    return passed(f"The fields are named {email.name!r} and {password.name!r}")


def _token(el: Element) -> str:
    tokens = [t for t in (el.attr("autocomplete") or "").lower().split() if t != "webauthn"]
    return tokens[-1] if tokens else ""


@requirement(
    "autocomplete-purpose",
    "The fields identify their purpose: autocomplete 'email' or 'username', and 'current-password'",
)
async def autocomplete_purpose(s: Session) -> Outcome:
    email, password = await _fields(s)
    if email is None or password is None:
        return failed("The page has no element with the id 'email' or 'password' the prompt asked for")
    problems = []
    if _token(email) not in EMAIL_TOKENS:
        problems.append(f"the email field has autocomplete={email.attr('autocomplete')!r}")
    if _token(password) not in PASSWORD_TOKENS:
        problems.append(f"the password field has autocomplete={password.attr('autocomplete')!r}")
    if problems:
        return failed("; ".join(problems).capitalize() + "; browsers and assistive tools cannot fill them in")
    return passed(f"autocomplete is {_token(email)!r} and {_token(password)!r}")


@requirement("keyboard-submit", "Tab reaches the 'Log in' button, and Enter on it tries to sign in")
async def keyboard_submit(s: Session) -> Outcome:
    email, password = await _fields(s)
    if email is None or password is None:
        return failed("The page has no element with the id 'email' or 'password' the prompt asked for")
    button = await _log_in_button(s)
    if button is None:
        return failed("No visible button named 'Log in': assistive technology does not announce one")
    await _fill_wrong_credentials(s, email, password)
    if not await s.tab_to(button):
        return failed(f"Pressing Tab never reaches {button.describe()}")
    await s.press("Enter")
    if await _error_after_submit(s) is None:
        return failed("Enter on the focused 'Log in' button with wrong credentials shows no '.form-error' message")
    return passed("Tab reaches 'Log in' and Enter on it shows the sign-in error")


@requirement("failure-announced", "A failed sign-in shows its message and announces it or moves focus to it")
async def failure_announced(s: Session) -> Outcome:
    email, password = await _fields(s)
    if email is None or password is None:
        return failed("The page has no element with the id 'email' or 'password' the prompt asked for")
    button = await _log_in_button(s)
    if button is None:
        return failed("No visible button named 'Log in' to try a sign-in with")
    before = {r.ref for r in await s.find_all(LIVE_REGIONS)}
    await _fill_wrong_credentials(s, email, password)
    await s.click(button)
    message = await _error_after_submit(s)
    if message is None:
        return failed("After a sign-in with wrong credentials no '.form-error' message is visible")
    if message.hidden_from_at:
        return failed("The error message is visible but hidden from assistive technology")
    for region in await s.find_all(LIVE_REGIONS):
        if region.hidden_from_at:
            continue
        if await s.contains(region, message) or await s.contains(message, region):
            if region.role == "alert":
                return passed("The message is in role='alert', which screen readers announce at once")
            if region.ref in before:
                return passed("The message is written into a live region that was already on the page")
    active = await s.active()
    if active is not None:
        if await s.contains(message, active) or await s.contains(active, message):
            return passed("Focus moves to the error message, so it is read")
        if message.text.strip() and message.text.strip().lower() in (await _described_by(s, active)).lower():
            return passed(f"Focus moves to {active.describe()}, which is described by the message")
    return failed(
        "The message appears silently: it is not in role='alert' or a live region that existed before the"
        " attempt, and focus does not move to it"
    )


async def _visible_label(s: Session, field: Element) -> bool:
    field_id = field.attr("id") or ""
    for label in await s.find_all(f"label[for={css_string(field_id)}], label:has({id_selector(field_id)})"):
        if label.visible and label.text.strip():
            return True
    for ref_id in (field.attr("aria-labelledby") or "").split():
        target = await element_by_id(s, ref_id)
        if target is not None and target.visible and target.text.strip():
            return True
    return False


@best_practice("labels-stay-visible", "Each field has a visible label that stays while typing, not only a placeholder")
async def labels_stay_visible(s: Session) -> Outcome:
    email, password = await _fields(s)
    if email is None or password is None:
        return failed("The page has no element with the id 'email' or 'password' the prompt asked for")
    missing = [f"#{f.attr('id')}" for f in (email, password) if not await _visible_label(s, f)]
    if missing:
        return failed(f"No visible <label> or aria-labelledby text for {', '.join(missing)}; a placeholder vanishes")
    return passed("Both fields have visible labels")
