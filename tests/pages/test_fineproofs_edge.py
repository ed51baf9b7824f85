"""AppTest of the FineProofs trace view with crafted traces (issue 11, items 8, 9, 11 and 12):
a lone surrogate in the text, offsets past the end or inside a surrogate pair, and a trace whose
text is missing (no shard file, or not in the export)."""

from __future__ import annotations

import gzip
import html
import json
import re
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from analysis.fineproofs.steptext import attach_step_text, export_frame
from analysis.fineproofs.utf16 import Utf16Index
from cache.fineproofs_io import load_trace, shard_relpath
from cache.sample.fineproofs import write_sample
from components.common.downloads import csv_bytes
from tests.analysis.fineproofs.crafted import (
    LONE,
    REPLACEMENT,
    astral_trace,
    inject_lone_surrogate,
    push_end_past_text,
)
from tests.pages.charts import lite_specs
from tests.pages.conftest import new_app
from tests.pages.controls import tabs
from tests.pages.stats import shown_metrics
from tests.pages.tables import shown_tables

PAGE = "pages/fineproofs.py"


def _app(params: dict[str, str]) -> AppTest:
    at = new_app()
    for k, v in params.items():
        at.query_params[k] = v
    for side in ("fp_side_summary_open", "fp_side_manifest_open"):  # drawn while open
        at.session_state[side] = True
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, at.exception
    return at


def _text_view(at: AppTest) -> str:
    """The HTML handed to the Trace tab's click_text component ("" when it is not drawn)."""
    comps = [c for c in at.get("bidi_component") if c.proto.component_name == "rte_click_text"]
    assert len(comps) <= 1
    return json.loads(comps[0].proto.json)["html"] if comps else ""


def _html(at: AppTest) -> str:
    """Every HTML the page drew: st.html blocks and the trace text component."""
    return "\n".join([*(h.proto.body for h in at.get("html")), _text_view(at)])


def _plain(md: str) -> str:
    """Markdown text without its backslash escapes (messages quote data through md_text)."""
    return re.sub(r"\\(.)", r"\1", md)


def _errors(at: AppTest) -> str:
    return _plain("\n".join(e.value for e in at.error))


def _warnings(at: AppTest) -> str:
    return _plain("\n".join(w.value for w in at.warning))


@pytest.fixture()
def copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "fp"
    write_sample(root)
    monkeypatch.setenv("RTE_FINEPROOFS_SOURCE", "local")
    monkeypatch.setenv("RTE_FINEPROOFS_PATH", str(root))
    return root


# ---------------------------------------------------------------- item 8: lone surrogates
def test_lone_surrogate_renders_with_exact_offsets_and_a_note(copy: Path) -> None:
    pid, sample = astral_trace(copy)
    raw = inject_lone_surrogate(copy, pid, sample, step=2)
    at = _app({"problem": pid, "sample": str(sample), "prefix": "2"})
    assert not _errors(at), _errors(at)
    assert "unpaired UTF-16 surrogate" in _warnings(at)
    assert "offset stays exact" in _warnings(at)
    body = _html(at)
    raw_idx = Utf16Index(raw)
    rec = load_trace(copy, pid, sample)
    for k, s in enumerate(rec.steps, start=1):
        span = raw_idx.span(s.utf16_start, s.utf16_end)
        want = raw[span.start : span.end].replace(LONE, REPLACEMENT)
        assert f'id="fp-step-{k}"' in body
        assert html.escape(want, quote=True) in body  # every step still holds exactly its text
    assert html.escape(f"{REPLACEMENT}", quote=True) in body
    table = shown_tables(at)[0]
    assert REPLACEMENT in table.set_index("ordinal").loc[2, "step_text"]
    assert (table["span_issue"] == "–").all()  # no issue: shown as "–"


def test_lone_surrogate_csv_download(copy: Path) -> None:
    """The CSV the Trace tab offers, built the way the tab builds it."""
    pid, sample = astral_trace(copy)
    inject_lone_surrogate(copy, pid, sample, step=2)
    rec = load_trace(copy, pid, sample)
    at = _app({"problem": pid, "sample": str(sample)})
    shown = pl.from_pandas(shown_tables(at)[0])
    series = shown.drop("py_start", "py_end", "step_text", "span_issue", "issue_kinds")
    out = export_frame(attach_step_text(series, rec.text, rec.step_spans()).frame)
    text = csv_bytes(out).decode("utf-8")
    assert REPLACEMENT in text


# ---------------------------------------------------------------- items 9 and 12: bad offsets
def test_step_panel_says_an_offset_is_invalid(copy: Path) -> None:
    pid, sample = astral_trace(copy)
    rec = load_trace(copy, pid, sample)
    last = len(rec.steps)
    end = push_end_past_text(copy, pid, sample, step=last)
    at = _app({"problem": pid, "sample": str(sample), "prefix": str(last)})
    assert not _errors(at), _errors(at)
    panel = _warnings(at)
    assert "This step's offsets are invalid" in panel
    assert f"UTF-16 offset {end} is outside the text" in panel
    # a valid step's panel has no such line
    at = _app({"problem": pid, "sample": str(sample), "prefix": "1"})
    assert "offsets are invalid" not in _warnings(at)


def test_step_panel_says_an_offset_splits_a_pair(copy: Path) -> None:
    pid, sample = astral_trace(copy)
    rec = load_trace(copy, pid, sample)
    idx = Utf16Index(rec.text)
    astral = next(i for i, c in enumerate(rec.text) if ord(c) > 0xFFFF)
    inside = idx._cum[astral] + 1  # type: ignore[index]  # the mapping table of a non-BMP text
    path = copy / shard_relpath(pid)
    doc = json.loads(gzip.decompress(path.read_bytes()))
    for t in doc["traces"]:
        if t["problem_id"] == pid and t["sample_index"] == sample:
            t["steps"][0]["utf16_start"] = int(inside)
            t["steps"][0]["utf16_end"] = max(int(inside) + 1, t["steps"][0]["utf16_end"])
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    at = _app({"problem": pid, "sample": str(sample), "prefix": "1"})
    assert "This step's offsets are invalid" in _warnings(at)
    assert "falls inside a surrogate pair" in _warnings(at)


# ---------------------------------------------------------------- item 11: missing text
def test_missing_shard_keeps_values_curve_and_step_panel(copy: Path) -> None:
    pid, sample = astral_trace(copy)
    (copy / shard_relpath(pid)).unlink()
    at = _app({"problem": pid, "sample": str(sample), "prefix": "2"})
    err = _errors(at)
    assert "Trace shard missing" in err and f"{shard_relpath(pid)} is missing in folder" in err
    assert "laid out like" not in err  # the folder layout is fine
    assert len(lite_specs(at)) == 2 and len(shown_tables(at)) == 1
    assert any(m.value.startswith("**Selected step · prefix 2") for m in at.markdown)
    assert {m.label for m in shown_metrics(at)} >= {"value", "± 2 SE", "change"}
    # the way back keeps the user's source: no switch to the sample
    labels = [b.label for b in at.button]
    assert "Use the bundled sample instead" not in labels
    at.button(key="fp_back").click().run()
    assert not at.exception
    assert "problem" not in at.query_params
    assert not _errors(at), _errors(at)
    assert "shape" in shown_tables(at)[0].columns  # the Overview table, same local source
    # no switch to the sample (its box's radio is drawn only when opened: then it says local)
    kind = "src_fineproofs_kind"
    assert kind not in at.session_state or at.session_state[kind] == "local"


def test_trace_not_in_the_export_says_what_the_manifest_says(copy: Path) -> None:
    pid, sample = astral_trace(copy)
    path = copy / shard_relpath(pid)
    doc = json.loads(gzip.decompress(path.read_bytes()))
    doc["traces"] = [
        t for t in doc["traces"] if not (t["problem_id"] == pid and t["sample_index"] == sample)
    ]
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    manifest = copy / "data/trace_manifest.json"
    m = json.loads(manifest.read_text())
    m["missing_traces"] = [{"problem_id": pid, "sample_index": sample, "reason": "timeout"}]
    manifest.write_text(json.dumps(m))
    at = _app({"problem": pid, "sample": str(sample), "prefix": "1"})
    err = _errors(at)
    assert "Trace not in the export" in err and "is not in the export" in err
    assert "lists it among the traces missing from the export" in err
    assert "laid out like" not in err
    assert any(m.value.startswith("**Selected step · prefix 1") for m in at.markdown)
    assert "Use the bundled sample instead" not in [b.label for b in at.button]


# ---------------------------------------------------------------- item 26: a broken main file
def test_broken_prefix_table_hides_only_what_needs_it(copy: Path) -> None:
    (copy / "data/prefix_values.parquet").write_bytes(b"PAR1" + b"\0" * 64)
    at = _app({"view": "Collection"})
    err = _errors(at)
    assert "not a readable parquet file" in err
    assert "prefix_values.parquet (the FineProofs prefix table) looks truncated" in err
    assert (
        tabs(at).options == ["Overview", "Trace", "Collection"] and tabs(at).shown == "Collection"
    )
    assert [e.label for e in at.main.expander] == ["summary.json", "trace_manifest.json"]
    kv = "\n".join(h.proto.body for e in at.main.expander for h in e.get("html"))
    assert ">n_traces_expected</td>" in kv  # the manifest is shown as stored
    assert any("side files below do not need it" in i.value for i in at.info)
    at = _app({})
    assert any("needs data/prefix_values.parquet" in i.value for i in at.info)


def test_a_shard_that_is_not_gzip_is_reported_so(copy: Path) -> None:
    pid, sample = astral_trace(copy)
    path = copy / shard_relpath(pid)
    path.write_bytes(gzip.decompress(path.read_bytes()))  # plain JSON under a .json.gz name
    at = _app({"problem": pid, "sample": str(sample)})
    err = _errors(at)
    assert f"{path.name} is not gzip" in err and "gzip -c" in err
    assert len(lite_specs(at)) == 2  # the curve does not need the text


def test_a_shard_the_hub_cannot_give_keeps_values_curve_and_step_panel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Hub source (HF_HUB_OFFLINE, files in a real HF cache layout) whose HF cache lacks one
    shard: the trace's text is reported unavailable with the Hub's reason, and its values still
    show (before, the whole trace view was a "Hub unavailable" error)."""
    from huggingface_hub import constants

    from tests.cache.test_sources import _populate_hf_cache

    root = tmp_path / "fp"
    write_sample(root)
    pid, sample = astral_trace(root)
    missing = shard_relpath(pid)
    files = {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and str(p.relative_to(root)) != missing
    }
    hub = tmp_path / "hub"
    _populate_hf_cache(hub, "asingh15/fineproofs-branch-rollout-distribution", files, "2" * 40)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(hub))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("RTE_FINEPROOFS_SOURCE", "hub")
    at = _app({"problem": pid, "sample": str(sample), "prefix": "2"})
    err = _errors(at)
    assert "Trace text unavailable" in err and missing in err and "HF_HUB_OFFLINE" in err
    assert "shown without the text" in err
    assert len(lite_specs(at)) == 2 and len(shown_tables(at)) == 1
    assert {m.label for m in shown_metrics(at)} >= {"value", "± 2 SE", "change"}
