"""Checks for the price range filter (APG multi-thumb slider pattern)."""

from __future__ import annotations

from typing import Any

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, failed, passed, requirement

LOWER_START, UPPER_START = 200, 800
LOWEST, HIGHEST = 0, 1000


async def _thumbs(s: Session) -> tuple[list[Element], str]:
    """The two sliders, lower one first (by the value they report)."""
    hook = await s.find(".price-range")
    if hook is None:
        return [], "No element has the class 'price-range' the prompt asked for"
    sliders = [e for e in await s.find_all("input, [role=slider]", hook) if e.role == "slider" and not e.hidden_from_at]
    if len(sliders) != 2:
        return [], f"The price range holds {len(sliders)} sliders that assistive technology can see, not two"
    values = [await s.range_value(e) for e in sliders]
    if (values[0].get("now") or 0) > (values[1].get("now") or 0):
        sliders.reverse()
    return sliders, ""


def _says(value: dict[str, Any], amount: int) -> bool:
    """Whether the slider tells ``amount``: as its number, or in its value text."""
    return value.get("now") == amount or str(amount) in (value.get("text") or "")


async def _now(s: Session, thumb: Element) -> float | None:
    now = (await s.range_value(thumb)).get("now")
    return float(now) if now is not None else None


@requirement("two-named-sliders", "Each handle is a slider with its own accessible name")
async def two_named_sliders(s: Session) -> Outcome:
    thumbs, why = await _thumbs(s)
    if not thumbs:
        return failed(why)
    names = [t.name.strip() for t in thumbs]
    if not all(names):
        return failed(f"A handle has no accessible name (names: {names})")
    if names[0].lower() == names[1].lower():
        return failed(f"Both handles are named {names[0]!r}; a screen reader cannot tell them apart")
    return passed(f"The handles are sliders named {names[0]!r} and {names[1]!r}")


@requirement("values-reported", "The handles report $200 and $800 at the start")
async def values_reported(s: Session) -> Outcome:
    thumbs, why = await _thumbs(s)
    if not thumbs:
        return failed(why)
    for thumb, amount in zip(thumbs, (LOWER_START, UPPER_START), strict=True):
        value = await s.range_value(thumb)
        if not _says(value, amount):
            return failed(f"{thumb.describe()} reports {value.get('now')} ({value.get('text')!r}), not {amount}")
    return passed("The handles report 200 and 800")


@requirement("arrow-keys-move", "Right/Up and Left/Down move each handle by a step and the reported value follows")
async def arrow_keys_move(s: Session) -> Outcome:
    thumbs, why = await _thumbs(s)
    if not thumbs:
        return failed(why)
    # The APG gives Up the job of Right and Down the job of Left; each handle first moves inwards.
    moves = (
        (thumbs[0], "ArrowRight", "ArrowLeft"),
        (thumbs[0], "ArrowUp", "ArrowDown"),
        (thumbs[1], "ArrowLeft", "ArrowRight"),
        (thumbs[1], "ArrowDown", "ArrowUp"),
    )
    for thumb, there, back in moves:
        if not thumb.focusable or not await s.tab_to(thumb):
            return failed(f"Pressing Tab never reaches {thumb.describe()}")
        before = await _now(s, thumb)
        await s.press(there)
        moved = await _now(s, thumb)
        if before is None or moved is None or moved == before:
            return failed(f"{there} on {thumb.describe()} leaves its reported value at {moved}")
        if (moved > before) != (there in ("ArrowRight", "ArrowUp")):
            return failed(f"{there} on {thumb.describe()} moves its reported value the wrong way, to {moved}")
        await s.press(back)
        if await _now(s, thumb) != before:
            return failed(f"{back} does not bring {thumb.describe()} back to {before}")
    return passed("All four arrow keys move both handles and their reported values follow")


@requirement("home-end-keys", "Home sends the lower handle to $0 and End sends the upper handle to $1000")
async def home_end_keys(s: Session) -> Outcome:
    thumbs, why = await _thumbs(s)
    if not thumbs:
        return failed(why)
    for thumb, key, amount in ((thumbs[0], "Home", LOWEST), (thumbs[1], "End", HIGHEST)):
        if not thumb.focusable or not await s.tab_to(thumb):
            return failed(f"Pressing Tab never reaches {thumb.describe()}")
        await s.press(key)
        now = await _now(s, thumb)
        if now != amount:
            return failed(f"{key} on {thumb.describe()} leaves it at {now}, not {amount}")
    return passed("Home and End reach the ends of the range")


@best_practice("thumbs-stay-ordered", "The lower handle cannot be moved past the upper one")
async def thumbs_stay_ordered(s: Session) -> Outcome:
    thumbs, why = await _thumbs(s)
    if not thumbs:
        return failed(why)
    if not thumbs[0].focusable or not await s.tab_to(thumbs[0]):
        return failed(f"Pressing Tab never reaches {thumbs[0].describe()}")
    start = await _now(s, thumbs[0])
    await s.press("End")
    lower = await _now(s, thumbs[0])
    upper = await _now(s, thumbs[1])
    if lower == start:
        return failed(f"End leaves the lower handle at {lower}, so it is never seen to stop at the upper one")
    if lower is None or upper is None or lower > upper:
        return failed(f"End moves the lower handle to {lower}, past the upper handle at {upper}")
    return passed(f"The lower handle stops at {lower}, not past the upper handle at {upper}")
