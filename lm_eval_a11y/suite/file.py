"""Suite files: which cases to run, how often, in which mode, and what each must achieve.

A suite is a release gate, so its file is read strictly: a typo must never quietly switch a gate
off. Every problem is a :class:`SuiteError` that names the file, the field (``cases[1].expect.
min_trial_pass_rate``) and what is allowed there; unknown keys, duplicate keys, unknown cases,
unknown tags and unknown check ids are errors, and so are expectations that cannot be measured in
the mode they are asked in. The format is documented in docs/suites.md; the judgement of the
expectations lives in :mod:`lm_eval_a11y.suite.expectations` and the runs in
:mod:`lm_eval_a11y.suite.run`.

Settings resolve per case: the built-in defaults, then the suite's ``defaults``, then the case's
own entry. ``expect`` merges key by key (a case adds to the defaults' expectations, and ``null``
drops one for that case); every other setting is replaced whole.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from lm_eval_a11y.cases import CATEGORIES, Case, load_cases
from lm_eval_a11y.pricing import ModelPrice
from lm_eval_a11y.suite.expectations import (
    EXPECTATION_NAMES,
    REPAIR_POLICIES,
    TOKEN_AND_COST_EXPECTATIONS,
    Expectations,
)
from lm_eval_a11y.variants import FRAMEWORKS, STYLES, PromptVariant

__all__ = [
    "FRAMEWORKS",
    "INSTRUCTIONS",
    "MAX_TRIALS",
    "MODES",
    "STYLES",
    "THEMES",
    "CaseSettings",
    "ModelSpec",
    "Suite",
    "SuiteCase",
    "SuiteError",
    "load_suite",
    "parse_suite",
]

MODES: tuple[str, ...] = ("model", "reference", "repair")
INSTRUCTIONS: tuple[str, ...] = ("none", "minimal", "full")
THEMES: tuple[str, ...] = STYLES
"""``theme`` is the earlier name of ``style`` (lm_eval_a11y/variants.py); a file may use either."""
MAX_TRIALS = 1000
"""Trials per case at most: a guard against a stray zero turning a gate into a week of compute."""

_TOP_KEYS = ("name", "description", "model", "defaults", "cases")
_MODEL_KEYS = ("name", "args", "apply_chat_template", "device", "batch_size", "gen_kwargs")
_PRICING_KEYS = ("input_per_million_usd", "output_per_million_usd")
_SETTING_KEYS = ("trials", "mode", "instructions", "framework", "style", "theme", "pricing", "expect")
_SELECT_KEYS = ("tags", "category")
_RULE_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class SuiteError(ValueError):
    """A suite file that cannot be run as written; the message names the file, field and fix."""


@dataclass(frozen=True)
class ModelSpec:
    """The model a ``model`` or ``repair`` suite generates with: an lm-eval model class name
    (``hf``, ``vllm``, ``openai-chat-completions``...) and its ``--model_args`` string."""

    name: str
    args: str = ""
    apply_chat_template: bool = False
    device: str | None = None
    batch_size: int | None = None
    gen_kwargs: tuple[tuple[str, str | int | float | bool], ...] = ()


@dataclass(frozen=True)
class CaseSettings:
    trials: int = 1
    mode: str = "model"
    instructions: str = "none"
    framework: str = "vanilla"
    style: str = "default"
    # Prices per million tokens in US dollars, for the estimated cost of each trial.
    pricing: ModelPrice | None = None
    expect: Expectations = field(default_factory=Expectations)

    @property
    def generates(self) -> bool:
        """The model writes this case's pages (model and repair mode), not its examples."""
        return self.mode in ("model", "repair")

    @property
    def variant(self) -> PromptVariant:
        """The prompt variant: framework and style (lm_eval_a11y/variants.py)."""
        return PromptVariant(self.framework, self.style)

    @property
    def theme(self) -> str:
        """The style under its earlier name."""
        return self.style


@dataclass(frozen=True)
class SuiteCase:
    """One selected case with its resolved settings; ``entry`` is its index in ``cases:``."""

    case: Case
    settings: CaseSettings
    entry: int

    @property
    def id(self) -> str:
        return self.case.id


@dataclass(frozen=True)
class Suite:
    path: Path
    name: str
    description: str
    model: ModelSpec | None
    cases: tuple[SuiteCase, ...]
    notes: tuple[str, ...] = ()

    @property
    def generates(self) -> bool:
        """Some case needs the model."""
        return any(c.settings.generates for c in self.cases)

    @property
    def modes(self) -> tuple[str, ...]:
        """The modes its cases run in, in the order of :data:`MODES`."""
        used = {c.settings.mode for c in self.cases}
        return tuple(m for m in MODES if m in used)


# ------------------------------------------------------------------------------ reading YAML


class _StrictLoader(yaml.SafeLoader):
    """PyYAML keeps the last of two equal keys; in a gate that silently drops an expectation."""


def _mapping_without_duplicates(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            duplicate = key in seen
            seen.add(key)
        except TypeError:
            continue  # an unhashable key: construct_mapping reports it
        if duplicate:
            raise yaml.constructor.ConstructorError(
                "while reading a mapping", node.start_mark, f"found the key {key!r} twice", key_node.start_mark
            )
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise SuiteError(f"{path}: is a directory, not a suite file") from None
    except UnicodeDecodeError:
        raise SuiteError(f"{path}: is not UTF-8 text") from None
    except OSError as err:
        raise SuiteError(f"{path}: cannot be read ({err.strerror or err})") from None
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        raise SuiteError(f"{path}: is not valid YAML: {where}{err.problem or err}") from None
    except yaml.YAMLError as err:
        raise SuiteError(f"{path}: is not valid YAML ({' '.join(str(err).split())})") from None


# ------------------------------------------------------------------------------ field checks


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


@dataclass(frozen=True)
class _Fields:
    """Builds errors that name the file and the field path."""

    file: Path

    def error(self, where: str, problem: str) -> SuiteError:
        return SuiteError(f"{self.file}: {where}: {problem}")

    def mapping(self, value: Any, where: str, allowed: Sequence[str]) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self.error(where, f"must be a mapping with the keys {', '.join(allowed)}; got {_kind(value)}")
        for key in value:
            if not isinstance(key, str) or key not in allowed:
                hint = difflib.get_close_matches(str(key), allowed, n=1)
                also = f" (did you mean {hint[0]!r}?)" if hint else ""
                raise self.error(
                    f"{where}.{key}" if where else str(key),
                    f"unknown key{also}; allowed here: {', '.join(allowed)}",
                )
        return dict(value)

    def text(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.error(where, f"must be a non-empty string; got {value!r}")
        return value.strip()

    def flag(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise self.error(where, f"must be true or false; got {value!r}")
        return value

    def whole(self, value: Any, where: str, least: int, most: int | None = None) -> int:
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < least
            or (most is not None and value > most)
        ):
            span = f"from {least} to {most}" if most is not None else f"of at least {least}"
            raise self.error(where, f"must be a whole number {span}; got {value!r}")
        return value

    def number(self, value: Any, where: str, least: float, most: float | None = None, above: bool = False) -> float:
        ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
        ok = ok and (value > least if above else value >= least) and (most is None or value <= most)
        if not ok:
            low = f"above {least:g}" if above else f"at least {least:g}"
            span = f"from {least:g} to {most:g}" if most is not None else low
            raise self.error(where, f"must be a number {span}; got {value!r}")
        return float(value)

    def choice(self, value: Any, where: str, allowed: Sequence[str]) -> str:
        if value not in allowed:
            raise self.error(where, f"must be one of {', '.join(allowed)}; got {value!r}")
        return str(value)

    def strings(self, value: Any, where: str, pattern: re.Pattern[str] | None = None) -> tuple[str, ...]:
        if not isinstance(value, list) or not value:
            raise self.error(where, f"must be a non-empty list of strings; got {_kind(value)} {value!r}")
        out: list[str] = []
        for index, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                raise self.error(f"{where}[{index}]", f"must be a non-empty string; got {item!r}")
            if pattern is not None and not pattern.match(item.strip()):
                raise self.error(f"{where}[{index}]", f"must be a lower-case id such as 'color-contrast'; got {item!r}")
            if item.strip() in out:
                raise self.error(f"{where}[{index}]", f"{item!r} is listed twice")
            out.append(item.strip())
        return tuple(out)


# ------------------------------------------------------------------------------ parts


def _model(f: _Fields, value: Any) -> ModelSpec | None:
    if value is None:
        return None
    data = f.mapping(value, "model", _MODEL_KEYS)
    if "name" not in data:
        raise f.error("model.name", "is required: an lm-eval model class such as hf, vllm or openai-chat-completions")
    gen: list[tuple[str, str | int | float | bool]] = []
    kwargs = data.get("gen_kwargs") or {}
    if not isinstance(kwargs, Mapping):
        raise f.error("model.gen_kwargs", f"must map names to values, e.g. {{max_gen_toks: 4096}}; got {_kind(kwargs)}")
    for key, item in kwargs.items():
        if not isinstance(key, str) or not key.strip():
            raise f.error("model.gen_kwargs", f"has the key {key!r}; keys are lm-eval generation argument names")
        if not isinstance(item, (str, int, float, bool)):
            raise f.error(f"model.gen_kwargs.{key}", f"must be a number, string or true/false; got {_kind(item)}")
        gen.append((key, item))
    args = data.get("args", "")
    if not isinstance(args, str):
        raise f.error("model.args", f"must be a string of lm-eval --model_args (key=value,...); got {_kind(args)}")
    return ModelSpec(
        name=f.text(data["name"], "model.name"),
        args=args.strip(),
        apply_chat_template=f.flag(data.get("apply_chat_template", False), "model.apply_chat_template"),
        device=None if data.get("device") is None else f.text(data["device"], "model.device"),
        batch_size=None if data.get("batch_size") is None else f.whole(data["batch_size"], "model.batch_size", 1),
        gen_kwargs=tuple(gen),
    )


def _pricing(f: _Fields, value: Any, where: str) -> ModelPrice:
    data = f.mapping(value, where, _PRICING_KEYS)
    for key in _PRICING_KEYS:
        if key not in data:
            raise f.error(f"{where}.{key}", "is required (a price per million tokens in USD, 0 or more)")
    return ModelPrice(
        f.number(data["input_per_million_usd"], f"{where}.input_per_million_usd", 0),
        f.number(data["output_per_million_usd"], f"{where}.output_per_million_usd", 0),
    )


def _pass_at_k(f: _Fields, value: Any, where: str) -> tuple[tuple[int, float], ...]:
    if not isinstance(value, Mapping) or not value:
        raise f.error(where, f"must map k to the least pass@k, e.g. {{5: 0.9}}; got {_kind(value)} {value!r}")
    out: dict[int, float] = {}
    for key, least in value.items():
        k = int(key) if isinstance(key, str) and key.strip().isdigit() else key
        f.whole(k, f"{where}.{key}", 1, MAX_TRIALS)
        if k in out:
            raise f.error(where, f"k={k} is given twice")
        out[k] = f.number(least, f"{where}.{k}", 0, 1)
    return tuple(sorted(out.items()))


def _expectation(f: _Fields, name: str, value: Any, where: str) -> Any:
    """One expectation's value, checked for its own type and range (not yet against a case)."""
    if name == "must_pass":
        return f.flag(value, where)
    if name == "min_trial_pass_rate":
        return f.number(value, where, 0, 1)
    if name == "min_pass_at_k":
        return _pass_at_k(f, value, where)
    if name == "checks_must_pass":
        return f.strings(value, where)
    if name == "forbid_axe_rules":
        return f.strings(value, where, _RULE_ID)
    if name in ("max_axe_failures", "max_input_tokens", "max_output_tokens"):
        return f.whole(value, where, 0)
    if name == "max_estimated_cost_usd":
        return f.number(value, where, 0)
    if name in ("max_duration_ms", "max_p95_duration_ms"):
        return f.number(value, where, 0, above=True)
    return f.choice(value, where, REPAIR_POLICIES)


def _variants(f: _Fields, value: Any, where: str, allowed: Sequence[str]) -> tuple[str, ...]:
    """A prompt variant, or a list of them: a case then runs once per variant (and per
    combination with the other setting's list), so one report shows them side by side."""
    if isinstance(value, list):
        chosen = f.strings(value, where)
        for index, item in enumerate(chosen):
            f.choice(item, f"{where}[{index}]", allowed)
        return chosen
    return (f.choice(value, where, allowed),)


@dataclass(frozen=True)
class _Stated:
    """A setting as written at one place in the file, with that place for later errors."""

    value: Any
    where: str


def _settings(f: _Fields, data: Mapping[str, Any], where: str) -> dict[str, _Stated]:
    """The settings stated in ``defaults`` or in one case entry, each checked on its own."""
    out: dict[str, _Stated] = {}
    for key in _SETTING_KEYS:
        if key not in data:
            continue
        value, at = data[key], f"{where}.{key}"
        if key == "trials":
            out[key] = _Stated(f.whole(value, at, 1, MAX_TRIALS), at)
        elif key == "mode":
            out[key] = _Stated(f.choice(value, at, MODES), at)
        elif key in ("instructions", "framework"):
            out[key] = _Stated(_variants(f, value, at, INSTRUCTIONS if key == "instructions" else FRAMEWORKS), at)
        elif key in ("style", "theme"):
            if "style" in data and "theme" in data:
                raise f.error(at, "theme is the earlier name of style; state one of the two")
            # Stored as style, so a case's `style` replaces the defaults' `theme` and vice versa.
            out["style"] = _Stated(_variants(f, value, at, STYLES), at)
        elif key == "pricing":
            out[key] = _Stated(_pricing(f, value, at), at)
        else:
            for name, item in f.mapping(value, at, EXPECTATION_NAMES).items():
                # null drops an expectation the defaults set, for this case only.
                parsed = None if item is None else _expectation(f, name, item, f"{at}.{name}")
                out[f"expect.{name}"] = _Stated(parsed, f"{at}.{name}")
    return out


def _resolve(f: _Fields, case: Case, stated: dict[str, _Stated], entry: int) -> list[CaseSettings]:
    """A case's settings from what was stated for it, checked against the case and its mode: one
    per prompt variant (``instructions: [none, full]`` gives two)."""
    base = CaseSettings()
    mode = stated["mode"].value if "mode" in stated else base.mode
    expect: dict[str, Any] = {}
    for key, item in stated.items():
        if not key.startswith("expect.") or item.value is None:
            continue
        name = key.removeprefix("expect.")
        expect[name] = item.value
        about = f"case {case.id!r} (cases[{entry}]) runs in {mode} mode"
        if mode == "reference" and name in TOKEN_AND_COST_EXPECTATIONS:
            raise f.error(
                item.where,
                f"cannot be measured in reference mode: no model generates, so there are no tokens and no cost "
                f"({about}); remove it there or use mode model",
            )
        if name == "repair" and mode != "repair":
            raise f.error(item.where, f"applies to repair mode only ({about})")
        if name == "max_estimated_cost_usd" and "pricing" not in stated:
            raise f.error(
                item.where,
                "needs prices: add pricing: {input_per_million_usd: ..., output_per_million_usd: ...} "
                f"to defaults or to cases[{entry}]",
            )
        if name == "checks_must_pass":
            known = [c.id for c in case.checks]
            for index, check_id in enumerate(item.value):
                if check_id not in known:
                    hint = difflib.get_close_matches(check_id, known, n=1)
                    also = f" (did you mean {hint[0]!r}?)" if hint else ""
                    raise f.error(
                        f"{item.where}[{index}]",
                        f"case {case.id!r} has no check {check_id!r}{also}; its checks: {', '.join(known)}",
                    )
        if name == "min_pass_at_k" and mode != "reference":
            trials = stated["trials"].value if "trials" in stated else base.trials
            for k, _ in item.value:
                if k > trials:
                    raise f.error(
                        f"{item.where}.{k}",
                        f"pass@{k} needs at least {k} trials, but case {case.id!r} has trials: {trials}; "
                        "raise trials or lower k",
                    )
    if expect.get("must_pass") is True and "min_trial_pass_rate" in expect:
        raise f.error(
            stated["expect.min_trial_pass_rate"].where,
            "contradicts must_pass: true (every trial passes); state one of the two",
        )
    instructions = stated["instructions"].value if "instructions" in stated else (base.instructions,)
    frameworks = stated["framework"].value if "framework" in stated else (base.framework,)
    styles = stated["style"].value if "style" in stated else (base.style,)
    if mode == "reference":  # no prompt is sent: one run, and a note says the instructions are unused
        instructions = (next((i for i in instructions if i != base.instructions), base.instructions),)
    return [
        CaseSettings(
            trials=stated["trials"].value if "trials" in stated else base.trials,
            mode=mode,
            instructions=instruction,
            framework=framework,
            style=style,
            pricing=stated["pricing"].value if "pricing" in stated else None,
            expect=Expectations(**expect),
        )
        for instruction in instructions
        for framework in frameworks
        for style in styles
    ]


# ------------------------------------------------------------------------------ selection


def _suggest(word: str, known: Sequence[str]) -> str:
    hint = difflib.get_close_matches(word, known, n=2)
    return f" (did you mean {' or '.join(repr(h) for h in hint)}?)" if hint else ""


def _select(f: _Fields, value: Any, where: str, cases: Sequence[Case]) -> list[Case]:
    data = f.mapping(value, where, _SELECT_KEYS)
    if not data:
        raise f.error(where, "needs tags: [...] and/or category: ...")
    chosen = list(cases)
    if "tags" in data:
        tags = f.strings(data["tags"], f"{where}.tags")
        known = sorted({t for c in cases for t in c.tags})
        for index, tag in enumerate(tags):
            if tag not in known:
                raise f.error(f"{where}.tags[{index}]", f"no case has the tag {tag!r}{_suggest(tag, known)}")
        chosen = [c for c in chosen if set(c.tags) & set(tags)]
    if "category" in data:
        raw = data["category"]
        categories = (raw,) if isinstance(raw, str) else f.strings(raw, f"{where}.category")
        for category in categories:
            f.choice(category, f"{where}.category", CATEGORIES)
        chosen = [c for c in chosen if c.category in categories]
    if not chosen:
        raise f.error(where, "selects no case (a case must have one of the tags and be in one of the categories)")
    return sorted(chosen, key=lambda c: c.id)


def parse_suite(data: Any, path: Path, cases: Sequence[Case] | None = None) -> Suite:
    """A suite from parsed YAML; ``cases`` are the cases to select from (default: the bundled)."""
    f = _Fields(Path(path))
    if not isinstance(data, Mapping):
        raise SuiteError(f"{path}: must be a mapping with the keys {', '.join(_TOP_KEYS)}; got {_kind(data)}")
    top = f.mapping(data, "", _TOP_KEYS)
    if "name" not in top:
        raise f.error("name", "is required: a short name for the suite, such as release-gate")
    name = f.text(top["name"], "name")
    description = top.get("description") or ""
    if not isinstance(description, str):
        raise f.error("description", f"must be a string; got {_kind(description)}")
    model = _model(f, top.get("model"))
    defaults = _settings(f, f.mapping(top.get("defaults"), "defaults", _SETTING_KEYS), "defaults")
    entries = top.get("cases")
    if not isinstance(entries, list) or not entries:
        raise f.error("cases", "is required: a non-empty list of entries, each with id: CASE or select: {tags: [...]}")
    known = list(cases) if cases is not None else list(load_cases())
    by_id = {c.id: c for c in known}
    # case id -> (entry index, chosen by id?, settings stated for it)
    chosen: dict[str, tuple[int, bool, dict[str, _Stated]]] = {}
    for index, entry in enumerate(entries):
        where = f"cases[{index}]"
        data_entry = f.mapping(entry, where, ("id", "select", *_SETTING_KEYS))
        if ("id" in data_entry) == ("select" in data_entry):
            raise f.error(where, "needs exactly one of id: CASE or select: {tags: [...], category: ...}")
        stated = {**defaults, **_settings(f, data_entry, where)}
        # expect merges key by key: the entry's own expect.* keys were laid over the defaults'.
        if "id" in data_entry:
            case_id = f.text(data_entry["id"], f"{where}.id")
            if case_id not in by_id:
                raise f.error(
                    f"{where}.id",
                    f"unknown case {case_id!r}{_suggest(case_id, list(by_id))}; `a11y-eval cases list` shows them",
                )
            previous = chosen.get(case_id)
            if previous is not None and previous[1]:
                raise f.error(
                    f"{where}.id", f"case {case_id!r} is already listed at cases[{previous[0]}]; list it once"
                )
            # An id entry is the most specific: it wins over any select that includes the case.
            chosen[case_id] = (index, True, stated)
            continue
        for case in _select(f, data_entry["select"], f"{where}.select", known):
            previous = chosen.get(case.id)
            if previous is None:
                chosen[case.id] = (index, False, stated)
            elif not previous[1]:
                raise f.error(
                    f"{where}.select",
                    f"selects case {case.id!r}, which cases[{previous[0]}] selects too; give it an id: entry of "
                    "its own (that settles its settings) or narrow one of the selections",
                )
    resolved = [
        SuiteCase(by_id[case_id], settings, index)
        for case_id, (index, _, stated) in sorted(chosen.items(), key=lambda item: (item[1][0], item[0]))
        for settings in _resolve(f, by_id[case_id], stated, index)
    ]
    notes: list[str] = []
    resolved = _reference_variants(f, resolved, notes)
    needs_model = [c for c in resolved if c.settings.generates]
    if needs_model and model is None:
        first = needs_model[0]
        raise f.error(
            "model",
            f"is required: case {first.id!r} (cases[{first.entry}]) runs in {first.settings.mode} mode, which "
            "generates with a model; add model: {name: hf, args: 'pretrained=...'} or use mode: reference",
        )
    if model is not None and not needs_model:
        notes.append("the model block is not used: every case runs in reference mode")
    base = CaseSettings()
    unused = [
        c.id
        for c in resolved
        if c.settings.mode == "reference"
        and (c.settings.pricing is not None or c.settings.instructions != base.instructions)
    ]
    if unused:
        shown = _few(list(dict.fromkeys(unused)))
        notes.append(f"pricing and instructions are not used in reference mode (case(s) {shown})")
    return Suite(Path(path), name, description.strip(), model, tuple(resolved), tuple(notes))


def _few(items: Sequence[str]) -> str:
    return ", ".join(items[:5]) + (" ..." if len(items) > 5 else "")


def _reference_variants(f: _Fields, resolved: list[SuiteCase], notes: list[str]) -> list[SuiteCase]:
    """The reference variants that have pages to run, in order; the others are left out with a note.

    A reference trial of a variant is one of the case's passing pages declared for it (its
    ``framework`` and ``style``, lm_eval_a11y/cases.py). A case whose only variant is the default
    one is left as it is (a case without a passing page fails when the run plans its pages, as
    ever); a case none of whose variants has a page is an error: the file asks for pages that
    do not exist."""
    from lm_eval_a11y.cases import CaseError, load_examples

    groups: dict[str, list[SuiteCase]] = {}
    for c in resolved:
        if c.settings.mode == "reference":
            groups.setdefault(c.id, []).append(c)
    dropped: dict[str, list[str]] = {}
    keep: set[int] = set()
    for case_id, variants in groups.items():
        if [v.settings.variant.is_default for v in variants] == [True]:
            keep.add(id(variants[0]))
            continue
        try:
            pages = {e.variant for e in load_examples(variants[0].case) if e.verdict == "pass"}
        except CaseError as err:
            raise SuiteError(str(err)) from None
        having = [v for v in variants if v.settings.variant in pages]
        if not having:
            first = variants[0]
            asked = ", ".join(v.settings.variant.label for v in variants)
            has = ", ".join(sorted(p.label for p in pages)) or "none"
            raise f.error(
                f"cases[{first.entry}]",
                f"case {case_id!r} runs in reference mode as {asked}, but no passing example page of it is "
                f"declared for that framework and style (its pages answer: {has}); add such a page or "
                "drop framework and style for this case",
            )
        keep.update(id(v) for v in having)
        for v in variants:
            if id(v) not in keep:
                dropped.setdefault(v.settings.variant.label, []).append(case_id)
    for label, case_ids in sorted(dropped.items()):
        notes.append(f"reference variant {label} not run: no passing example page for it (case(s) {_few(case_ids)})")
    return [c for c in resolved if c.settings.mode != "reference" or id(c) in keep]


def load_suite(path: Path, cases: Sequence[Case] | None = None) -> Suite:
    """Read and validate a suite file; raises :class:`SuiteError` (never a traceback for input)."""
    path = Path(path)
    if not path.exists():
        raise SuiteError(f"{path}: no such file")
    return parse_suite(_read(path), path, cases)
