"""Plotly figure of one trajectory's DAG (left to right by stage), and its standalone HTML.

Encoding: colour = node kind (thread colour = Subtask / Trial / untyped), marker size = tokens
(sqrt scale), join symbol = AND (square) / OR (diamond) / MIXED (star) / ALL (circle), edges into
an OR join dashed; the critical path is drawn thick red with red node outlines; nodes with parse
warnings carry a ⚠ badge; branches added by the 8x expansion get a magenta outline and a "+".
Every text that comes from the dataset (previews, goals, numbers) is escaped with `esc_hover` /
`esc` before it reaches plotly, which renders a subset of HTML in labels.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping

import networkx as nx
import plotly.graph_objects as go

from analysis.parason.dag import url_node
from components.common.formatting import fmt_tokens
from components.common.safe_text import esc, esc_hover, plotly_text
from components.common.theme import (
    DAG_ADDED,
    DAG_BG,
    DAG_CRITICAL,
    DAG_EDGE,
    DAG_OR_EDGE,
    DAG_SELECTED,
    KIND_COLOURS,
    MARKER_EDGE,
)

LABEL_POSITION = "middle right"  # node labels (thread numbers, +n) beside their marker
LABEL_HALO = ", ".join(  # a solid 2 px outline in the background colour around each label
    f"{x}px {y}px 0 {DAG_BG}" for x in (-2, 0, 2) for y in (-2, 0, 2) if x or y
)
JOIN_SYMBOLS = {"AND": "square", "OR": "diamond", "MIXED": "star", "ALL": "circle"}


def label_position(d: Mapping) -> str:
    """Left of a thread in an OR stage: the dashed edges of every Trial converge on the join to
    the right and ran through "+5"; thin solid fork edges on the left are cut cleanly by the
    halo. Other labels stay at LABEL_POSITION."""
    if d.get("kind") == "thread" and d.get("join_type") == "OR":
        return "middle left"
    return LABEL_POSITION


def node_colour(d: Mapping) -> str:
    if d.get("kind") == "thread":
        return KIND_COLOURS.get(d.get("thread_kind", "untyped"), KIND_COLOURS["untyped"])
    return KIND_COLOURS.get(d.get("kind", "segment"), KIND_COLOURS["segment"])


def _symbol(d: Mapping) -> str:
    kind = d.get("kind")
    if kind == "join":
        return JOIN_SYMBOLS.get(d.get("join_type", "ALL"), "circle")
    if kind == "fork":
        return "triangle-right"
    if kind == "answer":
        return "star-diamond"
    if kind == "collapsed":
        return "hexagon"
    return "circle"


def _hover(n: str, d: Mapping, added: bool) -> str:
    kind = d.get("kind", "")
    head = {
        "thread": f"{d.get('label', n)} thread",
        "join": f"join ({d.get('join_type', '')})",
        "fork": f"fork · {d.get('branches', 0)} branches · {d.get('block_kind', '')} block",
        "collapsed": f"{d.get('count', 0)} collapsed branches",
    }.get(kind, kind)
    lines = [
        f"<b>{esc(head)}</b> · node {esc(url_node(n))}",
        esc(fmt_tokens(d.get("tokens", 0.0), 1)),
    ]
    if d.get("critical"):
        lines.append("on the critical path")
    if added:
        lines.append("added by the 8x expansion")
    if d.get("goal"):
        lines.append("goal: " + esc_hover(d["goal"], 120))
    if d.get("warnings"):
        lines.append("⚠ " + esc(", ".join(d["warnings"])))
    if d.get("notes"):
        lines.append("note: " + esc(", ".join(d["notes"])))
    if d.get("preview"):
        lines.append(esc_hover(d["preview"], 160))
    return plotly_text("<br>".join(lines))


def dag_figure(
    g: nx.DiGraph,
    pos: Mapping[str, tuple[float, float]],
    *,
    selected: str | None = None,
    added: Collection[str] = (),
    title: str = "",
    height: int | None = None,
) -> go.Figure:
    """The DAG as a plotly figure; node ids are in `customdata` for click selection."""
    fig = go.Figure()
    crit_edges = set(
        zip(g.graph.get("critical_path", []), g.graph.get("critical_path", [])[1:], strict=False)
    )
    groups: dict[str, tuple[list, list]] = {"plain": ([], []), "or": ([], []), "crit": ([], [])}
    for u, v in g.edges:
        if u not in pos or v not in pos:
            continue
        key = (
            "crit"
            if (u, v) in crit_edges
            else (
                "or"
                if g.nodes[v].get("join_type") == "OR" and g.nodes[v].get("kind") == "join"
                else "plain"
            )
        )
        xs, ys = groups[key]
        xs += [pos[u][0], pos[v][0], None]
        ys += [pos[u][1], pos[v][1], None]
    styles = {
        "plain": dict(color=DAG_EDGE, width=1.2),
        "or": dict(color=DAG_OR_EDGE, width=1.2, dash="dash"),
        "crit": dict(color=DAG_CRITICAL, width=4),
    }
    names = {"plain": "edge", "or": "edge into an OR join", "crit": "critical path"}
    for key, (xs, ys) in groups.items():
        if xs:
            fig.add_trace(
                go.Scatter(
                    x=xs,
                    y=ys,
                    mode="lines",
                    line=styles[key],
                    hoverinfo="skip",
                    name=names[key],
                    showlegend=key != "plain",
                )
            )
    nodes = [n for n in g.nodes if n in pos]
    max_tok = max((float(g.nodes[n].get("tokens", 0.0)) for n in nodes), default=1.0) or 1.0
    n_cols = len({pos[n][0] for n in nodes}) or 1
    big = max(12.0, min(30.0, 300.0 / n_cols))  # long chains get smaller markers
    added_set = set(added)
    xs, ys, sizes, colours, symbols, lw, lc, hover, text, ids, where = ([] for _ in range(11))
    for n in nodes:
        d = g.nodes[n]
        x, y = pos[n]
        xs.append(x)
        ys.append(y)
        tok = float(d.get("tokens", 0.0))
        sizes.append(7 + big * math.sqrt(tok / max_tok))
        colours.append(node_colour(d))
        symbols.append(_symbol(d))
        is_added = n in added_set
        if n == selected:
            lc.append(DAG_SELECTED)
            lw.append(4)
        elif is_added:
            lc.append(DAG_ADDED)
            lw.append(3)
        elif d.get("critical"):
            lc.append(DAG_CRITICAL)
            lw.append(3)
        else:
            lc.append(MARKER_EDGE)
            lw.append(1)
        hover.append(_hover(n, d, is_added))
        badge = "⚠" if d.get("warnings") else ""
        plus = "+" if is_added else ""
        label = ""
        if d.get("kind") == "thread":
            label = esc(str(d.get("number") or "?"))
        elif d.get("kind") == "collapsed":
            label = f"+{int(d.get('count', 0))}"
        text.append(f"{plus}{label}{badge}")
        # beside the marker (above it, in a crowded stage, thread k's number sat next to thread
        # k-1), on the side away from the edge to the join: "middle right" put "+5" on the
        # dashed OR edges of the 8x DAG
        where.append(label_position(d))
        ids.append(n)
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=ys,
            mode="markers+text",
            marker=dict(
                size=sizes,
                color=colours,
                symbol=symbols,
                line=dict(width=lw, color=lc),
                opacity=0.95,
            ),
            text=text,
            textposition=where,
            # a halo in the background colour: the OR edges leave each thread to the right,
            # through its "+5" label, and without it the dashes crossed the digits
            textfont=dict(size=11, shadow=LABEL_HALO),
            hovertext=hover,
            hoverinfo="text",
            customdata=ids,
            name="nodes",
            showlegend=False,
        )
    )
    # legend entries for every marker shape on screen (dummy traces)
    kinds_drawn = {g.nodes[n].get("kind") for n in nodes}
    entries = [
        ("Subtask thread (AND)", KIND_COLOURS["subtask"], "circle"),
        ("Trial thread (OR)", KIND_COLOURS["trial"], "circle"),
        ("untyped thread", KIND_COLOURS["untyped"], "circle"),
        ("fork", KIND_COLOURS["fork"], "triangle-right"),
        ("AND join", KIND_COLOURS["join"], "square"),
        ("OR join", KIND_COLOURS["join"], "diamond"),
        ("mixed join", KIND_COLOURS["join"], "star"),
        ("text outside blocks", KIND_COLOURS["segment"], "circle"),
        ("answer", KIND_COLOURS["answer"], "star-diamond"),
    ]
    if "collapsed" in kinds_drawn:
        entries.append(("collapsed branches (+n)", KIND_COLOURS["collapsed"], "hexagon"))
    for label, colour, symbol in entries:
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                marker=dict(size=10, color=colour, symbol=symbol),
                name=label,
            )
        )
    if added_set:
        fig.add_trace(
            go.Scatter(
                x=[None], y=[None], mode="markers", name="added by 8x (+)",
                marker=dict(size=10, color=MARKER_EDGE, line=dict(width=3, color=DAG_ADDED)),
            )
        )  # fmt: skip
    spread = (max(ys) - min(ys)) if ys else 0
    fig.update_layout(
        title=dict(text=esc(title), x=0.01, font=dict(size=14)) if title else None,
        height=height or int(min(900, max(320, 160 + 34 * spread))),
        margin=dict(l=10, r=10, t=40 if title else 10, b=10),
        xaxis=dict(visible=False),
        yaxis=dict(visible=False),
        plot_bgcolor=DAG_BG,
        legend=dict(orientation="h", y=-0.02, yanchor="top", font=dict(size=11)),
        hoverlabel=dict(align="left"),
        dragmode="pan",
        clickmode="event+select",
    )
    return fig


def dag_html(fig: go.Figure, title: str = "Parason trajectory DAG") -> str:
    """Standalone HTML (plotly.js inlined, works offline) for the download button."""
    html = fig.to_html(include_plotlyjs=True, full_html=True, config={"displaylogo": False})
    return html.replace("<head>", f"<head><title>{esc(title)}</title>", 1)
