"""The bare page (`bench/bare_page.py`) plus one part, named by the URL's `part` key: what
`bench/element_costs.py` times against the bare page alone. A part is one kind of Streamlit
element as the views draw it, one of the explorer's own components, or a piece of the app's shell
(the navigation, the sidebar's switches, the browser bridge), so the table it prints says what
each costs a new tab the first time a page draws it.

Served by `streamlit run bench/element_page.py`; the parts are declared once, in `PARTS`.
"""

from __future__ import annotations

from collections.abc import Callable

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from components.common.browser import bridge
from components.common.light_control import (
    light_multi,
    light_radio,
    light_range,
    light_select,
    light_switch,
)
from components.common.lite_chart import lite_chart
from components.common.lite_table import lite_table
from components.common.maths import maths_toggle
from components.common.md_table import table_style
from components.common.source_picker import render_source_sidebar
from components.common.stat_row import stat_row

OPTIONS = [f"Q{i} · pass@1 {i * 3}% · 128 traces" for i in range(30)]


def _columns() -> None:
    for _ in range(3):
        a, b, c = st.columns(3)
        a.write("a")
        b.write("b")
        c.write("c")


def _horizontal() -> None:
    for _ in range(3):
        with st.container(horizontal=True):
            st.write("a")
            st.write("b")
            st.write("c")


def _markdown_20() -> None:
    for i in range(20):
        st.markdown(f"Paragraph **{i}**: a *sentence* with `code` and a [link](#{i}).")


def _expanders() -> None:
    for i in range(3):
        with st.expander(f"Options {i}"):
            st.write("inside")


def _stat_row() -> None:
    with stat_row("bench_stats", label="figures") as row:
        for name in ("traces", "pass@1", "answers", "median length", "no answer"):
            row.metric(name, 12, "+3")


def _metrics() -> None:
    for col, name in zip(
        st.columns(5), ("traces", "pass@1", "answers", "length", "none"), strict=True
    ):
        col.metric(name, 12, "+3")


def _lite_table() -> None:
    lite_table(pl.DataFrame({"qid": list(range(30)), "answer": OPTIONS}), key="bench_table")


def _lite_chart() -> None:
    fig = go.Figure(go.Scatter(x=list(range(200)), y=[(i % 17) / 17 for i in range(200)]))
    lite_chart(fig, key="bench_chart")


def _lite_charts_5() -> None:
    for k in range(5):
        fig = go.Figure(go.Scatter(x=list(range(200)), y=[((i + k) % 17) / 17 for i in range(200)]))
        lite_chart(fig, key=f"bench_chart_{k}")


def _tabs() -> None:
    tabs = st.tabs(["Curves", "Votes", "Data"])
    tabs[0].write("first tab")


def _light_tabs() -> None:
    light_radio(
        "Views",
        ["Curves", "Votes", "Data"],
        0,
        key="bench_tabs",
        on_pick=lambda _i: None,
        tabs=True,
    )
    st.write("first tab")


def _popover() -> None:
    with st.popover("Save as a case"):
        st.write("inside")


def _capture_popover() -> None:
    """A popover holding a capture form, as every view's "Add to casebook" control draws it."""
    with st.popover("Add to casebook"), st.form("bench_capture", border=False):
        st.text_input("Title", value="DeepSeek-R1-0528-Qwen3-8B · AIME 2025 · Q0")
        tags, verdict = st.columns([3, 2])
        tags.multiselect("Tags", OPTIONS, accept_new_options=True)
        verdict.selectbox("Verdict", [None, "confirmed", "rejected"])
        st.text_area("Note (Markdown)", height=100)
        st.text_input("Your name")
        st.form_submit_button("Save case", type="primary")


def _navigation_pages() -> list[st.Page]:
    return [st.Page(_home, title="Home", url_path="home", default=True)] + [
        st.Page(_home, title=f"View {i}", url_path=f"view{i}") for i in range(1, 8)
    ]


def _home() -> None:
    """The page a navigation part runs: the bare page's content is drawn before it."""


# part name -> what it draws after the bare page's title and six lines
PARTS: dict[str, Callable[[], None]] = {
    "nothing more": lambda: None,
    "selectbox": lambda: st.selectbox("MARS file", OPTIONS),
    "light select (ours)": lambda: light_select(
        "MARS file", OPTIONS, 0, key="bench_select", on_pick=lambda _i: None
    ),
    "light switch (ours)": lambda: light_switch(
        "Quick preview", True, key="bench_switch", on_change=lambda _on: None
    ),
    "multiselect": lambda: st.multiselect("Traces", OPTIONS, default=OPTIONS[:3]),
    "light list of several (ours)": lambda: light_multi(
        "Traces", OPTIONS, [0, 1, 2], key="bench_multi", on_pick=lambda _i: None
    ),
    "range slider": lambda: st.slider("Endpoint grade range", 0.0, 1.0, (0.0, 1.0)),
    "light range (ours)": lambda: light_range(
        "Endpoint grade range",
        0.0,
        1.0,
        (0.0, 1.0),
        0.01,
        key="bench_range",
        on_pick=lambda _v: None,
    ),  # fmt: skip
    "slider": lambda: st.slider("UCB z", 0.0, 3.0, 1.0),
    "radio": lambda: st.radio("Show", ["curves", "quantile bands"], horizontal=True),
    "segmented control": lambda: st.segmented_control(
        "Show", ["curves", "bands"], default="curves"
    ),
    "checkbox": lambda: st.checkbox("probes", value=True),
    "toggle": lambda: st.toggle("Quick preview", value=True),
    "text input": lambda: st.text_input("Search every text"),
    "number input": lambda: st.number_input("Iteration", 0, 63, 0),
    "button": lambda: st.button("Search"),
    "download button": lambda: st.download_button("Download CSV", "a,b\n1,2\n", "rows.csv"),
    "tabs": _tabs,
    "light tabs (ours)": _light_tabs,
    # as a view draws them: after another light control, which loaded the components' runtime
    "light select, then tabs": lambda: (PARTS["light select (ours)"](), _tabs()),
    "light select, then light tabs (ours)": lambda: (PARTS["light select (ours)"](), _light_tabs()),
    "3 expanders": _expanders,
    "popover": _popover,
    "capture popover (a form inside)": _capture_popover,
    "3 x 3 columns": _columns,
    "horizontal container": _horizontal,
    "bordered container": lambda: st.container(border=True).write("inside"),
    "20 markdown": _markdown_20,
    "caption": lambda: st.caption("A caption under a chart."),
    "info alert": lambda: st.info("Every question: budget 512 > pool of 128 traces."),
    "5 st.metric": _metrics,
    "st.html": lambda: st.html("<div>a small block of our own HTML</div>"),
    "stat row (ours)": _stat_row,
    "lite table (ours)": _lite_table,
    "lite chart (ours)": _lite_chart,
    "5 lite charts (ours)": _lite_charts_5,
    "maths switch (shell)": maths_toggle,
    "table style (shell)": table_style,
    "browser bridge (shell)": lambda: bridge(""),
    "data sources (shell)": render_source_sidebar,
    "navigation, 8 views (shell)": lambda: None,  # drawn by `main`
    # a Material Symbols icon (the font the views' navigation, buttons and notes draw icons with)
    "one material icon": lambda: st.caption(":material/search: a line with an icon"),
    "sidebar, one line": lambda: st.sidebar.write("A line in the sidebar."),
}
NAVIGATION = "navigation, 8 views (shell)"
SHELL = "whole shell (navigation, switches, bridge, sources)"
PARTS[SHELL] = lambda: None  # drawn by `main`
SHELL_PARTS = (
    "maths switch (shell)",
    "table style (shell)",
    "browser bridge (shell)",
    "data sources (shell)",
)


def main() -> None:
    part = st.query_params.get("part", "nothing more")
    page = st.navigation(_navigation_pages()) if part in (NAVIGATION, SHELL) else None
    if part == SHELL:
        for name in SHELL_PARTS:
            PARTS[name]()
    st.title("A bare Streamlit page")
    for i in range(1, 7):
        st.write(f"Line {i} of six: plain text, no chart, no data.")
    PARTS.get(part, PARTS["nothing more"])()
    if page is not None:
        page.run()


if __name__ == "__main__":
    main()
