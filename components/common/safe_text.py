"""The one place that escapes dataset text before it reaches HTML.

Model text is untrusted: every piece rendered with `unsafe_allow_html` or inside plotly hover
labels passes through `esc`.
"""

from __future__ import annotations

import html
import re


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
    return esc(s).replace("\n", "<br>")


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
