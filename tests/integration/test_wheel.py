"""The wheel carries what a ``pip install`` user needs besides Chromium, and finds it installed.

Builds the wheel from this checkout (the pinned axe build comes from evaluator/node_modules, so
``npm ci --prefix evaluator`` must have run, as scripts/setup.sh does), then installs it without
dependencies into a throwaway virtual environment and asks the installed package where axe is.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

from lm_eval_a11y.probe_bundle import bundle_probe

REPO = Path(__file__).resolve().parents[2]


def test_wheel_carries_assets_and_resolves_them_when_installed(tmp_path: Path) -> None:
    cases = {p.parent.name for p in (REPO / "test_cases").glob("*/case.yaml")}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-q", "-w", str(tmp_path / "dist")],
        check=True,
        timeout=180,
        cwd=tmp_path,
    )
    (wheel,) = (tmp_path / "dist").glob("lm_eval_a11y-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assets = "lm_eval_a11y/_assets/"
    assert f"{assets}axe.min.js" in names
    probe_modules = {p.name for p in (REPO / "evaluator" / "probe").glob("*.js")}
    assert "api.js" in probe_modules
    assert {f"{assets}probe/{name}" for name in probe_modules} <= names
    assert f"{assets}axe-core-LICENSE" in names
    assert "disclosure" in cases
    shipped = {n.split("/")[3] for n in names if n.startswith(f"{assets}test_cases/") and n.endswith("/case.yaml")}
    # (<=, not ==: other authors may add a case while the wheel builds.)
    assert cases <= shipped
    for case in cases:
        assert f"{assets}test_cases/{case}/checks.py" in names
    assert any(n.startswith(f"{assets}tasks/") and n.endswith(".yaml") for n in names)
    # The generic page checks live inside the package, examples and all.
    generic = {p.relative_to(REPO).as_posix() for p in (REPO / "lm_eval_a11y" / "generic").rglob("*")}
    generic = {n for n in generic if n.endswith((".yaml", ".py", ".html"))}
    assert "lm_eval_a11y/generic/case.yaml" in generic
    assert generic <= names
    suites = {p.name for p in (REPO / "suites").glob("*.yaml")}
    assert "self-test.yaml" in suites
    assert {f"{assets}suites/{name}" for name in suites} <= names
    assert not any("__pycache__" in n or "node_modules" in n for n in names)

    env = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env)
    python = env / "bin" / "python"
    # The new environment has no pip of its own; this interpreter's pip installs into it.
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
        check=True,
        timeout=120,
        cwd=tmp_path,
    )
    probe = (
        "import lm_eval_a11y, lm_eval_a11y.resources as r; "
        "print(lm_eval_a11y.__file__); print(r.axe_path()); print(r.probe_path()); print(r.cases_dir()); "
        "print(r.suites_dir()); "
        "import hashlib; print(hashlib.sha256(r.probe_source().encode()).hexdigest())"
    )
    done = subprocess.run(
        [str(python), "-c", probe], check=True, timeout=60, cwd=tmp_path, capture_output=True, text=True
    )
    *paths, probe_digest = done.stdout.split()
    package, axe, probe_dir, cases_dir, suites_dir = (Path(line) for line in paths)
    installed = package.parent
    assert env in installed.parents, f"imported {package}, not the installed copy"
    assert axe == installed / "_assets" / "axe.min.js"
    assert probe_dir == installed / "_assets" / "probe"
    # The installed probe's modules join into the same script as the checkout's.
    assert probe_digest == hashlib.sha256(bundle_probe(REPO / "evaluator" / "probe").encode()).hexdigest()
    assert cases_dir == installed / "_assets" / "test_cases"
    assert suites_dir == installed / "_assets" / "suites"
    # generic_case() loads from the package's own folder (lm_eval_a11y/generic/__init__.py).
    assert (installed / "generic" / "case.yaml").is_file()
    assert len(list((installed / "generic" / "examples").glob("*.html"))) == len(
        list((REPO / "lm_eval_a11y" / "generic" / "examples").glob("*.html"))
    )
    assert axe.read_bytes() == (REPO / "evaluator" / "node_modules" / "axe-core" / "axe.min.js").read_bytes()
