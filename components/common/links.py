"""Links have one home: in-page links (same view, one key changed) and cross-page links.

Both return a URL string, not HTML: the caller escapes it for its attribute (`esc`). Cross-page
links are checked against the target view's URL-key registry (`url_keys.REGISTRY`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from components.common.url_keys import keys_of


@dataclass(frozen=True)
class View:
    """A page of the app: its script, its URL path, its title and icon in the navigation."""

    script: str
    url_path: str
    title: str
    icon: str


VIEWS: dict[str, View] = {
    "home": View("pages/home.py", "home", "Home", ":material/home:"),
    "parason": View("pages/parason.py", "parason", "Parason DAGs", ":material/account_tree:"),
    "mars": View("pages/mars.py", "mars", "MARS pools", ":material/show_chart:"),
    "playground": View(
        "pages/playground.py", "playground", "Stopping playground", ":material/tune:"
    ),
    "fineproofs": View(
        "pages/fineproofs.py", "fineproofs", "FineProofs values", ":material/grid_on:"
    ),
    "casebook": View("pages/casebook.py", "casebook", "Casebook", ":material/bookmarks:"),
}


def _pairs(params: Mapping[str, object] | Iterable[tuple[str, object]]) -> list[tuple[str, str]]:
    items = params.items() if isinstance(params, Mapping) else params
    return [(str(k), str(v)) for k, v in items if v is not None]


def query_href(
    params: Mapping[str, str] | Iterable[tuple[str, str]], key: str, value: object
) -> str:
    """`?<params with key=value>` for a plain in-page link (repeated keys kept, URL-encoded)."""
    pairs = [(k, v) for k, v in _pairs(params) if k != key]
    pairs.append((key, str(value)))
    return "?" + urlencode(pairs)


def view_params(view: str, **params: object) -> dict[str, str]:
    """The query parameters of a link to `view` (None values dropped), checked against the
    view's registry: a key the target does not read is a programming error."""
    unknown = set(params) - keys_of(view)
    if unknown:
        raise KeyError(f"{view} reads no URL key {sorted(unknown)}")
    return {k: str(v) for k, v in params.items() if v is not None}


def view_href(view: str, **params: object) -> str:
    """A relative link to another view (`mars?file=…&qid=3`), for link columns and anchors."""
    query = urlencode(view_params(view, **params), safe="/")
    return f"{VIEWS[view].url_path}?{query}" if query else VIEWS[view].url_path
