"""Links have one home: in-page links (same view, one key changed) and cross-page links.

Both return a URL string, not HTML: the caller escapes it for its attribute (`esc`). Cross-page
links are checked against the target view's URL-key registry (`url_keys.REGISTRY`). The list of
views is the home page, each dataset's views as `cache.datasets` declares them (script
`pages/<view>.py`), the search and the lenses across them, and the casebook.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from cache.datasets import ViewInfo
from cache.datasets import views as dataset_views
from components.common.url_keys import keys_of


@dataclass(frozen=True)
class View:
    """A page of the app: its script, its URL path, its title and icon in the navigation."""

    script: str
    url_path: str
    title: str
    icon: str


HOME = View("pages/home.py", "home", "Home", ":material/home:")
SEARCH = View("pages/search.py", "search", "Search", ":material/search:")
LENSES = View("pages/lenses.py", "lenses", "Lenses", ":material/filter_alt:")
CASEBOOK = View("pages/casebook.py", "casebook", "Casebook", ":material/bookmarks:")


def page_of(view: ViewInfo) -> View:
    """A dataset's view as a page: its script is `pages/<view>.py`, its URL path its name."""
    return View(f"pages/{view.name}.py", view.name, view.nav_title, view.icon)


def views() -> dict[str, View]:
    """Every view in navigation order: home, the datasets' views, the search and the lenses
    across them, the casebook."""
    pages = [HOME, *(page_of(v) for v in dataset_views()), SEARCH, LENSES, CASEBOOK]
    return {v.url_path: v for v in pages}


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


def view_params(view: str, /, **params: object) -> dict[str, str]:
    """The query parameters of a link to `view` (None values dropped), checked against the
    view's registry: a key the target does not read is a programming error."""
    unknown = set(params) - keys_of(view)
    if unknown:
        raise KeyError(f"{view} reads no URL key {sorted(unknown)}")
    return {k: str(v) for k, v in params.items() if v is not None}


def is_view_href(href: str) -> bool:
    """Whether `href` is a relative link to one of the explorer's views, as `view_href` builds
    them (`mars?qid=3`): what a table's link column may show."""
    path, _, query = href.partition("?")
    known = {v.url_path for v in views().values()}
    return path in known and not any(c in query for c in " \"<>'\n")


def view_href(view: str, /, **params: object) -> str:
    """A relative link to another view (`mars?file=…&qid=3`), for link columns and anchors."""
    query = urlencode(view_params(view, **params), safe="/")
    path = views()[view].url_path
    return f"{path}?{query}" if query else path
