"""The DAG figure (issue 11, item 6): each thread's number sits beside its own node, also in a
crowded stage and in the downloaded HTML; hover labels show quotes, not `&quot;`."""

from __future__ import annotations

import json
import re

from analysis.parason.dag import build_dag, layout
from analysis.parason.parse import parse
from components.parason.dag import dag_figure, dag_html


def crowded(n: int = 8) -> str:
    items = "".join(f'<Trial>{k}: try "{k}"</Trial>' for k in range(1, n + 1))
    threads = "".join(f"<Thread>{k}: attempt {k}</Thread>" for k in range(1, n + 1))
    return (
        f"<think>go<Parallel><Outlines>{items}</Outlines>{threads}</Parallel></think> \\boxed{{1}}"
    )


def nodes_trace(fig) -> dict:  # type: ignore[no-untyped-def]  # plotly figures are untyped
    return next(tr for tr in fig.to_dict()["data"] if tr.get("name") == "nodes")


def test_thread_number_is_drawn_at_its_own_node() -> None:
    g = build_dag(parse(crowded()))
    pos = layout(g)
    tr = nodes_trace(dag_figure(g, pos, height=320))  # 8 branches in 320 px: crowded
    ids, texts = tr["customdata"], tr["text"]
    positions = tr["textposition"]
    threads = [(i, n) for i, n in enumerate(ids) if g.nodes[n]["kind"] == "thread"]
    assert len(threads) == 8
    for i, n in threads:
        # the label is node k's own number, level with its marker (not above, where it read as
        # the number of the node drawn above it)
        assert texts[i] == str(g.nodes[n]["number"])
        assert positions[i].startswith("middle")
        # left of a Trial: the dashed edges into the OR join run to its right ("+5" sat on them)
        assert positions[i] == "middle left"
    # top to bottom, the numbers read 1..8
    order = sorted(threads, key=lambda t: -tr["y"][t[0]])
    assert [texts[i] for i, _ in order] == [str(k) for k in range(1, 9)]


def test_subtask_labels_stay_right_and_labels_have_a_halo() -> None:
    g = build_dag(parse(crowded(3).replace("Trial>", "Subtask>")))
    tr = nodes_trace(dag_figure(g, layout(g)))
    threads = [i for i, n in enumerate(tr["customdata"]) if g.nodes[n]["kind"] == "thread"]
    assert {tr["textposition"][i] for i in threads} == {"middle right"}
    assert tr["textfont"]["shadow"].count("white") == 8  # a solid outline, 8 directions


def test_downloaded_html_has_the_same_labels() -> None:
    g = build_dag(parse(crowded()))
    html = dag_html(dag_figure(g, layout(g)))
    m = re.search(r'"textposition":\s*(\[[^\]]*\])', html)
    assert m is not None
    assert set(json.loads(m.group(1))) == {"middle left", "middle right"}


def test_hover_shows_quotes_not_entities() -> None:
    g = build_dag(parse(crowded(2)))
    tr = nodes_trace(dag_figure(g, layout(g)))
    hover = " ".join(tr["hovertext"])
    assert "&quot;" not in hover
    assert "try &#34;1&#34;" in hover  # a numeric entity: plotly decodes it to a quote
    assert not re.search(r"<(?!br>|/?b>)", hover)  # no markup but <br> and <b>
