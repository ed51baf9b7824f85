"""The one home of escaping dataset and user text into HTML: `esc` for any value and `md_html`
for a user's Markdown note. Pure (no Streamlit), so the casebook's HTML report in the cache layer
and the app's views (through `components.common.safe_text`) share it.
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


def md_html(text: object) -> str:
    """A user's Markdown note as safe HTML: formatting kept, every tag and entity escaped, no raw
    HTML, no script URLs. Lone surrogates (which cannot be encoded) become U+FFFD on screen only;
    the stored note is untouched."""
    s = "" if text is None else str(text)
    return _MARKDOWN.render(_LONE_SURROGATE.sub("\ufffd", s))
