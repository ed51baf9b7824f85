"""Streamlit's own KaTeX, read from its installed static files: the one place that knows their
layout, shared by the app's "Render maths" switch (`components.common.maths`) and the casebook's
offline HTML report (`cache.casebook.report_maths`). Pure (Streamlit is located, not imported).

Streamlit 1.67 ships KaTeX as an ES module `static/js/katex.<hash>.js`, its rules inside
`static/css/*.css` and its fonts as `static/media/KaTeX_*.woff2`; the hashes change with each
release, so the files are found by glob at run time. It pairs KaTeX 0.18's module with 0.16's
stylesheet, and 0.18 writes some classes with a `katex-` prefix (`katex-strut`,
`katex-stretchy`): each rule naming one of them is given the prefixed selector too (without it a
`\\boxed{}` frame collapses to one side).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

_FONT = re.compile(r"KaTeX_([A-Za-z0-9]+)-(Regular|Bold|Italic|BoldItalic)\.[\w-]+\.woff2$")


def streamlit_static() -> Path:
    """Streamlit's installed `static/static` folder (may not exist)."""
    spec = importlib.util.find_spec("streamlit")
    origin = spec.origin if spec is not None and spec.origin else ""
    return Path(origin).parent / "static" / "static"


def katex_rules(css: str, renamed: frozenset[str] = frozenset()) -> str:
    """The top-level rules of a (minified) stylesheet whose selector names `.katex`; a selector
    naming a class in `renamed` (`strut`) also gets its `katex-` form (`.katex-strut`)."""
    out: list[str] = []
    depth = 0
    start = 0
    for i, c in enumerate(css):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                rule = css[start : i + 1].strip()
                start = i + 1
                head, body = rule.split("{", 1)
                if ".katex" in head and not head.lstrip().startswith("@"):
                    out.append(_with_aliases(head, renamed) + "{" + body)
    return "".join(out)


def _with_aliases(head: str, renamed: frozenset[str]) -> str:
    if not renamed:
        return head
    token = re.compile(r"(?<![\w-])\.(" + "|".join(map(re.escape, sorted(renamed))) + r")(?![\w-])")
    selectors = head.split(",")
    aliases = [token.sub(r".katex-\1", sel) for sel in selectors]
    return ",".join(selectors + [a for a, sel in zip(aliases, selectors, strict=True) if a != sel])


def renamed_classes(js: str) -> frozenset[str]:
    """The classes a KaTeX module writes with a `katex-` prefix (`katex-strut`): Streamlit 1.67
    ships KaTeX 0.18's module with 0.16's stylesheet, which names them without it."""
    names = set(re.findall(r"[`\"']katex-([a-z][a-z0-9-]*)[`\"']", js))
    return frozenset(names - {"display", "html", "mathml", "error", "version"})


def font_faces(names: list[str]) -> tuple[tuple[str, str, str, str], ...]:
    """(family, weight, style, path) of each KaTeX font file name."""
    faces = []
    for name in sorted(names):
        m = _FONT.search(name)
        if m:
            family, kind = m.groups()
            weight = "700" if kind.startswith("Bold") else "400"
            style = "italic" if kind.endswith("Italic") else "normal"
            faces.append((f"KaTeX_{family}", weight, style, f"static/media/{name}"))
    return tuple(faces)


def module_files(static: Path) -> list[Path]:
    """The KaTeX module files (sorted; the last is used)."""
    return sorted(static.glob("js/katex.*.js"))


def stylesheet_rules(static: Path, renamed: frozenset[str]) -> str:
    """KaTeX's rules from every stylesheet of the folder."""
    return "".join(
        katex_rules(p.read_text(encoding="utf-8"), renamed) for p in static.glob("css/*.css")
    )


def font_files(static: Path) -> tuple[tuple[str, str, str, str], ...]:
    """(family, weight, style, path from the app's root) of every KaTeX font file."""
    return font_faces([p.name for p in static.glob("media/KaTeX_*.woff2")])
