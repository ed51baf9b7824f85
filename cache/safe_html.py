"""The one home of escaping dataset and user text into HTML: `esc` for any value and `md_html`
for a user's Markdown note. Pure (no Streamlit), so the casebook's HTML report in the cache layer
and the app's views (through `components.common.safe_text`) share it.

A rendered note loads nothing: raw HTML is off (every tag comes out as text), an image becomes a
plain link to it (`[image: alt — url]`, fetched only if the reader clicks), and a link is live
only when it is an absolute http(s) URL with a host or a `mailto:` address; anything else
(javascript:, data:, vbscript:, file:, relative and protocol-relative `//host` paths) stays
literal text. Live links open in a new tab with `rel="noopener noreferrer nofollow"`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import mdurl
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from cache.maths_spans import maths_html, maths_spans

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# markdown-it hands the validator a normalised URL (entities decoded, whitespace, controls and
# backslashes percent-encoded), so a scheme must open it verbatim
_LIVE_URL = re.compile(r"^(?:https?://[^/\\%\s]|mailto:[^/\s])", re.IGNORECASE)
LINK_REL = "noopener noreferrer nofollow"


def live_url(url: str) -> bool:
    """Whether a (normalised) note URL may be a live link: http(s) with a host, or mailto."""
    return bool(_LIVE_URL.match(url))


class _NoteMarkdown(MarkdownIt):
    """CommonMark with raw HTML off, tables and strikethrough; links limited by `live_url`."""

    def validateLink(self, url: str) -> bool:
        return live_url(url)


def _text_of(children: Sequence[Token] | None) -> str:
    out: list[str] = []
    for t in children or ():
        if t.type in ("text", "code_inline"):
            out.append(t.content)
        elif t.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif t.children:
            out.append(_text_of(t.children))
    return "".join(out)


def _link_open(href: str) -> Token:
    tok = Token("link_open", "a", 1)
    tok.attrs = {"href": href, "rel": LINK_REL, "target": "_blank"}
    return tok


def _safe_inline(tokens: list[Token]) -> list[Token]:
    """Images replaced by a link to them; every link opens in a new tab without referrer."""
    out: list[Token] = []
    for tok in tokens:
        if tok.type == "image":
            src = str(tok.attrGet("src") or "")
            alt = _text_of(tok.children) or "image"
            label = Token("text", "", 0)
            label.content = f"[image: {alt} — {src}]" if src else f"[image: {alt}]"
            if src:
                out += [_link_open(src), label, Token("link_close", "a", -1)]
            else:
                out.append(label)
            continue
        if tok.type == "link_open":
            tok.attrs = {**tok.attrs, "rel": LINK_REL, "target": "_blank"}
        out.append(tok)
    return out


def _safe_links(state: StateCore) -> None:
    for tok in state.tokens:
        if tok.type == "inline" and tok.children:
            tok.children = _safe_inline(tok.children)


_MARKDOWN = _NoteMarkdown("commonmark", {"html": False, "linkify": False, "typographer": False})
_MARKDOWN.enable("table").enable("strikethrough")
# (`$` has no meaning here, so LaTeX stays literal text)
_MARKDOWN.core.ruler.push("rte_safe_links", _safe_links)


def esc(text: object) -> str:
    """HTML-escape any value (None becomes an empty string)."""
    if text is None:
        return ""
    return html.escape(str(text), quote=True)


def md_html(text: object, maths: bool = False) -> str:
    """A user's Markdown note as safe HTML on one line: formatting kept, every tag and entity
    escaped, no raw HTML, no image and no link but http(s)/mailto (see the module's note).

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
    sources: list[str] = []
    if maths and _HOLD_OPEN not in s and _HOLD_CLOSE not in s:
        spans = maths_spans(s)
        parts, pos = [], 0
        for k, span in enumerate(spans):
            parts.append(s[pos : span.start] + f"{_HOLD_OPEN}{k}{_HOLD_CLOSE}")
            wrapped.append(maths_html(s, [span], span.start, span.end))
            sources.append(s[span.start : span.end])
            pos = span.end
        s = "".join(parts) + s[pos:]
    rendered = _MARKDOWN.render(s)
    if wrapped:
        rendered = _HELD.sub(lambda m: wrapped[int(m.group(1))], rendered)
        # a span inside a link's address comes back percent-encoded: restore its source there
        rendered = _HELD_URL.sub(lambda m: esc(mdurl.encode(sources[int(m.group(1))])), rendered)
    return rendered.rstrip("\n").replace("\r", "&#13;").replace("\n", "&#10;")


# a maths span set aside while the Markdown is rendered: private-use characters around its number
_HOLD_OPEN, _HOLD_CLOSE = "\ue000", "\ue001"
_HELD = re.compile(f"{_HOLD_OPEN}(\\d+){_HOLD_CLOSE}")
_HELD_URL = re.compile(
    f"{re.escape(mdurl.encode(_HOLD_OPEN))}(\\d+){re.escape(mdurl.encode(_HOLD_CLOSE))}"
)
