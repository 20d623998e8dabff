"""The probe's ES modules join into one script in the order a browser would evaluate them, and
anything the join cannot keep true of the modules is refused with the module's name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lm_eval_a11y.probe_bundle import ProbeModuleError, bundle_probe
from lm_eval_a11y.resources import probe_path, probe_source

PROBE = Path(__file__).resolve().parents[2] / "evaluator" / "probe"


def _modules(tmp_path: Path, **sources: str) -> Path:
    for name, source in sources.items():
        (tmp_path / f"{name}.js").write_text(source, encoding="utf-8")
    return tmp_path


def _order(bundle: str) -> list[str]:
    return re.findall(r"^// ---- evaluator/probe/(\S+)$", bundle, re.M)


def test_shipped_probe_joins_every_module_once_with_the_entry_last() -> None:
    assert probe_path() == PROBE
    bundle = probe_source()
    order = _order(bundle)
    assert sorted(order) == sorted(path.name for path in PROBE.glob("*.js"))
    assert order[-1] == "api.js"
    # Each module comes after those it imports (refs.js holds what elements.js hands out).
    assert order.index("refs.js") < order.index("elements.js") < order.index("keyboard-reach.js")
    # A second evaluation in the same world keeps the first probe.
    assert bundle.index("if (globalThis.__a11yProbe) {") < bundle.index("// ---- evaluator/probe/")
    assert not re.search(r"^\s*(import|export)\b", bundle, re.M)
    assert bundle.count("globalThis.__a11yProbe = Object.freeze(") == 1


def test_modules_come_in_the_order_a_browser_evaluates_them(tmp_path: Path) -> None:
    folder = _modules(
        tmp_path,
        api="import { b } from './b.js';\nimport { a } from './a.js';\n\nglobalThis.__a11yProbe = { a, b };\n",
        a="import { c } from './c.js';\n\nexport const a = c + 1;\n",
        b="import { c } from './c.js';\n\nexport function b() {\n  return c;\n}\n",
        c="export const c = 1;\n",
    )
    bundle = bundle_probe(folder)
    assert _order(bundle) == ["c.js", "b.js", "a.js", "api.js"]
    assert "\nconst c = 1;\n" in bundle and "\nfunction b() {\n" in bundle


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        (
            {
                "api": "import { a } from './a.js';\n",
                "a": "import { b } from './b.js';\nexport const a = 1;\n",
                "b": "import { a } from './a.js';\nexport const b = 1;\n",
            },
            "cycle: a.js -> b.js -> a.js",
        ),
        (
            {"api": "import { a } from './a.js';\n", "a": "const a = 1;\n"},
            "api.js: imports a from ./a.js, which does not",
        ),
        ({"api": "import { a } from './gone.js';\n"}, "api.js: imports ./gone.js, which is not a module"),
        ({"api": "const x = 1;\n", "stray": "const y = 2;\n"}, "not imported from api.js, directly or not: stray.js"),
        (
            {
                "api": "import { a } from './a.js';\nconst a2 = a;\nfunction x() {}\n",
                "a": "export const a = 1;\nlet x = 2;\n",
            },
            "both declare x",
        ),
        ({"api": "import a from './a.js';\n", "a": "export const a = 1;\n"}, "api.js: only `import { a, b }"),
        ({"api": "import { a as b } from './a.js';\n", "a": "export const a = 1;\n"}, "only plain names"),
        ({"api": "export default 1;\n"}, "api.js: only `export` before a declaration"),
        ({"a": "export const a = 1;\n"}, "entry module"),
    ],
)
def test_what_cannot_be_joined_is_refused_with_the_reason(
    tmp_path: Path, sources: dict[str, str], message: str
) -> None:
    with pytest.raises(ProbeModuleError, match=re.escape(message)):
        bundle_probe(_modules(tmp_path, **sources))
