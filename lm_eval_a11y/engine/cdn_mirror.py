"""The libraries pages load from public CDNs, answered from the copies ``npm ci`` installs.

Asked for React in one HTML file, or for a "modern" page, models load React, Babel standalone,
Tailwind, Bootstrap or Font Awesome from unpkg, jsDelivr, cdnjs or the library's own host. The
evaluator reaches no network, so without these a page renders as an empty ``<div id="root">``
and is judged on nothing. :func:`resolve` maps such a request URL to a file of the pinned package
under ``evaluator/node_modules`` (pure: no browser, no I/O beyond looking at that folder), and says
what happened to it:

- ``served``: the version asked for is the one mirrored (or the URL named none, or only a major
  or minor that the mirrored one matches);
- ``substituted``: another version of the same major was asked for; the mirrored one answers;
- ``not mirrored``: a library or a major version we do not carry, a file the package does not
  have, or a URL we refuse (``..``, encoded separators, control characters). The request is
  blocked as any other, and the page was not rendered as a visitor sees it.

A URL of no library CDN host gives ``None``: an ordinary blocked request. docs/cdn-mirror.md lists
the libraries and URL forms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from lm_eval_a11y.observation import LibraryRequest

__all__ = [
    "FONT_HOSTS",
    "LIBRARIES",
    "LIBRARY_HOSTS",
    "Library",
    "Resolution",
    "content_type",
    "resolve",
]


@dataclass(frozen=True)
class Library:
    """One mirrored package: its npm name and pinned version, the names cdnjs gives it, the
    folder of the package a cdnjs path starts in, and the file a URL without a path gets (the
    package's ``main``, as unpkg and jsDelivr answer it)."""

    package: str
    version: str
    cdnjs: tuple[str, ...] = ()
    cdnjs_root: str = ""
    default_file: str = ""

    @property
    def major(self) -> str:
        return self.version.split(".")[0]


# What evaluator/package.json pins; tests/unit/test_cdn_mirror.py holds the two together.
LIBRARIES: tuple[Library, ...] = (
    Library("react", "18.3.1", cdnjs=("react",), default_file="index.js"),
    Library("react-dom", "18.3.1", cdnjs=("react-dom",), default_file="index.js"),
    Library("@babel/standalone", "7.29.13", cdnjs=("babel-standalone",), default_file="babel.js"),
    Library("@tailwindcss/browser", "4.3.4", default_file="dist/index.global.js"),
    Library("bootstrap", "5.3.9", cdnjs=("bootstrap",), cdnjs_root="dist", default_file="dist/js/bootstrap.js"),
    Library(
        "@fortawesome/fontawesome-free",
        "6.7.2",
        cdnjs=("font-awesome", "fontawesome-free"),
        default_file="js/fontawesome.js",
    ),
    # Tailwind's v3 Play CDN script (cdn.tailwindcss.com), as the tailwindcss-cdn package keeps it.
    Library("tailwindcss-cdn", "3.4.10", default_file="tailwindcss.js"),
)

# Hosts whose every request is a library's: a request there that is not mirrored fails the page.
LIBRARY_HOSTS: frozenset[str] = frozenset(
    {
        "unpkg.com",
        "cdn.jsdelivr.net",
        "fastly.jsdelivr.net",
        "gcore.jsdelivr.net",
        "cdnjs.cloudflare.com",
        "cdn.tailwindcss.com",
        "use.fontawesome.com",
        "kit.fontawesome.com",
        "ka-f.fontawesome.com",
        "stackpath.bootstrapcdn.com",
        "maxcdn.bootstrapcdn.com",
        "esm.sh",
        "cdn.skypack.dev",
        "ga.jspm.io",
        "code.jquery.com",
        "ajax.googleapis.com",
    }
)
# Web fonts: not mirrored; the text renders in the page's fallback font and the page is judged.
FONT_HOSTS: frozenset[str] = frozenset({"fonts.googleapis.com", "fonts.gstatic.com"})

_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".ttf": "font/ttf",
    ".eot": "application/vnd.ms-fontobject",
    ".svg": "image/svg+xml",
    ".map": "application/json",
}
_MAX_URL = 2048
# A package name (scoped or not), an optional version, the rest: "@babel/standalone@7/babel.min.js".
_NPM_PATH = re.compile(r"^(?P<name>(?:@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*)(?:@(?P<version>[^/]*))?(?P<rest>/.*)?$")
_CDNJS_PATH = re.compile(r"^/ajax/libs/(?P<name>[\w.-]+)/(?P<version>[^/]+)(?P<rest>/.*)?$")
_PLAY_CDN_VERSION = re.compile(r"^/(?P<version>\d+(?:\.\d+){0,2})/?$")
_FA_RELEASE = re.compile(r"^/releases/v(?P<version>[^/]+)(?P<rest>/.*)?$")
_BOOTSTRAPCDN = re.compile(r"^/(?P<name>bootstrap|font-awesome)/(?P<version>[^/]+)(?P<rest>/.*)?$")
_PLAY_PLUGINS = ("forms", "typography", "aspect-ratio", "container-queries")
_SAFE_SEGMENT = re.compile(r"^[\w.+~-]+$")
_VERSION = re.compile(r"^[\^~=v]*(?P<major>\d+)(?:\.(?P<minor>\d+|x|\*))?(?:\.(?P<patch>\d+|x|\*))?(?P<pre>-[\w.-]+)?$")


# What one request URL of a library host came to (observation.py: it is recorded as it is).
Resolution = LibraryRequest


def content_type(file: str) -> str:
    return _TYPES.get(Path(file).suffix.lower(), "application/octet-stream")


def _library(name: str, *, cdnjs: bool = False) -> Library | None:
    for lib in LIBRARIES:
        if (name in lib.cdnjs) if cdnjs else (name == lib.package):
            return lib
    return None


def _version_match(lib: Library, requested: str) -> str | None:
    """``served`` or ``substituted`` for a version asked of ``lib``, None for another major or a
    version we cannot read.

    ``""``, ``latest`` and ranges of the same major (``18``, ``^18.2``, ``18.x``) are served
    by the mirrored version; another version of the same major is substituted."""
    spec = requested.strip().lower()
    if spec in ("", "latest"):
        return "served"
    match = _VERSION.match(spec)
    if match is None or match["major"] != lib.major:
        return None
    if spec.startswith("^"):  # any version of this major: the mirrored one is among them
        return "served"
    mine = lib.version.split(".")
    given = [p for p in (match["minor"], match["patch"]) if p is not None and p not in ("x", "*")]
    exact = match["pre"] is None and all(p == m for p, m in zip(given, mine[1:], strict=False))
    return "served" if exact else "substituted"


def _safe_rest(rest: str) -> str | None:
    """The file path inside a package from the rest of a URL's path, or None if it could name
    anything outside it or anything odd (``..``, ``.``, empty segments, encoded separators)."""
    path = rest.strip("/")
    if not path:
        return ""
    segments = path.split("/")
    for segment in segments:
        if segment in ("", ".", "..") or not _SAFE_SEGMENT.match(segment) or segment.startswith(".."):
            return None
    return "/".join(segments)


def _file(lib: Library, rest: str, root: Path) -> tuple[str, str]:
    """(file relative to node_modules, reason it is not there)."""
    package_dir = (root / lib.package).resolve()
    candidates = [rest] if rest else [lib.default_file]
    if rest:
        # With or without ".min": react.production.js is served react.production.min.js.
        stem, dot, ext = rest.rpartition(".")
        if dot and stem.endswith(".min"):
            candidates.append(f"{stem[:-4]}.{ext}")
        elif dot:
            candidates.append(f"{stem}.min.{ext}")
    for candidate in candidates:
        if Path(candidate).suffix.lower() not in _TYPES:
            continue
        path = (package_dir / candidate).resolve()
        if path.is_relative_to(package_dir) and path.is_file():
            return path.relative_to(root.resolve()).as_posix(), ""
    if not package_dir.is_dir():
        return "", f"{lib.package} is not installed (npm ci --prefix evaluator)"
    return "", f"{lib.package} has no file {rest or lib.default_file!r}"


def _answer(url: str, lib: Library | None, name: str, requested: str, rest: str | None, root: Path) -> Resolution:
    if lib is None:
        named = f"{name}@{requested}" if requested else name
        return Resolution(url, "not mirrored", name, requested, reason=f"library {named} not mirrored")
    outcome = _version_match(lib, requested)
    if outcome is None:
        return Resolution(
            url,
            "not mirrored",
            lib.package,
            requested,
            reason=f"library {lib.package}@{requested} not mirrored (only {lib.version})",
        )
    if rest is None:
        return Resolution(url, "not mirrored", lib.package, requested, reason="the path names no file of the package")
    file, why = _file(lib, rest, root)
    if not file:
        return Resolution(url, "not mirrored", lib.package, requested, reason=why)
    return Resolution(url, outcome, lib.package, requested, lib.version, file)


def _refused(url: str, host: str) -> Resolution:
    return Resolution(url, "not mirrored", host, reason="an address the mirror does not read")


def resolve(url: str, root: Path) -> Resolution | None:
    """What the request for ``url`` comes to with the packages under ``root`` (node_modules):
    None when ``url`` is no library host's, else a :class:`Resolution`."""
    try:
        parts = urlsplit(url[:_MAX_URL])
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https"):
        return None
    if host in FONT_HOSTS:
        return Resolution(url, "not mirrored", "web font", reason="web fonts are not mirrored", font=True)
    if host not in LIBRARY_HOSTS:
        return None
    raw = parts.path
    # Hostile forms: encoded separators or dots, backslashes, control characters, overlong URLs.
    if len(url) > _MAX_URL or re.search(r"%(2f|5c|2e|00)", raw, re.IGNORECASE) or "\\" in raw:
        return _refused(url, host)
    path = unquote(raw)
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in path):
        return _refused(url, host)
    if host == "cdn.tailwindcss.com":
        return _play_cdn(url, path, parts.query, root)
    if host == "cdnjs.cloudflare.com":
        match = _CDNJS_PATH.match(path)
        if match is None:
            return _refused(url, host)
        lib = _library(match["name"], cdnjs=True)
        rest = _safe_rest(match["rest"] or "")
        if lib is not None and rest is not None and lib.cdnjs_root and rest:
            rest = f"{lib.cdnjs_root}/{rest}"
        return _answer(url, lib, match["name"], match["version"], rest, root)
    if host == "use.fontawesome.com":
        match = _FA_RELEASE.match(path)
        if match is None:
            return _refused(url, host)
        lib = _library("@fortawesome/fontawesome-free")
        return _answer(url, lib, "font-awesome", match["version"], _safe_rest(match["rest"] or ""), root)
    if host.endswith("bootstrapcdn.com"):
        match = _BOOTSTRAPCDN.match(path)
        if match is None:
            return _refused(url, host)
        lib = _library(match["name"], cdnjs=True)
        rest = _safe_rest(match["rest"] or "")
        if lib is not None and rest is not None and lib.cdnjs_root and rest:
            rest = f"{lib.cdnjs_root}/{rest}"
        return _answer(url, lib, match["name"], match["version"], rest, root)
    if host in ("unpkg.com",) or host.endswith("jsdelivr.net"):
        if host != "unpkg.com":
            if not path.startswith("/npm/"):
                return Resolution(url, "not mirrored", host, reason="only jsDelivr's /npm/ paths are mirrored")
            path = path[len("/npm") :]
        match = _NPM_PATH.match(path.lstrip("/"))
        if match is None:
            return _refused(url, host)
        name = match["name"]
        rest = _safe_rest(match["rest"] or "")
        if rest is not None and rest.endswith("+esm"):
            return Resolution(
                url, "not mirrored", name, match["version"] or "", reason="ES module builds (+esm) are not mirrored"
            )
        return _answer(url, _library(name), name, match["version"] or "", rest, root)
    return Resolution(url, "not mirrored", host, reason=f"libraries from {host} are not mirrored")


def _play_cdn(url: str, path: str, query: str, root: Path) -> Resolution:
    """``cdn.tailwindcss.com`` (v3's Play CDN), with an optional ``/3.4.1`` version and
    ``?plugins=forms,typography`` (each set the package keeps)."""
    lib = _library("tailwindcss-cdn")
    assert lib is not None
    requested = ""
    if path not in ("", "/"):
        match = _PLAY_CDN_VERSION.match(path)
        if match is None:
            return _refused(url, "cdn.tailwindcss.com")
        requested = match["version"]
    plugins = ""
    for item in query.split("&"):
        key, _, value = item.partition("=")
        if key == "plugins":
            plugins = unquote(value)
    names = [p.split("@")[0].strip() for p in plugins.split(",") if p.strip()]
    if any(n not in _PLAY_PLUGINS for n in names):
        return Resolution(
            url, "not mirrored", "tailwindcss", requested, reason=f"Play CDN plugins {plugins!r} not mirrored"
        )
    if not names:
        file = "tailwindcss.js"
    elif len(names) == 1:
        file = f"tailwindcss-with-{names[0]}.js"
    else:
        file = "tailwindcss-with-all-plugins.js"
    outcome = _version_match(lib, requested)
    if outcome is None:
        why = f"library tailwindcss@{requested} not mirrored (only {lib.version})"
        return Resolution(url, "not mirrored", "tailwindcss", requested, reason=why)
    found, why = _file(lib, f"{lib.version}/{file}", root)
    if not found:
        return Resolution(url, "not mirrored", "tailwindcss", requested, reason=why)
    return Resolution(url, outcome, "tailwindcss", requested, lib.version, found)
