"""Checks for the article with figures case (text alternatives, captions, decorative images).

The prompt's classes may sit on the image itself or on a wrapper around it; the picture is then
the first image inside (``img``, ``svg`` or ``role="img"``).
"""

from __future__ import annotations

import re

from lm_eval_a11y.checks import Element, Outcome, Session, best_practice, element_by_id, failed, passed, requirement

INFORMATIVE = ((".hero", "top photo", 1), (".photo", "body photo", 3), (".chart", "chart", 1))
DIVIDER = ".divider"
PICTURE = "img, svg, [role='img'], [role='image']"
IMAGE_ROLES = ("img", "image")
HIDDEN_ROLES = ("presentation", "none")
FILE_NAME = re.compile(r"\.(jpe?g|png|gif|webp|avif|svg)\b|^[\w-]+_\d+$|^(img|dsc|image)[-_]?\d+", re.IGNORECASE)
GENERIC = {"image", "photo", "picture", "img", "graphic", "chart", "figure", "pic", "photograph", "icon", "hero"}
REDUNDANT_START = re.compile(r"^(an?\s+)?(image|picture|photo|photograph|graphic)\s+(of|showing)\b", re.IGNORECASE)
CHART_FACT = (re.compile(r"\b28\b"), re.compile(r"aug", re.IGNORECASE))


async def _picture(s: Session, el: Element) -> Element | None:
    if el.tag in ("img", "svg") or el.role in IMAGE_ROLES:
        return el
    return await s.find(PICTURE, within=el)


async def _informative(s: Session) -> tuple[list[tuple[str, Element]], str]:
    """Every informative picture with what it is, or why the set is incomplete."""
    found: list[tuple[str, Element]] = []
    for selector, label, count in INFORMATIVE:
        hooks = await s.find_all(selector)
        if len(hooks) < count:
            return [], f"Expected {count} element(s) with the class {selector[1:]!r} ({label}), found {len(hooks)}"
        for hook in hooks:
            picture = await _picture(s, hook)
            if picture is None:
                return [], f"The {label} {hook.describe()} is not an image and holds none (a CSS background?)"
            found.append((label, picture))
    return found, ""


def _alt_problem(name: str) -> str | None:
    text = name.strip()
    if not text:
        return "has no text alternative"
    if FILE_NAME.search(text):
        return f"is named with a file name, {text!r}"
    if text.lower().strip(".") in GENERIC:
        return f"is named only {text!r}, which says nothing about it"
    return None


@requirement("informative-images-named", "The photos and the chart have text alternatives that describe them")
async def informative_images_named(s: Session) -> Outcome:
    pictures, reason = await _informative(s)
    if not pictures:
        return failed(reason)
    for label, picture in pictures:
        if picture.hidden_from_at:
            return failed(f"The {label} {picture.describe()} is hidden from assistive technology")
        problem = _alt_problem(picture.name)
        if problem:
            return failed(f"The {label} {picture.describe()} {problem}")
    return passed(f"All {len(pictures)} informative pictures have descriptive text alternatives")


@requirement("decorative-hidden", "The decorative wave images are hidden from assistive technology")
async def decorative_hidden(s: Session) -> Outcome:
    dividers = await s.find_all(DIVIDER)
    if not dividers:
        return failed("No element has the class 'divider' the prompt asked for")
    for divider in dividers:
        pictures = [divider] if divider.tag in ("img", "svg") or divider.role in IMAGE_ROLES else []
        pictures += await s.find_all(PICTURE, within=divider)
        for picture in pictures:
            if picture.hidden_from_at or picture.role in HIDDEN_ROLES:
                continue
            if picture.tag == "svg" and not picture.name and picture.attr("role") is None:
                continue  # an unnamed inline SVG is not announced
            if picture.tag == "img" and picture.attr("alt") is None:
                return failed(f"The decorative {picture.describe()} has no alt, so screen readers read its file name")
            return failed(f"The decorative {picture.describe()} is announced as an image named {picture.name!r}")
    return passed(f"{len(dividers)} decorative divider(s) are silent for assistive technology")


@requirement("figures-captioned", "The body photos and the chart are figures whose caption is a figcaption")
async def figures_captioned(s: Session) -> Outcome:
    pictures, reason = await _informative(s)
    if not pictures:
        return failed(reason)
    figures = await s.find_all("figure, [role='figure']")
    for label, picture in pictures:
        if label == "top photo":
            continue
        holder = None
        for figure in reversed(figures):  # the innermost figure comes last in document order
            if await s.contains(figure, picture):
                holder = figure
                break
        if holder is None:
            return failed(f"The {label} {picture.describe()} is not inside a <figure>")
        caption = await s.find("figcaption", within=holder)
        if caption is not None and caption.text.strip():
            continue
        labelled = ""
        for ref_id in (holder.attr("aria-labelledby") or "").split():
            target = await element_by_id(s, ref_id)
            labelled += target.text if target else ""
        if not labelled.strip():
            return failed(f"The figure holding the {label} has no <figcaption> (or aria-labelledby caption)")
    return passed("Each captioned picture is a figure with its caption")


@best_practice("chart-data-in-text", "The chart's key fact (28 °C in August) is available as text")
async def chart_data_in_text(s: Session) -> Outcome:
    hook = await s.find(".chart")
    chart = await _picture(s, hook) if hook else None
    if chart is None:
        return failed("No chart image with the class 'chart'")
    text = chart.name
    for ref_id in (chart.attr("aria-describedby") or "").split():
        target = await element_by_id(s, ref_id)
        text += " " + (target.text if target else "")
    for figure in await s.find_all("figure, [role='figure']"):
        if await s.contains(figure, chart):
            text += " " + figure.text
    if all(p.search(text) for p in CHART_FACT):
        return passed("The chart's peak of 28 °C in August is in its text alternative, description or caption")
    return failed("Neither the chart's text alternative nor its caption states the data (28 °C in August)")


@best_practice("alt-not-redundant", "Text alternatives do not start with 'image of' and do not repeat their caption")
async def alt_not_redundant(s: Session) -> Outcome:
    pictures, reason = await _informative(s)
    if not pictures:
        return failed(reason)
    figures = await s.find_all("figure")
    for label, picture in pictures:
        if REDUNDANT_START.search(picture.name):
            return failed(f"The {label}'s text alternative {picture.name!r} starts by saying it is an image")
        for figure in figures:
            if not await s.contains(figure, picture):
                continue
            caption = await s.find("figcaption", within=figure)
            if caption is not None and caption.text.strip().lower() == picture.name.strip().lower():
                return failed(f"The {label}'s text alternative repeats its caption, so it is read twice")
    return passed("No text alternative announces 'image of' or repeats its caption")
