"""Checks for the modal-dialog case (APG dialog (modal) pattern).

The dialog is the element with the class ``dialog`` or, when that class sits on an overlay or an
inner box, the element with role ``dialog``/``alertdialog`` next to it. Checks after the first open
it the way a keyboard user does (Tab to the trigger, Enter) and fall back to a click, so that one
keyboard fault does not hide every other finding.
"""

from __future__ import annotations

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement

DIALOG_ROLES = ("dialog", "alertdialog")
NO_TRIGGER = "No element has the class 'open-dialog' the prompt asked for"
NO_DIALOG = "No element has the class 'dialog' the prompt asked for"


async def _dialog(s: Session) -> Element | None:
    """The element that carries the dialog role for the hooked element, else the hooked element."""
    hook = await s.find(".dialog")
    if hook is None or hook.role in DIALOG_ROLES:
        return hook
    for candidate in await s.by_role(list(DIALOG_ROLES)):
        if await s.contains(hook, candidate) or await s.contains(candidate, hook):
            return candidate
    return hook


async def _shown(s: Session) -> Element | None:
    """The dialog if it is open now. Looked up afresh: a page may create it on open or remove it on close."""
    dialog = await _dialog(s)
    if dialog is not None and dialog.visible and not dialog.hidden_from_at:
        return dialog
    return None


async def _open(s: Session, *, keyboard_only: bool = False) -> tuple[Element | None, Element | None, str]:
    """Open the dialog from its trigger; returns (trigger, dialog, problem or '')."""
    trigger = await s.find(".open-dialog")
    if trigger is None:
        return None, None, NO_TRIGGER
    if await s.tab_to(trigger):
        await s.press("Enter")
        dialog = await _shown(s)
        if dialog is not None:
            return trigger, dialog, ""
    if keyboard_only:
        return trigger, None, f"Tab then Enter on {trigger.describe()} does not show the dialog"
    await s.click(trigger)
    dialog = await _shown(s)
    if dialog is not None:
        return trigger, dialog, ""
    if await _dialog(s) is None:
        return trigger, None, NO_DIALOG + " (not even after the trigger was used)"
    return trigger, None, f"Neither Enter nor a click on {trigger.describe()} shows the dialog to sight and AT"


async def _focus_first_inside(s: Session, dialog: Element) -> bool:
    if await s.focus_within(dialog):
        return True
    for control in await s.find_all("input, button, select, textarea, a[href], [tabindex]", dialog):
        if control.focusable and control.visible:
            await s.focus(control)
            if await s.focus_within(dialog):
                return True
    return False


@requirement("closed-hidden", "Before it is opened, the dialog is neither shown nor read by a screen reader")
async def closed_hidden(s: Session) -> Outcome:
    hook = await s.find(".dialog")
    if hook is None:
        return passed("No dialog is in the page before it is opened")
    dialog = await _dialog(s) or hook
    for element in (hook, dialog):
        if element.visible:
            return failed(f"{element.describe()} is visible before the visitor opens it")
        if not element.hidden_from_at:
            return failed(f"{element.describe()} is invisible before it is opened, but a screen reader still reads it")
    return passed("The closed dialog is hidden from sight and from assistive technology")


@requirement(
    "opens-named-dialog",
    "Enter on the focused trigger opens an element with role dialog and an accessible name",
)
async def opens_named_dialog(s: Session) -> Outcome:
    _trigger, dialog, problem = await _open(s, keyboard_only=True)
    if problem or dialog is None:
        return failed(problem)
    if dialog.role not in DIALOG_ROLES:
        return failed(f"The open dialog is {dialog.describe()}; assistive technology is not told it is a dialog")
    if not dialog.name.strip():
        return failed(f"The open dialog {dialog.describe()} has no accessible name (e.g. from its title)")
    return passed(f"Enter opens {dialog.describe()}")


@requirement("is-modal", "While open, the rest of the page is out of reach of assistive technology")
async def is_modal(s: Session) -> Outcome:
    trigger, dialog, problem = await _open(s)
    if problem or dialog is None or trigger is None:
        return failed(problem)
    if dialog.properties.get("modal") is True:
        return passed("The native <dialog> was opened with showModal(), which makes the rest of the page inert")
    if dialog.attr("aria-modal") == "true" and dialog.role in DIALOG_ROLES:
        return passed("The dialog has aria-modal='true'")
    if await s.is_hidden_from_at(trigger):
        return passed("The content behind the dialog is hidden from assistive technology (inert or aria-hidden)")
    return failed(
        "The open dialog is not modal for assistive technology: no aria-modal='true', not opened with "
        "showModal(), and the page behind it (the trigger) can still be read"
    )


@requirement("focus-moves-in", "Opening the dialog with the keyboard moves focus into it")
async def focus_moves_in(s: Session) -> Outcome:
    _trigger, dialog, problem = await _open(s)
    if problem or dialog is None:
        return failed(problem)
    if await s.focus_within(dialog):
        where = await s.active()
        return passed(f"Focus moved into the dialog, to {where.describe() if where else 'the dialog'}")
    where = await s.active()
    return failed(f"After opening, focus is on {where.describe() if where else 'the page body'}, not in the dialog")


@requirement("focus-contained", "Tab and Shift+Tab keep focus inside the open dialog")
async def focus_contained(s: Session) -> Outcome:
    _trigger, dialog, problem = await _open(s)
    if problem or dialog is None:
        return failed(problem)
    if not await _focus_first_inside(s, dialog):
        return failed("The open dialog holds no control that can take focus")
    # Leaving to the browser's own toolbar (no element focused) is how a native modal dialog
    # wraps; only an element of the page outside the dialog counts as escaping.
    for key in ("Tab", "Shift+Tab"):
        for step in range(6):
            where = await s.press(key)
            if where is not None and not await s.focus_within(dialog):
                return failed(f"After {step + 1} x {key} from inside the dialog, focus reached {where.describe()}")
    return passed("Focus stayed inside the dialog for 6 x Tab and 6 x Shift+Tab")


@requirement("escape-closes", "Escape closes the dialog and focus goes back to the button that opened it")
async def escape_closes(s: Session) -> Outcome:
    trigger, dialog, problem = await _open(s, keyboard_only=True)
    if problem or dialog is None or trigger is None:
        trigger, dialog, problem = await _open(s)
        if problem or dialog is None or trigger is None:
            return failed(problem)
    await _focus_first_inside(s, dialog)
    where = await s.press("Escape")
    if await _shown(s) is not None:
        return failed("Escape does not close the dialog")
    if where is None or where.ref != trigger.ref:
        return failed(f"After Escape, focus is on {where.describe() if where else 'the page body'}, not on the trigger")
    return passed("Escape closes the dialog and focus returns to the trigger")


@best_practice("cancel-returns-focus", "The Cancel button closes the dialog and focus returns to the trigger")
async def cancel_returns_focus(s: Session) -> Outcome:
    trigger, dialog, problem = await _open(s)
    if problem or dialog is None or trigger is None:
        return failed(problem)
    cancel = [b for b in await s.by_role("button", "cancel") if await s.contains(dialog, b)]
    if not cancel:
        return failed("The open dialog has no button named 'Cancel'")
    await s.focus(cancel[0])
    where = await s.press("Enter")
    if await _shown(s) is not None:
        return failed("Enter on the Cancel button does not close the dialog")
    if where is None or where.ref != trigger.ref:
        return failed(f"After Cancel, focus is on {where.describe() if where else 'the page body'}, not the trigger")
    return passed("Cancel closes the dialog and focus returns to the trigger")
