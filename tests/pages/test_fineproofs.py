"""AppTest of the FineProofs page: overview, deep link to a trace, filters, collection tab, and
bad data (missing trace, missing shard, corrupt .json.gz, bad histograms, NaN grades, extras)."""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path
from urllib.parse import parse_qsl

import numpy as np
import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from analysis.fineproofs.utf16 import Utf16Index
from cache.fineproofs_io import load_trace
from cache.sample.fineproofs import write_sample
from tests.pages.conftest import new_app

PAGE = "pages/fineproofs.py"


def _app(params: dict[str, str] | None = None) -> AppTest:
    at = new_app()
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.switch_page(PAGE)
    at.run()
    assert not at.exception
    return at


def _html(at: AppTest) -> str:
    return "\n".join(h.proto.body for h in at.get("html"))


def _arr(v: object) -> np.ndarray:
    """A plotly JSON array, plain or typed (`{"dtype", "bdata"}` base64)."""
    if isinstance(v, dict) and "bdata" in v:
        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
    return np.asarray(v if v is not None else [], dtype=np.float64)


def _errors(at: AppTest) -> str:
    return "\n".join(e.value for e in at.error)


def _astral_trace(root: Path) -> tuple[str, int]:
    df = pl.read_parquet(root / "data/prefix_values.parquet")
    for pid, sample in df.select("problem_id", "sample_index").unique(maintain_order=True).rows():
        if not Utf16Index(load_trace(root, pid, sample).text).fast_path:
            return pid, sample
    raise AssertionError("no astral trace")


@pytest.fixture()
def sample_fp(sample_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("RTE_FINEPROOFS_SOURCE", raising=False)
    return sample_root / "fineproofs"


def test_overview_renders_one_page(sample_fp: Path) -> None:
    at = _app()
    assert [t.label for t in at.tabs] == ["Overview", "Trace", "Collection"]
    assert not _errors(at)
    caps = " ".join(c.value for c in at.caption)
    n = (
        pl.read_parquet(sample_fp / "data/prefix_values.parquet")
        .select("problem_id", "sample_index")
        .n_unique()
    )
    assert f"{n} of {n} traces match" in caps and "rows 1–25" in caps
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    fig = json.loads(charts[0].proto.spec)
    ys = np.concatenate([_arr(t.get("y")) for t in fig["data"]])
    assert ys.max() == 24  # 25 rows on the page, not all traces
    assert len(charts[0].proto.spec) < 2_000_000


def test_sort_and_source_filter(sample_fp: Path) -> None:
    at = _app()
    at.multiselect(key="src").select("aops").run()
    assert not at.exception and not at.error, _errors(at)
    df = pl.read_parquet(sample_fp / "data/prefix_values.parquet")
    n_aops = df.filter(pl.col("source") == "aops").select("problem_id", "sample_index").n_unique()
    caps = " ".join(c.value for c in at.caption)
    assert f"{n_aops} of " in caps
    table = at.dataframe[0].value
    assert set(table["source"]) == {"aops"}
    at.selectbox(key="sort").set_value("endpoint").run()
    assert not at.exception and not at.error, _errors(at)
    table = at.dataframe[0].value
    ends = [e for e in table["endpoint"].tolist() if e == e]
    assert ends == sorted(ends, reverse=True)


def test_deep_link_restores_sort_filters_columns_and_page(sample_fp: Path) -> None:
    at = _app({"sort": "endpoint grade", "desc": "false", "src": ["aops", "putnam"],
               "grade": ["0.25", "1.0"], "axis": "depth", "color": "change", "rows": "25"})  # fmt: skip
    assert not at.error, _errors(at)
    assert at.selectbox(key="sort").value == "endpoint"
    assert at.multiselect(key="src").value == ["aops", "putnam"]
    assert at.slider(key="grade").value == (0.25, 1.0)
    assert {b.key: b.value for b in at.get("button_group")} == {"axis": "depth", "color": "change"}
    table = at.dataframe[0].value
    assert set(table["source"]) <= {"aops", "putnam"}
    ends = table["endpoint"].tolist()
    assert all(e >= 0.25 - 1e-9 for e in ends) and ends == sorted(ends)
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert fig["layout"]["xaxis"]["ticktext"][0] == "0.0–0.1"
    assert fig["data"][0]["type"] == "heatmap"  # colours fill the cell; markers on top take clicks
    assert fig["data"][0]["colorscale"][0][1].startswith("rgb(103")  # RdBu: diverging
    assert fig["data"][1]["marker"]["opacity"] == 0 and fig["layout"]["hoverdistance"] >= 40


def test_deep_link_shows_trace_with_highlighted_steps(sample_fp: Path) -> None:
    pid, sample = _astral_trace(sample_fp)
    at = _app({"problem": pid, "sample": str(sample), "prefix": "2"})
    assert not _errors(at), _errors(at)
    assert at.subheader[0].value == f"Trace {pid} · sample {sample}"
    body = _html(at)
    rec = load_trace(sample_fp, pid, sample)
    idx = Utf16Index(rec.text)
    for k, s in enumerate(rec.steps, start=1):
        step = idx.slice(s.utf16_start, s.utf16_end)
        assert step is not None
        assert f'id="fp-step-{k}"' in body
        assert html.escape(step, quote=True) in body
    assert "scrollTop" in body  # the selected prefix scrolls its step into view
    assert "outline: 3px" in body
    assert len(at.get("plotly_chart")) == 2  # value curve + histogram heatmap
    assert len(at.get("download_button")) == 2
    table = at.dataframe[0].value
    assert list(table["ordinal"]) == list(range(1, len(rec.steps) + 1))
    assert "branch_id" in table.columns  # unknown extra column shown as stored


def test_unknown_trace_in_link_is_a_message(sample_fp: Path) -> None:
    at = _app({"problem": "0123456789abcdef", "sample": "3"})
    assert "No prefix rows for problem 0123456789abcdef" in _errors(at)
    assert at.text_input(key="fp_pid_in") is not None  # a way to open another trace


def test_collection_tab_renders_side_files(sample_fp: Path) -> None:
    at = _app({"view": "Collection"})
    assert not _errors(at)
    # the derived charts come first; the side files are folded into expanders, scalars in an
    # escaped HTML table whose cells wrap (a long run name was cut off in a dataframe cell)
    heads = [m.value for m in at.markdown if m.value.startswith("####")]
    assert heads[:2] == [
        "#### Value by relative depth (derived from the prefix table)",
        "#### Failure shapes of the traces",
    ]
    assert [e.label for e in at.main.expander] == ["summary.json", "trace_manifest.json"]
    kv = "\n".join(h.proto.body for e in at.main.expander for h in e.get("html"))
    for key in ("run", "n_prefixes", "n_traces_expected"):
        assert f">{key}</td>" in kv
    summary = json.loads((sample_fp / "data/summary.json").read_text())
    assert f">{html.escape(summary['run'])}</td>" in kv and "overflow-wrap:anywhere" in kv
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(charts) >= 3
    shapes = charts[1]  # traces per failure shape
    assert shapes["layout"]["xaxis"]["title"]["text"] == "failure shape"
    assert shapes["layout"]["yaxis"]["title"]["text"] == "traces"


# ---------------------------------------------------------------- bad data (local folder source)
@pytest.fixture()
def bad_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    root = tmp_path / "fp"
    write_sample(root)
    data = root / "data"
    df = pl.read_parquet(data / "prefix_values.parquet")
    traces = df.select("problem_id", "sample_index").unique(maintain_order=True).rows()
    shards = sorted(p.stem.split(".")[0] for p in (data / "traces").glob("*.json.gz"))
    # a trace whose shard file does not exist, and one absent from an existing shard
    no_shard = next(f"{h}{'0' * 14}" for h in (f"{i:02x}" for i in range(256)) if h not in shards)
    not_in_shard = shards[0] + "1" * 14
    corrupt_pid, corrupt_sample = next(t for t in traces if t[0][:2] != shards[0])
    (data / "traces" / f"{corrupt_pid[:2]}.json.gz").write_bytes(b"\x1f\x8b\x08\x00broken")
    template = df.filter(
        (pl.col("problem_id") == traces[0][0]) & (pl.col("sample_index") == traces[0][1])
    )
    extra = [template.with_columns(problem_id=pl.lit(p)) for p in (no_shard, not_in_shard)]
    df = pl.concat([df, *extra])
    # histograms of the wrong length and NaN grades in one more trace
    hist_pid, hist_sample = traces[1]
    mask = (pl.col("problem_id") == hist_pid) & (pl.col("sample_index") == hist_sample)
    df = df.with_columns(
        grade_hist=pl.when(mask & (pl.col("step_idx") % 2 == 0))
        .then(pl.lit([1, 2, 3], dtype=pl.List(pl.Int32)))
        .otherwise(pl.col("grade_hist")),
        mean_grade=pl.when(mask & (pl.col("step_idx") % 2 == 0))
        .then(float("nan"))
        .otherwise(pl.col("mean_grade")),
        judge_notes=pl.lit("<b>not html</b>"),
    )
    df.write_parquet(data / "prefix_values.parquet")
    (data / "summary.json").write_text(json.dumps({"odd": {"nested": [1, 2, 3]}, "x": None}))
    monkeypatch.setenv("RTE_FINEPROOFS_SOURCE", "local")
    monkeypatch.setenv("RTE_FINEPROOFS_PATH", str(root))
    return {
        "root": root,
        "no_shard": no_shard,
        "not_in_shard": not_in_shard,
        "corrupt": (corrupt_pid, corrupt_sample),
        "bad_hist": (hist_pid, hist_sample),
        "sample": traces[0][1],
    }


def test_bad_data_overview_notes_and_still_usable(bad_copy: dict) -> None:
    at = _app()
    warns = " ".join(w.value for w in at.warning)
    assert "histogram that is not 20" in warns and "no usable grade" in warns
    assert len(at.get("plotly_chart")) == 1 and not _errors(at)


def test_missing_shard_and_missing_trace_keep_the_rest(bad_copy: dict) -> None:
    s = str(bad_copy["sample"])
    at = _app({"problem": bad_copy["no_shard"], "sample": s})
    assert "is missing" in _errors(at) and "Traceback" not in _errors(at)
    assert len(at.get("plotly_chart")) == 2 and len(at.dataframe) == 1  # curve + table still there
    at = _app({"problem": bad_copy["not_in_shard"], "sample": s})
    assert "is not in shard" in _errors(at)
    assert len(at.get("download_button")) == 2


def test_corrupt_shard_message(bad_copy: dict) -> None:
    pid, sample = bad_copy["corrupt"]
    at = _app({"problem": pid, "sample": str(sample)})
    assert "cannot decompress" in _errors(at) and len(at.error) == 1  # only the text section
    assert len(at.get("plotly_chart")) == 2


def test_bad_histograms_nan_grades_and_extra_columns(bad_copy: dict) -> None:
    pid, sample = bad_copy["bad_hist"]
    at = _app({"problem": pid, "sample": str(sample)})
    assert not _errors(at), _errors(at)
    caps = " ".join(c.value for c in at.caption)
    assert "no usable histogram" in caps
    table = at.dataframe[0].value
    assert "judge_notes" in table.columns and table["judge_notes"][0] == "<b>not html</b>"
    assert "<b>not html</b>" not in _html(at)
    assert any("no-grade" in str(f) for f in table["flags"])


def test_collection_renders_unknown_keys(bad_copy: dict) -> None:
    at = _app({"view": "Collection"})
    assert not at.exception and not _errors(at)
    assert any("odd" in m.value for m in at.markdown)
    caps = " ".join(c.value for c in at.caption)
    assert "1 traces (" in caps and "are in shards that are not" in caps  # the missing-shard trace


# ---------------------------------------------------------------- escaping (component level)
def test_highlighted_text_and_figures_escape_model_text() -> None:
    from analysis.fineproofs.values import attach_step_text, series_from_values, text_segments
    from components.fineproofs.figures import overview_figure
    from components.fineproofs.text import highlighted_html

    evil = 'Let $x$ <script>alert("x")</script> & <b>bold</b>'
    text = f"{evil}\n\nsecond \U0001d465 step"
    u_end = len(evil)  # no astral char before: UTF-16 == Python here
    u2 = u_end + 2
    steps = [(1, 0, u_end), (2, u2, u2 + len("second \U0001d465 step") + 1)]
    series = series_from_values([0.9, 0.2]).with_columns(flags=pl.Series(['"quoted" <i>', ""]))
    mapped = attach_step_text(series, text, steps).frame
    out = highlighted_html(text, text_segments(text, mapped), mapped)
    assert "<script>" not in out and "<b>bold" not in out
    assert html.escape(evil, quote=True) in out
    assert "&quot;quoted&quot; &lt;i&gt;" in out  # hover title attribute escaped too
    assert "$x$" in out  # maths left as written (no markdown/LaTeX processing in st.html)
    cells = pl.DataFrame(
        {
            "grid_row": [0],
            "problem_id": ["<b>id</b>0000000"],
            "sample_index": [0],
            "grid_col": [1],
            "val": [0.5],
            "step": [1],
            "rel_depth": [1.0],
            "se": [0.1],
            "flags": ["<img src=x>"],
            "ordinal": [1],
        }  # fmt: skip
    )
    traces = pl.DataFrame(
        {"problem_id": ["<b>id</b>0000000"], "sample_index": [0], "endpoint": [0.5]}
    )
    fig = overview_figure(cells, traces)
    labels = list(fig.layout.yaxis.ticktext) + [
        str(h) for t in fig.data for h in (t.hovertext or [])
    ]
    assert labels and not any("<b>id" in x or "<img" in x for x in labels)
    assert any("&lt;b&gt;id" in x for x in labels) and any("&lt;img" in x for x in labels)


def test_missing_required_column_and_corrupt_table(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "fp"
    write_sample(root)
    table = root / "data/prefix_values.parquet"
    pl.read_parquet(table).drop("problem_id").write_parquet(table)
    monkeypatch.setenv("RTE_FINEPROOFS_SOURCE", "local")
    monkeypatch.setenv("RTE_FINEPROOFS_PATH", str(root))
    at = _app()
    assert "required column missing: problem" in _errors(at)
    assert at.title[0].value == "FineProofs prefix values"  # the page itself still renders
    table.write_bytes(b"PAR1" + b"\0" * 64)
    at = _app()
    assert "not a readable parquet file" in _errors(at)


# ---------------------------------------------------------------- review fixes
def test_source_metric_is_markdown_escaped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "fp"
    write_sample(root)
    table = root / "data/prefix_values.parquet"
    df = pl.read_parquet(table).with_columns(source=pl.lit("[x](http://e)"))
    df.write_parquet(table)
    pid, sample = df.select("problem_id", "sample_index").row(0)
    monkeypatch.setenv("RTE_FINEPROOFS_SOURCE", "local")
    monkeypatch.setenv("RTE_FINEPROOFS_PATH", str(root))
    at = _app({"problem": pid, "sample": str(sample)})
    assert not at.error, _errors(at)
    metric = next(m for m in at.metric if m.label == "source")
    assert metric.value == r"\[x\]\(http://e\)"
    at = _app({"view": "Collection"})
    assert not at.error, _errors(at)


def test_depth_heatmap_keeps_sources_with_a_shared_prefix() -> None:
    from components.fineproofs.figures import depth_distribution_figure

    a, b = "s" * 40 + "-alpha", "s" * 40 + "-beta"
    depth = pl.DataFrame(
        {
            "source": [a, b],
            "depth_bin": [0, 0],
            "median": [0.2, 0.8],
            "count": [3, 4],
            "mean": [0.2, 0.8],
            "q25": [0.1, 0.7],
            "q75": [0.3, 0.9],
            "sig_drop_rate": [0.0, 0.5],
        }
    )
    fig = depth_distribution_figure(depth)
    hm = fig.data[0]
    assert len(set(map(str, hm.y))) == 2  # two rows, not one merged row
    assert len(_arr(hm.z).reshape(-1)) == 2 or np.asarray(hm.z).shape[0] == 2
    ticks = list(fig.layout.yaxis.ticktext)
    assert len(ticks) == 2 and len(set(ticks)) == 2


# ---------------------------------------------------------------- UI review (polish)
def test_trace_caption_says_rose_or_fell(sample_fp: Path) -> None:
    from components.fineproofs.view import change_phrase

    assert change_phrase(-0.058) == "value rose by 0.058 from first to last prefix"
    assert change_phrase(0.25) == "value fell by 0.250 from first to last prefix"
    assert "unchanged" in change_phrase(0.0)
    at = _app({"problem": "7adf0da42b1b4f46", "sample": "6"})
    caps = " ".join(c.value for c in at.caption)
    assert "total decline" not in caps and "from first to last prefix" in caps
    assert len(at.get("download_button")) == 2


def test_value_curve_marks_do_not_overlap_and_end_tick_is_labelled() -> None:
    from analysis.fineproofs.values import series_from_values
    from components.fineproofs.figures import value_curve_figure

    series = series_from_values([0.8, 0.8, 0.1, 0.1]).with_columns(
        sig_drop=pl.Series([False, False, True, False]),
        first_error=pl.Series([False, False, True, False]),
        endpoint=pl.lit(0.7),
    )
    fig = value_curve_figure(series)
    by_name = {t.name: t for t in fig.data}
    drop_y = float(_arr(by_name["significant drop"].y)[0])
    fe_y = float(_arr(by_name["first-error candidate"].y)[0])
    assert abs(drop_y - fe_y) > 0.1  # one above, one below the point at 0.1
    assert drop_y > 0.1 > fe_y
    lo, hi = fig.layout.yaxis.range
    assert lo < fe_y and drop_y < hi  # both inside the plot
    end_x = float(_arr(by_name["endpoint grade"].x)[0])
    ticks = dict(zip(fig.layout.xaxis.tickvals, fig.layout.xaxis.ticktext, strict=True))
    assert ticks[end_x] == "end" and ticks[1] == "1"
    depth = value_curve_figure(series, x="rel_depth")
    d_end = float(_arr({t.name: t for t in depth.data}["endpoint grade"].x)[0])
    assert (
        dict(zip(depth.layout.xaxis.tickvals, depth.layout.xaxis.ticktext, strict=True))[d_end]
        == "end"
    )


def test_overview_height_follows_rows_and_bars_have_horizontal_labels() -> None:
    from components.fineproofs.figures import ROW_PX, bar_figure, overview_figure

    def fig_for(n: int):
        cells = pl.DataFrame(
            {
                "grid_row": list(range(n)),
                "problem_id": [f"{i:016x}" for i in range(n)],
                "sample_index": [0] * n,
                "grid_col": [1] * n,
                "val": [0.5] * n,
                "step": [1] * n,
                "rel_depth": [1.0] * n,
                "se": [0.1] * n,
                "flags": [""] * n,
                "ordinal": [1] * n,
            }
        )
        traces = cells.select("problem_id", "sample_index").with_columns(endpoint=pl.lit(0.5))
        return overview_figure(cells, traces)

    small, big = fig_for(5), fig_for(50)
    assert big.layout.height - small.layout.height == 45 * ROW_PX
    assert small.layout.margin.t <= 10
    assert small.layout.yaxis.range[1] == -0.5  # first row at the very top
    bars = bar_figure(list(range(20)), [f"{i / 20:.2f}–{(i + 1) / 20:.2f}" for i in range(20)])
    assert bars.layout.xaxis.tickangle == 0 and len(bars.layout.xaxis.ticktext) <= 6
    assert bars.layout.yaxis.title.text == "count"


def test_kv_table_escapes_and_wraps() -> None:
    from components.fineproofs.view import kv_table_html

    out = kv_table_html({"<k>": '<script>alert("x")</script>', "n": 3, "none": None})
    assert "<script>" not in out and "&lt;script&gt;" in out and "&lt;k&gt;" in out
    assert ">3</td>" in out and ">null</td>" in out
    assert "overflow-wrap:anywhere" in out


def test_prefix_link_shows_the_step_statistics_panel(sample_fp: Path) -> None:
    pid, sample = _astral_trace(sample_fp)
    link = {
        "view": "Trace",
        "problem": pid,
        "sample": str(sample),
        "tcolor": "change",
        "prefix": "3",
    }
    at = _app(link)
    assert not _errors(at), _errors(at)
    heads = [m.value for m in at.markdown if m.value.startswith("**Selected step")]
    row = at.dataframe[0].value.set_index("ordinal").loc[3]
    assert heads == [f"**Selected step · prefix 3 · step {row['step']} of {row['num_steps']}**"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["value"] == f"{row['value']:.3f}"
    assert metrics["± 2 SE"] == f"{2 * row['se']:.3f}"
    assert metrics["change"] == f"{row['change']:+.3f}"
    assert metrics["n graded"] == f"{row['n']:.0f}"
    caps = " ".join(c.value for c in at.caption)
    assert "grades 0 → 1:" in caps or "no usable histogram" in caps
    body = _html(at)
    assert 'id="fp-step-3"' in body and "outline: 3px" in body
    # every step is a link to the current URL with its own prefix (other params kept)
    hrefs = [html.unescape(h) for h in re.findall(r'class="fp-step"[^>]* href="([^"]*)"', body)]
    assert len(hrefs) == at.dataframe[0].value.shape[0]
    for k, h in enumerate(hrefs, start=1):
        q = dict(parse_qsl(h.removeprefix("?")))
        assert q["prefix"] == str(k) and q["problem"] == pid and q["sample"] == str(sample)
        assert q["tcolor"] == "change"
    # no prefix in the link: no panel
    at = _app({"view": "Trace", "problem": pid, "sample": str(sample)})
    assert not [m for m in at.markdown if m.value.startswith("**Selected step")]
