"""FineProofs tab helpers: the side-file key/value table escapes and wraps; the trace caption
says whether the value rose or fell."""

from __future__ import annotations

from components.fineproofs.collection import kv_table_html
from components.fineproofs.trace import change_phrase


def test_kv_table_escapes_and_wraps() -> None:
    out = kv_table_html({"<k>": '<script>alert("x")</script>', "n": 3, "none": None})
    assert "<script>" not in out and "&lt;script&gt;" in out and "&lt;k&gt;" in out
    assert ">3</td>" in out and ">null</td>" in out
    assert "overflow-wrap:anywhere" in out


def test_change_phrase_says_rose_or_fell() -> None:
    assert change_phrase(-0.058) == "value rose by 0.058 from first to last prefix"
    assert change_phrase(0.25) == "value fell by 0.250 from first to last prefix"
    assert "unchanged" in change_phrase(0.0)
