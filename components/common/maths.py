"""The "Render maths" switch and the browser side that typesets the maths in a reasoning text.

One sidebar toggle (URL key `maths`, read by every view) decides whether a view wraps the maths
spans of its text (`cache.maths_spans`) for typesetting. The typesetting is KaTeX as Streamlit
itself ships it (no CDN): its ES module `static/js/katex.<hash>.js`, its rules in
`static/css/*.css` and its fonts in `static/media/KaTeX_*.woff2`, found by glob at run time since
the hash changes with each release (`cache.katex_static`, shared with the casebook's HTML
report). When any part is missing, the switch says so and is off.

KaTeX runs with `trust: false` (no `\\href`, `\\url`, `\\includegraphics`: nothing is fetched),
and a formula that does not parse, or uses a command that trust refuses, keeps its escaped source:
it shows as written, never as a red error.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from cache.katex_static import font_faces as font_faces  # re-exported for the tests' imports
from cache.katex_static import font_files, module_files, renamed_classes, stylesheet_rules
from cache.katex_static import katex_rules as katex_rules
from cache.maths_spans import MathSpan, maths_html, maths_spans
from cache.safe_html import esc
from components.common.light_control import light_switch
from components.common.url_state import Param, parse_bool, selector_key, url_switch

MATHS_KEY = "maths"
MATHS = Param(MATHS_KEY, False, parse=parse_bool)
STATIC = Path(st.__file__).parent / "static" / "static"


@dataclass(frozen=True)
class KatexAssets:
    """What the browser needs: the module's and fonts' paths relative to the app's root, and the
    KaTeX rules (added to a component's own stylesheet: a component draws in a shadow root,
    where the page's rules do not reach)."""

    js: str
    css: str
    fonts: tuple[tuple[str, str, str, str], ...]  # (family, weight, style, path)


@functools.cache
def katex_assets(static: Path = STATIC) -> KatexAssets | None:
    """Streamlit's own KaTeX, or None when this Streamlit does not ship all of it."""
    modules = module_files(static)
    renamed = renamed_classes(modules[-1].read_text(encoding="utf-8")) if modules else frozenset()
    rules = stylesheet_rules(static, renamed)
    fonts = font_files(static)
    if not modules or ".katex{" not in rules.replace(" ", "") or not fonts:
        return None
    return KatexAssets(js=f"static/js/{modules[-1].name}", css=rules, fonts=fonts)


def maths_on() -> bool:
    """Whether the reader asked for rendered maths (the sidebar switch, else the URL)."""
    if katex_assets() is None:
        return False
    key = selector_key(MATHS)
    return bool(st.session_state[key]) if key in st.session_state else bool(MATHS.read())


def maths_toggle() -> None:
    """The sidebar switch (app.py draws it once per run, so every view and deep link shares it),
    a light switch bound to the URL (`maths=true`)."""
    with st.sidebar:
        if katex_assets() is None:
            light_switch(
                "Render maths",
                False,
                key="maths_unavailable",
                on_change=lambda _on: None,
                disabled=True,
            )
            st.caption(
                "Maths rendering is unavailable (this Streamlit ships no KaTeX): text is shown as written."
            )
            return
        if MATHS_KEY not in st.query_params and st.session_state.get(selector_key(MATHS)):
            # a page switch drops the URL's keys: the reader's choice holds for the session
            st.query_params[MATHS_KEY] = "true"
        url_switch(
            "Render maths",
            MATHS,
            help="Typeset $…$, \\(…\\), \\[…\\] and \\boxed{} in reasoning texts (KaTeX). "
            "The rest of the text stays as written; a formula that does not parse too.",
        )


def katex_payload() -> dict[str, object] | None:
    """What a text component needs to typeset (None when maths is off)."""
    assets = katex_assets()
    if assets is None or not maths_on():
        return None
    return {"js": assets.js, "fonts": [list(f) for f in assets.fonts]}


def component_css() -> str:
    """KaTeX's rules for a component's stylesheet (empty without KaTeX), and a failed formula's
    look: its source, as written."""
    assets = katex_assets()
    return (assets.css if assets else "") + ".rte-maths[data-failed]{white-space:pre-wrap}"


# The browser side, shared by the text components: load the module once per page, declare the
# fonts once in the page (a shadow root cannot declare fonts), typeset each placeholder.
TYPESET_JS = """
const RTE_ERR = "#ca0b01";  // KaTeX colours what trust refuses in errorColor: we spot it
function rteKatex(katex) {
  if (!window.__rteKatex) {
    const base = document.baseURI;
    if (!document.getElementById("rte-katex-fonts")) {
      const style = document.createElement("style");
      style.id = "rte-katex-fonts";
      style.textContent = (katex.fonts || []).map(([family, weight, style_, path]) =>
        `@font-face{font-family:${family};font-weight:${weight};font-style:${style_};` +
        `font-display:block;src:url(${new URL(path, base).href}) format("woff2")}`).join("");
      document.head.appendChild(style);
    }
    window.__rteKatex = import(new URL(katex.js, base).href).then((m) => m.default);
  }
  return window.__rteKatex;
}
async function typeset(root, katex) {
  const spans = Array.from(root.querySelectorAll(".rte-maths:not([data-typeset])"));
  if (!katex || !spans.length) return;
  let lib;
  try {
    lib = await rteKatex(katex);
  } catch (err) {
    root.dataset.mathsUnavailable = "1";
    return;
  }
  for (const el of spans) {
    el.dataset.typeset = "1";
    const out = document.createElement("span");
    try {
      lib.render(el.dataset.tex || "", out, {
        displayMode: el.dataset.display === "1", throwOnError: true, trust: false,
        strict: "ignore", errorColor: RTE_ERR, maxSize: 50, maxExpand: 500, output: "htmlAndMathml",
      });
    } catch (err) {
      el.dataset.failed = "1";
      continue;
    }
    if (out.innerHTML.includes(RTE_ERR)) {
      el.dataset.failed = "1";
      continue;
    }
    el.replaceChildren(out);
  }
}
"""


def maybe_maths(text: object, bare_tex: bool = False) -> str:
    """Dataset text escaped, its maths wrapped for typesetting when the switch is on. With
    `bare_tex` (a ground truth such as `\\frac{3}{5}`), a text with no delimited maths but a
    backslash, `^` or `_` is taken as one formula (shown as written if it does not parse)."""
    s = "" if text is None else str(text)
    if not maths_on():
        return esc(s)
    spans = maths_spans(s)
    if not spans and bare_tex and s.strip() and any(c in s for c in "\\^_"):
        spans = [MathSpan(0, len(s), s, False)]
    return maths_html(s, spans)
