"""Loading and validating test cases (``test_cases/<id>/``).

A case is data (``case.yaml``, ``prompt.md``) plus behaviour (``checks.py``) plus evidence
(``examples/*.html`` carrying their expected outcomes). Loading validates all of it and names the
file, the field and the allowed values when something is wrong, because a silently malformed case
corrupts every number the benchmark publishes.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from dataclasses import dataclass
from functools import cache, lru_cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import yaml

from lm_eval_a11y.checks import Check
from lm_eval_a11y.resources import cases_dir
from lm_eval_a11y.variants import FRAMEWORKS, STYLES, PromptVariant

__all__ = [
    "APG_PATTERNS",
    "CATEGORIES",
    "GENERIC_ID",
    "Case",
    "CaseError",
    "Example",
    "generic_case",
    "generic_dir",
    "get_case",
    "load_case",
    "load_cases",
    "load_examples",
]

CATEGORIES: tuple[str, ...] = ("widget", "form", "page", "content")
# The 30 patterns of the WAI-ARIA Authoring Practices Guide, by the slug of their APG page.
APG_PATTERNS: tuple[str, ...] = (
    "accordion", "alert", "alertdialog", "breadcrumb", "button", "carousel", "checkbox", "combobox",
    "dialog-modal", "disclosure", "feed", "grid", "landmarks", "link", "listbox", "menu-button",
    "menubar", "meter", "radio", "slider", "slider-multithumb", "spinbutton", "switch", "table",
    "tabs", "toolbar", "tooltip", "treegrid", "treeview", "windowsplitter",
)  # fmt: skip
_CASE_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_WCAG_SC = re.compile(r"^[1-4]\.\d{1,2}\.\d{1,2}$")
_OUTCOMES = ("pass", "fail", "na")
_REQUIRED_FIELDS = ("id", "title", "version", "tags", "wcag")
_OPTIONAL_FIELDS = ("apg_pattern", "hooks", "description")


class CaseError(ValueError):
    """A case folder does not follow the case format; the message names file and field."""


@dataclass(frozen=True)
class Case:
    id: str
    title: str
    version: str
    tags: tuple[str, ...]
    category: str
    wcag: tuple[str, ...]
    apg_pattern: str | None
    hooks: tuple[tuple[str, str], ...]
    prompt: str
    checks: tuple[Check, ...]
    path: Path
    description: str = ""

    @property
    def requirement_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.checks if c.type == "R")

    def check(self, check_id: str) -> Check:
        for c in self.checks:
            if c.id == check_id:
                return c
        raise KeyError(f"case {self.id!r} has no check {check_id!r}")

    def checks_source(self) -> str:
        return (self.path / "checks.py").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Example:
    """One of a case's own pages with the outcomes we expect for it."""

    case_id: str
    path: Path
    html: str
    assertions: tuple[tuple[str, str], ...]
    axe_rules: tuple[str, ...]
    verdict: str
    # The prompt variant the page answers (its a11y-assertions block may say "framework" and
    # "style"); a suite's reference run of a variant evaluates the pages of that variant.
    framework: str = "vanilla"
    style: str = "default"

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def variant(self) -> PromptVariant:
        return PromptVariant(self.framework, self.style)


def _fail(path: Path, message: str) -> CaseError:
    return CaseError(f"{path}: {message}")


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise _fail(path, f"is not valid YAML ({err})") from err
    if not isinstance(data, dict):
        raise _fail(path, "must be a mapping of fields")
    return data


def _string_list(path: Path, field: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise _fail(path, f"field {field!r} must be a non-empty list of strings, got {value!r}")
    return tuple(v.strip() for v in value)


def _load_checks(path: Path, case_id: str) -> tuple[Check, ...]:
    module_name = "lm_eval_a11y_case_" + case_id.replace("-", "_")
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise _fail(path, "cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:
        del sys.modules[module_name]
        raise _fail(path, f"failed to import: {type(err).__name__}: {err}") from err
    checks = tuple(v for v in vars(module).values() if isinstance(v, Check))
    if not checks:
        raise _fail(path, "declares no checks (use @requirement or @best_practice)")
    seen: set[str] = set()
    for check in checks:
        if check.id in seen:
            raise _fail(path, f"declares check id {check.id!r} twice")
        seen.add(check.id)
    return checks


def load_case(folder: Path, *, prompted: bool = True) -> Case:
    """The case in ``folder``. ``prompted=False`` loads a check set that no model is asked to
    write a page for (the generic checks, :mod:`lm_eval_a11y.generic`): it has no ``prompt.md``."""
    folder = Path(folder)
    meta_path = folder / "case.yaml"
    if not meta_path.is_file():
        raise _fail(folder, "has no case.yaml")
    meta = _read_yaml(meta_path)
    for name in _REQUIRED_FIELDS:
        if name not in meta:
            raise _fail(meta_path, f"missing required field {name!r} (required: {', '.join(_REQUIRED_FIELDS)})")
    unknown = set(meta) - set(_REQUIRED_FIELDS) - set(_OPTIONAL_FIELDS)
    if unknown:
        allowed = ", ".join(_REQUIRED_FIELDS + _OPTIONAL_FIELDS)
        raise _fail(meta_path, f"unknown field(s) {', '.join(sorted(unknown))} (allowed: {allowed})")
    case_id = meta["id"]
    if not isinstance(case_id, str) or not _CASE_ID.match(case_id):
        raise _fail(meta_path, f"field 'id' must be kebab-case, got {case_id!r}")
    if prompted and case_id == "generic":
        raise _fail(meta_path, "the id 'generic' is reserved for the built-in page checks (lm_eval_a11y.generic)")
    if case_id != folder.name:
        raise _fail(meta_path, f"field 'id' is {case_id!r} but the folder is named {folder.name!r}; they must match")
    title = meta["title"]
    if not isinstance(title, str) or not title.strip():
        raise _fail(meta_path, "field 'title' must be a non-empty string")
    version = meta["version"]
    if not isinstance(version, (int, str)) or isinstance(version, bool) or not str(version).strip():
        raise _fail(meta_path, f"field 'version' must be a number or string, got {version!r}")
    tags = _string_list(meta_path, "tags", meta["tags"])
    categories = [t for t in tags if t in CATEGORIES]
    if len(categories) != 1:
        raise _fail(
            meta_path,
            f"field 'tags' must hold exactly one category of {', '.join(CATEGORIES)}; found {categories or 'none'}",
        )
    wcag = _string_list(meta_path, "wcag", meta["wcag"])
    for sc in wcag:
        if not _WCAG_SC.match(sc):
            raise _fail(meta_path, f"field 'wcag' holds {sc!r}; use success-criterion numbers such as '2.1.1'")
    apg = meta.get("apg_pattern")
    if apg is not None and apg not in APG_PATTERNS:
        raise _fail(meta_path, f"field 'apg_pattern' is {apg!r}; allowed: {', '.join(APG_PATTERNS)}")
    hooks = meta.get("hooks") or {}
    if not isinstance(hooks, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in hooks.items()):
        raise _fail(meta_path, "field 'hooks' must map names to CSS selectors (strings)")
    prompt_path = folder / "prompt.md"
    if not prompted:
        if prompt_path.exists():
            raise _fail(prompt_path, "a check set without a prompt must not have a prompt.md")
        prompt = ""
    elif not prompt_path.is_file():
        raise _fail(folder, "has no prompt.md")
    else:
        prompt = prompt_path.read_text(encoding="utf-8").strip()
        if not prompt:
            raise _fail(prompt_path, "is empty")
    checks_path = folder / "checks.py"
    if not checks_path.is_file():
        raise _fail(folder, "has no checks.py")
    return Case(
        id=case_id,
        title=title.strip(),
        version=str(version),
        tags=tags,
        category=categories[0],
        wcag=wcag,
        apg_pattern=apg.strip() if isinstance(apg, str) else None,
        hooks=tuple(sorted(hooks.items())),
        prompt=prompt,
        checks=_load_checks(checks_path, case_id),
        path=folder,
        description=str(meta.get("description") or ""),
    )


@lru_cache(maxsize=256)
def _load_one(folder: Path) -> Case:
    return load_case(folder)


@lru_cache(maxsize=8)
def _load_all(root: Path) -> tuple[Case, ...]:
    if not root.is_dir():
        raise CaseError(f"{root}: no such cases directory")
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    return tuple(_load_one(p) for p in folders)


def load_cases(root: Path | None = None) -> tuple[Case, ...]:
    """Every case under ``root`` (default: the bundled cases), sorted by id."""
    return _load_all(Path(root or cases_dir()).resolve())


GENERIC_ID = "generic"


def generic_dir() -> Path:
    """The folder of the generic page checks (``case.yaml``, ``checks.py``, ``examples/``), shipped
    inside the package as :mod:`lm_eval_a11y.generic`."""
    return Path(__file__).resolve().parent / "generic"


@cache
def generic_case() -> Case:
    """The generic page checks as a :class:`Case` (loaded once)."""
    return load_case(generic_dir(), prompted=False)


def get_case(case_id: str, root: Path | None = None) -> Case:
    """One case by id. Loads only that folder, so a broken neighbour does not hide it.

    ``generic`` names the generic page checks (:func:`generic_case`), which are not one of the
    cases under ``root``."""
    if case_id == GENERIC_ID:
        return generic_case()
    folder = Path(root or cases_dir()).resolve() / case_id
    if _CASE_ID.match(case_id) and (folder / "case.yaml").is_file():
        return _load_one(folder)
    cases = load_cases(root)
    for case in cases:
        if case.id == case_id:
            return case
    known = ", ".join(c.id for c in cases)
    raise CaseError(f"unknown case {case_id!r}; known cases: {known}")


class _AssertionFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._inside = False
        self.blocks: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script" and dict(attrs).get("id") == "a11y-assertions":
            self._inside = True
            self.blocks.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._inside = False

    def handle_data(self, data: str) -> None:
        if self._inside:
            self.blocks[-1] += data


def load_examples(case: Case) -> tuple[Example, ...]:
    """The case's example pages with their expectations, validated against its checks."""
    folder = case.path / "examples"
    if not folder.is_dir():
        raise _fail(case.path, "has no examples/ folder")
    examples = []
    check_ids = {c.id for c in case.checks}
    for path in sorted(folder.glob("*.html")):
        if not path.stem.startswith(("pass-", "fail-")):
            raise _fail(path, "example names must start with 'pass-' or 'fail-'")
        html = path.read_text(encoding="utf-8")
        finder = _AssertionFinder()
        finder.feed(html)
        if len(finder.blocks) != 1:
            raise _fail(path, 'needs exactly one <script id="a11y-assertions" type="application/json"> block')
        try:
            data = json.loads(finder.blocks[0])
        except json.JSONDecodeError as err:
            raise _fail(path, f"a11y-assertions is not valid JSON ({err})") from err
        assertions = data.get("assertions")
        if not isinstance(assertions, dict) or not assertions:
            raise _fail(path, "a11y-assertions needs a non-empty 'assertions' mapping of check id to outcome")
        for check_id, outcome in assertions.items():
            if check_id not in check_ids:
                raise _fail(
                    path, f"asserts unknown check {check_id!r}; the case's checks are {', '.join(sorted(check_ids))}"
                )
            if outcome not in _OUTCOMES:
                raise _fail(path, f"check {check_id!r} expects {outcome!r}; allowed: {', '.join(_OUTCOMES)}")
            if outcome == "na" and not case.check(check_id).na_allowed:
                raise _fail(path, f"check {check_id!r} expects 'na' but the check does not allow na")
        missing = check_ids - set(assertions)
        if missing:
            raise _fail(path, f"has no expectation for check(s) {', '.join(sorted(missing))}")
        axe_rules = data.get("axe_rules", [])
        if not isinstance(axe_rules, list) or not all(isinstance(r, str) for r in axe_rules):
            raise _fail(path, "'axe_rules' must be a list of axe rule ids expected to fail")
        verdict = data.get("verdict")
        if verdict not in ("pass", "fail"):
            raise _fail(path, f"'verdict' must be 'pass' or 'fail', got {verdict!r}")
        expected_kind = "pass" if path.stem.startswith("pass-") else "fail"
        if verdict != expected_kind:
            raise _fail(path, f"is named {expected_kind}-… but its verdict is {verdict!r}")
        framework = data.get("framework", FRAMEWORKS[0])
        if framework not in FRAMEWORKS:
            raise _fail(path, f"'framework' must be one of {', '.join(FRAMEWORKS)}, got {framework!r}")
        style = data.get("style", STYLES[0])
        if style not in STYLES:
            raise _fail(path, f"'style' must be one of {', '.join(STYLES)}, got {style!r}")
        examples.append(
            Example(
                case_id=case.id,
                path=path,
                html=html,
                assertions=tuple(sorted(assertions.items())),
                axe_rules=tuple(sorted(set(axe_rules))),
                verdict=verdict,
                framework=framework,
                style=style,
            )
        )
    if not examples:
        raise _fail(folder, "holds no example pages")
    return tuple(examples)
