"""Clickable text without a page reload: a small bidirectional Streamlit component (no CDN).

A view renders its own, already escaped HTML; every element with a `data-pick="<value>"`
attribute becomes clickable (mouse, or Enter/Space when focused). A click sends the value back to
Python as a one-shot trigger, so the script reruns in place: no new session, no jump to the top,
and the scroll position of the text is kept. Elements may keep an `href` to the same state as a
fallback; the component cancels the navigation when its script runs.

The HTML must come from `components.common.safe_text` helpers: the component renders it as is.
With "Render maths" on (`components.common.maths`), it typesets the HTML's maths placeholders
(`cache.maths_spans.maths_html`) with Streamlit's own KaTeX.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import streamlit as st

from cache.maths_spans import MATHS_CLASS
from components.common.maths import TYPESET_JS, component_css, katex_payload
from components.common.registered import joined_js, registered
from components.common.selection import picked_value

PICK_EVENT = "pick"

_JS = (
    joined_js("page_scroll.js")
    + TYPESET_JS
    + """
// The picked element brought into sight: its own scrolling box scrolled to it, and the page,
// when it is not in sight below what is pinned at the window's top, scrolled to the top of the
// column holding it (the heading and legend above the text stay in sight) or, when that would
// leave the element out of sight, to the element itself.
function holder(el) {
  // what is brought into sight with the element: the view's column holding the component (its
  // heading and legend above the text), else the component itself
  return closestUp(el, "stColumn") || el.closest(".rte-click-root") || el;
}

function place(chosen, moved) {
  // returns whether the page was scrolled (`moved`: it was, on an earlier call, so it is
  // aligned again even though the element is in sight: content drawn above it shifted it)
  if (!chosen.getClientRects().length) return false; // not drawn: a closed section or tab
  const box = chosen.closest("[data-keep-scroll]");
  if (box) {
    const r = chosen.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    if (r.top < b.top || r.top > b.bottom - 24) box.scrollTop += r.top - b.top - 8;
  }
  const top = pinnedBottom() + 8;
  const at = chosen.getBoundingClientRect().top;
  if (!moved && at >= top && at <= window.innerHeight - 48) return false;
  const start = holder(chosen).getBoundingClientRect().top;
  const fits = at - start + 48 <= window.innerHeight - top;
  const by = (fits ? start : at) - top;
  if (Math.abs(by) > 4) scroller(up(box || chosen)).scrollTop += by;
  return true;
}

// ... and kept in sight while the page above it is still being drawn (a chart that arrives late
// pushes the text down), until the reader scrolls.
function reveal(chosen, parentElement) {
  let moved = place(chosen, false);
  const page = closestUp(parentElement, "stMainBlockContainer") || document.body;
  const started = performance.now();
  let handsOn = false;
  const stop = () => { handsOn = true; };
  for (const name of ["wheel", "touchstart", "keydown", "mousedown"]) {
    window.addEventListener(name, stop, { once: true, passive: true });
  }
  const watch = new ResizeObserver(() => {
    // an open popover moves with the page: scrolling now would carry it off the window
    const popover = document.querySelector('[data-testid="stPopoverBody"]');
    if (handsOn || popover || !chosen.isConnected || performance.now() - started > 4000) {
      watch.disconnect();
      return;
    }
    const box = chosen.getBoundingClientRect();
    if (moved || box.bottom < 0 || box.top > window.innerHeight) moved = place(chosen, moved);
  });
  watch.observe(page);
}

export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  let root = parentElement.querySelector(".rte-click-root");
  if (!root) {
    root = document.createElement("div");
    root.className = "rte-click-root";
    parentElement.appendChild(root);
  }
  const payload = data || {};
  if (root.dataset.version !== String(payload.version)) {
    const scrollers = Array.from(root.querySelectorAll("[data-keep-scroll]"));
    const kept = scrollers.map((el) => el.scrollTop);
    root.innerHTML = payload.html || "";
    root.dataset.version = String(payload.version);
    root.querySelectorAll("[data-keep-scroll]").forEach((el, i) => {
      if (i < kept.length) el.scrollTop = kept[i];
    });
    const chosen = root.querySelector("[data-picked]");
    if (chosen && payload.reveal) reveal(chosen, parentElement);
    typeset(root, payload.katex);
  }
  root.querySelectorAll("[data-pick]").forEach((el) => {
    if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "0");
    el.setAttribute("role", el.getAttribute("role") || "button");
  });
  const pick = (event) => {
    const el = event.target.closest("[data-pick]");
    if (!el || !root.contains(el)) return;
    event.preventDefault();
    setTriggerValue("pick", el.getAttribute("data-pick"));
  };
  root.onclick = pick;
  root.onkeydown = (event) => {
    if (event.key === "Enter" || event.key === " ") pick(event);
  };
}
"""
)

_CSS = """
.rte-click-root [data-pick] { cursor: pointer; }
.rte-click-root [data-pick]:focus-visible { outline: 2px solid var(--st-primary-color); }
"""


def _component() -> Any:
    return registered("rte_click_text", _JS, _CSS + component_css())


def click_text(
    html: str,
    *,
    key: str,
    height: int | None = None,
    on_pick: Callable[[str], None] | None = None,
    reveal: bool = False,
    width: Literal["stretch", "content"] = "stretch",
) -> str | None:
    """Render escaped `html`; return the `data-pick` value clicked on this rerun, else None.

    With `on_pick`, the value is handed over in a callback *before* the script reruns, so
    everything drawn above the text (a panel, a chart) already shows the new selection.
    `reveal` scrolls the element marked `data-picked` into view when the HTML changes.
    """

    def _callback() -> None:
        value = picked_value(key, PICK_EVENT)
        if value is not None and on_pick is not None:
            on_pick(value)

    katex = katex_payload()
    result = _component()(
        key=key,
        data={
            "html": html,
            "version": hash((html, katex is not None)),
            "reveal": reveal,
            "katex": katex,
        },
        height=height if height is not None else "content",
        width=width,
        on_pick_change=_callback,
    )
    value = getattr(result, PICK_EVENT, None)
    return value if isinstance(value, str) else None


def text_block(html: str, *, key: str, width: Literal["stretch", "content"] = "stretch") -> None:
    """Escaped HTML with nothing to pick: `st.html` as before, or, when it holds maths to
    typeset ("Render maths" on), this component (st.html runs no script)."""
    if katex_payload() is None or MATHS_CLASS not in html:
        st.html(html, width=width)
    else:
        click_text(html, key=key, width=width)
