"""Prompt variants: a case's prompt crossed with a ``framework`` and a ``style``.

A model asked for "the same page, in React" or "the same page, dark" writes a different page, and
often a less accessible one. A *variant* is one value of each dimension; the default variant
(``vanilla``, ``default``) leaves the prompt exactly as the case wrote it, so a run without
dimensions asks, names and scores everything as before. Any other variant appends one sentence
per dimension to the prompt (framework first, then style, each after a blank line) and gives every
sample an id of the form ``<case>@<variant>``: ``modal-dialog@react``, ``modal-dialog@dark``,
``modal-dialog@react+dark``; the default variant's id is the case id alone.

Pure: no I/O, no browser, no lm-eval. The suite (:mod:`lm_eval_a11y.suite`), the lm-eval tasks
(``tasks/a11y_html/a11y_html_react.yaml`` ...) and the dataset rows all take their prompts and
ids from here, so the three cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DEFAULT_VARIANT",
    "FRAMEWORKS",
    "FRAMEWORK_TEXT",
    "STYLES",
    "STYLE_TEXT",
    "PromptVariant",
    "cross",
    "parse_variant",
    "sample_id",
    "variant_row",
]

FRAMEWORKS: tuple[str, ...] = ("vanilla", "react")
STYLES: tuple[str, ...] = ("default", "dark", "modern")

FRAMEWORK_TEXT: Mapping[str, str] = {
    "vanilla": "",
    # Models asked for React in one file load React from a CDN and write JSX for Babel in the
    # page; the sentence names the version the evaluator's mirror serves and keeps the one-file rule.
    "react": "Build it with React 18, as function components, loading React and anything else you need from "
    "a CDN, and still reply with one standalone HTML document.",
}
STYLE_TEXT: Mapping[str, str] = {
    "default": "",
    # The suite's former `theme: dark` sentence, word for word: runs asked with it stay comparable.
    "dark": "Use a dark colour scheme: light text on a dark background.",
    "modern": "Give it a modern, polished look: generous spacing, rounded corners, soft shadows, a "
    "contemporary typeface and a bold accent colour.",
}


@dataclass(frozen=True, order=True)
class PromptVariant:
    """One framework and one style; :data:`DEFAULT_VARIANT` is the case's prompt as written."""

    framework: str = "vanilla"
    style: str = "default"

    def __post_init__(self) -> None:
        if self.framework not in FRAMEWORKS:
            raise ValueError(f"unknown framework {self.framework!r}; known: {', '.join(FRAMEWORKS)}")
        if self.style not in STYLES:
            raise ValueError(f"unknown style {self.style!r}; known: {', '.join(STYLES)}")

    @property
    def is_default(self) -> bool:
        return self.framework == FRAMEWORKS[0] and self.style == STYLES[0]

    @property
    def key(self) -> str:
        """The values that differ from the defaults, framework first, joined by ``+``
        (``react``, ``dark``, ``react+dark``); empty for the default variant."""
        parts = [v for v, base in ((self.framework, FRAMEWORKS[0]), (self.style, STYLES[0])) if v != base]
        return "+".join(parts)

    @property
    def label(self) -> str:
        """Both values, for tables that show every variant (``vanilla+default``)."""
        return f"{self.framework}+{self.style}"

    def prompt(self, prompt: str) -> str:
        """The case's prompt asked in this variant; the default variant returns it unchanged."""
        additions = [t for t in (FRAMEWORK_TEXT[self.framework], STYLE_TEXT[self.style]) if t]
        if not additions:
            return prompt
        return "\n\n".join([prompt.rstrip(), *additions])

    def task_suffix(self) -> str:
        """How an lm-eval task name carries the variant: ``_react_dark``; empty for the default."""
        return "".join(f"_{part}" for part in self.key.split("+")) if self.key else ""


DEFAULT_VARIANT = PromptVariant()


def parse_variant(text: str) -> PromptVariant:
    """A variant from its key (``react+dark``, ``dark``, ``""``) or label (``vanilla+default``).

    Each value names its own dimension (the two sets do not overlap), so the order is free but
    a dimension given twice is an error."""
    framework, style = DEFAULT_VARIANT.framework, DEFAULT_VARIANT.style
    seen: set[str] = set()
    for part in (p.strip() for p in text.split("+")):
        if not part:
            continue
        dimension = "framework" if part in FRAMEWORKS else "style" if part in STYLES else None
        if dimension is None:
            raise ValueError(
                f"unknown variant part {part!r} in {text!r}; frameworks: {', '.join(FRAMEWORKS)}; "
                f"styles: {', '.join(STYLES)}"
            )
        if dimension in seen:
            raise ValueError(f"variant {text!r} names the {dimension} twice")
        seen.add(dimension)
        if dimension == "framework":
            framework = part
        else:
            style = part
    return PromptVariant(framework, style)


def cross(frameworks: Iterable[str], styles: Iterable[str]) -> tuple[PromptVariant, ...]:
    """Every combination, frameworks outer, in the order given."""
    chosen_styles = tuple(styles)
    return tuple(PromptVariant(f, s) for f in frameworks for s in chosen_styles)


def sample_id(case_id: str, variant: PromptVariant) -> str:
    """``<case>@<variant>``; the case id alone for the default variant."""
    return f"{case_id}@{variant.key}" if not variant.is_default else case_id


def variant_row(row: Mapping[str, Any], variant: PromptVariant) -> dict[str, Any]:
    """A dataset row asked in ``variant``: the prompt with the variant's sentences and the
    columns ``variant`` (the key), ``framework``, ``style`` and ``sample_id``. The default
    variant returns the row unchanged (no new columns), so default runs log what they always did."""
    out = dict(row)
    if variant.is_default:
        return out
    out["prompt"] = variant.prompt(str(row.get("prompt", "")))
    out["variant"] = variant.key
    out["framework"] = variant.framework
    out["style"] = variant.style
    out["sample_id"] = sample_id(str(row.get("id", "")), variant)
    return out
