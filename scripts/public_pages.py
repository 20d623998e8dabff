"""The benchmark's public pages: real pages of two public sites, as Debian ships them, made whole.

    .venv/bin/python scripts/public_pages.py /tmp/public-pages          # fetch, pick, write
    .venv/bin/python scripts/bench_evaluator.py --examples 0 --generated 0 --pages /tmp/public-pages

The sites are the Python documentation (docs.python.org: Sphinx pages with jQuery, underscore, the
search, sidebar, menu and copy-button scripts, a mobile menu and media queries) and The Debian
Administrator's Handbook (debian-handbook.info: long book chapters with tables, figures and code,
styled without scripts). Debian packages both (``python3.11-doc``, ``debian-handbook``, and the
``libjs-jquery`` and ``libjs-underscore`` the Python pages link to), so ``apt-get download`` fetches
them from the Debian mirror this machine reaches, as an ordinary user, with no root and nothing
installed. The pages are picked by a fixed rule (every k-th of a sorted list), and each is made
whole: the style sheets and scripts it loads from its own site are put into the page
(``<style>``, ``<script>``), as a browser would have them, since the evaluator and the plain script
both load a page without network. Images and fonts stay links, which neither loads. The package
versions and the pages' sources go to ``MANIFEST.json`` beside the pages; the benchmark prints
them with its figures.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

PACKAGES: tuple[str, ...] = ("python3.11-doc", "libjs-jquery", "libjs-underscore", "debian-handbook")


@dataclass(frozen=True)
class Site:
    """One site's pages inside the extracted packages: ``count`` of them, every k-th of the sorted
    ``pattern`` matches under ``root``."""

    name: str
    root: str
    pattern: str
    count: int


SITES: tuple[Site, ...] = (
    Site("docs.python.org", "usr/share/doc/python3.11/html", "**/*.html", 24),
    Site("debian-handbook.info", "usr/share/doc/debian-handbook/html/en-US", "*.html", 16),
)

# A page's own style sheets and scripts, by the attribute that names the file.
_LINK = re.compile(r"<link\b[^>]*>", re.IGNORECASE)
_SCRIPT = re.compile(r"<script\b([^>]*)\bsrc\s*=\s*([\"'])(.*?)\2([^>]*)>\s*</script\s*>", re.IGNORECASE | re.DOTALL)
_ATTRIBUTE = re.compile(r"([\w:-]+)\s*=\s*([\"'])(.*?)\2", re.DOTALL)


def _attributes(tag: str) -> dict[str, str]:
    return {name.lower(): html.unescape(value) for name, _, value in _ATTRIBUTE.findall(tag)}


def _local_file(page: Path, root: Path, ref: str) -> Path | None:
    """The file a relative reference of ``page`` names inside ``root``, or None (another site,
    an absolute URL, a file not there), symbolic links followed."""
    target = ref.split("?", 1)[0].split("#", 1)[0]
    if not target or re.match(r"^[a-z][a-z0-9+.-]*:|^//|^/", target, re.IGNORECASE):
        return None
    path = (page.parent / target).resolve()
    return path if path.is_relative_to(root.resolve()) and path.is_file() else None


def make_whole(page: Path, root: Path) -> str:
    """``page``'s markup with the style sheets and scripts it loads from ``root`` put inside it."""
    text = page.read_text(encoding="utf-8", errors="replace")

    def style(match: re.Match[str]) -> str:
        attributes = _attributes(match.group(0))
        if "stylesheet" not in attributes.get("rel", "").lower().split():
            return match.group(0)
        found = _local_file(page, root, attributes.get("href", ""))
        if found is None:
            return match.group(0)
        media = attributes.get("media")
        opening = f'<style media="{html.escape(media)}">' if media else "<style>"
        css = found.read_text(encoding="utf-8", errors="replace").replace("</style", "<\\/style")
        return f"{opening}\n{css}\n</style>"

    def script(match: re.Match[str]) -> str:
        found = _local_file(page, root, html.unescape(match.group(3)))
        if found is None:
            return match.group(0)
        code = found.read_text(encoding="utf-8", errors="replace").replace("</script", "<\\/script")
        return f"<script{match.group(1)}{match.group(4)}>\n{code}\n</script>"

    return _SCRIPT.sub(script, _LINK.sub(style, text))


def pick(site: Site, extracted: Path) -> list[Path]:
    """Every k-th page of the site's sorted list, ``site.count`` in all (all of them if fewer)."""
    pages = sorted((extracted / site.root).glob(site.pattern))
    if len(pages) < site.count:
        return pages
    step = len(pages) / site.count
    return [pages[int(i * step)] for i in range(site.count)]


def fetch(packages: tuple[str, ...], into: Path) -> dict[str, str]:
    """Download ``packages`` from the Debian mirror and unpack them under ``into``; their versions."""
    downloads = into / "debs"
    downloads.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", *packages], cwd=downloads, check=True)
    versions: dict[str, str] = {}
    for deb in sorted(downloads.glob("*.deb")):
        fields = subprocess.run(
            ["dpkg-deb", "--show", "--showformat=${Package} ${Version}", str(deb)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        versions[fields[0]] = fields[1]
        subprocess.run(["dpkg-deb", "-x", str(deb), str(into / "root")], check=True)
    return versions


def write_pages(extracted: Path, out: Path, versions: dict[str, str]) -> list[dict[str, object]]:
    out.mkdir(parents=True, exist_ok=True)
    written: list[dict[str, object]] = []
    for site in SITES:
        root = extracted / site.root
        for number, page in enumerate(pick(site, extracted)):
            whole = make_whole(page, extracted)
            name = f"{site.name}-{number:02d}-{page.stem}.html"
            (out / name).write_text(whole, encoding="utf-8")
            written.append(
                {"file": name, "site": site.name, "source": str(page.relative_to(root)), "bytes": len(whole.encode())}
            )
    manifest = {"packages": versions, "pages": written}
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder to write the pages and MANIFEST.json into")
    args = parser.parse_args(argv)
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        print("public_pages.py needs apt-get and dpkg-deb (a Debian or Ubuntu machine)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="public-pages-") as work:
        try:
            versions = fetch(PACKAGES, Path(work))
        except subprocess.CalledProcessError as err:
            print(f"could not fetch {', '.join(PACKAGES)} from the Debian mirror: {err}", file=sys.stderr)
            return 1
        written = write_pages(Path(work) / "root", args.out, versions)
    sizes = sorted(int(str(p["bytes"])) // 1024 for p in written)
    print(
        f"{len(written)} pages in {args.out} ({sizes[0]}-{sizes[-1]} KB, median {sizes[len(sizes) // 2]} KB), "
        f"from {', '.join(f'{name} {version}' for name, version in versions.items())}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
