"""The one place that escapes dataset text before it reaches HTML.

Model text is untrusted: every piece rendered with `unsafe_allow_html` or inside plotly hover
labels passes through `esc`.
"""

from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

# CommonMark with raw HTML switched off: `<script>` and every other tag come out as text, and
# markdown-it's own link check drops javascript:/vbscript:/data: URLs. `$` has no meaning here,
# so LaTeX stays literal text.
_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
_MARKDOWN.enable("table").enable("strikethrough")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def esc(text: object) -> str:
    """HTML-escape any value (None becomes an empty string)."""
    if text is None:
        return ""
    return html.escape(str(text), quote=True)


def esc_hover(text: object, limit: int = 300) -> str:
    """Escape for a plotly hover label: shortened, newlines as <br>, no raw markup."""
    s = "" if text is None else str(text)
    if len(s) > limit:
        s = s[:limit] + "…"
    return plotly_text(esc(s)).replace("\n", "<br>")


def plotly_text(escaped: str) -> str:
    """Escaped text as plotly shows it: plotly decodes numeric entities and only a few named
    ones, so `&quot;` would read literally; quotes become `&#34;`, which it decodes."""
    return escaped.replace("&quot;", "&#34;")


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!$<>|~&])")


def md_text(text: object, limit: int = 200) -> str:
    """Dataset text inside Streamlit markdown (st.markdown, st.error, st.metric, captions): every
    markdown, maths and HTML character backslash-escaped, newlines folded, length bounded, so a
    value can never become a link, an image, LaTeX or markup."""
    s = "" if text is None else str(text)
    s = s if len(s) <= limit else s[:limit] + "…"
    return _MD_SPECIAL.sub(r"\\\1", s.replace("\r", " ").replace("\n", " "))


def md_label(text: object) -> str:
    """A JSON key or column name as a plain markdown label (letters, digits, simple punctuation)."""
    s = re.sub(r"[^\w\s.,:/()%+-]", " ", str(text)).replace("_", " ").strip()
    return s[:80] or "(key)"


def md_html(text: object) -> str:
    """A user's Markdown note as safe HTML: formatting kept, every tag and entity escaped, no raw
    HTML, no script URLs. Lone surrogates (which cannot be encoded) become U+FFFD on screen only;
    the stored note is untouched."""
    s = "" if text is None else str(text)
    return _MARKDOWN.render(_LONE_SURROGATE.sub("\ufffd", s))
