"""AppTest of what makes the FineProofs figures trustworthy (issue 30): the Benjamini-Hochberg
switch changes the drop flags everywhere, the Trace tab counts its z-tests, and no rendered
text shows "None", "nan" or a negative zero."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.conftest import new_app
from tests.pages.controls import light_control
from tests.pages.stats import shown_metrics
from tests.pages.tables import lite_payloads, shown_tables

PAGE = "pages/fineproofs.py"
BAD = [
    re.compile(r"\bNone\b"),
    re.compile(r"\bnan\b", re.IGNORECASE),
    re.compile(r"(?<![\w.])[-−]0(?:\.0+)?(?![\d.])"),  # "-0", "-0.000", "−0"
]


@pytest.fixture()
def sample_fp(sample_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("RTE_FINEPROOFS_SOURCE", raising=False)
    return sample_root / "fineproofs"


def _app(params: dict[str, str] | None = None) -> AppTest:
    at = new_app()
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.switch_page(PAGE)
    at.run()
    assert not at.exception
    return at


def _grid(at: AppTest) -> str:
    comps = [c for c in at.get("bidi_component") if c.proto.component_name == "rte_click_text"]
    grids = [json.loads(c.proto.json)["html"] for c in comps]
    return "".join(h for h in grids if "data-testid='fp-grid'" in h)


def _chrome(at: AppTest) -> list[str]:
    """The page's own text: captions, markdown, metrics, info/warnings, st.html and the grid
    (not the trace text, which is the dataset's)."""
    out = [c.value for c in at.caption] + [m.value for m in at.markdown]
    out += [f"{m.label} {m.value}" for m in shown_metrics(at)]
    out += [e.value for e in [*at.info, *at.warning, *at.error]]
    out += [h.proto.body for h in at.get("html")] + [_grid(at)]
    return out


def _trace_of(sample_fp: Path, at: AppTest) -> tuple[str, int]:
    first = shown_tables(at)[0].iloc[0]
    return str(first["problem_id"]), int(first["sample_index"])


def test_bh_switch_flags_fewer_drops_and_says_so(sample_fp: Path) -> None:
    plain = _app({"rows": "100"})
    bh = _app({"rows": "100", "fdr": "true"})
    switch = "Benjamini-Hochberg drop flags (FDR 5 % per trace)"
    assert not light_control(plain, switch).on and light_control(bh, switch).on
    n_plain = int(shown_tables(plain)[0]["n_sig_drops"].sum())
    n_bh = int(shown_tables(bh)[0]["n_sig_drops"].sum())
    assert 0 < n_bh <= n_plain
    assert "(z &lt; −2 and change ≤ −0.15, each test alone)" in _grid(plain)
    assert "(Benjamini-Hochberg, q = 0.05)" in _grid(bh)
    assert _grid(plain).count("▼") >= _grid(bh).count("▼") > 0


def test_trace_tab_counts_its_tests_and_formats_z(sample_fp: Path) -> None:
    pid, sample = _trace_of(sample_fp, _app())
    at = _app({"problem": pid, "sample": str(sample), "prefix": "2"})
    caps = " ".join(c.value for c in at.caption)
    df = pl.read_parquet(sample_fp / "data/prefix_values.parquet")
    n = df.filter((pl.col("problem_id") == pid) & (pl.col("sample_index") == sample)).height
    assert f"This trace makes {n - 1} z-tests" in caps
    assert "Benjamini-Hochberg switch above" in caps
    assert re.search(r"z [+-]\d+\.\d\d · p \d\.\d{4} \(two-sided\)", caps) or "z – · p –" in caps
    at = _app({"problem": pid, "sample": str(sample), "fdr": "true"})
    assert "Benjamini-Hochberg is on" in " ".join(c.value for c in at.caption)


@pytest.mark.parametrize("view", ["Overview", "Trace", "Collection"])
def test_no_none_nan_or_negative_zero_in_rendered_text(sample_fp: Path, view: str) -> None:
    at = _app()
    pid, sample = _trace_of(sample_fp, at)
    params = {"view": view}
    if view == "Trace":
        params |= {"problem": pid, "sample": str(sample), "prefix": "3"}
    at = _app(params)
    texts = _chrome(at)
    assert texts
    for t in texts:
        for pat in BAD:
            assert not pat.search(t), (pat.pattern, t[max(0, pat.search(t).start() - 80) :][:200])  # type: ignore[union-attr]  # the assert only formats a match


@pytest.mark.parametrize("view", ["Overview", "Trace"])
def test_shown_tables_have_no_missing_cell(sample_fp: Path, view: str) -> None:
    """The grid draws a missing number as "None": every gap is shown as "–" text instead."""
    pid, sample = _trace_of(sample_fp, _app())
    params = {"view": view} | ({"problem": pid, "sample": str(sample)} if view == "Trace" else {})
    at = _app(params)
    if view == "Overview":  # a light table: its cells are the text the browser shows
        cells = {c for row in lite_payloads(at)[0]["rows"] for c in row}
        assert not {"None", "nan", "NaN", "null", "<NA>"} & cells
        assert "–" in cells  # the sample's gaps (no first error) read as a dash
        return
    table = shown_tables(at)[0]
    assert int(table.isna().sum().sum()) == 0
    if view == "Trace":
        assert table["change"].iloc[0] == "–" and table["z"].iloc[0] == "–"
