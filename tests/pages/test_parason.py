"""AppTest of the Parason page: browse + filters, deep links (uuid, node, tab), selection,
40+ branch collapse and render time, 1x vs 8x, charts, RL tab, and bad input (HTML in the
trajectory, malformed rows, unknown uuid, a file missing optional columns)."""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from analysis.parason.metrics import added_branches, filter_table, trajectory_text
from analysis.parason.parse import parse
from analysis.parason.store import compute_table
from cache.casebook.evidence import EVIDENCE_KEY
from cache.casebook.model import Case, make_case
from cache.casebook.store import open_store
from cache.sample.parason import make_uuid
from components.parason import cached as pc
from components.parason.dag_panel import DAG_LEGEND
from components.parason.rl import rl_table_key
from components.parason.shared import PICK_NONE
from tests.pages.charts import figures, lite_specs, plotly_specs
from tests.pages.conftest import new_app
from tests.pages.controls import choose, light_control, tabs
from tests.pages.md_tables import md_tables
from tests.pages.stats import shown_metrics
from tests.pages.tables import lite_payloads, lite_tables

PAGE = "pages/parason.py"
WIDE = make_uuid("digit-sums-1-45")
HTML_ROW = make_uuid("malformed-html-script")
FOUR = make_uuid("not-div-7-11")


def _app(params: dict[str, str] | None = None, session: dict[str, str] | None = None) -> AppTest:
    at = new_app()
    for k, v in (session or {}).items():
        at.session_state[k] = v
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _html(at: AppTest) -> str:
    return "\n".join(h.proto.body for h in at.get("html"))


def _browse(at: AppTest) -> pd.DataFrame:
    """The Browse tab's table (a light table unless the URL asks for the data grid)."""
    return lite_tables(at)[0]


def _errors(at: AppTest) -> str:
    return "\n".join(e.value for e in at.error)


def _figs(at: AppTest) -> list[dict]:
    """Every chart, Plotly or lite (the DAGs are lite unless "zoom" is ticked)."""
    return figures(at)


@pytest.fixture(scope="module")
def table(sample_root: Path) -> pl.DataFrame:
    return compute_table(sample_root / "parason" / "sft-1x" / "train.parquet")


def test_browse_lists_the_subset(table: pl.DataFrame) -> None:
    at = _app()
    row = tabs(at)
    assert (
        row.options == ["Browse", "Trajectory", "1x vs 8x", "Charts", "RL"]
        and row.shown == "Browse"
    )
    assert not _errors(at)
    df = _browse(at)
    assert len(df) == table.height
    assert {
        "uuid",
        "question",
        "correctness",
        "stages",
        "branches",
        "kind_mix",
        "speedup",
        "T",
        "warnings",
    } <= set(df.columns)
    assert f"{table.height:,} of {table.height:,} trajectories in sft-1x" in " ".join(
        c.value for c in at.caption
    )


def test_filters_from_the_url(table: pl.DataFrame) -> None:
    at = _app({"correct": "incorrect", "warn": "without"})
    assert not at.error, _errors(at)
    expected = filter_table(table, correctness="incorrect", warnings="without")
    assert 0 < len(_browse(at)) == expected.height
    at = _app({"q": "mississippi"})
    assert _browse(at)["uuid"].tolist() == [make_uuid("mississippi")[:8]]
    at = _app({"kinds": "untyped"})
    assert set(_browse(at)["kind_mix"]) == {"untyped"}
    at = _app({"q": "no such question anywhere"})
    assert "No trajectory matches" in " ".join(i.value for i in at.info)


def test_a_links_filter_value_the_controls_refuse_is_said(table: pl.DataFrame) -> None:
    """`correct=maybe` and `warn=xx` are no choices: each filter says what the link asked for
    and that it shows everything (Streamlit's bound box dropped them without a word)."""
    at = _app({"correct": "maybe", "warn": "xx"})
    assert not at.error, _errors(at)
    said = " ".join(c.value for c in at.caption if "The link's" in c.value)
    assert (
        "correct=“maybe” is not a value this control takes (one of: all, correct, incorrect): “Correctness” is set to “all”"
        in said
    )
    assert (
        "warn=“xx” is not a value this control takes (one of: any, with, without): “Warnings” is set to “any”"
        in said
    )
    assert len(_browse(at)) == table.height
    at = _app({"correct": "incorrect", "warn": "without"})
    assert not [c.value for c in at.caption if "The link's" in c.value]


def test_sorting_widgets(table: pl.DataFrame) -> None:
    at = _app({"sort": "speedup T/C", "desc": "true"})
    assert not at.error, _errors(at)
    sp = _browse(at)["speedup"].tolist()
    assert sp == sorted(sp, reverse=True)


def test_select_a_trajectory_and_a_node(table: pl.DataFrame) -> None:
    at = _app({"view": "Trajectory"})
    assert "Pick a trajectory" in " ".join(i.value for i in at.info)
    # the picker offers every trajectory under a "pick" line; a pick writes the uuid to the URL
    # (its callback, in the browser: tests/e2e/test_parason_e2e.py), which opens the DAG
    pick = light_control(at, "Trajectory")
    assert pick.kind == "combo" and pick.shown == PICK_NONE
    assert sum(o.startswith(FOUR[:8]) for o in pick.options) == 1
    at.query_params["uuid"] = FOUR
    at.run()
    assert not at.exception and not at.error, _errors(at)
    assert light_control(at, "Trajectory").shown.startswith(FOUR[:8])
    assert at.query_params["uuid"] == [FOUR] or at.query_params["uuid"] == FOUR
    figs = _figs(at)
    assert len(figs) == 1
    ids = [i for tr in figs[0]["data"] for i in (tr.get("customdata") or [])]
    assert {"b0:fork", "b3:join", "answer"} <= set(ids)
    at.selectbox(key="pa_node_none").select("b1t0").run()
    assert not at.exception and not at.error, _errors(at)
    # the URL carries the 1-based id the label shows: "subtask 2.1" of stage 2 is node=2.1
    assert str(at.query_params["node"]) in ("2.1", "['2.1']")
    assert "Union = 142 + 90 - 12 = 220" in _html(at)
    assert at.selectbox(key="pa_node_b1t0").format_func("b1t0") == "trial 2.1 · 14.7 tokens"


@pytest.mark.parametrize("node", ["b0t2", "1.3"])
def test_old_and_one_based_node_links_open_the_same_node(node: str) -> None:
    at = _app({"uuid": FOUR, "node": node, "subset": "sft-8x"})
    assert not _errors(at)
    assert "floor(999/77) = 12" in _html(at)  # trial 1.3 of the 8x row, either way


def test_a_node_the_trajectory_lacks_is_said() -> None:
    """A link's node that the trajectory does not have gets a note (it was dropped silently);
    a node it has gets none."""
    at = _app({"uuid": FOUR, "node": "zzz", "subset": "sft-8x"})
    notes = "\n".join(w.value for w in at.warning)
    assert "The link asks for node “zzz”, which this trajectory does not have" in notes
    at = _app({"uuid": FOUR, "node": "1.3", "subset": "sft-8x"})
    assert not any("The link asks for node" in w.value for w in at.warning)


def test_deep_link_restores_trajectory_and_node() -> None:
    at = _app({"uuid": FOUR, "node": "b0t2", "subset": "sft-8x"})
    assert not _errors(at)
    html = _html(at)
    assert "floor(999/77) = 12" in html  # the node's text panel
    assert "rte-node-text" in html and "rte-parason-text" in _text_view(at)
    labels = [m.label for m in shown_metrics(at)]
    assert "tokens T" in labels and "speedup T/C" in labels
    fig = _figs(at)[0]
    nodes = next(tr for tr in fig["data"] if tr.get("name") == "nodes")
    sel = nodes["customdata"].index("b0t2")
    assert nodes["marker"]["line"]["color"][sel] == "#ffd400"  # selected outline
    assert any(tr.get("name") == "critical path" for tr in fig["data"])


def _text_view(at: AppTest) -> str:
    """The HTML handed to the text view's click_text component."""
    comps = [c for c in at.get("bidi_component") if c.proto.component_name == "rte_click_text"]
    assert len(comps) == 1
    return json.loads(comps[0].proto.json)["html"]


def test_text_view_picks_nodes_in_place() -> None:
    at = _app({"uuid": FOUR, "node": "b0t2", "subset": "sft-8x", "counter": "words"})
    body = _text_view(at)
    nodes = {html.unescape(n) for n in re.findall(r'data-pick="([^"]*)"', body)}
    assert {"b0t0", "b0t1", "b0t2", "b0:fork", "b3:join", "answer"} <= nodes
    assert "prompt" not in nodes
    assert "href=" not in body  # no reload links
    assert body.count("data-picked") == 1  # the selected node, scrolled into view
    assert not any("rte-parason-text" in h.proto.body for h in at.get("html"))


def test_8x_trajectory_marks_added_branches() -> None:
    at = _app({"uuid": FOUR, "subset": "sft-8x"})
    assert not at.error, _errors(at)
    assert "12 branches (magenta, +) were added" in " ".join(c.value for c in at.caption)
    nodes = next(tr for tr in _figs(at)[0]["data"] if tr.get("name") == "nodes")
    assert sum(c == "#d100d1" for c in nodes["marker"]["line"]["color"]) == 12


def test_uuid_prefix_and_unknown_uuid() -> None:
    at = _app({"uuid": FOUR[:8]})
    assert not at.error, _errors(at)
    assert len(_figs(at)) == 1
    at = _app({"uuid": "not-a-real-uuid", "node": "<script>"})
    assert not at.exception and not at.error and len(_figs(at)) == 0
    said = [w.value for w in at.warning if "not in sft" in w.value]
    assert said == [
        "Trajectory “not\\-a\\-real\\-uuid” is not in sft\\-1x: pick one below, or the subset "
        "above that holds it."
    ], said


def test_wide_stage_collapses() -> None:
    at = _app({"uuid": WIDE})  # its speed: bench/parason.py (a benchmark, not a timed test)
    fig = _figs(at)[0]
    nodes = next(tr for tr in fig["data"] if tr.get("name") == "nodes")
    assert len(nodes["customdata"]) <= 20 and "b0:more" in nodes["customdata"]
    assert at.toggle(key="pa_dag_collapse").value is True
    at.toggle(key="pa_dag_collapse").set_value(False).run()
    assert not at.exception and not at.error, _errors(at)
    nodes = next(tr for tr in _figs(at)[0]["data"] if tr.get("name") == "nodes")
    assert len(nodes["customdata"]) == 45 + 5


def test_html_in_trajectory_is_escaped_and_warnings_listed() -> None:
    at = _app({"uuid": HTML_ROW, "node": "b0t0"})
    assert not at.error, _errors(at)
    html = _html(at) + _text_view(at)
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "stray_close" in html and "unclosed_thread" in html  # badges
    spec = json.dumps(plotly_specs(at))
    assert "<script" not in spec and "<img" not in spec
    # the lite DAG carries plain text (the browser sets it as textContent, never as markup):
    # the row's tags arrive as the characters the row holds, not as entities to decode twice
    tips = [tip for f in lite_specs(at) for t in f["traces"] for tip in t["tips"] or []]
    assert any("<script>alert('xss')</script>" in tip for tip in tips)
    assert not any("&lt;" in tip for tip in tips)
    assert any("Parser warnings" in e.label for e in at.expander)


def test_compare_marks_added_branches() -> None:
    at = _app({"uuid": FOUR, "view": "1x vs 8x"})
    assert not _errors(at)
    caps = " ".join(c.value for c in at.caption)
    assert "12 branches were added" in caps
    figs = _figs(at)
    assert len(figs) == 2
    n8 = next(tr for tr in figs[1]["data"] if tr.get("name") == "nodes")
    assert sum(c == "#d100d1" for c in n8["marker"]["line"]["color"]) == 12
    stage = next(t for t in md_tables(at) if "added" in t[0])
    assert [r["added"] for r in stage] == ["0", "6", "0", "6"]
    assert " → " in str(stage[1]["cost 1x → 8x (tokens)"])
    # the pair's extra Trials lengthen C: the page says so in words, not only in a ratio
    slower = " ".join(w.value for w in at.warning)
    assert "The 8x row is slower" in slower and "C_8x / C_1x = 2.04×" in slower
    assert "an OR join of Trials included, waits for all of its branches" in " ".join(
        c.value for c in at.caption
    )
    accepted = next(t for t in md_tables(at) if "C as counted (tokens)" in t[0])
    assert [r["row"] for r in accepted] == ["sft-1x", "sft-8x"]
    assert not at.dataframe  # small read-only tables: Markdown, no data grid


def test_compare_all_pairs_view() -> None:
    at = _app({"view": "1x vs 8x", "pairs": "all pairs"})
    assert not _errors(at)
    caps = " ".join(c.value for c in at.caption)
    assert "303 questions have a row in both subsets" in caps
    spreads, changes = md_tables(at, "quantity")[0], md_tables(at, "correctness 1x → 8x")[0]
    assert [r["quantity"] for r in spreads] == [
        "ΔC = C_8x − C_1x",
        "C_8x / C_1x",
        "ΔT = T_8x − T_1x",
    ]
    assert [r["n pairs"] for r in spreads] == ["303", "303", "303"]
    correctness = [r["correctness 1x → 8x"] for r in changes]
    assert correctness[:3] == ["right → wrong", "wrong → right", "same"]
    assert len(_figs(at)) == 1


def test_charts_and_point_selection(table: pl.DataFrame) -> None:
    at = _app({"view": "Charts"})
    assert not at.error, _errors(at)
    assert not plotly_specs(at)  # light charts: no Plotly bundle at first paint
    charts = [c for c in at.get("bidi_component") if c.proto.component_name.endswith("lite_chart")]
    assert len(charts) == 5
    assert all(len(c.proto.json) < 2_000_000 for c in charts)
    scatter = _figs(at)[0]
    uuids = {u for tr in scatter["data"] for u in (tr.get("customdata") or [])}
    assert uuids == set(table["uuid"].to_list())
    at = choose(at, "zoom", True)
    assert not _errors(at) and len(plotly_specs(at)) == 5 and not lite_specs(at)


def test_rl_tab_search() -> None:
    at = _app({"view": "RL"})
    assert len(lite_tables(at)[0]) == 60
    at = _app({"view": "RL", "rlq": "MISSISSIPPI"})
    assert not at.error, _errors(at)
    df = lite_tables(at)[0]
    assert len(df) == 1 and df["ground_truth"].tolist() == ["34650"]


def test_file_missing_optional_columns(sample_root: Path, tmp_path: Path) -> None:
    root = tmp_path / "parason"
    shutil.copytree(sample_root / "parason", root)
    path = root / "sft-1x" / "train.parquet"
    pl.read_parquet(path).select("question", "response_reasoning", "response_content").head(
        30
    ).write_parquet(path)
    session = {"src_parason_kind": "local", "src_parason_path": str(root)}
    at = _app(session=session)
    assert not _errors(at)
    df = _browse(at)
    assert len(df) == 30 and df["uuid"].iloc[0] == "row-0"
    at = _app({"uuid": "row-1"}, session=session)
    assert not _errors(at) and len(_figs(at)) == 1
    assert "correctness unknown" in _html(at)


def test_rl_file_as_sft_gives_a_clear_error(sample_root: Path, tmp_path: Path) -> None:
    root = tmp_path / "parason"
    shutil.copytree(sample_root / "parason", root)
    shutil.copy(root / "rl" / "train.parquet", root / "sft-1x" / "train.parquet")
    at = _app(session={"src_parason_kind": "local", "src_parason_path": str(root)})
    err = _errors(at)
    assert "none of the trajectory columns" in err and "What to do" in err


# ---------------------------------------------------------------- review fixes
@pytest.mark.parametrize("node", ["b0:more", "zz:more", "nonsense"])
def test_stale_or_unknown_node_link_is_dropped(node: str) -> None:
    at = _app({"view": "Trajectory", "uuid": WIDE, "node": node})
    assert not at.error, _errors(at)
    assert len(_figs(at)) == 1
    at.toggle(key="pa_dag_collapse").set_value(False).run()  # b0:more no longer drawn
    assert not at.exception and not at.error, _errors(at)
    assert len(_figs(at)) == 1
    assert "No node selected." in " ".join(c.value for c in at.caption)


def test_more_node_still_shown_while_collapsed() -> None:
    at = _app({"view": "Trajectory", "uuid": WIDE, "node": "b0:more"})
    assert "collapsed branches" in " ".join(i.value for i in at.info)
    at.slider(key="pa_dag_keep").set_value(40).run()  # 45 branches: 40 shown, 6 merged
    assert not at.exception and not at.error, _errors(at)
    assert "6 collapsed branches" in " ".join(i.value for i in at.info)


def test_rl_selection_resets_when_the_filter_changes() -> None:
    at = _app({"view": "RL"})
    at.session_state[rl_table_key("", []) + "_row"] = 50  # what a pick in the table stores
    at.run()
    assert not at.exception and not at.error, _errors(at)
    assert not at.dataframe  # a light table until the "Data grid" switch
    (table,) = lite_tables(at)
    picked = int(table["index"].tolist()[50])
    assert f"<b>Prompt {picked}</b>" in _html(at)
    (payload,) = lite_payloads(at)
    assert payload["selected"] == 50 and payload["pickable"]
    at = choose(at, "rlq", "MISSISSIPPI")
    assert not at.exception and not at.error, _errors(at)
    assert len(lite_tables(at)[0]) == 1
    assert f"<b>Prompt {picked}</b>" not in _html(at)


def test_an_rl_link_opens_its_prompt_while_the_search_keeps_it() -> None:
    at = _app({"view": "RL"})
    (table,) = lite_tables(at)
    index = int(table["index"].tolist()[7])
    at = _app({"view": "RL", "rlp": str(index)})
    assert not at.exception and not at.error, _errors(at)
    assert f"<b>Prompt {index}</b>" in _html(at)
    (payload,) = lite_payloads(at)
    assert payload["selected"] == 7
    start = str(table["prompt (start)"].tolist()[7])[:20]
    at = _app({"view": "RL", "rlp": str(index), "rlq": start})  # the search keeps it: shown
    (payload,) = lite_payloads(at)
    assert f"<b>Prompt {index}</b>" in _html(at) and payload["selected"] is not None
    at = _app({"view": "RL", "rlp": "999999999"})  # a prompt the file lacks: nothing opens
    assert not at.exception and not at.error, _errors(at)
    assert "<b>Prompt " not in _html(at) and lite_payloads(at)[0]["selected"] is None


def test_rl_grid_switch_shows_every_prompt_in_a_selectable_grid() -> None:
    at = _app({"view": "RL", "rl_grid": "true"})
    assert not at.exception and not at.error, _errors(at)
    assert not lite_tables(at)
    grid = at.dataframe[0]
    assert list(grid.value.columns) == [
        "index",
        "data_source",
        "ability",
        "ground_truth",
        "prompt (start)",
    ]
    total = re.search(r"of ([\d,]+) RL prompts", " ".join(c.value for c in at.caption))
    assert total and len(grid.value) == int(total.group(1).replace(",", ""))
    # a row selected in the grid opens its prompt through the same callback as a pick in the
    # light table (tests/e2e/test_lite_table_e2e.py, in a browser)
    assert grid.proto.selection_mode == [0]  # single row


def test_infinite_and_nan_speedups_keep_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    real = pc.metrics

    def odd(subset: str, src, counter: str = "estimate") -> pl.DataFrame:  # type: ignore[no-untyped-def]
        t = real(subset, src, counter)
        sp = t["speedup"].to_list()
        sp[0], sp[1] = float("inf"), float("nan")
        return t.with_columns(speedup=pl.Series(sp, dtype=t.schema["speedup"]))

    monkeypatch.setattr(pc, "metrics", odd)
    at = _app()
    assert not at.error, _errors(at)
    # the closed filter bar draws no widget until opened
    assert not [s for s in at.slider if s.key == "speedup"]
    at = _app(session={"pa_filters_open": True})  # type: ignore[dict-item]  # the bar's state
    assert not at.error, _errors(at)
    top = at.slider(key="speedup").max
    assert 1.0 < top < 1e6
    assert len(_browse(at)) > 2  # the browsing table is still there


def test_node_facts_caption_is_markdown_safe() -> None:
    at = _app({"uuid": HTML_ROW, "node": "b0t0"})
    caps = [c.value for c in at.caption if "tokens" in c.value and "kind:" in c.value]
    assert caps and all("&amp;" not in c and "&lt;" not in c for c in caps)


def test_dag_and_charts_say_which_counter_made_them(sample_root) -> None:  # type: ignore[no-untyped-def]
    for view in ("Trajectory", "Charts"):
        at = new_app()
        at.query_params["view"] = view
        at.query_params["uuid"] = "b8c7711c"
        at.switch_page("pages/parason.py")
        at.run()
        assert not at.exception and not at.error
        specs = _figs(at)
        assert specs, view
        notes = [
            a.get("text", "") for s in specs for a in s.get("layout", {}).get("annotations", [])
        ]
        assert sum("token counts: estimate" in t for t in notes) >= 1, (view, notes[:5])


def test_compare_takes_a_uuid_prefix_and_defaults_to_a_common_trajectory() -> None:
    at = _app({"view": "1x vs 8x", "uuid": FOUR[:8]})
    others = [w.value for w in at.warning if not w.value.startswith("The 8x row is slower")]
    assert not others and not _errors(at), others
    assert len(_figs(at)) == 2
    assert "12 branches were added" in " ".join(c.value for c in at.caption)
    at = _app({"view": "1x vs 8x"})  # no uuid: a pair the 8x expansion changed, not a blank
    others = [w.value for w in at.warning if not w.value.startswith("The 8x row is slower")]
    assert not others and not _errors(at), others
    assert len(_figs(at)) == 2
    assert "branches were added by the 8x expansion" in " ".join(c.value for c in at.caption)
    assert light_control(at, "Trajectory (in both subsets)").shown != PICK_NONE
    at = _app({"view": "1x vs 8x", "uuid": "not-a-real-uuid"})
    assert "not in both subsets" in " ".join(w.value for w in at.warning)
    assert len(_figs(at)) == 2  # still shows a pair


def test_compare_table_is_rounded_and_says_when_nothing_was_added() -> None:
    at = _app({"view": "1x vs 8x", "uuid": "b8c7711c"})  # a pair without added branches
    assert not _errors(at)
    assert "No added branches in this pair." in " ".join(i.value for i in at.info)
    frame = {r["metric"]: r for r in md_tables(at, "metric")[0]}
    tokens = frame["tokens T (compute)"]
    assert all(re.fullmatch(r"[\d,]+ tokens", str(tokens[c])) for c in ("sft-1x", "sft-8x"))
    assert re.fullmatch(r"[+-][\d,]+ tokens", str(tokens["8x vs 1x"]))
    assert frame["critical path C (latency)"]["8x vs 1x"] == "1.00× same"
    assert str(frame["speedup T / C (own row)"]["sft-1x"]).endswith("×")
    assert str(frame["parallel ratio"]["sft-8x"]).endswith("%")


def test_compare_dag_controls_have_short_labels() -> None:
    at = _app({"view": "1x vs 8x", "uuid": WIDE[:8]})
    assert not _errors(at)
    assert at.toggle(key="pa_dag_8x_collapse").label == "Collapse"
    assert at.slider(key="pa_dag_8x_keep").label == "Shown per stage"


def test_collapsed_stage_is_explained_and_items_are_compact() -> None:
    at = _app({"uuid": WIDE})
    caps = " ".join(c.value for c in at.caption)
    assert "largest 11 of 45 branches shown" in caps and "+34 collapsed" in caps
    nodes = next(tr for tr in _figs(at)[0]["data"] if tr.get("name") == "nodes")
    k = nodes["customdata"].index("b0:more")
    assert nodes["text"][k] == "+34" and nodes["textposition"][k] == "middle right"
    stage = md_tables(at, "stage")[-1]
    assert [r["items"] for r in stage] == ["45×S"]
    assert re.fullmatch(r"\d+\.\d\d", str(stage[0]["block speedup"]))  # two decimals


def test_dag_legend_names_every_marker_shape() -> None:
    at = _app({"uuid": WIDE})
    names = {tr.get("name") for tr in _figs(at)[0]["data"]}
    assert {"fork", "AND join", "text outside blocks", "answer", "collapsed branches (+n)"} <= names
    assert DAG_LEGEND in [c.value for c in at.caption]
    for shape in ("▶ fork", "■ AND join", "grey ● text outside", "✦ the boxed answer"):
        assert shape in DAG_LEGEND


def test_text_takes_full_width_until_a_node_is_picked() -> None:
    def text_in_a_column(at: AppTest) -> bool:
        return any(
            c.proto.component_name == "rte_click_text"
            for col in at.columns
            for c in col.get("bidi_component")
        )

    at = _app({"uuid": FOUR})
    assert "rte-parason-text" in _text_view(at) and not text_in_a_column(at)
    at = _app({"uuid": FOUR, "node": "b0t2"})
    assert text_in_a_column(at)


def test_browse_shows_short_uuids_and_plain_questions(table: pl.DataFrame) -> None:
    at = _app()
    df = _browse(at)
    assert set(df["uuid"].str.len()) == {8}
    assert not df["question"].str.contains("$", regex=False).any()
    assert df.columns[0] == "cases"  # the casebook badge, then the key columns
    cols = ["uuid", "added", "question", "correctness", "speedup", "T", "C"]
    assert list(df.columns[1:8]) == cols  # the pair's added branches beside its uuid
    picker = light_control(_app({"view": "Trajectory"}), "Trajectory")
    assert all("$" not in o for o in picker.options)
    # the question's start as far as a page-wide box shows it (it was cut at 70 characters)
    assert max(len(o) for o in picker.options[1:]) > 100


@pytest.mark.parametrize("view", ["1x vs 8x", "RL", "Trajectory"])
def test_filter_bar_only_where_it_acts(view: str) -> None:
    at = _app({"view": view, "uuid": FOUR})
    assert not [s for s in at.slider if s.key == "speedup"]
    assert not [t for t in at.text_input if t.key == "q"]
    at = _app({"view": "Charts", "q": "mississippi"})  # kept in the URL, applied in Charts
    assert at.slider(key="speedup") is not None
    assert "1 of " in " ".join(c.value for c in at.caption)


# ---------------------------------------------------------------- casebook
def _save_case(at: AppTest, key: str, title: str) -> AppTest:
    at.text_input(key=f"cb_{key}_title").input(title)
    at.button(key=f"cb_{key}_save").click().run()
    assert not at.exception and not at.error, _errors(at)
    return at


def _stored(url: str) -> list[Case]:
    return open_store(url).cases_for_item("parason")


def test_capture_a_trajectory(db: str) -> None:
    at = _app({"uuid": FOUR, "subset": "sft-8x", "counter": "words"})
    key = f"pa_traj_sft-8x_{FOUR}"
    assert at.text_input(key=f"cb_{key}_title").value.startswith("sft-8x · ")
    _save_case(at, key, "8x fans out a lot")
    [case] = _stored(db)
    assert (case.dataset, case.view, case.title) == ("parason", "parason", "8x fans out a lot")
    assert case.item == {"subset": "sft-8x", "uuid": FOUR}
    q = dict(case.query)
    assert q["uuid"] == FOUR and q["subset"] == "sft-8x" and q["counter"] == "words"
    assert case.source["file"] == "sft-8x/train.parquet" and case.source["kind"] == "sample"
    snap = case.snapshot
    assert {"T", "C", "speedup", "acceleration", "blocks", "branches", "correctness"} <= set(snap)
    assert snap["blocks"] == 4 and snap["speedup"] > 1 and snap["counter"]
    assert snap["n_warnings"] == 0 and snap["warning_codes"] == ""
    assert shown_metrics(at)[2].value == f"{snap['speedup']:.2f}×"


def test_capture_a_node_and_a_stage(db: str) -> None:
    at = _app({"uuid": FOUR, "node": "b1t0"})
    _save_case(at, f"pa_node_sft-1x_{FOUR}_b1t0", "the union step")
    at.selectbox(key=f"pa_stage_sft-1x_{FOUR}").select(2).run()
    _save_case(at, f"pa_stage_sft-1x_{FOUR}_2", "stage three")
    node, stage = _stored(db)
    assert node.item == {"subset": "sft-1x", "uuid": FOUR, "node": "b1t0"}
    assert ("node", "b1t0") in node.query and ("uuid", FOUR) in node.query
    assert node.snapshot["node"] == "b1t0" and node.snapshot["tokens"] > 0
    assert node.snapshot["kind"]
    picture = node.snapshot[EVIDENCE_KEY]  # the report draws it: the stage's branches
    assert picture["kind"] == "bars" and picture["highlight"] == {"category": "branch 1"}
    assert picture["title"].startswith("Stage 2 (") and picture["title"].endswith(
        "tokens per branch; this node's: branch 1"
    )
    assert stage.item == {"subset": "sft-1x", "uuid": FOUR, "stage": "2"}
    assert stage.snapshot["stage_number"] == 3
    assert {"block_speedup", "imbalance", "branches", "kind", "join"} <= set(stage.snapshot)
    # no node control while no node is selected
    at = _app({"uuid": FOUR})
    assert not [t for t in at.text_input if (t.key or "").startswith("cb_pa_node_")]


def test_the_stage_picker_follows_the_selected_nodes_stage(db: str) -> None:
    """A lens links a stage's longest branch: "Add stage" starts on that stage, the reader's own
    pick holds while the node stays, and a new node moves the picker to its stage."""
    key = f"pa_stage_sft-1x_{FOUR}"
    at = _app({"uuid": FOUR, "node": "3.1"})
    assert at.selectbox(key=key).value == 2
    at.selectbox(key=key).select(0).run()
    assert at.selectbox(key=key).value == 0
    at.query_params["node"] = "2.1"
    at.run()
    assert at.selectbox(key=key).value == 1
    at.query_params["node"] = "answer"  # no stage: the picker keeps what it shows
    at.run()
    assert at.selectbox(key=key).value == 1 and not at.exception


def test_capture_a_pair(db: str) -> None:
    at = _app({"uuid": FOUR, "view": "1x vs 8x"})
    _save_case(at, f"pa_pair_{FOUR}", "8x adds 12 trials")
    [case] = _stored(db)
    assert case.item == {"uuid": FOUR, "subset": "sft-1x vs sft-8x"}
    assert case.snapshot["added_branches"] == 12
    assert case.source["file"] == "sft-8x/train.parquet"
    assert ("view", "1x vs 8x") in case.query


def _case_on(url: str, item: dict[str, str], title: str) -> None:
    open_store(url).add(
        make_case(
            "parason",
            "parason",
            query=[("uuid", item["uuid"])],
            source={"kind": "sample", "file": "sft-1x/train.parquet"},
            item=item,
            title=title,
            note="<script>alert(1)</script> **bold**",
            author="ada",
        )
    )


def test_browse_badge_counts_cases(db: str) -> None:
    _case_on(db, {"subset": "sft-1x", "uuid": FOUR}, "one")
    _case_on(db, {"subset": "sft-1x", "uuid": FOUR, "node": "b0t1"}, "two")
    at = _app()
    df = _browse(at)
    marks = dict(zip(df["uuid"], df["cases"], strict=True))
    assert marks[FOUR[:8]] == "● 2"
    assert sum(bool(v) for v in marks.values()) == 1
    assert lite_payloads(at)[0]["pickable"]  # a click on a row opens its uuid


def test_inline_cases_on_the_open_trajectory(db: str) -> None:
    _case_on(db, {"subset": "sft-1x", "uuid": FOUR}, "look here <b>now</b>")
    at = _app({"uuid": FOUR})
    assert any("1 case on this item" in e.label for e in at.expander)
    html = _html(at)
    assert "look here &lt;b&gt;now&lt;/b&gt;" in html and "<script>" not in html
    at = _app({"uuid": FOUR, "subset": "sft-8x"})  # the 8x row has no case
    assert not any("on this item" in e.label for e in at.expander)


# ---------------------------------------------------------------- issue 11
def _local(sample_root: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "parason"
    shutil.copytree(sample_root / "parason", root)
    return root, {"src_parason_kind": "local", "src_parason_path": str(root)}


def test_broken_sft_1x_keeps_the_rl_tab(sample_root: Path, tmp_path: Path) -> None:
    root, session = _local(sample_root, tmp_path)
    (root / "sft-1x" / "train.parquet").write_bytes(b"this is not parquet")
    at = _app({"view": "RL"}, session=session)
    err = _errors(at).replace("\\", "")  # markdown escapes
    assert "sft-1x/train.parquet is not a readable Parquet file" in err
    assert "replace" in err  # names the file and says what to do
    assert len(lite_tables(at)[0]) == 60  # the RL prompts are still there
    at = _app({"view": "Browse"}, session=session)
    assert any("needs sft-1x/train.parquet" in i.value for i in at.info)


def test_duplicate_rows_are_counted_once(sample_root: Path, tmp_path: Path) -> None:
    root, session = _local(sample_root, tmp_path)
    path = root / "sft-1x" / "train.parquet"
    df = pl.read_parquet(path)
    pl.concat([df, df.head(3)]).write_parquet(path)
    at = _app(session=session)
    assert len(_browse(at)) == df.height  # browse: each row once
    assert any("3 exact duplicate rows in sft-1x dropped" in i.value for i in at.info)
    at = _app({"view": "Charts"}, session=session)
    scatter = _figs(at)[0]
    points = [u for tr in scatter["data"] for u in (tr.get("customdata") or [])]
    assert len(points) == len(set(points)) == df.height
    at = _app({"view": "Trajectory"}, session=session)
    assert len(light_control(at, "Trajectory").options) == df.height + 1  # the picker, "pick"


def test_rl_prompt_shows_each_message_with_its_role(sample_root: Path, tmp_path: Path) -> None:
    root, session = _local(sample_root, tmp_path)
    path = root / "rl" / "train.parquet"
    df = pl.read_parquet(path)
    first = df["prompt"][0].to_list()
    system = [{"role": "system", "content": "Reason <b>step</b> by step."}, *first]
    df = df.with_columns(
        pl.Series("prompt", [system, *df["prompt"].to_list()[1:]], dtype=df["prompt"].dtype)
    )
    df.write_parquet(path)
    at = _app({"view": "RL"}, session=session)
    assert lite_tables(at)[0].shape[0] == df.height
    at.session_state[rl_table_key(None, None) + "_row"] = 0
    at.run()
    body = _html(at)
    assert body.count('class="rte-rl-message"') == 2
    assert ">system<" in body and ">user<" in body
    assert "&lt;b&gt;step&lt;/b&gt;" in body and "<b>step</b>" not in body


def test_empty_reasoning_is_flagged_and_speedup_undefined(
    sample_root: Path, tmp_path: Path
) -> None:
    root, session = _local(sample_root, tmp_path)
    path = root / "sft-1x" / "train.parquet"
    df = pl.read_parquet(path).select("uuid", "question", "response_reasoning", "response_content")
    df = df.with_columns(
        pl.when(pl.int_range(pl.len()) == 0).then(pl.lit("")).otherwise(pl.col("response_reasoning"))
        .alias("response_reasoning")
    )  # fmt: skip
    df.write_parquet(path)
    uid = df["uuid"][0]
    at = _app({"uuid": uid}, session=session)
    assert not _errors(at)
    metrics = {m.label: m.value for m in shown_metrics(at)}
    assert metrics["speedup T/C"] == "–" and metrics["tokens T"] == "0"
    assert any("reasoning is empty" in w.value for w in at.warning)
    assert "empty_reasoning" in _html(at)


def test_notes_do_not_look_like_warnings() -> None:
    # a valid sample row whose only code is informational (an item without its closing tag)
    at = _app({"uuid": make_uuid("pow2-100-mod7")})
    assert "item_unclosed" in _html(at)
    body = _html(at)
    labels = [e.proto.label for e in at.get("expandable")]
    assert not any("shown as far as it parses" in lbl for lbl in labels)
    assert "⚠" not in body.split("Question.", 1)[-1].split("Whole trajectory", 1)[0]


BAD_NUMBER = re.compile(r"\bNone\b|\bnan\b|(?<![\w.\-])[-−]0(?:\.0+)?(?!\d|[.,]\d)")


@pytest.mark.parametrize(
    "params",
    [
        {"view": "Trajectory", "uuid": FOUR},
        {"view": "1x vs 8x", "uuid": FOUR},
        {"view": "1x vs 8x", "pairs": "all pairs"},
        {"view": "Charts"},
    ],
)
def test_rendered_text_has_no_none_nan_or_negative_zero(params: dict[str, str]) -> None:
    at = _app(params)
    assert not _errors(at)
    texts = [e.value for kind in ("markdown", "caption", "info", "warning") for e in at.get(kind)]
    texts.append(_html(at))
    for df in [frame.value for frame in at.dataframe] + lite_tables(at):
        texts += [str(v) for c in df.columns if df[c].dtype == object for v in df[c]]
    bad = [t for t in texts if BAD_NUMBER.search(str(t))]
    assert not bad, bad[:3]


def test_browse_marks_and_filters_pairs_the_8x_expansion_changed(sample_root: Path) -> None:
    """Browse counts each pair's added branches (the 1x vs 8x tab's definition, computed here
    pair by pair), sorts by it and keeps only the changed pairs on request."""
    texts = {}
    for sub in ("sft-1x", "sft-8x"):
        rows = pl.read_parquet(sample_root / "parason" / sub / "train.parquet").to_dicts()
        texts[sub] = {r["uuid"]: trajectory_text(r)[0] for r in rows}
    want = {
        u[:8]: sum(added_branches(parse(texts["sft-1x"][u]), parse(t8)).values())
        for u, t8 in texts["sft-8x"].items()
        if u in texts["sft-1x"]
    }
    at = _app({"sort": "8x added branches", "desc": "true"})
    df = _browse(at)
    assert df["added"].tolist() == sorted(df["added"].tolist(), reverse=True)
    assert {u: a for u, a in zip(df["uuid"], df["added"], strict=True) if u in want} == want
    changed = sum(1 for a in want.values() if a > 0)
    assert 0 < changed < len(df)
    captions = " ".join(c.value for c in at.caption)
    assert f"{changed:,} changed by the 8x expansion" in captions
    at = _app({"grown": "true"})
    shown = _browse(at)
    assert len(shown) == changed and (shown["added"] > 0).all()
    assert f"{changed:,} of {len(df):,} trajectories in sft-1x" in " ".join(
        c.value for c in at.caption
    )


def test_dags_are_light_until_zoom_is_on() -> None:
    at = _app({"uuid": FOUR, "view": "1x vs 8x"})
    assert len(lite_specs(at)) == 2 and not plotly_specs(at)  # no Plotly bundle at first paint
    at = choose(at, "zoom", True)
    assert not _errors(at) and len(plotly_specs(at)) == 2 and not lite_specs(at)
    lite = figures(_app({"uuid": FOUR}))
    plotly = figures(_app({"uuid": FOUR, "zoom": "true"}))
    assert len(lite) == len(plotly) == 1  # the same DAG: the same traces, nodes and labels
    assert [t["name"] for t in lite[0]["data"]] == [t["name"] for t in plotly[0]["data"]]
    for a, b in zip(lite[0]["data"], plotly[0]["data"], strict=True):
        assert a["customdata"] == b.get("customdata")
        assert a["text"] == b.get("text")


def test_browse_opens_on_a_light_table_and_the_grid_switch_shows_the_same_rows() -> None:
    at = _app()
    assert not at.dataframe  # a new tab draws no data grid
    lite = _browse(at)
    payload = lite_payloads(at)[0]
    assert payload["pickable"] and payload["label"] == "sft-1x trajectories"
    labels = {c["name"]: c["label"] for c in payload["cols"]}
    assert labels["correctness"] == "correct" and labels["added"] == "8x added"
    at = _app({"grid": "true"})
    assert not lite_payloads(at)
    grid = at.dataframe[0].value
    assert grid["uuid"].tolist() == lite["uuid"].tolist()
    assert at.dataframe[0].proto.selection_mode  # the grid's rows open their DAG as before
