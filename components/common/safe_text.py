"""The one place that escapes dataset text before it reaches HTML.

Model text is untrusted: every piece rendered with `unsafe_allow_html` or inside plotly hover
labels passes through `esc`.
"""

from __future__ import annotations

import re

# `esc` and `md_html` have their one home in the cache layer (the HTML report uses them too)
from cache.safe_html import esc as esc
from cache.safe_html import md_html as md_html


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
# Streamlit's Markdown (remark-gfm) auto-links bare `scheme://…`, `www.x…` and `a@b.c` in text,
# backslash escapes or not (it matches the text after unescaping). A word joiner (U+2060, zero
# width, invisible) inside each pattern stops that and leaves the text the reader sees unchanged.
WORD_JOINER = "\u2060"
_AUTOLINK_TRIGGERS = re.compile(
    r"(?<=:)(?=//)"  # scheme://
    r"|(?i:(?<=www))(?=\\?\.)"  # www.
    r"|(?<=@)(?=[\w\\-]+\\?\.)"  # user@domain.tld
)


def no_autolink(markdown: str) -> str:
    """Markdown text that Streamlit's front end will not turn into a link (see WORD_JOINER)."""
    return _AUTOLINK_TRIGGERS.sub(WORD_JOINER, markdown)


def line_text(text: object, limit: int = 200) -> str:
    """Dataset text on one line, length bounded: for places that set it as text in the browser
    (light tables, stat rows), where nothing is escaped because nothing is interpreted."""
    s = "" if text is None else str(text)
    s = s if len(s) <= limit else s[:limit] + "…"
    return s.replace("\r", " ").replace("\n", " ")


def md_text(text: object, limit: int = 200) -> str:
    """Dataset text inside Streamlit markdown (st.markdown, st.error, st.metric, captions): every
    markdown, maths and HTML character backslash-escaped, newlines folded, length bounded, and
    bare URLs, `www.` names and e-mail addresses broken by an invisible word joiner, so a value
    can never become a link, an image, LaTeX or markup."""
    return no_autolink(_MD_SPECIAL.sub(r"\\\1", line_text(text, limit)))


def md_label(text: object) -> str:
    """A JSON key or column name as a plain markdown label (letters, digits, simple punctuation)."""
    s = re.sub(r"[^\w\s.,:/()%+-]", " ", str(text)).replace("_", " ").strip()
    return no_autolink(s[:80]) or "(key)"
