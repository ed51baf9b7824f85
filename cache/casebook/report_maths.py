"""Typeset maths for the casebook's HTML report, offline: Streamlit's own KaTeX (read at run time
by `cache.katex_static`, never copied into the repository) embedded inline in the report, its
fonts as `data:` URIs, so a report that holds a formula still loads nothing but itself.

The module source goes into one inline `<script type="module">` with a few lines that typeset
each formula placeholder of the notes (`cache.maths_spans`); the report then carries a
Content-Security-Policy that allows that one script by its hash, inline styles and `data:`
fonts, and nothing else (no fetch, no other script, no form, no base). KaTeX runs with
`trust: false` (no `\\href`, `\\url`, `\\includegraphics`) and a formula that does not parse, or
uses what trust refuses, keeps its escaped source: it shows as written.

Embedding is refused (None: the notes' maths shows as written) when a part is missing or the
module text could end the script element early (`</script`, `<!--`, `<script`).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from cache.katex_static import (
    font_files,
    module_files,
    renamed_classes,
    streamlit_static,
    stylesheet_rules,
)
from cache.maths_spans import MATHS_CLASS

_EXPORT = re.compile(r"export\s*\{\s*([A-Za-z_$][\w$]*)\s+as\s+default\s*\}\s*;?")
_UNSAFE = re.compile(r"</script|<!--|<script", re.IGNORECASE)
FORMULA_MARK = f'class="{MATHS_CLASS}"'  # what `maths_html` writes around each formula

# KaTeX colours what trust refuses in errorColor: a span holding it is shown as written
_TYPESET = """
;((katex) => {
  const ERR = "#ca0b01";
  for (const el of document.querySelectorAll(".%(cls)s")) {
    const out = document.createElement("span");
    try {
      katex.render(el.dataset.tex || "", out, {
        displayMode: el.dataset.display === "1", throwOnError: true, trust: false,
        strict: "ignore", errorColor: ERR, maxSize: 50, maxExpand: 500, output: "htmlAndMathml",
      });
    } catch (err) {
      el.dataset.failed = "1";
      continue;
    }
    if (out.innerHTML.includes(ERR)) {
      el.dataset.failed = "1";
      continue;
    }
    el.replaceChildren(out);
  }
  document.body.dataset.maths = "typeset";
})(%(name)s);
"""


@dataclass(frozen=True)
class InlineKatex:
    """What a report with maths embeds: the inline module script, its CSP hash, the styles."""

    script: str
    script_hash: str  # 'sha256-…' for the policy's script-src
    style: str  # @font-face rules with data: URIs, KaTeX's rules, a failed formula's look


def _faces(static: Path) -> str:
    out = []
    for family, weight, style, rel in font_files(static):
        data = base64.b64encode((static / "media" / Path(rel).name).read_bytes()).decode("ascii")
        out.append(
            f"@font-face{{font-family:{family};font-weight:{weight};font-style:{style};"
            f'font-display:block;src:url(data:font/woff2;base64,{data}) format("woff2")}}'
        )
    return "".join(out)


@functools.cache
def inline_katex(static: Path | None = None) -> InlineKatex | None:
    """Streamlit's KaTeX made inline for a report, or None when any part is missing or unsafe."""
    folder = streamlit_static() if static is None else static
    modules = module_files(folder)
    if not modules:
        return None
    js = modules[-1].read_text(encoding="utf-8")
    exports = list(_EXPORT.finditer(js))
    if len(exports) != 1 or js.count("export{") + js.count("export {") != 1 or _UNSAFE.search(js):
        return None
    m = exports[0]
    script = js[: m.start()] + js[m.end() :] + _TYPESET % {"cls": MATHS_CLASS, "name": m.group(1)}
    rules = stylesheet_rules(folder, renamed_classes(js))
    if ".katex{" not in rules.replace(" ", "") or not font_files(folder):
        return None
    style = _faces(folder) + rules + f".{MATHS_CLASS}[data-failed]{{white-space:pre-wrap}}"
    if re.search(r"</style|<!--", style, re.IGNORECASE):
        return None
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return InlineKatex(script=script, script_hash=f"'sha256-{digest}'", style=style)


def content_policy(katex: InlineKatex) -> str:
    """The report's Content-Security-Policy when it embeds KaTeX: only that script, inline
    styles and data: fonts; nothing is fetched."""
    return (
        f"default-src 'none'; script-src {katex.script_hash}; style-src 'unsafe-inline'; "
        "font-src data:; base-uri 'none'; form-action 'none'"
    )


def maths_head(katex: InlineKatex) -> str:
    """The `<head>` part of a report that holds a formula: the policy, the styles, the script."""
    return (
        f'<meta http-equiv="Content-Security-Policy" content="{content_policy(katex)}">'
        f"<style>{katex.style}</style>"
        f'<script type="module">{katex.script}</script>'
    )
