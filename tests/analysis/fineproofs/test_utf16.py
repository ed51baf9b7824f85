"""UTF-16 offset mapping (docs/formats/prefix-values.md): astral characters, CRLF, split pairs, range, fast path."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.fineproofs.utf16 import Utf16Index, map_spans, py_to_utf16, utf16_len

X = "\U0001d465"  # MATHEMATICAL ITALIC SMALL X: two UTF-16 units, one Python char
EMOJI = "\U0001f3af"


def js_offsets(text: str, piece: str) -> tuple[int, int]:
    """Where JavaScript would put `piece` (UTF-16 units), computed independently of the module."""
    i = text.index(piece)
    start = len(text[:i].encode("utf-16-le")) // 2
    return start, start + len(piece.encode("utf-16-le")) // 2


def test_astral_before_step_shifts_offsets() -> None:
    text = f"Let {X} > 0 {EMOJI}.\n\nThen {X}² ≥ 0."
    step = f"Then {X}² ≥ 0."
    u0, u1 = js_offsets(text, step)
    assert u0 == text.index(step) + 2  # two astral characters before the step
    idx = Utf16Index(text)
    assert not idx.fast_path
    span = idx.span(u0, u1)
    assert span.ok and text[span.start : span.end] == step
    # naive slicing with the UTF-16 numbers is wrong: that is the bug the mapping prevents
    assert text[u0:u1] != step


def test_astral_inside_step_and_at_edges() -> None:
    step = f"{X}+{X}={EMOJI}"
    text = f"a\n{step}\nb"
    u0, u1 = js_offsets(text, step)
    assert u1 - u0 == len(step) + 3
    assert Utf16Index(text).slice(u0, u1) == step


def test_crlf_is_kept_and_counted_as_two_units() -> None:
    text = f"First step.\r\n\r\nSecond {X} step.\r\nstill second."
    step = f"Second {X} step.\r\nstill second."
    u0, u1 = js_offsets(text, step)
    got = Utf16Index(text).slice(u0, u1)
    assert got == step and "\r\n" in got


def test_offset_inside_surrogate_pair_is_reported_not_raised() -> None:
    text = f"ab{X}cd"
    idx = Utf16Index(text)
    # units: a=0 b=1 X=2,3 c=4 d=5 -> offset 3 is between the two halves of X
    issue = idx.check(3)
    assert issue is not None and issue.kind == "surrogate_split"
    assert "U+1D465" in issue.message
    assert idx.to_py(3) is None
    span = idx.span(3, 5)
    assert not span.ok and span.start is None
    assert [i.kind for i in span.issues] == ["surrogate_split"]
    assert idx.slice(3, 5) is None
    assert idx.to_py(4) == 3 and idx.to_py(2) == 2


def test_out_of_range_and_bad_offsets_are_reported() -> None:
    text = f"{X}yz"  # 4 units
    idx = Utf16Index(text)
    assert idx.n_units == 4
    assert idx.to_py(4) == 3  # the end of the text is a valid end offset
    for bad in (5, -1, 10**9):
        issue = idx.check(bad)
        assert issue is not None and issue.kind == "out_of_range"
    assert idx.check("7").kind == "not_integer"  # type: ignore[union-attr]
    assert idx.check(None).kind == "not_integer"  # type: ignore[union-attr]
    rev = idx.span(3, 2)
    assert not rev.ok and rev.issues[-1].kind == "reversed"


def test_fast_path_without_astral_characters() -> None:
    text = "Prove √2 is irrational — café ≥ 0.\r\nDone."
    idx = Utf16Index(text)
    assert idx.fast_path and idx.n_units == len(text)
    assert idx.to_py(7) == 7 and idx.check(len(text) + 1).kind == "out_of_range"  # type: ignore[union-attr]
    assert idx.slice(0, 5) == "Prove"


def test_vectorised_mapping_matches_scalar() -> None:
    text = f"{X}a{EMOJI}b\r\nc"
    idx = Utf16Index(text)
    offs = list(range(-1, idx.n_units + 2))
    got, valid = idx.to_py_many(offs)
    for u, g, v in zip(offs, got, valid, strict=True):
        assert (idx.to_py(u) is not None) == bool(v)
        if v:
            assert g == idx.to_py(u)
        else:
            assert g == -1
    assert isinstance(got, np.ndarray)


def test_map_spans_and_inverse() -> None:
    text = f"{X} one\n\n{EMOJI} two"
    spans = [js_offsets(text, f"{X} one"), js_offsets(text, f"{EMOJI} two"), (1, 3)]
    out = map_spans(text, spans)
    assert [text[m.start : m.end] for m in out[:2]] == [f"{X} one", f"{EMOJI} two"]
    assert not out[2].ok
    assert py_to_utf16(text, len(text)) == utf16_len(text) == len(text.encode("utf-16-le")) // 2


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=6), min_size=1, max_size=6))
def test_every_piece_round_trips(pieces: list[str]) -> None:
    """Property: for any text, the UTF-16 span of each piece maps back to exactly that piece."""
    pieces = [p.replace("\ud800", "") for p in pieces]
    text = "|".join(pieces)
    idx = Utf16Index(text)
    pos = 0
    for p in pieces:
        u0 = len(text[:pos].encode("utf-16-le", "surrogatepass")) // 2
        u1 = u0 + len(p.encode("utf-16-le", "surrogatepass")) // 2
        assert idx.slice(u0, u1) == p
        pos += len(p) + 1
