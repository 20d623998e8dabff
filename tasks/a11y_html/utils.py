"""Hooks named by the task YAMLs. Thin on purpose: the logic lives in the installed package."""

from __future__ import annotations

from typing import Any

from lm_eval_a11y.dataset import load_task_dataset, smoke_docs, task_docs, variant_docs
from lm_eval_a11y.harness import A11yFilter, A11yTaskFilter, preflight, process_results

__all__ = [
    "A11yFilter",
    "A11yTaskFilter",
    "content_docs",
    "dark_docs",
    "docs",
    "form_docs",
    "load_dataset",
    "modern_docs",
    "page_docs",
    "process_results",
    "react_dark_docs",
    "react_docs",
    "react_modern_docs",
    "smoke_docs",
    "widget_docs",
]


def load_dataset(**metadata: Any) -> Any:
    preflight()  # no Chromium or axe-core: say so before the model generates anything
    return load_task_dataset(**metadata)


def docs(split: Any) -> Any:
    return task_docs(split)


def widget_docs(split: Any) -> Any:
    return task_docs(split, "widget")


def form_docs(split: Any) -> Any:
    return task_docs(split, "form")


def page_docs(split: Any) -> Any:
    return task_docs(split, "page")


def content_docs(split: Any) -> Any:
    return task_docs(split, "content")


# Prompt variants (lm_eval_a11y/variants.py): every case, asked in one framework and style.


def react_docs(split: Any) -> Any:
    return variant_docs(split, "react")


def dark_docs(split: Any) -> Any:
    return variant_docs(split, "dark")


def modern_docs(split: Any) -> Any:
    return variant_docs(split, "modern")


def react_dark_docs(split: Any) -> Any:
    return variant_docs(split, "react+dark")


def react_modern_docs(split: Any) -> Any:
    return variant_docs(split, "react+modern")
