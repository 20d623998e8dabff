"""Where the files we ship live, in a checkout and in an installed wheel.

A wheel carries them under ``lm_eval_a11y/_assets`` (see ``pyproject.toml``); a checkout (and an
editable install) reads them from the repository folders next to the package.
"""

from __future__ import annotations

import os
from pathlib import Path

from lm_eval_a11y.probe_bundle import bundle_probe

__all__ = [
    "MissingResourceError",
    "axe_path",
    "cases_dir",
    "library_root",
    "probe_path",
    "probe_source",
    "suites_dir",
    "tasks_dir",
]

_PACKAGE = Path(__file__).resolve().parent
_ASSETS = _PACKAGE / "_assets"
_CHECKOUT = _PACKAGE.parent


class MissingResourceError(RuntimeError):
    """A file the evaluator needs is not installed; the message says how to install it."""


def _first(*candidates: Path) -> Path | None:
    for candidate in candidates:
        if candidate.exists():
            return candidate
    return None


def axe_path() -> Path:
    found = _first(
        _ASSETS / "axe.min.js",
        _CHECKOUT / "evaluator" / "node_modules" / "axe-core" / "axe.min.js",
    )
    if found is None:
        raise MissingResourceError(
            "axe-core is not installed. From the repository root run: "
            "npm ci --prefix evaluator   (or: bash scripts/setup.sh)"
        )
    return found


def library_root() -> Path | None:
    """The ``node_modules`` folder whose pinned libraries answer pages' CDN requests
    (docs/cdn-mirror.md), or None where it is not installed (a wheel does not carry them)."""
    found = _first(_CHECKOUT / "evaluator" / "node_modules")
    return found.resolve() if found is not None else None


def probe_path() -> Path:
    """The folder of the probe's modules (``evaluator/probe/``)."""
    found = _first(_ASSETS / "probe", _CHECKOUT / "evaluator" / "probe")
    if found is None:
        raise MissingResourceError("the probe's modules (evaluator/probe/) are missing; reinstall lm-eval-a11y")
    return found


def probe_source() -> str:
    """The probe as the one script evaluated in each page's isolated world (see probe_bundle.py)."""
    return bundle_probe(probe_path())


def cases_dir() -> Path:
    """The bundled cases, unless ``A11Y_CASES_DIR`` names another folder."""
    override = os.environ.get("A11Y_CASES_DIR")
    if override:
        path = Path(override).expanduser()
        if not path.is_dir():
            raise MissingResourceError(f"A11Y_CASES_DIR={override!r} is not a directory")
        return path
    found = _first(_ASSETS / "test_cases", _CHECKOUT / "test_cases")
    if found is None:
        raise MissingResourceError("the bundled test cases are missing; reinstall lm-eval-a11y")
    return found


def tasks_dir() -> Path:
    found = _first(_ASSETS / "tasks", _CHECKOUT / "tasks")
    if found is None:
        raise MissingResourceError("the lm-eval task folder is missing; reinstall lm-eval-a11y")
    return found


def suites_dir() -> Path:
    """The shipped example suites (``suites/*.yaml``: the self-test and a release gate)."""
    found = _first(_ASSETS / "suites", _CHECKOUT / "suites")
    if found is None:
        raise MissingResourceError("the bundled suites are missing; reinstall lm-eval-a11y")
    return found
