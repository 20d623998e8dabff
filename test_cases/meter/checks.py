"""Checks for the storage usage bar (APG meter pattern)."""

from __future__ import annotations

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement

RANGE_ROLES = ("meter", "progressbar")
EXPECTED_FRACTION = 0.75
TOLERANCE = 0.02
# ARIA's defaults for meter and progressbar when aria-valuemin/max are absent.
ARIA_MIN, ARIA_MAX = 0.0, 100.0


async def _bar(s: Session) -> tuple[Element | None, str]:
    hook = await s.find(".usage")
    if hook is None:
        return None, "No element has the class 'usage' the prompt asked for"
    if hook.role in RANGE_ROLES and not hook.hidden_from_at:
        return hook, ""
    for inner in await s.find_all("meter, progress, [role=meter], [role=progressbar]", hook):
        if inner.role in RANGE_ROLES and not inner.hidden_from_at:
            return inner, ""
    # The class may sit on the drawn fill inside an element that carries the role.
    for outer in await s.find_all("[role=meter], [role=progressbar]"):
        if outer.role in RANGE_ROLES and not outer.hidden_from_at and await s.contains(outer, hook):
            return outer, ""
    return None, f"The bar {hook.describe()} is a drawing only: assistive technology is told nothing about it"


async def _name(s: Session, bar: Element) -> str:
    """The bar's accessible name, adding what axe's name computation leaves out: browsers name a
    native <meter> or <progress> from its <label>, as they do any labelable element."""
    if bar.name.strip() or bar.tag not in ("meter", "progress"):
        return bar.name
    texts = []
    for label in await s.find_all("label"):
        bar_id = bar.attr("id")
        if (bar_id and label.attr("for") == bar_id) or (label.attr("for") is None and await s.contains(label, bar)):
            texts.append(label.text)
    return " ".join(texts).strip()


@requirement("exposed-as-meter", "The bar is exposed as a meter (or at least a progress bar)")
async def exposed_as_meter(s: Session) -> Outcome:
    bar, why = await _bar(s)
    if bar is None:
        return failed(why)
    return passed(f"The bar is {bar.describe()}")


@requirement("meter-value", "The value it reports is 75 % of its range, matching 7.5 GB of 10 GB")
async def meter_value(s: Session) -> Outcome:
    bar, why = await _bar(s)
    if bar is None:
        return failed(why)
    value = await s.range_value(bar)
    now = value.get("now")
    low = value.get("min")
    high = value.get("max")
    if not value.get("native"):
        low = ARIA_MIN if low is None else low
        high = ARIA_MAX if high is None else high
    if now is None or low is None or high is None or high <= low:
        return failed(f"The bar reports no usable value (now {now}, min {low}, max {high})")
    fraction = (now - low) / (high - low)
    if abs(fraction - EXPECTED_FRACTION) > TOLERANCE:
        return failed(f"The bar reports {now} between {low} and {high} ({fraction:.0%}), not the 75 % it shows")
    return passed(f"The bar reports {now} between {low} and {high} ({fraction:.0%})")


@requirement("meter-named", "The bar has an accessible name that says what it measures")
async def meter_named(s: Session) -> Outcome:
    bar, why = await _bar(s)
    if bar is None:
        return failed(why)
    name = await _name(s, bar)
    if "storage" not in name.lower():
        return failed(f"The bar's accessible name is {name!r}: a screen reader does not say what it measures")
    return passed(f"The bar is named {name!r}")


@best_practice("meter-not-progress", "The bar uses the meter role, since it shows a level and not progress")
async def meter_not_progress(s: Session) -> Outcome:
    bar, why = await _bar(s)
    if bar is None:
        return failed(why)
    if bar.role != "meter":
        return failed(f"The bar is announced as a {bar.role}, which suggests a task that is still running")
    return passed("The bar is a meter")
