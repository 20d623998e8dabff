"""Checks for the home page carousel (APG carousel pattern).

The prompt does not ask for automatic rotation; a carousel that rotates anyway is judged as the
APG describes one: its live region may be off while it rotates, as long as it is polite once
rotation has stopped (a stop button, or the visitor moving to another slide).
"""

from __future__ import annotations

import re

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement

CONTROL_WORDS = {
    "prev": re.compile(r"prev|back|earlier|left", re.IGNORECASE),
    "next": re.compile(r"next|forward|later|right", re.IGNORECASE),
}
SHOWN_SHARE = 0.5
STOP_WORDS = re.compile(r"pause|stop", re.IGNORECASE)
# Roles that can carry aria-roledescription: every role but generic, none and presentation.
NO_ROLEDESCRIPTION = (None, "generic", "none", "presentation")


def _overlap(slide: dict[str, float], frame: dict[str, float]) -> float:
    """The share of the slide's area that lies inside the carousel's box."""
    width = min(slide["x"] + slide["width"], frame["x"] + frame["width"]) - max(slide["x"], frame["x"])
    height = min(slide["y"] + slide["height"], frame["y"] + frame["height"]) - max(slide["y"], frame["y"])
    area = slide["width"] * slide["height"]
    return max(width, 0) * max(height, 0) / area if area > 0 else 0.0


async def _slides(s: Session) -> tuple[Element | None, list[Element], str]:
    carousel = await s.find(".carousel")
    if carousel is None:
        return None, [], "No element has the class 'carousel' the prompt asked for"
    slides = await s.find_all(".slide", carousel)
    if len(slides) < 2:
        return None, [], f"The carousel holds {len(slides)} elements with the class 'slide', not three"
    return carousel, slides, ""


async def _shown(s: Session) -> tuple[int | None, str]:
    """Which slide a sighted user sees: visible and mostly inside the carousel's box."""
    carousel, slides, why = await _slides(s)
    if carousel is None:
        return None, why
    frame = carousel.rect
    # A carousel box of no size (only absolutely placed slides) cannot bound them; then any
    # visible slide counts as on screen.
    sized = frame.get("width", 0) * frame.get("height", 0) > 0
    shown = [
        i
        for i, slide in enumerate(slides)
        if slide.visible and (not sized or _overlap(slide.rect, frame) >= SHOWN_SHARE)
    ]
    if not shown:
        return None, "No slide is on screen inside the carousel"
    if len(shown) > 1:
        return None, f"{len(shown)} slides are on screen at once, so no single slide is the current one"
    return shown[0], ""


async def _shown_after(s: Session, before: int) -> tuple[int | None, str]:
    """The slide shown once a change has finished. The action settled the page's glide or fade;
    a carousel that moves on a timer after that is asked again (Session.eventually)."""

    async def moved() -> tuple[int | None, str] | None:
        shown, why = await _shown(s)
        return (shown, why) if shown is not None and shown != before else None

    return await s.eventually(moved) or await _shown(s)


async def _control(s: Session, kind: str) -> tuple[Element | None, str]:
    control = await s.find(f".{kind}")
    if control is None:
        return None, f"No element has the class '{kind}' the prompt asked for"
    return control, ""


async def _activate_by_keyboard(s: Session, control: Element, key: str) -> str:
    """Tab to the control and press ``key``; an empty answer means it went as planned."""
    if not control.focusable or not await s.tab_to(control):
        return f"Pressing Tab never reaches {control.describe()}"
    await s.press(key)
    return ""


@requirement("controls-are-buttons", "The previous and next controls are buttons whose names say which way they go")
async def controls_are_buttons(s: Session) -> Outcome:
    for kind, words in CONTROL_WORDS.items():
        control, why = await _control(s, kind)
        if control is None:
            return failed(why)
        if control.role != "button":
            return failed(f"The {kind} control is {control.describe()}, not a button")
        if not words.search(control.name):
            return failed(f"The {kind} button is named {control.name!r}, which does not say where it goes")
    return passed("Previous and next are buttons named for their direction")


@requirement("next-by-keyboard", "Enter on the next button shows the following slide, twice in a row")
async def next_by_keyboard(s: Session) -> Outcome:
    start, why = await _shown(s)
    if start is None:
        return failed(why)
    control, why = await _control(s, "next")
    if control is None:
        return failed(why)
    problem = await _activate_by_keyboard(s, control, "Enter")
    if problem:
        return failed(problem)
    first, why = await _shown_after(s, start)
    if first is None or first == start:
        return failed(why or "Enter on the next button does not change the slide")
    await s.press("Enter")
    second, why = await _shown_after(s, first)
    if second is None or second == first:
        return failed(why or "A second Enter does not move on again: focus or the handler was lost after the first")
    return passed(f"Enter moved from slide {start + 1} to {first + 1} and then {second + 1}")


@requirement("previous-by-keyboard", "After moving forward, Space on the previous button shows the slide before")
async def previous_by_keyboard(s: Session) -> Outcome:
    start, why = await _shown(s)
    if start is None:
        return failed(why)
    forward, why = await _control(s, "next")
    back, why_back = await _control(s, "prev")
    if forward is None or back is None:
        return failed(why or why_back)
    await s.click(forward)
    moved, why = await _shown_after(s, start)
    if moved is None or moved == start:
        return failed(why or "Clicking the next button does not change the slide, so going back cannot be tried")
    back, why = await _control(s, "prev")  # found again: some pages re-create their controls
    if back is None:
        return failed(why)
    problem = await _activate_by_keyboard(s, back, " ")
    if problem:
        return failed(problem)
    now, why = await _shown_after(s, moved)
    if now != start:
        seen = "no single slide" if now is None else f"slide {now + 1}"
        return failed(why or f"Space on the previous button shows {seen}, not slide {start + 1}")
    return passed(f"Space on the previous button went back from slide {moved + 1} to {start + 1}")


@requirement("hidden-slides-not-focusable", "Tab never lands inside a slide that is not shown")
async def hidden_slides_not_focusable(s: Session) -> Outcome:
    carousel, slides, why = await _slides(s)
    if carousel is None:
        return failed(why)
    shown, why = await _shown(s)
    if shown is None:
        return failed(why)
    for stop in await s.tab_sequence():
        for index, slide in enumerate(slides):
            if index != shown and await s.contains(slide, stop):
                return failed(f"Tab lands on {stop.describe()} inside slide {index + 1}, which is not on screen")
    return passed("Tab only reaches the slide that is shown")


@best_practice("hidden-slides-hidden-from-at", "Slides that are not shown are hidden from screen readers too")
async def hidden_slides_hidden_from_at(s: Session) -> Outcome:
    carousel, slides, why = await _slides(s)
    if carousel is None:
        return failed(why)
    shown, why = await _shown(s)
    if shown is None:
        return failed(why)
    for index, slide in enumerate(slides):
        if index != shown and not slide.hidden_from_at:
            return failed(f"Slide {index + 1} is off screen but a screen reader still reads it")
    return passed("Only the shown slide is exposed to screen readers")


@requirement(
    "slide-roles-valid",
    "A slide that says it is a slide (aria-roledescription) has a role a screen reader can describe so",
)
async def slide_roles_valid(s: Session) -> Outcome:
    carousel, slides, why = await _slides(s)
    if carousel is None:
        return failed(why)
    described = {e.ref for e in await s.find_all(".slide[aria-roledescription]", carousel)}
    for index, slide in enumerate(slides):
        if slide.ref in described and slide.role in NO_ROLEDESCRIPTION:
            return failed(
                f"Slide {index + 1} is {slide.describe()}: aria-roledescription on an element without a role "
                "(it needs role='group', as the APG carousel pattern gives each slide) is ignored"
            )
    return passed("No slide carries aria-roledescription without a role to describe")


async def _live_region(s: Session, carousel: Element, slide: Element) -> Element | None:
    """The polite (or assertive) live region around the slides, if there is one now."""
    for region in await s.find_all("[aria-live], [role=status]", carousel):
        if region.attr("aria-live") in ("off", None) and region.role != "status":
            continue
        if await s.contains(region, slide):
            return region
    return None


@best_practice(
    "slide-change-announced",
    "The slides sit in a polite live region, so a new slide is announced (off while rotating is fine)",
)
async def slide_change_announced(s: Session) -> Outcome:
    carousel, slides, why = await _slides(s)
    if carousel is None:
        return failed(why)
    region = await _live_region(s, carousel, slides[0])
    if region is not None:
        return passed(f"The slides are inside the live region {region.describe()}")
    # The APG switches the live region off while the carousel rotates on its own and on when
    # rotation stops: stop it as a visitor would (its stop button, else moving to a slide).
    stoppers = [b for b in await s.by_role("button") if STOP_WORDS.search(b.name) and await s.contains(carousel, b)]
    forward, _ = await _control(s, "next")
    for control in [*stoppers[:1], *([forward] if forward is not None else [])]:
        await s.click(control)
        region = await _live_region(s, carousel, slides[0])
        if region is not None:
            return passed(f"Once rotation stops, the slides are inside the live region {region.describe()}")
    return failed("No live region holds the slides: pressing next changes the page silently for screen reader users")
