"""Checks for the accordion case (APG accordion pattern).

The class ``accordion-trigger`` may sit on the header button itself or on a heading that wraps
it; in the second case the button (or ``<summary>``) inside is the trigger that is tested.
"""

from __future__ import annotations

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement

BUTTONISH = "button, [role='button'], summary"
NO_TRIGGERS = "Fewer than three elements have the class 'accordion-trigger' the prompt asked for"
NO_PANELS = "Fewer than three elements have the class 'accordion-panel' the prompt asked for"


async def _triggers(s: Session) -> list[Element]:
    found = []
    for hook in await s.find_all(".accordion-trigger"):
        if hook.tag == "summary" or hook.role == "button":
            found.append(hook)
            continue
        inner = await s.find(BUTTONISH, hook)
        found.append(inner if inner is not None else hook)
    return found


def _shown(panel: Element) -> bool:
    return panel.visible and not panel.hidden_from_at


async def _panel(s: Session, index: int) -> Element | None:
    panels = await s.find_all(".accordion-panel")
    return panels[index] if index < len(panels) else None


@requirement("headers-are-buttons", "Every question header is exposed as a button (or a native <summary>)")
async def headers_are_buttons(s: Session) -> Outcome:
    triggers = await _triggers(s)
    if len(triggers) < 3:
        return failed(NO_TRIGGERS)
    for trigger in triggers:
        if trigger.tag != "summary" and trigger.role != "button":
            return failed(f"The header {trigger.describe()} is not announced as a button")
        if not trigger.focusable:
            return failed(f"The header {trigger.describe()} cannot take keyboard focus")
    return passed(f"All {len(triggers)} headers are buttons that take focus")


@requirement("collapsed-hidden", "Collapsed answers are neither shown nor read by a screen reader")
async def collapsed_hidden(s: Session) -> Outcome:
    panels = await s.find_all(".accordion-panel")
    if len(panels) < 3:
        return failed(NO_PANELS)
    for index, panel in enumerate(panels, start=1):
        if panel.visible:
            return failed(f"Answer {index} is visible before the visitor opens it")
        if not panel.hidden_from_at:
            return failed(f"Answer {index} is invisible while collapsed, but a screen reader still reads it")
    return passed("Every collapsed answer is hidden from sight and from assistive technology")


@requirement("keyboard-toggles", "Enter on the second header shows its answer; Space on the third shows its answer")
async def keyboard_toggles(s: Session) -> Outcome:
    triggers = await _triggers(s)
    if len(triggers) < 3:
        return failed(NO_TRIGGERS)
    for index, key, label in ((1, "Enter", "Enter"), (2, " ", "Space")):
        if not await s.tab_to(triggers[index]):
            return failed(f"Pressing Tab never reaches header {index + 1}, {triggers[index].describe()}")
        await s.press(key)
        panel = await _panel(s, index)
        if panel is None:
            return failed(NO_PANELS)
        if not _shown(panel):
            return failed(f"{label} on header {index + 1} does not reveal its answer to sight and to screen readers")
    return passed("Enter and Space on a focused header reveal its answer")


@requirement(
    "expanded-state", "Each header tells assistive technology whether its answer is expanded, as answers open and close"
)
async def expanded_state(s: Session) -> Outcome:
    triggers = await _triggers(s)
    if len(triggers) < 3:
        return failed(NO_TRIGGERS)
    if all(t.tag == "summary" for t in triggers):
        return passed("Native <summary> headers expose their state through <details open>")
    for index, trigger in enumerate(triggers, start=1):
        if trigger.state("expanded") != "false":
            return failed(f"Collapsed header {index} has aria-expanded={trigger.attr('aria-expanded')!r}, not 'false'")
    # After each click every header must tell the truth about its panel: opening the second
    # answer may close the first (one open at a time) or not (several open), and a click on an
    # open header may close it or leave it open; either way aria-expanded follows.
    # Only answers that were properly hidden at load are judged as "shown" later: one that is
    # never hidden (collapsed-hidden's failure) cannot tell an open state from a closed one.
    hidden_at_load = {
        i for i, p in enumerate(await s.find_all(".accordion-panel")) if not p.visible and p.hidden_from_at
    }
    for index, step in ((0, "opening answer 1"), (1, "opening answer 2"), (1, "clicking header 2 again")):
        await s.click((await _triggers(s))[index])
        if index == 0 and (await _triggers(s))[0].attr("aria-expanded") != "true":
            after = (await _triggers(s))[0].attr("aria-expanded")
            return failed(f"After opening, header 1 has aria-expanded={after!r}, not 'true'")
        problem = await _expanded_mismatch(s, hidden_at_load)
        if problem:
            return failed(f"After {step}: {problem}")
    return passed("aria-expanded follows every answer as answers open and close")


async def _expanded_mismatch(s: Session, hidden_at_load: set[int]) -> str | None:
    """Which header's aria-expanded contradicts its answer, if any: 'true' on an answer hidden
    from sight and from assistive technology, or 'false' on one that is shown."""
    triggers = await _triggers(s)
    panels = await s.find_all(".accordion-panel")
    for index, (trigger, panel) in enumerate(zip(triggers, panels, strict=False)):
        if trigger.tag == "summary":
            continue
        expanded = trigger.state("expanded")
        if expanded == "true" and not panel.visible and panel.hidden_from_at:
            return f"answer {index + 1} is hidden but its header still has aria-expanded='true'"
        if expanded != "true" and index in hidden_at_load and _shown(panel):
            return f"answer {index + 1} is shown but its header has aria-expanded={trigger.attr('aria-expanded')!r}"
    return None


@best_practice("headers-in-headings", "Each header button sits in a heading (or holds one)")
async def headers_in_headings(s: Session) -> Outcome:
    triggers = await _triggers(s)
    if len(triggers) < 3:
        return failed(NO_TRIGGERS)
    headings = await s.find_all("h1, h2, h3, h4, h5, h6, [role='heading']")
    for index, trigger in enumerate(triggers, start=1):
        near = [h for h in headings if await s.contains(h, trigger) or await s.contains(trigger, h)]
        if not near:
            return failed(f"Header {index} is not inside a heading; heading navigation skips the questions")
    return passed("Every header button belongs to a heading")


@best_practice("arrow-keys-move", "Down and Up arrows move focus between the headers (optional in the APG)")
async def arrow_keys_move(s: Session) -> Outcome:
    triggers = await _triggers(s)
    if len(triggers) < 3:
        return failed(NO_TRIGGERS)
    if not await s.tab_to(triggers[0]):
        return failed("Pressing Tab never reaches the first header")
    where = await s.press("ArrowDown")
    if where is None or where.ref != triggers[1].ref:
        return failed("ArrowDown on the first header does not move focus to the second")
    where = await s.press("ArrowUp")
    if where is None or where.ref != triggers[0].ref:
        return failed("ArrowUp on the second header does not move focus back to the first")
    return passed("ArrowDown and ArrowUp move focus between headers")
