"""Finding Streamlit's KaTeX at run time: the rules taken from its stylesheet, the fonts from
its file names, and "unavailable" when any part is missing."""

from __future__ import annotations

from pathlib import Path

from components.common.maths import (
    STATIC,
    font_faces,
    katex_assets,
    katex_rules,
    renamed_classes,
)


def test_katex_rules_keeps_only_katex_selectors() -> None:
    css = (
        "body{margin:0}.katex{font:1.2em KaTeX_Main}@font-face{font-family:KaTeX_Main;src:url(x)}"
        ".katex .mfrac{a:b}@media (min-width:1px){.katex{c:d}}.other .katex-ish{e:f}"
    )
    assert (
        katex_rules(css) == ".katex{font:1.2em KaTeX_Main}.katex .mfrac{a:b}.other .katex-ish{e:f}"
    )


def test_font_faces_from_file_names() -> None:
    faces = font_faces(
        ["KaTeX_Main-BoldItalic.abc.woff2", "KaTeX_Math-Italic.x-y.woff2", "README.txt"]
    )
    assert faces == (
        ("KaTeX_Main", "700", "italic", "static/media/KaTeX_Main-BoldItalic.abc.woff2"),
        ("KaTeX_Math", "400", "italic", "static/media/KaTeX_Math-Italic.x-y.woff2"),
    )


def test_the_installed_streamlit_ships_all_of_it() -> None:
    assets = katex_assets()
    assert assets is not None
    assert (STATIC / assets.js).exists() is False  # a path from the app's root, not the folder
    assert (STATIC.parent / assets.js).exists()
    assert ".katex{" in assets.css and len(assets.fonts) >= 10
    assert all((STATIC.parent / f[3]).exists() for f in assets.fonts)


def test_missing_parts_make_it_unavailable(tmp_path: Path) -> None:
    find = katex_assets.__wrapped__  # uncached: the folder changes between the calls
    assert find(tmp_path) is None
    (tmp_path / "js").mkdir()
    (tmp_path / "js" / "katex.abc.js").write_text("export default {}")
    assert find(tmp_path) is None  # no rules, no fonts
    (tmp_path / "css").mkdir()
    (tmp_path / "css" / "index.css").write_text(".katex{a:b}")
    assert find(tmp_path) is None  # no fonts
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "KaTeX_Main-Regular.x.woff2").write_bytes(b"")
    assets = find(tmp_path)
    assert assets is not None and assets.js == "static/js/katex.abc.js"


def test_classes_the_module_prefixes_get_the_prefixed_selector_too() -> None:
    js = "W([`katex-strut`],x);W([`katex-stretchy`,t]);W([`katex-html`]);`base`"
    renamed = renamed_classes(js)
    assert renamed == {"strut", "stretchy"}
    css = ".katex .strut{a:b}.katex .stretchy:after,.katex .mfrac{c:d}.katex .struts{e:f}"
    assert katex_rules(css, renamed) == (
        ".katex .strut,.katex .katex-strut{a:b}"
        ".katex .stretchy:after,.katex .mfrac,.katex .katex-stretchy:after{c:d}"
        ".katex .struts{e:f}"
    )


def test_the_installed_pair_styles_the_boxed_frame() -> None:
    assets = katex_assets()
    assert assets is not None
    # the module writes `katex-stretchy` (Streamlit 1.67): its rule must name that class
    if "`katex-stretchy`" in (STATIC.parent / assets.js).read_text(encoding="utf-8"):
        assert ".katex .katex-stretchy{" in assets.css
