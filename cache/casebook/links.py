"""Links to a case's view, built only from the explorer's own list of views and URL-encoded keys.

A stored or imported case holds text someone else wrote: its `view` and query pairs are never
pasted into a link. `case_path` accepts a view only when it is one of `case_views()` (the
datasets' views, `cache.datasets`), keeps only query keys that look like ours, and URL-encodes every value; a
case whose view is not ours gets no link at all (its view is shown as plain text).
`RTE_PUBLIC_URL` (the team server's address, http or https) makes links absolute so a copied link
or an exported report works outside the app.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from urllib.parse import urlencode, urlsplit

from cache.datasets import view_names

PUBLIC_URL_ENV = "RTE_PUBLIC_URL"
# keys of a running presentation or triage queue are not part of a captured view state
_NOT_VIEW_STATE = frozenset({"present", "step", "triage", "tpos", "focus"})
_KEY_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")


def case_views() -> tuple[str, ...]:
    """The views a case can be captured in (their URL paths in the app's navigation)."""
    return view_names()


def is_case_view(view: object) -> bool:
    return isinstance(view, str) and view in case_views()


def view_pairs(query: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The query pairs a link may carry: our key shape only, presentation keys dropped."""
    return [
        (k, v)
        for k, v in query
        if isinstance(k, str)
        and isinstance(v, str)
        and _KEY_RE.match(k)
        and k not in _NOT_VIEW_STATE
    ]


def case_path(view: str, query: Iterable[tuple[str, str]]) -> str | None:
    """`mars?file=...&qid=3` (relative to the app's root), or None when `view` is not ours."""
    if not is_case_view(view):
        return None
    q = urlencode(view_pairs(query))
    return f"{view}?{q}" if q else view


def public_base(environ: dict[str, str] | None = None) -> str:
    """`RTE_PUBLIC_URL` without its trailing slash when it is an http(s) URL with a host, else ""."""
    raw = (os.environ if environ is None else environ).get(PUBLIC_URL_ENV, "").strip()
    if not raw:
        return ""
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        return ""
    return raw.rstrip("/")


def absolute(path: str | None, base: str | None = None) -> str | None:
    """`path` under `base` (default `public_base()`); the relative path when there is no base."""
    if path is None:
        return None
    b = public_base() if base is None else base.rstrip("/")
    return f"{b}/{path}" if b else path
