"""The one place that escapes dataset text before it reaches HTML.

Model text is untrusted: every piece rendered with `unsafe_allow_html` or inside plotly hover
labels passes through `esc`.
"""

from __future__ import annotations

import html


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
