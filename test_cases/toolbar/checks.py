"""Checks for the toolbar case (APG toolbar pattern)."""

from __future__ import annotations

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, focused_item, passed, requirement

NO_TOOLBAR = "No element has the class 'toolbar' the prompt asked for"
CONTROL_ROLES = ("button", "checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio")
NAMES = ("Bold", "Italic", "Underline", "Align left", "Align center", "Align right")
BOLD, ITALIC, LEFT, CENTER = 0, 1, 3, 4


async def _controls(s: Session) -> tuple[Element | None, list[Element]]:
    """The toolbar and, in document order, the controls in it a screen reader can reach."""
    toolbar = await s.find(".toolbar")
    if toolbar is None:
        return None, []
    found = [e for e in await s.by_role(list(CONTROL_ROLES)) if not e.hidden_from_at and await s.contains(toolbar, e)]
    return toolbar, found


def _state(control: Element) -> str | None:
    """Pressed for a toggle button, checked for a checkbox, radio or switch."""
    if control.role == "button":
        return control.attr("aria-pressed")
    return control.state("checked")


async def _six(s: Session) -> tuple[Element | None, list[Element], str | None]:
    toolbar, controls = await _controls(s)
    if toolbar is None:
        return None, [], NO_TOOLBAR
    if len(controls) < len(NAMES):
        return toolbar, controls, f"The toolbar exposes {len(controls)} controls to assistive technology, not six"
    return toolbar, controls[: len(NAMES)], None


async def _click(s: Session, control: Element) -> None:
    """Click a control as a person would: on itself, or on its label when the input is visually hidden."""
    if control.visible and control.rect.get("width", 0) > 2 and control.rect.get("height", 0) > 2:
        await s.click(control)
        return
    labels = [lab for lab in await s.find_all("label") if await s.contains(lab, control)]
    if not labels and control.attr("id"):
        quoted = (control.attr("id") or "").replace("\\", "\\\\").replace('"', '\\"')
        labels = await s.find_all(f'label[for="{quoted}"]')
    if not labels:
        raise ValueError(f"{control.describe()} is not visible and has no label to click")
    await s.click(labels[0])


@requirement("controls-named", "The six controls are exposed as buttons (or checkboxes/radios) with names")
async def controls_named(s: Session) -> Outcome:
    _, controls, problem = await _six(s)
    if problem:
        return failed(problem)
    unnamed = [NAMES[i] for i, c in enumerate(controls) if not c.name]
    if unnamed:
        return failed(f"The controls in the places of {unnamed} have no accessible name (icons alone say nothing)")
    return passed(f"Controls named {[c.name for c in controls]}")


@requirement("toggle-state", "Bold exposes its on/off state, and the state follows clicks")
async def toggle_state(s: Session) -> Outcome:
    _, controls, problem = await _six(s)
    if problem:
        return failed(problem)
    bold = controls[BOLD]
    if _state(bold) != "false":
        return failed(f"On load Bold's exposed state is {_state(bold)!r}, not 'false'")
    for expected in ("true", "false"):
        await _click(s, bold)
        state = _state(await s.refresh(bold))
        if state != expected:
            return failed(f"After a click Bold's exposed state is {state!r}, not {expected!r}")
    return passed("Bold says whether it is on, before and after clicks")


@requirement("alignment-state", "The active alignment is exposed as pressed or checked, and moves to the one chosen")
async def alignment_state(s: Session) -> Outcome:
    _, controls, problem = await _six(s)
    if problem:
        return failed(problem)
    left, center = controls[LEFT], controls[CENTER]
    if (_state(left), _state(center)) != ("true", "false"):
        return failed(f"On load Align left says {_state(left)!r} and Align center says {_state(center)!r}")
    await _click(s, center)
    left, center = await s.refresh(left), await s.refresh(center)
    if (_state(left), _state(center)) != ("false", "true"):
        return failed(
            f"After choosing center, Align left says {_state(left)!r} and Align center says {_state(center)!r}"
        )
    return passed("Only the active alignment is exposed as on")


@requirement(
    "keyboard-operable", "From the keyboard Italic can be reached (Tab or arrow keys) and turned on with Space"
)
async def keyboard_operable(s: Session) -> Outcome:
    toolbar, controls, problem = await _six(s)
    if problem or toolbar is None:
        return failed(problem or NO_TOOLBAR)
    problem = ""
    for attempt, key in enumerate(("ArrowRight", "Tab")):
        if attempt:
            # Each way starts from the page as loaded: an arrow key that moved the roving
            # tabindex without moving focus must not set up the Tab that follows.
            await s.reset()
            toolbar, controls, problem = await _six(s)
            if problem or toolbar is None:
                return failed(problem or NO_TOOLBAR)
        if not await s.tab_to(toolbar):
            return failed("Pressing Tab never reaches the toolbar")
        current = await focused_item(s)
        if current is None or current.ref != controls[BOLD].ref:
            return failed(f"Tab enters the toolbar on {current.describe() if current else 'nothing'}, not on Bold")
        await s.press(key)
        current = await focused_item(s)
        if current is not None and current.ref == controls[ITALIC].ref:
            break
    else:
        return failed("Neither Right Arrow nor Tab moves from Bold to Italic")
    await s.press(" ")
    state = _state(await s.refresh(controls[ITALIC]))
    if state != "true":
        return failed(f"Space on Italic leaves its exposed state at {state!r}")
    return passed("Italic can be reached and turned on from the keyboard")


@best_practice("toolbar-role", "The container is exposed as a toolbar")
async def toolbar_role(s: Session) -> Outcome:
    toolbar, controls = await _controls(s)
    if toolbar is None or not controls:
        return failed("The toolbar or its controls are missing")
    for candidate in [toolbar, *await s.by_role("toolbar")]:
        if candidate.role == "toolbar" and await s.contains(candidate, controls[0]):
            return passed(f"The controls sit in a toolbar named {candidate.name!r}")
    return failed("The controls are not inside an element with role 'toolbar'")


@best_practice("roving-focus", "The toolbar is one Tab stop and arrow keys move between its controls")
async def roving_focus(s: Session) -> Outcome:
    toolbar, _, problem = await _six(s)
    if problem or toolbar is None:
        return failed(problem or NO_TOOLBAR)
    stops = [e for e in await s.tab_sequence() if await s.contains(toolbar, e)]
    if len(stops) != 1:
        return failed(f"Tab stops {len(stops)} times in the toolbar")
    await s.focus(stops[0])
    await s.press("ArrowRight")
    current = await focused_item(s)
    if current is None or current.ref == stops[0].ref or not await s.contains(toolbar, current):
        return failed("Right Arrow does not move to the next control")
    return passed("One Tab stop, and Right Arrow moves through the controls")
