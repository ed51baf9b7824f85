"""The page decoder of `list<halffloat>` columns (cache/list_pages.py) against pyarrow's reader:
the same arrays for every layout it decodes, pyarrow's read (or pyarrow's error) for every
layout it does not."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cache import list_pages

pytestmark = pytest.mark.skipif(
    list_pages._list_pages is None, reason="the compiled page decoder is not built"
)


def _confs(
    rng: np.random.Generator,
    n: int,
    *,
    empty_every: int = 0,
    null_list_at: int | None = None,
    null_element_at: int | None = None,
    specials: bool = False,
    nullable: tuple[bool, bool] = (True, True),
) -> pa.Array:
    """n lists of float16 confidences of varied lengths (some long enough to span pages)."""
    lengths = rng.integers(0, 3000, n)
    lengths[:: max(1, n // 3)] = rng.integers(20_000, 40_000)
    if empty_every:
        lengths[::empty_every] = 0
    vals = rng.uniform(0, 20, int(lengths.sum())).astype(np.float16)
    if specials and vals.size > 4:
        vals[[0, 1, 2, 3]] = [np.nan, np.inf, -np.inf, -0.0]
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    value_type = pa.field("element", pa.float16(), nullable=nullable[1])
    mask = None
    if null_element_at is not None:
        mask = np.zeros(vals.size, dtype=bool)
        mask[null_element_at] = True
    flat = pa.array(vals, type=pa.float16(), mask=mask)
    arr = pa.ListArray.from_arrays(pa.array(offsets), flat, type=pa.list_(value_type))
    if null_list_at is not None:
        valid = np.ones(n, dtype=bool)
        valid[null_list_at] = False
        arr = pa.ListArray.from_arrays(
            pa.array(offsets), flat, type=pa.list_(value_type), mask=pa.array(~valid)
        )
    return arr


def _write(path: Path, confs: pa.Array, *, nullable: bool = True, **opts: object) -> Path:
    n = len(confs)
    probes = pa.array(
        [
            [{"position": 2048 * (j + 1), "answer": str(i + j)} for j in range(i % 3)]
            for i in range(n)
        ]
    )
    schema = pa.schema(
        [
            pa.field("qid", pa.int64()),
            pa.field("confs", confs.type, nullable=nullable),
            pa.field("probes", probes.type),
        ]
    )
    table = pa.Table.from_arrays([pa.array(np.arange(n) // 7), confs, probes], schema=schema)
    pq.write_table(table, path, **opts)  # type: ignore[arg-type]
    return path


def _fast(path: Path, columns: list[str], rg: int = 0) -> pa.Table | None:
    pf = pq.ParquetFile(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        return list_pages.read_row_group(fd, pf, rg, columns, list_pages.layout(pf, "confs"))
    finally:
        os.close(fd)


def _bits(t: pa.Table) -> list:
    """The confs column as (offsets, float16 bits): NaN payloads and -0.0 compared exactly."""
    col = t.column("confs").combine_chunks()
    values = np.asarray(col.values.view(pa.uint16()))
    return [np.asarray(col.offsets).tolist(), values.tolist()]


LAYOUTS = [
    {
        "compression": "zstd",
        "use_dictionary": ["qid"],
        "use_byte_stream_split": ["confs.list.element"],
    },
    {"compression": "zstd", "use_dictionary": False},
    {"compression": "snappy", "use_dictionary": False, "data_page_version": "2.0"},
    {"compression": "gzip", "use_dictionary": False, "data_page_size": 4096},
    {"compression": "brotli", "use_dictionary": False},
    {"compression": "none", "use_dictionary": False, "data_page_size": 1000},
    {
        "compression": "zstd",
        "use_dictionary": False,
        "data_page_version": "2.0",
        "use_byte_stream_split": ["confs.list.element"],
        "data_page_size": 2048,
    },
]


@pytest.mark.parametrize("opts", LAYOUTS, ids=lambda o: "-".join(f"{v}" for v in o.values()))
@pytest.mark.parametrize("empty_every", [0, 5, 1])
def test_decoded_pages_equal_pyarrow(tmp_path: Path, opts: dict, empty_every: int) -> None:
    rng = np.random.default_rng(len(str(opts)) + empty_every)
    path = _write(
        tmp_path / "f.parquet", _confs(rng, 23, empty_every=empty_every, specials=True), **opts
    )
    columns = ["qid", "confs", "probes.list.element.answer"]
    fast = _fast(path, columns)
    want = pq.ParquetFile(path).read_row_group(0, columns=columns)
    assert fast is not None, "this layout should be decoded here"
    assert fast.schema == want.schema and fast.column_names == want.column_names
    assert _bits(fast) == _bits(want)
    assert fast.drop_columns(["confs"]).equals(want.drop_columns(["confs"]))


@pytest.mark.parametrize("nullable", [(False, False), (False, True), (True, False)])
def test_required_lists_and_elements(tmp_path: Path, nullable: tuple[bool, bool]) -> None:
    rng = np.random.default_rng(7)
    confs = _confs(rng, 11, empty_every=4, nullable=nullable)
    path = _write(tmp_path / "f.parquet", confs, nullable=nullable[0], use_dictionary=False)
    fast = _fast(path, ["confs"])
    assert fast is not None
    assert _bits(fast) == _bits(pq.ParquetFile(path).read_row_group(0, columns=["confs"]))


@pytest.mark.parametrize(
    "kind", ["null_list", "null_element", "dictionary", "lz4", "too_big", "float32", "not_asked"]
)
def test_other_layouts_are_left_to_pyarrow(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(3)
    kw: dict = {}
    if kind == "null_list":
        kw["null_list_at"] = 2
    if kind == "null_element":
        kw["null_element_at"] = 5
    confs = _confs(rng, 9, **kw)
    if kind == "float32":
        confs = confs.cast(pa.list_(pa.float32()))
    opts = {
        "use_dictionary": kind == "dictionary",
        "compression": "lz4" if kind == "lz4" else "zstd",
    }
    path = _write(tmp_path / "f.parquet", confs, **opts)
    if kind == "too_big":
        monkeypatch.setattr(list_pages, "MAX_CHUNK_BYTES", 1000)
    columns = ["qid"] if kind == "not_asked" else ["qid", "confs"]
    assert _fast(path, columns) is None
    # and the batches still hold what pyarrow reads
    pf = pq.ParquetFile(path)
    got = pa.Table.from_batches(list(list_pages.iter_batches(pf, path, [0], columns, 4, "confs")))
    assert got.equals(pf.read_row_group(0, columns=columns))


def _batches(path: Path, columns: list[str], batch_rows: int) -> Iterator[pa.RecordBatch]:
    pf = pq.ParquetFile(path)
    return list_pages.iter_batches(
        pf, path, list(range(pf.num_row_groups)), columns, batch_rows, "confs"
    )


def test_batches_hold_every_row_group_in_order(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    path = _write(tmp_path / "f.parquet", _confs(rng, 40, empty_every=9), row_group_size=15)
    columns = ["qid", "confs", "probes.list.element.answer"]
    batches = list(_batches(path, columns, 4))
    assert max(b.num_rows for b in batches) == 4
    got = pa.Table.from_batches(batches)
    want = pq.ParquetFile(path).read(columns=columns)
    assert got.num_rows == 40 and _bits(got) == _bits(want)
    assert got.column("qid").to_pylist() == want.column("qid").to_pylist()


def test_corrupt_or_truncated_pages_never_give_other_values(tmp_path: Path) -> None:
    """Bytes flipped or cut anywhere in the column chunk: the decoder hands the row group to
    pyarrow, or gives exactly what pyarrow gives; it never raises."""
    rng = np.random.default_rng(5)
    clean = _write(
        tmp_path / "clean.parquet",
        _confs(rng, 12, empty_every=5),
        use_dictionary=False,
        compression="none",
        data_page_size=2048,
    )
    data = clean.read_bytes()
    md = pq.ParquetFile(clean).metadata.row_group(0).column(1)
    lo, hi = md.data_page_offset, md.data_page_offset + md.total_compressed_size
    decoded = 0
    for trial in range(150):
        bad = bytearray(data)
        for pos in rng.integers(lo, hi, 1 + trial % 4):
            bad[pos] = int(rng.integers(0, 256))
        path = tmp_path / "bad.parquet"
        path.write_bytes(bytes(bad))
        fast = _fast(path, ["confs"])
        if fast is None:
            continue
        decoded += 1
        want = pq.ParquetFile(path).read_row_group(0, columns=["confs"])
        assert _bits(fast) == _bits(want)
    assert decoded > 0  # some flips land in values, which both readers take as they are


def test_page_header_fields_are_read_and_others_skipped() -> None:
    """A hand-made compact-protocol header: type, sizes and the v2 fields, with a statistics
    struct, a list and a binary field skipped on the way."""
    zz = lambda v: (v << 1) ^ (v >> 63)  # noqa: E731 - zigzag

    def varint(v: int) -> bytes:
        out = bytearray()
        while True:
            b = v & 0x7F
            v >>= 7
            out.append(b | (0x80 if v else 0))
            if not v:
                return bytes(out)

    i32 = lambda fid_delta, v: bytes([(fid_delta << 4) | 5]) + varint(zz(v))  # noqa: E731
    stats = (
        bytes([0x18])
        + varint(3)
        + b"abc"
        + bytes([0x19, 0x25])
        + varint(zz(1))
        + varint(zz(2))
        + b"\x00"
    )
    v2 = (
        i32(1, 100)
        + i32(1, 0)
        + i32(1, 40)
        + i32(1, 9)
        + i32(1, 12)
        + i32(1, 5)
        + bytes([0x12])  # field 7, bool false
        + bytes([0x1C])  # field 8, struct (statistics)
        + stats
        + b"\x00"
    )
    header = i32(1, 3) + i32(1, 500) + i32(1, 300) + bytes([0x5C]) + v2 + b"\x00"
    h = list_pages.page_header(b"junk" + header, 4)
    assert (h.type, h.uncompressed, h.compressed) == (3, 500, 300)
    assert (h.num_values, h.encoding, h.def_bytes, h.rep_bytes) == (100, 9, 12, 5)
    assert h.values_compressed is False and h.size == len(header)
    with pytest.raises(list_pages.Unhandled):
        list_pages.page_header(header[:7], 0)
