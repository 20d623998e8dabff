"""The CDN mirror's URL mapping (engine/cdn_mirror.py): the URL forms models write, versions
substituted within a major, other majors and unknown libraries refused, and hostile paths that
must never reach a file outside the package's folder."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from lm_eval_a11y.engine import cdn_route
from lm_eval_a11y.engine.cdn_mirror import LIBRARIES, content_type, resolve
from lm_eval_a11y.engine.cdn_route import serve_library
from lm_eval_a11y.engine.observe import library_unaudited
from lm_eval_a11y.observation import AuditCoverage, AxeResult, LibraryRequest, Observation, PageEvents, Timings
from lm_eval_a11y.resources import library_root
from lm_eval_a11y.scoring import score_observation

ROOT = Path(__file__).resolve().parents[2]
MODULES = library_root()
needs_modules = pytest.mark.skipif(
    MODULES is None or not (MODULES / "react").is_dir(), reason="npm ci --prefix evaluator has not been run"
)


@pytest.fixture
def fake_root(tmp_path: Path) -> Path:
    """A node_modules with one file per mirrored package's usual paths, and a secret beside it."""
    files = [
        "react/umd/react.production.min.js",
        "react/umd/react.development.js",
        "react/index.js",
        "react/package.json",
        "react-dom/umd/react-dom.production.min.js",
        "@babel/standalone/babel.min.js",
        "@babel/standalone/babel.js",
        "@tailwindcss/browser/dist/index.global.js",
        "bootstrap/dist/css/bootstrap.min.css",
        "bootstrap/dist/css/bootstrap.css",
        "bootstrap/dist/js/bootstrap.bundle.min.js",
        "@fortawesome/fontawesome-free/css/all.min.css",
        "@fortawesome/fontawesome-free/webfonts/fa-solid-900.woff2",
        "tailwindcss-cdn/3.4.10/tailwindcss.js",
        "tailwindcss-cdn/3.4.10/tailwindcss-with-forms.js",
        "tailwindcss-cdn/3.4.10/tailwindcss-with-all-plugins.js",
        "axe-core/axe.min.js",
    ]
    for name in files:
        path = tmp_path / "node_modules" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("//" + name)
    (tmp_path / "secret.js").write_text("secret")
    # A link inside a package that points out of it.
    (tmp_path / "node_modules" / "react" / "umd" / "escape.js").symlink_to(tmp_path / "secret.js")
    return tmp_path / "node_modules"


@pytest.mark.parametrize(
    ("url", "outcome", "file"),
    [
        ("https://unpkg.com/react@18/umd/react.production.min.js", "served", "react/umd/react.production.min.js"),
        ("https://unpkg.com/react@18.3.1/umd/react.production.min.js", "served", "react/umd/react.production.min.js"),
        ("https://unpkg.com/react/umd/react.production.min.js", "served", "react/umd/react.production.min.js"),
        ("https://unpkg.com/react@latest/umd/react.production.min.js", "served", "react/umd/react.production.min.js"),
        ("https://unpkg.com/react@18.x/umd/react.production.min.js", "served", "react/umd/react.production.min.js"),
        ("https://unpkg.com/react@^18.2.0/umd/react.production.min.js", "served", "react/umd/react.production.min.js"),
        ("https://unpkg.com/react@18.2.0/umd/react.development.js", "substituted", "react/umd/react.development.js"),
        (
            "https://unpkg.com/react@18.3.0-canary-1/umd/react.production.min.js",
            "substituted",
            "react/umd/react.production.min.js",
        ),
        # With or without ".min".
        ("https://unpkg.com/react@18/umd/react.production.js", "served", "react/umd/react.production.min.js"),
        ("https://unpkg.com/react@18/umd/react.development.min.js", "served", "react/umd/react.development.js"),
        # A URL without a path gets the package's main, as the CDN answers it.
        ("https://unpkg.com/react@18", "served", "react/index.js"),
        (
            "https://cdn.jsdelivr.net/npm/react-dom@18.3.1/umd/react-dom.production.min.js",
            "served",
            "react-dom/umd/react-dom.production.min.js",
        ),
        (
            "https://fastly.jsdelivr.net/npm/react-dom@18/umd/react-dom.production.min.js",
            "served",
            "react-dom/umd/react-dom.production.min.js",
        ),
        (
            "https://cdnjs.cloudflare.com/ajax/libs/react/18.3.1/umd/react.production.min.js",
            "served",
            "react/umd/react.production.min.js",
        ),
        (
            "https://cdnjs.cloudflare.com/ajax/libs/react-dom/18.2.0/umd/react-dom.production.min.js",
            "substituted",
            "react-dom/umd/react-dom.production.min.js",
        ),
        ("https://unpkg.com/@babel/standalone/babel.min.js", "served", "@babel/standalone/babel.min.js"),
        ("https://unpkg.com/@babel/standalone@7.29.13/babel.min.js", "served", "@babel/standalone/babel.min.js"),
        ("https://cdn.jsdelivr.net/npm/@babel/standalone@7.24.0/babel.js", "substituted", "@babel/standalone/babel.js"),
        (
            "https://cdnjs.cloudflare.com/ajax/libs/babel-standalone/7.23.5/babel.min.js",
            "substituted",
            "@babel/standalone/babel.min.js",
        ),
        ("https://cdn.jsdelivr.net/npm/@tailwindcss/browser@4", "served", "@tailwindcss/browser/dist/index.global.js"),
        (
            "https://unpkg.com/@tailwindcss/browser@4.1.0/dist/index.global.js",
            "substituted",
            "@tailwindcss/browser/dist/index.global.js",
        ),
        ("https://cdn.tailwindcss.com", "served", "tailwindcss-cdn/3.4.10/tailwindcss.js"),
        ("https://cdn.tailwindcss.com/", "served", "tailwindcss-cdn/3.4.10/tailwindcss.js"),
        ("https://cdn.tailwindcss.com/3.4.1", "substituted", "tailwindcss-cdn/3.4.10/tailwindcss.js"),
        ("https://cdn.tailwindcss.com?plugins=forms", "served", "tailwindcss-cdn/3.4.10/tailwindcss-with-forms.js"),
        (
            "https://cdn.tailwindcss.com?plugins=forms,typography",
            "served",
            "tailwindcss-cdn/3.4.10/tailwindcss-with-all-plugins.js",
        ),
        (
            "https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/css/bootstrap.min.css",
            "substituted",
            "bootstrap/dist/css/bootstrap.min.css",
        ),
        (
            "https://cdn.jsdelivr.net/npm/bootstrap@5/dist/js/bootstrap.bundle.min.js",
            "served",
            "bootstrap/dist/js/bootstrap.bundle.min.js",
        ),
        (
            "https://cdnjs.cloudflare.com/ajax/libs/bootstrap/5.3.2/css/bootstrap.css",
            "substituted",
            "bootstrap/dist/css/bootstrap.css",
        ),
        (
            "https://stackpath.bootstrapcdn.com/bootstrap/5.3.9/css/bootstrap.min.css",
            "served",
            "bootstrap/dist/css/bootstrap.min.css",
        ),
        (
            "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.5.1/css/all.min.css",
            "substituted",
            "@fortawesome/fontawesome-free/css/all.min.css",
        ),
        (
            "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.7.2/webfonts/fa-solid-900.woff2",
            "served",
            "@fortawesome/fontawesome-free/webfonts/fa-solid-900.woff2",
        ),
        (
            "https://use.fontawesome.com/releases/v6.4.0/css/all.css",
            "substituted",
            "@fortawesome/fontawesome-free/css/all.min.css",
        ),
        (
            "https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@6/webfonts/fa-solid-900.woff2",
            "served",
            "@fortawesome/fontawesome-free/webfonts/fa-solid-900.woff2",
        ),
    ],
)
def test_url_forms_map_to_the_package_file(fake_root: Path, url: str, outcome: str, file: str) -> None:
    found = resolve(url, fake_root)
    assert found is not None
    assert (found.outcome, found.file) == (outcome, file), found
    assert found.mirrored
    assert (fake_root / found.file).is_file()


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("https://unpkg.com/vue@3/dist/vue.global.js", "library vue@3 not mirrored"),
        ("https://unpkg.com/react@17/umd/react.production.min.js", "react@17 not mirrored"),
        ("https://unpkg.com/react@19.0.0/umd/react.production.min.js", "react@19.0.0 not mirrored"),
        ("https://cdnjs.cloudflare.com/ajax/libs/font-awesome/4.7.0/css/font-awesome.min.css", "not mirrored"),
        ("https://maxcdn.bootstrapcdn.com/bootstrap/4.5.2/css/bootstrap.min.css", "bootstrap@4.5.2 not mirrored"),
        ("https://cdn.tailwindcss.com/2.2.19", "tailwindcss@2.2.19 not mirrored"),
        ("https://cdn.tailwindcss.com?plugins=daisyui", "plugins"),
        ("https://code.jquery.com/jquery-3.7.1.min.js", "not mirrored"),
        ("https://esm.sh/react@18", "not mirrored"),
        ("https://cdn.jsdelivr.net/gh/user/repo@1/x.js", "/npm/"),
        ("https://cdn.jsdelivr.net/npm/react@18/+esm", "+esm"),
        ("https://unpkg.com/react@18/umd/react.nonexistent.js", "no file"),
        ("https://unpkg.com/react@eighteen/umd/react.production.min.js", "not mirrored"),
        ("https://kit.fontawesome.com/abc123.js", "not mirrored"),
    ],
)
def test_other_libraries_and_majors_are_not_mirrored(fake_root: Path, url: str, why: str) -> None:
    found = resolve(url, fake_root)
    assert found is not None and found.outcome == "not mirrored" and not found.mirrored, found
    assert why in found.reason
    assert found.file == ""
    assert found.fails_page


@pytest.mark.parametrize(
    "url",
    [
        "https://unpkg.com/react@18/../../secret.js",
        "https://unpkg.com/react@18/umd/../../../secret.js",
        "https://unpkg.com/react@18/%2e%2e/%2e%2e/secret.js",
        "https://unpkg.com/react@18/%2E%2E%2F%2E%2E%2Fsecret.js",
        "https://unpkg.com/react@18/umd/..%2f..%2f..%2fsecret.js",
        "https://unpkg.com/react@18/umd/..%5c..%5csecret.js",
        "https://unpkg.com/react@18/umd\\..\\..\\..\\secret.js",
        "https://unpkg.com/react@18/umd/react.production.min.js%00.css",
        "https://unpkg.com/react@18//etc/passwd",
        "https://unpkg.com/react@18/umd/escape.js",
        "https://unpkg.com/react@18/package.json",
        "https://unpkg.com/..%2f..%2fsecret.js",
        "https://unpkg.com/@babel/../../secret.js",
        "https://cdnjs.cloudflare.com/ajax/libs/react/18.3.1/../../../../secret.js",
        "https://cdnjs.cloudflare.com/ajax/libs/react/18.3.1/%2e%2e/secret.js",
        "https://use.fontawesome.com/releases/v6.4.0/../../../secret.js",
        "https://cdn.tailwindcss.com/../secret.js",
        "https://cdn.jsdelivr.net/npm/react@18/umd/" + "a" * 5000 + ".js",
        "https://unpkg.com/react@18/umd/\u0000.js",
    ],
)
def test_hostile_paths_never_leave_the_package(fake_root: Path, url: str) -> None:
    found = resolve(url, fake_root)
    assert found is not None
    assert not found.mirrored, found
    assert found.file == ""


def test_a_served_file_is_always_inside_its_package(fake_root: Path) -> None:
    """Every URL of the forms above, and its hostile variants, resolves inside the package named."""
    for lib in LIBRARIES:
        for rest in ("", "x.js", "../x.js", "a/../b.js", "./x.js", "%2e%2e/x.js"):
            found = resolve(f"https://unpkg.com/{lib.package}@{lib.major}/{rest}", fake_root)
            if found is not None and found.mirrored:
                path = (fake_root / found.file).resolve()
                assert path.is_relative_to((fake_root / lib.package).resolve())


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/react.js",
        "http://localhost:8080/app.js",
        "data:text/javascript,1",
        "not a url",
        "https://unpkg.com.evil.invalid/react@18",
    ],
)
def test_other_hosts_are_ordinary_requests(fake_root: Path, url: str) -> None:
    assert resolve(url, fake_root) is None


def test_web_fonts_are_recorded_and_fail_nothing(fake_root: Path) -> None:
    found = resolve("https://fonts.googleapis.com/css2?family=Inter:wght@400;700&display=swap", fake_root)
    assert found is not None and found.font and not found.mirrored and not found.fails_page


def test_content_types() -> None:
    assert content_type("react/umd/react.production.min.js").startswith("text/javascript")
    assert content_type("bootstrap/dist/css/bootstrap.min.css").startswith("text/css")
    assert content_type("@fortawesome/fontawesome-free/webfonts/fa-solid-900.woff2") == "font/woff2"
    assert content_type("x.ttf") == "font/ttf"


def test_a_library_not_mirrored_fails_the_sample_and_says_which() -> None:
    vue = LibraryRequest(
        "https://unpkg.com/vue@3/dist/vue.global.js", "not mirrored", "vue", "3", reason="library vue@3 not mirrored"
    )
    react = LibraryRequest("https://unpkg.com/react@18", "served", "react", "18", "18.3.1", "react/index.js")
    font = LibraryRequest("https://fonts.googleapis.com/css2?family=Inter", "not mirrored", "web font", font=True)
    reasons = library_unaudited([vue, react, font])
    assert len(reasons) == 1 and "library vue@3 not mirrored" in reasons[0] and "unpkg.com/vue@3" in reasons[0]

    def observation(unaudited: list[str]) -> Observation:
        return Observation(
            None,
            None,
            "ok",
            None,
            "",
            0,
            AxeResult(),
            (),
            None,
            Timings(),
            events=PageEvents(libraries=(vue, react, font)),
            audit=AuditCoverage(recorded=True, unaudited=tuple(unaudited)),
        )

    assert not score_observation(observation(reasons)).passed
    assert score_observation(observation(library_unaudited([react, font]))).passed


def test_library_requests_survive_the_record() -> None:
    served = LibraryRequest(
        "https://unpkg.com/react@18.2.0/umd/react.production.min.js",
        "substituted",
        "react",
        "18.2.0",
        "18.3.1",
        "react/umd/react.production.min.js",
    )
    obs = Observation(
        None, None, "ok", None, "", 0, AxeResult(), (), None, Timings(), events=PageEvents(libraries=(served,))
    )
    again = Observation.from_dict(json.loads(json.dumps(obs.to_dict())))
    assert again.events.libraries == (served,)
    assert Observation.from_dict({"status": "ok", "events": {}}).events.libraries == ()


@needs_modules
def test_the_mirror_is_what_package_json_pins() -> None:
    pins = json.loads((ROOT / "evaluator" / "package.json").read_text())["dependencies"]
    assert MODULES is not None
    for lib in LIBRARIES:
        assert pins.get(lib.package) == lib.version, lib.package
        installed = json.loads((MODULES / lib.package / "package.json").read_text())["version"]
        assert installed == lib.version, f"{lib.package}: installed {installed}; run npm ci --prefix evaluator"
        assert (MODULES / lib.package / lib.default_file).is_file()


@needs_modules
def test_the_installed_packages_answer_the_usual_urls() -> None:
    assert MODULES is not None
    for url in (
        "https://unpkg.com/react@18/umd/react.production.min.js",
        "https://unpkg.com/react-dom@18/umd/react-dom.development.js",
        "https://unpkg.com/@babel/standalone/babel.min.js",
        "https://cdn.tailwindcss.com",
        "https://cdn.tailwindcss.com?plugins=forms,typography,aspect-ratio,container-queries",
        "https://cdn.jsdelivr.net/npm/@tailwindcss/browser@4",
        "https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/css/bootstrap.min.css",
        "https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js",
        "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.5.1/css/all.min.css",
        "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.5.1/webfonts/fa-brands-400.woff2",
    ):
        found = resolve(url, MODULES)
        assert found is not None and found.mirrored, (url, found)


class _Route:
    def __init__(self) -> None:
        self.answers: list[dict[str, object]] = []

    async def fulfill(self, **answer: object) -> None:
        self.answers.append(answer)


@needs_modules
def test_a_flood_of_served_urls_cannot_hide_a_library_not_mirrored() -> None:
    """A page asks for 200 distinct mirrored URLs, then for Vue: Vue is still recorded, so the
    page still fails; the served ones are answered with their file, type and open CORS."""

    async def run() -> tuple[list[LibraryRequest], _Route]:
        log: list[LibraryRequest] = []
        route = _Route()
        for i in range(200):
            assert await serve_library(
                route, f"https://unpkg.com/react@18.{i % 3}/umd/react.production.min.js?v={i}", log
            )
        assert not await serve_library(route, "https://unpkg.com/vue@3/dist/vue.global.js", log)
        assert not await serve_library(route, "https://example.com/app.js", log)
        return log, route

    log, route = asyncio.run(run())
    assert len(route.answers) == 200
    first = route.answers[0]
    assert first["status"] == 200 and str(first["content_type"]).startswith("text/javascript")
    assert first["headers"] == {
        "Access-Control-Allow-Origin": "*",
        "Cache-Control": "public, max-age=31536000, immutable",
    }
    assert Path(str(first["path"])).is_file()
    assert sum(item.mirrored for item in log) == 50
    assert len(library_unaudited(log)) == 1 and "vue@3" in library_unaudited(log)[0]


def test_without_node_modules_a_library_fails_its_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cdn_route, "library_root", lambda: None)
    log: list[LibraryRequest] = []
    served = asyncio.run(serve_library(_Route(), "https://unpkg.com/react@18/umd/react.production.min.js", log))
    assert not served
    assert [item.outcome for item in log] == ["not mirrored"] and "not installed" in log[0].reason
    assert len(library_unaudited(log)) == 1
