"""Checks for the alert-dialog case (APG alert dialog pattern).

The requirements are those of every modal dialog (lm_eval_a11y.patterns.ModalDialog, also used by
the modal-dialog case), on the button with the class ``delete-trigger`` and the dialog with the
class ``confirm-dialog``; what makes it an *alert* dialog (role alertdialog, the message as its
description, focus starting away from the destructive button) is best practice.
"""

from __future__ import annotations

from lm_eval_a11y.checks import Outcome, Session, best_practice, failed, passed
from lm_eval_a11y.patterns import ModalDialog

DIALOG = ModalDialog(trigger_class="delete-trigger", dialog_class="confirm-dialog")
closed_hidden, opens_named_dialog, is_modal, focus_moves_in, focus_contained, escape_closes = DIALOG.requirements()


@best_practice(
    "announced-as-alert",
    "The dialog has role alertdialog and its message as accessible description (aria-describedby)",
)
async def announced_as_alert(s: Session) -> Outcome:
    _trigger, dialog, problem = await DIALOG.open(s)
    if problem or dialog is None:
        return failed(problem)
    if dialog.role != "alertdialog":
        return failed(f"The open dialog is {dialog.describe()}, not role alertdialog")
    ids = (dialog.attr("aria-describedby") or "").split()
    described = [e for i in ids for e in await s.find_all(f"[id='{i}']")]
    if not any(e.text.strip() for e in described):
        return failed("The alert dialog's message is not its accessible description (no aria-describedby with text)")
    return passed("The dialog is an alertdialog described by its message")


@best_practice("focus-not-on-delete", "When the dialog opens, focus is not on the destructive Delete button")
async def focus_not_on_delete(s: Session) -> Outcome:
    _trigger, dialog, problem = await DIALOG.open(s)
    if problem or dialog is None:
        return failed(problem)
    where = await s.active()
    if where is None or not await s.focus_within(dialog):
        return failed("Focus is not inside the dialog when it opens")
    if "delete" in where.name.lower():
        return failed(f"Focus starts on {where.describe()}: one stray Enter deletes the project")
    return passed(f"Focus starts on {where.describe()}, away from the destructive action")
