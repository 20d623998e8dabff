"""The probe's ES modules (``evaluator/probe/*.js``) joined into the one script a world evaluates.

The probe is evaluated into each document's isolated world as a plain script (CDP's
``Runtime.evaluate`` and ``Page.addScriptToEvaluateOnNewDocument`` take no modules), and it must
run where nothing can be fetched. So the modules are joined here, when the evaluator starts, with
no build step and no JavaScript tool: each module's body, its ``import`` lines taken out and the
``export`` before its declarations dropped, goes into one function scope, in the order a browser
would evaluate them as modules (depth first from ``api.js``, imports in the order written). All
modules then share that scope, so names are unique across them; what eslint checks in each module
(every name it uses is imported or its own, no import is assigned to) stays true of the bundle.

Only the forms the probe uses are understood, and anything else is refused with the reason:
``import { a, b } from './x.js';`` and ``export`` before a ``function``, ``async function``,
``const``, ``let`` or ``class`` declaration at the start of a line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ENTRY", "ProbeModuleError", "bundle_probe"]

ENTRY = "api.js"

_IMPORT = re.compile(r"^import\s*\{(?P<names>[^}]*)\}\s*from\s*'\./(?P<module>[\w-]+\.js)';[ \t]*\n", re.M)
_ANY_IMPORT = re.compile(r"^\s*import\b", re.M)
_DECLARATION = re.compile(
    r"^(?P<export>export )?(?:async )?(?:function\*?\s*|const |let |class )(?P<name>[A-Za-z_$][\w$]*)", re.M
)
_ANY_EXPORT = re.compile(r"^\s*export\b", re.M)
_NAME = re.compile(r"[A-Za-z_$][\w$]*")


class ProbeModuleError(ValueError):
    """The probe's modules cannot be joined as they are; the message names the module and why."""


@dataclass(frozen=True)
class _Module:
    name: str
    body: str  # the source without its import lines and with `export ` dropped
    imports: tuple[tuple[str, tuple[str, ...]], ...]  # (module, names), in the order written
    declared: tuple[str, ...]  # top-level names declared at the start of a line
    exported: frozenset[str]


def _parse(name: str, source: str) -> _Module:
    imports: list[tuple[str, tuple[str, ...]]] = []
    for match in _IMPORT.finditer(source):
        names = tuple(part.strip() for part in match["names"].split(",") if part.strip())
        for imported in names:
            if not _NAME.fullmatch(imported):
                raise ProbeModuleError(f"{name}: import {imported!r}: only plain names can be imported")
        imports.append((match["module"], names))
    body = _IMPORT.sub("", source)
    if _ANY_IMPORT.search(body):
        raise ProbeModuleError(f"{name}: only `import {{ a, b }} from './module.js';` can be joined")
    declarations = list(_DECLARATION.finditer(body))
    exported = frozenset(match["name"] for match in declarations if match["export"])
    body = _DECLARATION.sub(lambda match: match[0].removeprefix("export "), body)
    if _ANY_EXPORT.search(body):
        raise ProbeModuleError(f"{name}: only `export` before a declaration at the start of a line can be joined")
    declared = tuple(match["name"] for match in declarations)
    return _Module(name, body.strip("\n"), tuple(imports), declared, exported)


def _order(modules: dict[str, _Module]) -> list[_Module]:
    """The modules in the order a browser evaluates them from ``ENTRY``; no cycles."""
    done: list[_Module] = []
    visiting: list[str] = []

    def visit(name: str, importer: str) -> None:
        if any(module.name == name for module in done):
            return
        if name in visiting:
            cycle = " -> ".join([*visiting[visiting.index(name) :], name])
            raise ProbeModuleError(f"the probe's modules import each other in a cycle: {cycle}")
        module = modules.get(name)
        if module is None:
            raise ProbeModuleError(f"{importer}: imports ./{name}, which is not a module of the probe")
        visiting.append(name)
        for target, names in module.imports:
            visit(target, name)
            missing = [imported for imported in names if imported not in modules[target].exported]
            if missing:
                raise ProbeModuleError(
                    f"{name}: imports {', '.join(missing)} from ./{target}, which does not export it"
                )
        visiting.pop()
        done.append(module)

    visit(ENTRY, "the probe")
    unused = sorted(set(modules) - {module.name for module in done})
    if unused:
        raise ProbeModuleError(f"not imported from {ENTRY}, directly or not: {', '.join(unused)}")
    return done


def bundle_probe(folder: Path) -> str:
    """The probe's modules in ``folder`` as one script: evaluated in a world, it defines
    ``globalThis.__a11yProbe`` once (a second evaluation in the same world does nothing)."""
    modules = {path.name: _parse(path.name, path.read_text(encoding="utf-8")) for path in folder.glob("*.js")}
    if ENTRY not in modules:
        raise ProbeModuleError(f"the probe's entry module {folder / ENTRY} is missing")
    ordered = _order(modules)
    owner: dict[str, str] = {}
    for module in ordered:
        for name in module.declared:
            if name in owner:
                raise ProbeModuleError(
                    f"{module.name} and {owner[name]} both declare {name}: the joined modules share one scope"
                )
            owner[name] = module.name
    parts = [
        "// lm-eval-a11y's in-page probe: the modules of evaluator/probe/ joined by lm_eval_a11y/probe_bundle.py.",
        "(() => {",
        "'use strict';",
        "if (globalThis.__a11yProbe) {",
        "  return;",
        "}",
    ]
    for module in ordered:
        parts += ["", f"// ---- evaluator/probe/{module.name}", module.body]
    parts += ["})();", ""]
    return "\n".join(parts)
