"""FineProofs at 1024x768 (issue 11, item 20): no metric, label or control is cut off ("oly…",
"endpoint g…", "D." for "Descending", "Download serie…"), on the Overview, a trace with its step
panel, and the Collection tab."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import assert_no_exception, drawn
from tests.e2e.journey_helpers import STATS_CUT

pytestmark = pytest.mark.e2e

# text boxes of metrics, widget labels, buttons, tabs and selects: Streamlit clips them with an
# ellipsis (`overflow: hidden`), so a cut text is a box narrower than its content
_CUT = """() => {
  const sel = ['[data-testid="stMetricValue"]', '[data-testid="stMetricLabel"]',
    '[data-testid="stWidgetLabel"]', '[data-testid="stMain"] button',
    '[data-testid="stMain"] [data-baseweb="tab"]', '[data-testid="stMain"] [data-baseweb="select"]'
  ].map(s => `${s}, ${s} *`).join(', ');
  const cut = [];
  for (const el of document.querySelectorAll(sel)) {
    if (!el.textContent.trim() || !el.offsetParent || el.clientWidth === 0) continue;
    if (getComputedStyle(el).overflowX === 'visible') continue;
    if (el.scrollWidth > el.clientWidth + 1) cut.push(el.textContent.trim());
  }
  return [...new Set(cut)];
}"""


@pytest.mark.parametrize(
    "query",
    [
        "",
        "?problem=b6c7bc42f2bb6657&sample=9&prefix=5",
        "?view=Collection",
    ],
)
def test_nothing_is_cut_at_1024x768(app_url: str, page, query: str) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(f"{app_url}/fineproofs{query}")
    drawn(page)
    assert_no_exception(page)
    if "prefix" in query:
        page.locator(".st-key-fp_step_stats .rte-stat").first.wait_for(timeout=30_000)
        # the download buttons are at the bottom: bring them into the layout's view
        page.get_by_text("Download series CSV").scroll_into_view_if_needed()
    assert page.evaluate(_CUT) == []
    assert page.evaluate(STATS_CUT) == []
