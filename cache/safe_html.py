"""The one home of escaping dataset and user text into HTML: `esc` for any value and `md_html`
for a user's Markdown note. Pure (no Streamlit), so the casebook's HTML report in the cache layer
and the app's views (through `components.common.safe_text`) share it.

A rendered note loads nothing and links nowhere: raw HTML is off (every tag comes out as text),
and a link, an autolink, a reference definition or an image stays the text it was written as
(`[paper](https://…)`), so a reader can copy the address but no stored text becomes a live link
or a fetch. Single line breaks are kept (a note is typed as lines, not reflowed prose).
"""

from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

from cache.maths_spans import maths_html, maths_spans

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class _NoteMarkdown(MarkdownIt):
    """CommonMark with raw HTML off, tables and strikethrough, and no link or image: every
    address is refused, so the Markdown that would have made one stays literal text."""

    def validateLink(self, url: str) -> bool:
        return False


_MARKDOWN = _NoteMarkdown(
    "commonmark", {"html": False, "linkify": False, "typographer": False, "breaks": True}
)
_MARKDOWN.enable("table").enable("strikethrough")
# (`$` has no meaning here, so LaTeX stays literal text)


def esc(text: object) -> str:
    """HTML-escape any value (None becomes an empty string)."""
    if text is None:
        return ""
    return html.escape(str(text), quote=True)


def md_html(text: object, maths: bool = False) -> str:
    """A user's Markdown note as safe HTML on one line: formatting kept, every tag and entity
    escaped, no raw HTML, no image and no link (see the module's note).

    With `maths` ("Render maths"), each maths span (`cache.maths_spans`) is set aside before the
    Markdown is rendered, so Markdown never reads inside a formula, and comes back escaped and
    wrapped for the typesetter (a note holding the private-use placeholder characters is rendered
    without maths).

    Newlines come out as `&#10;` (the same text to a browser, a line break inside `<pre>`), so
    the HTML never holds a blank line: inside Streamlit's Markdown a blank line would end the
    raw-HTML block and hand the rest of, say, a code block back to its Markdown parser, which
    would draw images and auto-link URLs. Lone surrogates (which cannot be encoded) become U+FFFD
    on screen only; the stored note is untouched."""
    s = _LONE_SURROGATE.sub("\ufffd", "" if text is None else str(text))
    wrapped: list[str] = []
    if maths and _HOLD_OPEN not in s and _HOLD_CLOSE not in s:
        spans = maths_spans(s)
        parts, pos = [], 0
        for k, span in enumerate(spans):
            parts.append(s[pos : span.start] + f"{_HOLD_OPEN}{k}{_HOLD_CLOSE}")
            wrapped.append(maths_html(s, [span], span.start, span.end))
            pos = span.end
        s = "".join(parts) + s[pos:]
    rendered = _MARKDOWN.render(s)
    if wrapped:
        rendered = _HELD.sub(lambda m: wrapped[int(m.group(1))], rendered)
    return rendered.rstrip("\n").replace("\r", "&#13;").replace("\n", "&#10;")


# a maths span set aside while the Markdown is rendered: private-use characters around its number
_HOLD_OPEN, _HOLD_CLOSE = "\ue000", "\ue001"
_HELD = re.compile(f"{_HOLD_OPEN}(\\d+){_HOLD_CLOSE}")
