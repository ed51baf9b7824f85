"""The flag bits: one table, distinct single bits, names decoded in bit order, and the notes the
ingest writes name the same kinds."""

from __future__ import annotations

from analysis.mars import flags


def test_bits_are_distinct_single_bits() -> None:
    bits = [f.bit for f in flags.FLAGS]
    assert len(set(bits)) == len(bits)
    assert all(b > 0 and b & (b - 1) == 0 for b in bits)
    assert bits == sorted(bits)
    assert len({f.kind for f in flags.FLAGS}) == len(bits)


def test_flag_names_decode_in_bit_order() -> None:
    assert flags.flag_names(0) == []
    both = flags.FLAG_NONFINITE | flags.FLAG_PROBES_UNSORTED
    assert flags.flag_names(both) == [
        "NaN/inf confidences (ignored)",
        "probes out of order (re-sorted)",
    ]
    everything = sum(f.bit for f in flags.FLAGS)
    assert flags.flag_names(everything) == [f.label for f in flags.FLAGS]
    assert "final answer is a long text span" in flags.flag_names(flags.FLAG_LONG_ANSWER)
