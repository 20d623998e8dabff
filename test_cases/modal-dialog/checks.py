"""Checks for the modal-dialog case (APG dialog (modal) pattern).

The requirements are those of every modal dialog (lm_eval_a11y.patterns.ModalDialog, also used by
the alert-dialog case), on the button with the class ``open-dialog`` and the dialog with the class
``dialog``; closing with Cancel is best practice here.
"""

from __future__ import annotations

from lm_eval_a11y.checks import Outcome, Session, best_practice, failed, passed
from lm_eval_a11y.patterns import ModalDialog

DIALOG = ModalDialog(trigger_class="open-dialog", dialog_class="dialog")
closed_hidden, opens_named_dialog, is_modal, focus_moves_in, focus_contained, escape_closes = DIALOG.requirements()


@best_practice("cancel-returns-focus", "The Cancel button closes the dialog and focus returns to the trigger")
async def cancel_returns_focus(s: Session) -> Outcome:
    trigger, dialog, problem = await DIALOG.open(s)
    if problem or dialog is None or trigger is None:
        return failed(problem)
    cancel = [b for b in await s.by_role("button", "cancel") if await s.contains(dialog, b)]
    if not cancel:
        return failed("The open dialog has no button named 'Cancel'")
    await s.focus(cancel[0])
    await s.press("Enter")
    problem = await DIALOG.close_problem(s, "Enter on Cancel") or await DIALOG.focus_return_problem(
        s, trigger, dialog, "Cancel"
    )
    if problem:
        return failed(problem)
    return passed(f"Cancel closes the dialog and focus goes to {await DIALOG.focus_place(s, trigger, dialog)}")
