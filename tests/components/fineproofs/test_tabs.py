"""FineProofs tab helpers: the side-file key/value table escapes and wraps; the trace caption
says whether the value rose or fell."""

from __future__ import annotations

from components.fineproofs.cases import step_item, step_snapshot, trace_snapshot
from components.fineproofs.collection import kv_table_html
from components.fineproofs.phrases import change_phrase


def test_kv_table_escapes_and_wraps() -> None:
    out = kv_table_html({"<k>": '<script>alert("x")</script>', "n": 3, "none": None})
    assert "<script>" not in out and "&lt;script&gt;" in out and "&lt;k&gt;" in out
    assert ">3</td>" in out and ">null</td>" in out
    assert "overflow-wrap:anywhere" in out


def test_change_phrase_says_rose_or_fell() -> None:
    assert change_phrase(-0.058) == "value rose by 0.058 from first to last prefix"
    assert change_phrase(0.25) == "value fell by 0.250 from first to last prefix"
    assert "unchanged" in change_phrase(0.0)


def test_case_snapshots_hold_the_key_figures() -> None:
    info = {"endpoint": 0.25, "num_steps": 12, "largest_drop": 0.5, "largest_drop_ordinal": 3,
            "largest_drop_step": 6, "first_error_ordinal": 3, "first_error_step": 6,
            "first_error_depth": 0.5, "total_decline": 0.6, "shape": "one-step", "source": "aops"}  # fmt: skip
    snap = trace_snapshot(info, 7)
    assert snap["endpoint_grade"] == 0.25 and snap["num_steps"] == 12 and snap["n_prefixes"] == 7
    assert snap["largest_drop"] == 0.5 and snap["first_error_step"] == 6
    assert snap["total_decline"] == 0.6
    r = {"ordinal": 3, "step": 6, "value": 0.2, "change": -0.5, "z": -4.0, "se": 0.05, "n": 32,
         "sig_drop": True, "recovery": None, "first_error": True, "flags": "drop, first-error"}  # fmt: skip
    s = step_snapshot(r)
    assert (s["prefix"], s["step"], s["value"], s["change"], s["z"], s["se"], s["n"]) == (
        3,
        6,
        0.2,
        -0.5,
        -4.0,
        0.05,
        32,
    )
    assert s["sig_drop"] is True and s["recovery"] is False and s["first_error"] is True
    assert step_item("p", 2, 3) == {"problem": "p", "sample": "2", "prefix": "3"}
