"""AppTest of the FineProofs page: overview, deep link to a trace, filters, collection tab, and
bad data (missing trace, missing shard, corrupt .json.gz, bad histograms, NaN grades, extras).
The component functions (figures, HTML, phrases) are tested in tests/components/fineproofs/."""

from __future__ import annotations

import base64
import html
import json
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from analysis.fineproofs.utf16 import Utf16Index
from cache.casebook.io import prm_labels
from cache.casebook.model import make_case
from cache.casebook.store import open_store
from cache.fineproofs_io import load_trace
from cache.sample.fineproofs import write_sample
from components.common import casebook as cb
from tests.pages.charts import lite_specs
from tests.pages.conftest import new_app
from tests.pages.controls import choose, chosen, light_control, light_select, tabs
from tests.pages.stats import shown_metrics
from tests.pages.tables import shown_tables

PAGE = "pages/fineproofs.py"


SIDE_FILES_OPEN = ("fp_side_summary_open", "fp_side_manifest_open")


def _app(params: dict[str, str] | None = None) -> AppTest:
    at = new_app()
    for k, v in (params or {}).items():
        at.query_params[k] = v
    for side in SIDE_FILES_OPEN:  # the side files' contents are drawn while open
        at.session_state[side] = True
    at.switch_page(PAGE)
    at.run()
    assert not at.exception
    return at


def _text_view(at: AppTest) -> str:
    """The HTML handed to the Trace tab's click_text component ("" when it is not drawn)."""
    comps = [c for c in at.get("bidi_component") if c.proto.component_name == "rte_click_text"]
    assert len(comps) <= 1
    return json.loads(comps[0].proto.json)["html"] if comps else ""


def _grid(at: AppTest) -> str:
    """The HTML of the Overview grid (a click_text component; "" when it is not drawn)."""
    comps = [c for c in at.get("bidi_component") if c.proto.component_name == "rte_click_text"]
    htmls = [json.loads(c.proto.json)["html"] for c in comps]
    grids = [h for h in htmls if "data-testid='fp-grid'" in h]
    assert len(grids) <= 1
    return grids[0] if grids else ""


def _html(at: AppTest) -> str:
    """Every HTML the page drew: st.html blocks and the trace text component."""
    return "\n".join([*(h.proto.body for h in at.get("html")), _text_view(at)])


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
    assert tabs(at).options == ["Overview", "Trace", "Collection"] and tabs(at).shown == "Overview"
    assert not _errors(at)
    caps = " ".join(c.value for c in at.caption)
    n = (
        pl.read_parquet(sample_fp / "data/prefix_values.parquet")
        .select("problem_id", "sample_index")
        .n_unique()
    )
    assert f"{n} of {n} traces match" in caps and "rows 1–25" in caps
    # the first paint loads no Plotly: the grid is an HTML table (bench/first_paint.py)
    assert not at.get("plotly_chart")
    grid = _grid(at)
    assert grid.count("<tr>") + grid.count("<tr class='sel'>") == 1 + 25  # header + one page
    assert "data-pick='24:" in grid and "data-pick='25:" not in grid
    assert len(grid) < 200_000


def test_sort_and_source_filter(sample_fp: Path) -> None:
    at = _app()
    choose(at, "src", ("aops",))
    assert not at.exception and not at.error, _errors(at)
    df = pl.read_parquet(sample_fp / "data/prefix_values.parquet")
    n_aops = df.filter(pl.col("source") == "aops").select("problem_id", "sample_index").n_unique()
    caps = " ".join(c.value for c in at.caption)
    assert f"{n_aops} of " in caps
    table = shown_tables(at)[0]
    assert set(table["source"]) == {"aops"}
    choose(at, "sort", "endpoint")
    assert not at.exception and not at.error, _errors(at)
    table = shown_tables(at)[0]
    ends = [e for e in table["endpoint"].tolist() if e == e]
    assert ends == sorted(ends, reverse=True)


def test_deep_link_restores_sort_filters_columns_and_page(sample_fp: Path) -> None:
    at = _app({"sort": "endpoint grade", "desc": "false", "src": ["aops", "putnam"],
               "grade": ["0.25", "1.0"], "axis": "depth", "color": "change", "rows": "25"})  # fmt: skip
    assert not at.error, _errors(at)
    assert light_select(at, "Sort rows by").shown == "endpoint grade"
    assert chosen(at, "sort") == "endpoint" and not light_control(at, "Descending").on
    assert chosen(at, "src") == ("aops", "putnam") and chosen(at, "grade") == (0.25, 1.0)
    sources = light_control(at, "Sources")
    assert (sources.kind, [sources.options[i] for i in sources.chosen]) == (
        "multi",
        ["aops", "putnam"],
    )
    assert light_control(at, "Endpoint grade range").value == [0.25, 1.0]
    assert (chosen(at, "axis"), chosen(at, "color"), chosen(at, "rows")) == ("depth", "change", 25)
    assert light_control(at, "Columns").shown == "depth"
    table = shown_tables(at)[0]
    assert set(table["source"]) <= {"aops", "putnam"}
    ends = table["endpoint"].tolist()
    assert all(e >= 0.25 - 1e-9 for e in ends) and ends == sorted(ends)
    grid = _grid(at)
    assert "<th></th><th>0.0</th><th>0.1</th>" in grid and "(binned, lower edge)" in grid
    assert "· change:</span>-0.5" in grid and "rgb(103, 0, 31)" in grid  # RdBu, diverging around 0


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
    text_view = _text_view(at)
    assert text_view.count("data-picked") == 1  # the selected prefix is scrolled into view
    assert 'data-pick="2" data-picked' in text_view and "outline: 3px" in text_view
    # value curve + histogram heatmap, light charts: no Plotly bundle for a trace's link
    assert not at.get("plotly_chart") and len(lite_specs(at)) == 2
    assert len(at.get("download_button")) == 2
    table = shown_tables(at)[0]
    assert list(table["ordinal"]) == list(range(1, len(rec.steps) + 1))
    assert "branch_id" in table.columns  # unknown extra column shown as stored


def test_unknown_trace_in_link_is_a_message(sample_fp: Path) -> None:
    at = _app({"problem": "0123456789abcdef", "sample": "3"})
    assert "No prefix rows for problem 0123456789abcdef" in _errors(at)
    # a way to open another trace: the box for a typed problem id and sample
    assert (
        light_control(at, "Open a trace: its problem id (the start is enough) and sample").kind
        == "text"
    )


def test_a_links_bad_sample_or_prefix_is_said(sample_fp: Path) -> None:
    """A sample that is no number, or a prefix the trace lacks, gets a note saying what the
    link asked for (they fell back without a word); a good link gets none."""
    pid, sample = _astral_trace(sample_fp)
    warnings = lambda at: "\n".join(w.value for w in at.warning)  # noqa: E731
    at = _app({"problem": pid, "sample": "abc", "view": "Trace"})
    assert "The link's sample “abc” is not a sample number" in warnings(at)
    at = _app({"problem": pid, "sample": str(sample), "prefix": "999", "view": "Trace"})
    assert "asks for prefix “999”, which this trace does not have" in warnings(at)
    at = _app({"problem": pid, "sample": str(sample), "prefix": "-1", "view": "Trace"})
    assert "asks for prefix “\\-1”" in warnings(at)  # Markdown-escaped, shown as -1
    at = _app({"problem": pid, "sample": str(sample), "prefix": "2", "view": "Trace"})
    assert "The link" not in warnings(at)


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
    assert not at.get("plotly_chart")  # light charts: no Plotly bundle at first paint
    charts = lite_specs(at)
    assert len(charts) >= 3
    depth, shapes = charts[:2]  # the depth heatmap, traces per failure shape
    assert shapes["axes"]["xaxis"]["title"] == "failure shape"
    assert shapes["axes"]["yaxis"]["title"] == "traces"
    # the heatmap: a cell a (source, depth bin) of the derived table, its hover the same numbers
    cells = [t for t in depth["traces"] if t["xaxis"] == "x"]
    assert sum(len(t["x"]) for t in cells) >= 1
    assert all(tip.count("median") == 1 and "n=" in tip for t in cells for tip in t["tips"])


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
    assert not at.get("plotly_chart") and "data-pick" in _grid(at) and not _errors(at)


def test_missing_shard_and_missing_trace_keep_the_rest(bad_copy: dict) -> None:
    s = str(bad_copy["sample"])
    at = _app({"problem": bad_copy["no_shard"], "sample": s})
    assert "is missing" in _errors(at) and "Traceback" not in _errors(at)
    assert len(lite_specs(at)) == 2 and len(shown_tables(at)) == 1  # curve + table still there
    at = _app({"problem": bad_copy["not_in_shard"], "sample": s})
    assert "is not in the export" in _errors(at)
    assert len(at.get("download_button")) == 2


def test_corrupt_shard_message(bad_copy: dict) -> None:
    pid, sample = bad_copy["corrupt"]
    at = _app({"problem": pid, "sample": str(sample)})
    assert "cannot decompress" in _errors(at) and len(at.error) == 1  # only the text section
    assert len(lite_specs(at)) == 2


def test_bad_histograms_nan_grades_and_extra_columns(bad_copy: dict) -> None:
    pid, sample = bad_copy["bad_hist"]
    at = _app({"problem": pid, "sample": str(sample)})
    assert not _errors(at), _errors(at)
    caps = " ".join(c.value for c in at.caption)
    assert "no usable histogram" in caps
    table = shown_tables(at)[0]
    assert "judge_notes" in table.columns and table["judge_notes"][0] == "<b>not html</b>"
    assert "<b>not html</b>" not in _html(at)
    assert any("no-grade" in str(f) for f in table["flags"])


def test_collection_renders_unknown_keys(bad_copy: dict) -> None:
    at = _app({"view": "Collection"})
    assert not at.exception and not _errors(at)
    assert any("odd" in m.value for m in at.markdown)
    caps = " ".join(c.value for c in at.caption)
    assert "1 traces (" in caps and "are in shards that are not" in caps  # the missing-shard trace


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
def test_source_figure_is_sent_as_plain_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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
    metric = next(m for m in shown_metrics(at) if m.label == "source")
    # the stat row sets it as text in the browser (no Markdown): the characters as they are
    # (tests/e2e/test_safe_text_e2e.py: a hostile value shows as text and runs nothing)
    assert metric.value == "[x](http://e)"
    at = _app({"view": "Collection"})
    assert not at.error, _errors(at)


# ---------------------------------------------------------------- UI review (polish)
def test_trace_caption_says_rose_or_fell(sample_fp: Path) -> None:
    at = _app({"problem": "7adf0da42b1b4f46", "sample": "6"})
    caps = " ".join(c.value for c in at.caption)
    assert "total decline" not in caps and "from first to last prefix" in caps
    assert len(at.get("download_button")) == 2


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
    row = shown_tables(at)[0].set_index("ordinal").loc[3]
    assert heads == [f"**Selected step · prefix 3 · step {row['step']} of {row['num_steps']}**"]
    metrics = {m.label: m.value for m in shown_metrics(at)}
    assert metrics["value"] == f"{row['value']:.3f}"
    assert metrics["± 2 SE"] == f"{2 * row['se']:.3f}"
    assert metrics["change"] == row["change"]  # a column with gaps is shown as text: "+0.123"
    assert metrics["n graded"] == f"{row['n']:.0f}"
    caps = " ".join(c.value for c in at.caption)
    assert "grades 0 → 1:" in caps or "no usable histogram" in caps
    body = _html(at)
    assert 'id="fp-step-3"' in body and "outline: 3px" in body
    # every step is a data-pick span with its own prefix: a click selects it in place
    picks = re.findall(r'class="fp-step"[^>]* data-pick="(\d+)"', _text_view(at))
    assert picks == [str(k) for k in range(1, shown_tables(at)[0].shape[0] + 1)]
    assert "href=" not in _text_view(at)  # no reload links
    # no prefix in the link: no panel
    at = _app({"view": "Trace", "problem": pid, "sample": str(sample)})
    assert not [m for m in at.markdown if m.value.startswith("**Selected step")]


# ---------------------------------------------------------------- casebook capture
def _stored(url: str) -> list:  # type: ignore[type-arg]  # list of Case
    return open_store(url).list_cases(dataset="fineproofs")


def _add_case(url: str, item: dict[str, str], title: str = "seen before") -> None:
    open_store(url).add(
        make_case(
            "fineproofs",
            "fineproofs",
            query=[("problem", item["problem"])],
            source={"kind": "sample"},
            item=item,
            title=title,
            note="**bold** <i>x</i>",
            author="ada",
            snapshot={},
        )  # fmt: skip
    )


def test_capture_a_trace_from_the_trace_tab(sample_fp: Path, db: str) -> None:
    pid, sample = _astral_trace(sample_fp)
    at = _app({"view": "Trace", "problem": pid, "sample": str(sample)})
    key = f"cb_fp_trace_{pid}_{sample}"
    assert at.text_input(key=f"{key}_title").value == f"Trace {pid} · sample {sample}"
    at.text_input(key=f"{key}_title").set_value("value collapses at step 3")
    at.multiselect(key=f"{key}_tags").select("value collapse")
    at.selectbox(key=f"{key}_verdict").set_value("confirmed")
    at.button(key=f"{key}_save").click().run()
    assert not at.exception and not _errors(at), _errors(at)
    (case,) = _stored(db)
    assert (case.dataset, case.view, case.title) == (
        "fineproofs",
        "fineproofs",
        "value collapses at step 3",
    )
    assert case.item == {"problem": pid, "sample": str(sample)}
    assert case.tags == ("value collapse",) and case.verdict == "confirmed"
    q = dict(case.query)
    assert q["problem"] == pid and q["sample"] == str(sample)
    assert case.source["file"] == "data/prefix_values.parquet" and case.source["kind"] == "sample"
    info = pl.read_parquet(sample_fp / "data/prefix_values.parquet").filter(
        (pl.col("problem_id") == pid) & (pl.col("sample_index") == sample)
    )
    snap = case.snapshot
    assert snap["n_prefixes"] == info.height
    assert {
        "endpoint_grade",
        "num_steps",
        "largest_drop",
        "first_error_step",
        "total_decline",
    } <= set(snap)
    metrics = {m.label: m.value for m in shown_metrics(at)}
    assert metrics["endpoint grade"] == f"{snap['endpoint_grade']:.3f}"
    # the new case is shown inline on the trace
    assert any(e.label.endswith("1 case on this item") for e in at.main.expander)


def test_label_a_prefix_step_becomes_a_prm_label(sample_fp: Path, db: str) -> None:
    pid, sample = _astral_trace(sample_fp)
    at = _app({"view": "Trace", "problem": pid, "sample": str(sample), "prefix": "3"})
    key = f"cb_fp_step_{pid}_{sample}_3"
    assert at.selectbox(key=f"{key}_verdict").options == ["—", *cb.STEP_VERDICTS]
    at.selectbox(key=f"{key}_verdict").set_value("first error")
    at.text_area(key=f"{key}_note").set_value("the bound is used before it is shown")
    at.button(key=f"{key}_save").click().run()
    assert not at.exception and not _errors(at), _errors(at)
    (case,) = _stored(db)
    row = shown_tables(at)[0].set_index("ordinal").loc[3]
    # the item names the source row's step_idx, so a label joins back to prefix_values.parquet
    assert case.item == {
        "problem": pid, "sample": str(sample), "prefix": "3", "step": str(int(row["step"]))
    }  # fmt: skip
    assert dict(case.query)["prefix"] == "3"
    snap = case.snapshot
    assert snap["prefix"] == 3 and snap["step"] == row["step"]
    assert snap["value"] == pytest.approx(row["value"]) and snap["n"] == row["n"]
    assert {"change", "z", "se", "sig_drop", "recovery", "first_error", "flags"} <= set(snap)
    labels = prm_labels([case])
    assert labels.row(0)[:6] == (
        pid, sample, int(row["step"]), 3, "first error", "the bound is used before it is shown"
    )  # fmt: skip
    # inline: on the step panel and, as a case of this trace, under the trace header
    assert sum(e.label.endswith("1 case on this item") for e in at.main.expander) == 2
    # a second capture on the step is a choice: its form names the step's case, linked (the
    # trace's form does not: the case is on a step of it, not on the trace)
    at.button(key=f"{key}_again").click().run()
    said = [c.value for c in at.caption if "This item has" in c.value]
    assert len(said) == 1, said
    assert said[0].startswith(":material/bookmark: This item has 1 case already")
    assert f"(casebook?case={case.id}) by tester" in said[0], said


def test_overview_marks_traces_with_cases(sample_fp: Path, db: str) -> None:
    at = _app()
    first = shown_tables(at)[0].iloc[0]
    pid, sample = str(first["problem_id"]), int(first["sample_index"])
    assert "cases" in shown_tables(at)[0].columns
    assert "●" not in _grid(at)
    _add_case(db, {"problem": pid, "sample": str(sample)})
    _add_case(db, {"problem": pid, "sample": str(sample), "prefix": "2"})
    at = _app()
    assert not _errors(at), _errors(at)
    table = shown_tables(at)[0]
    assert table["cases"].iloc[0] == "● 2" and set(table["cases"].iloc[1:]) == {""}
    rows = _grid(at).split("<tbody>")[1].split("</tr>")
    assert "● 2</b>" in rows[0] and not any("● " in r for r in rows[1:])


def test_inline_cases_on_the_opened_trace_and_step(sample_fp: Path, db: str) -> None:
    pid, sample = _astral_trace(sample_fp)
    _add_case(db, {"problem": pid, "sample": str(sample), "prefix": "2"}, title="<b>step 2</b>")
    at = _app({"view": "Trace", "problem": pid, "sample": str(sample), "prefix": "3"})
    labels = [e.label for e in at.main.expander]
    assert sum(lab.endswith(" on this item") for lab in labels) == 1  # the trace's only
    body = _html(at)
    assert "&lt;b&gt;step 2&lt;/b&gt;" in body and "<strong>bold</strong>" in body
    assert "<i>x</i>" not in body
    at = _app({"view": "Trace", "problem": pid, "sample": str(sample), "prefix": "2"})
    assert sum(e.label.endswith(" on this item") for e in at.main.expander) == 2


def test_the_side_files_are_drawn_while_open_only() -> None:
    """Closed, the side files' expanders draw none of their charts (each is a component a new
    tab would mount); opened, they do."""
    at = new_app()
    at.query_params["view"] = "Collection"
    at.switch_page(PAGE)
    at.run()
    assert not at.exception
    assert [e.label for e in at.main.expander] == ["summary.json", "trace_manifest.json"]
    assert not [h for e in at.main.expander for h in e.get("html")]
    opened = _app({"view": "Collection"})
    assert [h for e in opened.main.expander for h in e.get("html")]


@pytest.mark.parametrize(
    "grade", [["0.5"], ["0.9", "0.1"], ["x", "1"], ["nan", "1"], ["-1", "1"], ["0", "inf"]]
)
def test_a_range_or_source_a_link_cannot_hold_opens_the_default(sample_fp: Path, grade) -> None:
    """A grade range that is not two numbers within [0, 1], low first, opens the whole range
    (and leaves the URL); a source that is not in the data is left out."""
    at = _app({"grade": grade, "src": ["nosuch", "aops"]})
    assert not _errors(at), _errors(at)
    assert chosen(at, "grade") == (0.0, 1.0) and "grade" not in at.query_params
    assert chosen(at, "src") == ("aops",)
    assert at.query_params["src"] in ("aops", ["aops"])  # one value: AppTest gives it bare


def test_the_row_picker_names_its_columns_and_shows_the_telling_ones_first(sample_fp: Path) -> None:
    """The Overview's trace table reads in words (not column names), the figures a reader scans
    first before the rest (at 1024 px the last ones scroll), each explained in its header's tip."""
    from tests.pages.tables import lite_payloads

    at = _app()
    (table,) = [p for p in lite_payloads(at) if p["label"] == "traces on this page"]
    labels = [c["label"] for c in table["cols"]]
    assert labels[:9] == [
        "problem", "sample", "cases", "shape", "endpoint grade", "largest drop",
        "significant drops", "recoveries", "bimodal prefixes",
    ]  # fmt: skip
    assert "problem_id" not in labels and "n_sig_drops" not in labels
    tips = {c["label"]: c["help"] for c in table["cols"]}
    assert "z < −2" in tips["significant drops"]
