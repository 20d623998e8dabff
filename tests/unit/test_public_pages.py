"""The benchmark's public pages (scripts/public_pages.py): each page is made whole from its own
site's files, nothing from elsewhere, and the pick is a fixed rule. Fetching from the Debian mirror
is left to the script's users (tests reach no network)."""

from __future__ import annotations

from pathlib import Path

from scripts_support import load_script


def _site(root: Path) -> Path:
    site = root / "usr/share/doc/site/html"
    (site / "_static").mkdir(parents=True)
    (root / "usr/share/javascript/lib").mkdir(parents=True)
    (root / "usr/share/javascript/lib/lib.js").write_text("var lib = '</script>';", encoding="utf-8")
    (site / "_static/lib.js").symlink_to("../../../../javascript/lib/lib.js")
    (site / "_static/theme.css").write_text("body { color: #222 }", encoding="utf-8")
    (site / "_static/print.css").write_text("nav { display: none }", encoding="utf-8")
    (site / "guide").mkdir()
    return site


def test_a_page_gets_its_own_sheets_and_scripts_and_keeps_other_links(tmp_path: Path) -> None:
    public = load_script("public_pages")
    site = _site(tmp_path)
    page = site / "guide/intro.html"
    page.write_text(
        "<!doctype html><html><head>"
        '<link rel="stylesheet" href="../_static/theme.css?v=2">'
        '<link rel="stylesheet" media="print" href="../_static/print.css">'
        '<link rel="stylesheet" href="https://cdn.example.invalid/x.css">'
        '<link rel="stylesheet" href="../_static/missing.css">'
        '<link rel="icon" href="../_static/theme.css">'
        '<script data-x="1" src="../_static/lib.js"></script>'
        '<script src="../../../../../../../etc/passwd"></script>'
        "</head><body><p>Hi</p></body></html>",
        encoding="utf-8",
    )
    whole = public.make_whole(page, tmp_path)
    assert "<style>\nbody { color: #222 }\n</style>" in whole
    assert '<style media="print">\nnav { display: none }\n</style>' in whole
    assert 'href="https://cdn.example.invalid/x.css"' in whole  # another site: left as a link
    assert 'href="../_static/missing.css"' in whole
    assert '<link rel="icon" href="../_static/theme.css">' in whole  # not a style sheet
    # The script behind the symbolic link, its closing tag kept from ending the element early.
    assert "<script data-x=\"1\" >\nvar lib = '<\\/script>';\n</script>" in whole
    assert 'src="../../../../../../../etc/passwd"' in whole  # outside the packages: never read


def test_the_pick_is_every_kth_page_in_sorted_order(tmp_path: Path) -> None:
    public = load_script("public_pages")
    site = _site(tmp_path)
    for name in "abcdefghij":
        (site / f"{name}.html").write_text("<p>x</p>", encoding="utf-8")
    chosen = public.pick(public.Site("site", "usr/share/doc/site/html", "*.html", 4), tmp_path)
    assert [p.name for p in chosen] == ["a.html", "c.html", "f.html", "h.html"]
    everything = public.pick(public.Site("site", "usr/share/doc/site/html", "*.html", 40), tmp_path)
    assert len(everything) == 10
