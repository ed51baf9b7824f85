"""The HTML shell of a view's own URL (`/mars`, `/playground`, ...), with the app's root named.

Streamlit's page does not know where the server's root is when it opens on a view's path: it
asks `<view>/_stcore/health` first, gets a 404, waits a tenth of a second and asks one level up.
Every shared link to a view paid that detour before the page could connect. The shell is
Streamlit's own `index.html` with one inline script that names the root for the page
(`window.__streamlit.BACKEND_BASE_URL`, read once when Streamlit's bundle starts): the parent of
the view's URL, computed in the browser, so a proxy's path prefix is kept. A second inline
script keeps the keys pressed while a triage step loads the page (`EARLY_KEYS`), and a third
keeps the first run's own writes to the address out of the browser's history (`QUIET_HISTORY`).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import streamlit
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from streamlit import config

from components.common.links import views

INDEX = Path(streamlit.__file__).parent / "static" / "index.html"
# a view's URL has one path segment under the app's root, so its parent ('.') is that root
ROOT_HINT = (
    "<script>window.__streamlit = Object.assign({}, window.__streamlit, "
    "{BACKEND_BASE_URL: new URL('.', window.location.href).href});</script>"
)
# set by the triage keys (components/casebook/triage_keys.js, STEP) as a queue's page unloads
TRIAGE_STEP = "rte_triage_step"
STEP_FRESH_MS = 30_000  # a mark older than this is from a queue left long ago
# A triage step can load another view's page. Keys pressed while it loads reach a page whose
# key listener is not attached yet (it comes with the triage bar, after the first script run):
# when the mark says a queue's page is loading, the page keeps them from its first line, and the
# listener applies them once attached (window.__rteEarlyKeys).
EARLY_KEYS = (
    "<script>"
    + (Path(__file__).with_name("early_keys.js").read_text(encoding="utf-8"))
    .replace("__STEP__", TRIAGE_STEP)
    .replace("__FRESH_MS__", str(STEP_FRESH_MS))
    + "</script>"
)
# the first run's own writes to the address replace the history entry, and leaving a view keeps
# its address for Back (quiet_history.js)
QUIET_HISTORY = (
    "<script>"
    + Path(__file__).with_name("quiet_history.js").read_text(encoding="utf-8")
    + "</script>"
)
HEAD = ROOT_HINT + "\n    " + EARLY_KEYS + "\n    " + QUIET_HISTORY
MARKER = '<script type="module"'  # the bundle's tag: the hint must run before it


@cache
def shell() -> str | None:
    """Streamlit's index.html with the root hint and the early keys before its bundle, or None
    when the installed Streamlit's page has no bundle tag to anchor it (its own page is then
    served unchanged)."""
    html = INDEX.read_text(encoding="utf-8")
    at = html.find(MARKER)
    return None if at < 0 else html[:at] + HEAD + "\n    " + html[at:]


async def _view_page(request: Request) -> Response:
    # without an anchor for the scripts, Streamlit's own page: never a broken one
    html = shell() or INDEX.read_text(encoding="utf-8")
    return HTMLResponse(html, headers={"Cache-Control": "no-cache"})


def view_routes(base_url_path: str | None = None) -> list[Route]:
    """One GET route per view's URL path (the explorer's own list, nothing from a request),
    under the server's `server.baseUrlPath` (read from Streamlit's config when not given)."""
    base = config.get_option("server.baseUrlPath") if base_url_path is None else base_url_path
    base = (base or "").strip("/")
    prefix = f"/{base}" if base else ""
    return [
        Route(f"{prefix}/{path}", _view_page, methods=["GET", "HEAD"], name=f"view-{path}")
        for path in views()
    ]
