"""The requirements every modal dialog meets, for any case whose prompt asks for one.

A case names the class of the button that opens the dialog and the class of the dialog. The
dialog is the element with that class or, when the class sits on an overlay or an inner box, the
element with role ``dialog``/``alertdialog`` next to it. Checks after the first open it the way a
keyboard user does (Tab to the trigger, Enter) and fall back to a click, so that one keyboard
fault does not hide every other finding.

In a case's ``checks.py``::

    DIALOG = ModalDialog(trigger_class="open-dialog", dialog_class="dialog")
    closed_hidden, opens_named_dialog, is_modal, focus_moves_in, focus_contained, escape_closes = (
        DIALOG.requirements()
    )
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from lm_eval_a11y.checks import Check, Outcome, failed, passed, requirement

if TYPE_CHECKING:
    from lm_eval_a11y.engine.elements import Element
    from lm_eval_a11y.engine.session import Session

DIALOG_ROLES = ("dialog", "alertdialog")
# What a trigger or a dialog points to with: an element these name is one the dialog is about.
_POINTERS = ("aria-controls", "aria-describedby", "aria-labelledby", "aria-owns", "aria-details")
# A trigger's own group: focus may go to what else it holds (the field a "Clear" button is about).
_GROUPS = "form, fieldset, [role=group], [role=radiogroup], [role=toolbar], [role=row], [role=form], li, tr"


def _ids(element: Element) -> list[str]:
    """The ids ``element`` points to, in the order of :data:`_POINTERS` and as written."""
    return [i for attr in _POINTERS for i in (element.attr(attr) or "").split()]


@dataclass(frozen=True)
class ModalDialog:
    trigger_class: str
    dialog_class: str

    @property
    def no_trigger(self) -> str:
        return f"No element has the class '{self.trigger_class}' the prompt asked for"

    @property
    def no_dialog(self) -> str:
        return f"No element has the class '{self.dialog_class}' the prompt asked for"

    async def dialog(self, s: Session) -> Element | None:
        """The element that carries the dialog role for the hooked element, else the hooked element."""
        hook = await s.find(f".{self.dialog_class}")
        if hook is None or hook.role in DIALOG_ROLES:
            return hook
        for candidate in await s.by_role(list(DIALOG_ROLES)):
            if await s.contains(hook, candidate) or await s.contains(candidate, hook):
                return candidate
        return hook

    async def shown(self, s: Session) -> Element | None:
        """The dialog if it is open now. Looked up afresh: a page may create it on open or remove it on close."""
        dialog = await self.dialog(s)
        if dialog is not None and dialog.visible and not dialog.hidden_from_at:
            return dialog
        return None

    async def closed(self, s: Session) -> bool:
        """The dialog is gone, or hidden from sight and from assistive technology."""
        dialog = await self.dialog(s)
        return dialog is None or (not dialog.visible and dialog.hidden_from_at)

    async def close_problem(self, s: Session, how: str) -> str:
        """Why the dialog does not count as closed after ``how`` ('' once it does).

        Asked again for up to a second (:meth:`Session.eventually`): a dialog that fades out and
        is hidden when the fade ends, or one closed on a short timer, is closed by then.
        """
        if await s.eventually(lambda: self.closed(s)):
            return ""
        if await self.shown(s) is not None:
            return f"{how} does not close the dialog"
        return f"After {how} the dialog is out of sight, but a screen reader still reads it"

    async def focus_returned(self, s: Session, trigger: Element, dialog: Element) -> str:
        """Where focus went after the dialog was dismissed, when that is where the APG dialog
        pattern lets it go ('' otherwise): see :meth:`logical_place`. When the trigger no longer
        exists (a page that re-rendered its markup, a trigger removed on close), on the trigger
        that replaced it or on some other element of the page, never dropped on the body or left
        in the closed dialog."""
        where = await s.active()
        if where is None or await s.contains(dialog, where):
            return ""
        if await self.trigger_exists(s, trigger):
            return await self.logical_place(s, trigger, dialog, where)
        replacement = await s.find(f".{self.trigger_class}")
        if replacement is not None:
            return "the button that replaced the one that opened it" if where.ref == replacement.ref else ""
        return "an element of the page (the button that opened it is gone)" if where.visible else ""

    @staticmethod
    async def logical_place(s: Session, trigger: Element, dialog: Element, where: Element) -> str:
        """Why ``where`` is a place the APG lets focus go on close while the trigger still exists
        ('' when it is not): the trigger itself, or "a more logical element" that the dialog was
        about: an element the trigger or the dialog points to (``aria-controls``,
        ``aria-describedby``, ``aria-labelledby``, ``aria-owns``, ``aria-details``) or holding
        one, or a visible element in the trigger's own group (its nearest form, fieldset, group,
        toolbar, row, list item or table row: the field a "Clear" button is about). Anywhere
        else (the page's first link, a heading elsewhere) is unrelated."""
        if where.ref == trigger.ref:
            return "the button that opened it"
        if not where.visible:
            return ""
        from_trigger = _ids(trigger)
        for ident in dict.fromkeys([*from_trigger, *_ids(dialog)]):
            quoted = ident.replace("\\", "\\\\").replace("'", "\\'")
            target = await s.find(f"[id='{quoted}']")
            if (
                target is not None
                and not await s.contains(dialog, target)
                and (target.ref == where.ref or await s.contains(target, where))
            ):
                return f"an element the {'trigger' if ident in from_trigger else 'dialog'} refers to"
        groups = [g for g in await s.find_all(_GROUPS) if await s.contains(g, trigger)]
        # The innermost group holding the trigger: the one no other of them is inside.
        innermost = None
        for group in groups:
            if innermost is None or await s.contains(innermost, group):
                innermost = group
        if innermost is not None and await s.contains(innermost, where):
            return f"an element in the same {innermost.role or innermost.tag} as the button that opened it"
        return ""

    @staticmethod
    async def trigger_exists(s: Session, trigger: Element) -> bool:
        """The trigger is still in the page and on screen, where focus can go back to it."""
        now = await s.refresh(trigger)
        return now.connected and now.visible

    async def focus_return_problem(self, s: Session, trigger: Element, dialog: Element, how: str) -> str:
        """Why focus is not back where it belongs after ``how`` ('' when it is); asked again for
        up to a second, since a page that closes on a timer moves focus when it closes."""
        if await s.eventually(lambda: self.focus_returned(s, trigger, dialog)):
            return ""
        where = await s.active()
        place = where.describe() if where else "the page body"
        if await self.trigger_exists(s, trigger):
            return (
                f"After {how}, focus is on {place}: neither the trigger nor an element the dialog was about "
                "(one the trigger or dialog refers to, or in the trigger's own form, fieldset or group)"
            )
        return f"After {how}, the trigger is gone and focus is on {place}, not on an element of the page"

    async def focus_place(self, s: Session, trigger: Element, dialog: Element) -> str:
        """Where focus is now, and why it is a right place, for a passing message."""
        where = await s.active()
        why = await self.focus_returned(s, trigger, dialog)
        return f"{where.describe() if where else 'the page'} ({why})"

    async def open(self, s: Session, *, keyboard_only: bool = False) -> tuple[Element | None, Element | None, str]:
        """Open the dialog from its trigger; returns (trigger, dialog, problem or '')."""
        trigger = await s.find(f".{self.trigger_class}")
        if trigger is None:
            return None, None, self.no_trigger
        if await s.tab_to(trigger):
            await s.press("Enter")
            dialog = await self.shown(s)
            if dialog is not None:
                return trigger, dialog, ""
        if keyboard_only:
            return trigger, None, f"Tab then Enter on {trigger.describe()} does not show the dialog"
        await s.click(trigger)
        dialog = await self.shown(s)
        if dialog is not None:
            return trigger, dialog, ""
        if await self.dialog(s) is None:
            return trigger, None, self.no_dialog + " (not even after the trigger was used)"
        return trigger, None, f"Neither Enter nor a click on {trigger.describe()} shows the dialog to sight and AT"

    async def focus_first_inside(self, s: Session, dialog: Element) -> bool:
        if await s.focus_within(dialog):
            return True
        for control in await s.find_all("input, button, select, textarea, a[href], [tabindex]", dialog):
            if control.focusable and control.visible:
                await s.focus(control)
                if await s.focus_within(dialog):
                    return True
        return False

    def requirements(self) -> tuple[Check, Check, Check, Check, Check, Check]:
        """closed-hidden, opens-named-dialog, is-modal, focus-moves-in, focus-contained, escape-closes."""
        pattern = self

        @requirement("closed-hidden", "Before it is opened, the dialog is neither shown nor read by a screen reader")
        async def closed_hidden(s: Session) -> Outcome:
            hook = await s.find(f".{pattern.dialog_class}")
            if hook is None:
                return passed("No dialog is in the page before it is opened")
            dialog = await pattern.dialog(s) or hook
            for element in (hook, dialog):
                if element.visible:
                    return failed(f"{element.describe()} is visible before the visitor opens it")
                if not element.hidden_from_at:
                    return failed(
                        f"{element.describe()} is invisible before it is opened, but a screen reader still reads it"
                    )
            return passed("The closed dialog is hidden from sight and from assistive technology")

        @requirement(
            "opens-named-dialog",
            "Enter on the focused trigger opens an element with role dialog and an accessible name",
        )
        async def opens_named_dialog(s: Session) -> Outcome:
            _trigger, dialog, problem = await pattern.open(s, keyboard_only=True)
            if problem or dialog is None:
                return failed(problem)
            if dialog.role not in DIALOG_ROLES:
                return failed(
                    f"The open dialog is {dialog.describe()}; assistive technology is not told it is a dialog"
                )
            if not dialog.name.strip():
                return failed(f"The open dialog {dialog.describe()} has no accessible name (e.g. from its title)")
            return passed(f"Enter opens {dialog.describe()}")

        @requirement("is-modal", "While open, the rest of the page is out of reach of assistive technology")
        async def is_modal(s: Session) -> Outcome:
            trigger, dialog, problem = await pattern.open(s)
            if problem or dialog is None or trigger is None:
                return failed(problem)
            if dialog.properties.get("modal") is True:
                return passed("The native <dialog> was opened with showModal(), which makes the rest of the page inert")
            if dialog.attr("aria-modal") == "true" and dialog.role in DIALOG_ROLES:
                return passed("The dialog has aria-modal='true'")
            if await s.is_hidden_from_at(trigger):
                return passed(
                    "The content behind the dialog is hidden from assistive technology (inert or aria-hidden)"
                )
            return failed(
                "The open dialog is not modal for assistive technology: no aria-modal='true', not opened with "
                "showModal(), and the page behind it (the trigger) can still be read"
            )

        @requirement("focus-moves-in", "Opening the dialog with the keyboard moves focus into it")
        async def focus_moves_in(s: Session) -> Outcome:
            _trigger, dialog, problem = await pattern.open(s)
            if problem or dialog is None:
                return failed(problem)
            if await s.focus_within(dialog):
                where = await s.active()
                return passed(f"Focus moved into the dialog, to {where.describe() if where else 'the dialog'}")
            where = await s.active()
            return failed(
                f"After opening, focus is on {where.describe() if where else 'the page body'}, not in the dialog"
            )

        @requirement("focus-contained", "Tab and Shift+Tab keep focus inside the open dialog")
        async def focus_contained(s: Session) -> Outcome:
            _trigger, dialog, problem = await pattern.open(s)
            if problem or dialog is None:
                return failed(problem)
            if not await pattern.focus_first_inside(s, dialog):
                return failed("The open dialog holds no control that can take focus")
            # The shared keyboard walk: one step through the browser's own toolbar (no element
            # focused) is how a native modal dialog wraps and does not count as escaping.
            trapped, message = await s.focus_trapped(dialog, presses=6)
            if not trapped:
                return failed(f"From inside the dialog, {message}")
            return passed(message[:1].upper() + message[1:])

        @requirement(
            "escape-closes",
            "Escape closes the dialog and focus goes back to the button that opened it or to an element the "
            "dialog was about (or, if that button no longer exists, to another element of the page)",
        )
        async def escape_closes(s: Session) -> Outcome:
            trigger, dialog, problem = await pattern.open(s, keyboard_only=True)
            if problem or dialog is None or trigger is None:
                trigger, dialog, problem = await pattern.open(s)
                if problem or dialog is None or trigger is None:
                    return failed(problem)
            await pattern.focus_first_inside(s, dialog)
            await s.press("Escape")
            problem = await pattern.close_problem(s, "Escape") or await pattern.focus_return_problem(
                s, trigger, dialog, "Escape"
            )
            if problem:
                return failed(problem)
            return passed(f"Escape closes the dialog and focus goes to {await pattern.focus_place(s, trigger, dialog)}")

        return closed_hidden, opens_named_dialog, is_modal, focus_moves_in, focus_contained, escape_closes
