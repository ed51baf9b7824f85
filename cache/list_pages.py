"""Row groups of a parquet file with one `list<halffloat>` column (MARS `confs`) decoded page by
page: the compiled `cache._list_pages` turns each data page straight into the list's offsets
and float16 bits; pyarrow reads the other columns, and the whole row group whenever the column
is laid out in a way this module does not handle.

Why: that column is most of a MARS file, and arrow's general nested-column reader spent
most of its time decoding it on a realistic pool (163 M values) expanding the level
streams to one int16 per value. Read here, it costs the decompression and a copy (see
bench/mars_ingest.py). The results are the arrays pyarrow gives
(tests/cache/test_list_pages.py compares them over codecs, page versions, encodings, page
sizes, empty lists and nulls).

Handled: files whose writer (parquet `created_by`) is one of `KNOWN_WRITERS`, the writers the
tests write files with (pyarrow and polars); PLAIN or BYTE_STREAM_SPLIT data pages (v1 or v2), no dictionary, codecs arrow reads
(`_CODECS`), no null list or element, `list` or `large_list`, a column chunk of at most `MAX_CHUNK_BYTES` uncompressed
(a bigger one streams through pyarrow's batches, so memory stays bounded). Anything else, and
any page this module cannot decode (corrupt or unexpected), is read by pyarrow, which decodes it
or raises the error the caller already reports.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from cache import extensions

# the compiled page decoder (built by `pip install`, see _list_pages.c); None when not built (no C
# compiler at install) or under RTE_NO_EXT=1: pyarrow reads every row group
_list_pages: Any = extensions.load("cache._list_pages")  # Any: a C module, no stubs

MAX_CHUNK_BYTES = 256 << 20
# `created_by` prefixes of the writers whose files the tests decode (tests/cache/test_list_pages*.py);
# another writer's file is read by pyarrow, whatever its layout
KNOWN_WRITERS = ("parquet-cpp-arrow version ", "Polars (python) version ")
# parquet's codec names -> arrow's (None: stored uncompressed); LZ4 (the Hadoop framing) is not
# here: pyarrow reads it
_CODECS = {
    "UNCOMPRESSED": None,
    "SNAPPY": "snappy",
    "ZSTD": "zstd",
    "GZIP": "gzip",
    "BROTLI": "brotli",
    "LZ4_RAW": "lz4_raw",
}
_PLAIN, _RLE, _BYTE_STREAM_SPLIT = 0, 3, 9  # parquet Encoding
_DATA_PAGE, _INDEX_PAGE, _DICTIONARY_PAGE, _DATA_PAGE_V2 = 0, 1, 2, 3  # parquet PageType
_log = logging.getLogger(__name__)


class Unhandled(Exception):
    """This column chunk is not read here (pyarrow reads the row group)."""


# ------------------------------------------------------------------ page headers
#
# A page header is a Thrift struct in the compact protocol (parquet.thrift `PageHeader`). Only
# the fields below are read; every other one is skipped by its type.

_T_TRUE, _T_FALSE, _T_BYTE, _T_I16, _T_I32, _T_I64, _T_DOUBLE = 1, 2, 3, 4, 5, 6, 7
_T_BINARY, _T_LIST, _T_SET, _T_MAP, _T_STRUCT = 8, 9, 10, 11, 12


class _Compact:
    """A cursor over Thrift compact-protocol bytes."""

    def __init__(self, buf: bytes | memoryview, pos: int = 0) -> None:
        self.buf, self.pos = buf, pos

    def byte(self) -> int:
        if self.pos >= len(self.buf):
            raise Unhandled("page header cut short")
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        v = shift = 0
        while True:
            b = self.byte()
            v |= (b & 0x7F) << shift
            if not b & 0x80:
                return v
            shift += 7
            if shift > 63:
                raise Unhandled("bad varint in a page header")

    def zigzag(self) -> int:
        v = self.varint()
        return (v >> 1) ^ -(v & 1)

    def fields(self) -> Iterator[tuple[int, int]]:
        """(field id, type) of each field of the struct at the cursor, up to its stop."""
        fid = 0
        while True:
            head = self.byte()
            if head == 0:
                return
            delta, ftype = head >> 4, head & 0x0F
            fid = fid + delta if delta else self.zigzag()
            yield fid, ftype

    def value(self, ftype: int) -> int | bool | None:
        """An integer or bool field's value; any other type is skipped (None)."""
        if ftype in (_T_TRUE, _T_FALSE):
            return ftype == _T_TRUE
        if ftype in (_T_I16, _T_I32, _T_I64):
            return self.zigzag()
        self.skip(ftype)
        return None

    def skip(self, ftype: int) -> None:
        if ftype in (_T_TRUE, _T_FALSE):
            return
        if ftype == _T_BYTE:
            self.pos += 1
        elif ftype in (_T_I16, _T_I32, _T_I64):
            self.varint()
        elif ftype == _T_DOUBLE:
            self.pos += 8
        elif ftype == _T_BINARY:
            n = self.varint()
            self.pos += n
        elif ftype in (_T_LIST, _T_SET):
            head = self.byte()
            n, etype = head >> 4, head & 0x0F
            if n == 15:
                n = self.varint()
            for _ in range(n):
                if etype in (_T_TRUE, _T_FALSE):
                    self.pos += 1  # a bool element is a byte of its own
                else:
                    self.skip(etype)
        elif ftype == _T_MAP:
            n = self.varint()
            if n:
                kv = self.byte()
                for _ in range(n):
                    self.skip(kv >> 4)
                    self.skip(kv & 0x0F)
        elif ftype == _T_STRUCT:
            for _, t in self.fields():
                self.skip(t)
        else:
            raise Unhandled(f"unknown Thrift type {ftype} in a page header")
        if self.pos > len(self.buf):
            raise Unhandled("page header cut short")


@dataclass
class PageHeader:
    type: int = -1
    uncompressed: int = -1
    compressed: int = -1
    num_values: int = -1
    encoding: int = -1
    def_encoding: int = _RLE
    rep_encoding: int = _RLE
    def_bytes: int = 0  # v2: the level sections' lengths (stored uncompressed)
    rep_bytes: int = 0
    values_compressed: bool = True  # v2: is_compressed
    size: int = 0  # of the header itself


# PageHeader's fields we read: 1 type, 2 uncompressed size, 3 compressed size; 5 DataPageHeader
# (1 num_values, 2 encoding, 3 def level encoding, 4 rep level encoding); 8 DataPageHeaderV2
# (1 num_values, 4 encoding, 5 def levels byte length, 6 rep levels byte length, 7 is_compressed)
_TOP = {1: "type", 2: "uncompressed", 3: "compressed"}
_V1 = {1: "num_values", 2: "encoding", 3: "def_encoding", 4: "rep_encoding"}
_V2 = {1: "num_values", 4: "encoding", 5: "def_bytes", 6: "rep_bytes", 7: "values_compressed"}


def page_header(buf: bytes | memoryview, pos: int) -> PageHeader:
    """The page header at `pos` of a column chunk's bytes."""
    c = _Compact(buf, pos)
    h = PageHeader()
    for fid, ftype in c.fields():
        if fid in _TOP:
            setattr(h, _TOP[fid], c.value(ftype))
        elif fid in (5, 8) and ftype == _T_STRUCT:
            names = _V1 if fid == 5 else _V2
            for sub, stype in c.fields():
                if sub in names:
                    setattr(h, names[sub], c.value(stype))
                else:
                    c.skip(stype)
        else:
            c.skip(ftype)
    h.size = c.pos - pos
    if min(h.uncompressed, h.compressed) < 0 or h.type < 0:
        raise Unhandled("page header without its sizes")
    return h


# ------------------------------------------------------------------ one column chunk


@dataclass(frozen=True)
class Layout:
    """Where the list column sits in the file and its levels."""

    name: str
    leaf: int  # index of its leaf column
    field: pa.Field
    max_def: int
    empty_def: int  # the definition level of an empty list


def writer_known(pf: pq.ParquetFile) -> bool:
    """Whether the file was written by one of `KNOWN_WRITERS`."""
    created_by = pf.metadata.created_by or ""
    return created_by.startswith(KNOWN_WRITERS)


def layout(pf: pq.ParquetFile, name: str) -> Layout | None:
    """The column `name` if it is a `list<halffloat>` (or large list) this module reads, in a
    file of a known writer; else None."""
    if _list_pages is None or name not in pf.schema_arrow.names or not writer_known(pf):
        return None
    field = pf.schema_arrow.field(name)
    is_list = pa.types.is_list(field.type) or pa.types.is_large_list(field.type)
    if not is_list or not pa.types.is_float16(field.type.value_type):
        return None
    leaves = [i for i in range(len(pf.schema)) if pf.schema.column(i).path.split(".")[0] == name]
    if len(leaves) != 1:
        return None
    col = pf.schema.column(leaves[0])
    if col.max_repetition_level != 1 or col.physical_type != "FIXED_LEN_BYTE_ARRAY":
        return None
    empty_def = int(field.nullable)
    if col.max_definition_level != empty_def + 1 + int(field.type.value_field.nullable):
        return None
    return Layout(name, leaves[0], field, col.max_definition_level, empty_def)


def _levels_then_values(
    page: memoryview, h: PageHeader, codec: pa.Codec | None
) -> tuple[memoryview, memoryview, memoryview]:
    """A data page's (repetition levels, definition levels, values) sections, decompressed."""
    if h.type == _DATA_PAGE:
        if h.rep_encoding != _RLE or h.def_encoding != _RLE:
            raise Unhandled("levels not RLE-encoded")
        data = memoryview(codec.decompress(page, h.uncompressed)) if codec else page
        sections = []
        pos = 0
        for _ in range(2):  # each level section starts with its byte length
            n = int.from_bytes(data[pos : pos + 4], "little")
            sections.append(data[pos + 4 : pos + 4 + n])
            pos += 4 + n
        return sections[0], sections[1], data[pos:]
    rep = page[: h.rep_bytes]
    dfn = page[h.rep_bytes : h.rep_bytes + h.def_bytes]
    values = page[h.rep_bytes + h.def_bytes :]
    if codec and h.values_compressed:
        size = h.uncompressed - h.rep_bytes - h.def_bytes
        values = memoryview(codec.decompress(values, size))
    return rep, dfn, values


def read_column(fd: int, pf: pq.ParquetFile, rg: int, lay: Layout) -> pa.Array:
    """The list column of row group `rg`, as pyarrow would read it; raises `Unhandled` (or
    ValueError from the decoder) when pyarrow must read it instead."""
    md = pf.metadata.row_group(rg).column(lay.leaf)
    if md.compression not in _CODECS:
        raise Unhandled(f"codec {md.compression}")
    if md.has_dictionary_page or md.total_uncompressed_size > MAX_CHUNK_BYTES:
        raise Unhandled("dictionary-encoded or too big")
    name = _CODECS[md.compression]
    codec = pa.Codec(name) if name else None
    start = md.data_page_offset
    size = md.total_compressed_size
    chunk = memoryview(os.pread(fd, size, start))
    if len(chunk) != size:
        raise Unhandled("column chunk cut short")
    n_rows = pf.metadata.row_group(rg).num_rows
    values = np.empty(md.num_values, dtype=np.uint16)
    starts = np.empty(n_rows + 1, dtype=np.int64)
    n_values = n_starts = levels = 0
    def_width = int(lay.max_def).bit_length()
    pos = 0
    while pos < size:
        h = page_header(chunk, pos)
        page = chunk[pos + h.size : pos + h.size + h.compressed]
        pos += h.size + h.compressed
        if len(page) != h.compressed:
            raise Unhandled("page cut short")
        if h.type == _INDEX_PAGE:
            continue
        if h.type not in (_DATA_PAGE, _DATA_PAGE_V2):
            raise Unhandled(f"page type {h.type}")
        if h.encoding not in (_PLAIN, _BYTE_STREAM_SPLIT):
            raise Unhandled(f"value encoding {h.encoding}")
        rep, dfn, vals = _levels_then_values(page, h, codec)
        got_values, got_starts = _list_pages.decode_page(
            rep,
            dfn,
            h.num_values,
            def_width,
            lay.max_def,
            lay.empty_def,
            vals,
            h.encoding == _BYTE_STREAM_SPLIT,
            values,
            n_values,
            starts,
            n_starts,
        )
        if n_starts == 0 and (got_starts == 0 or starts[0] != 0):
            raise Unhandled("the first page does not start a row")
        n_values += got_values
        n_starts += got_starts
        levels += h.num_values
    if n_starts != n_rows or levels != md.num_values or n_values >= 2**31:
        raise Unhandled("rows or values do not add up")
    starts[n_rows] = n_values
    # from the buffers: pa.array of a numpy array would import pandas (start-up time)
    flat = pa.Array.from_buffers(pa.float16(), n_values, [None, pa.py_buffer(values[:n_values])])
    if pa.types.is_large_list(lay.field.type):  # polars writes these: int64 offsets
        offsets = pa.Array.from_buffers(pa.int64(), n_rows + 1, [None, pa.py_buffer(starts)])
        return pa.LargeListArray.from_arrays(offsets, flat, type=lay.field.type)
    offsets = pa.Array.from_buffers(
        pa.int32(), n_rows + 1, [None, pa.py_buffer(starts.astype(np.int32))]
    )
    return pa.ListArray.from_arrays(offsets, flat, type=lay.field.type)


def read_row_group(
    fd: int, pf: pq.ParquetFile, rg: int, columns: list[str], lay: Layout | None
) -> pa.Table | None:
    """Row group `rg` with `columns` (leaf paths allowed, as pyarrow takes them), the list
    column read here; None when pyarrow must read this row group."""
    if lay is None or lay.name not in columns:
        return None
    try:
        confs = read_column(fd, pf, rg, lay)
    except (Unhandled, ValueError, OSError, pa.ArrowException) as exc:
        _log.debug("row group %d of %s read by pyarrow: %s", rg, lay.name, exc)
        return None
    others = [c for c in columns if c != lay.name]
    rest = pf.read_row_group(rg, columns=others)
    top = list(dict.fromkeys(c.split(".")[0] for c in columns))
    at = top.index(lay.name)
    arrays = list(rest.columns)
    fields = list(rest.schema)
    arrays.insert(at, confs)
    fields.insert(at, lay.field)
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=rest.schema.metadata))


def iter_batches(
    pf: pq.ParquetFile,
    path: Path,
    row_groups: list[int],
    columns: list[str],
    batch_rows: int,
    list_column: str,
) -> Iterator[pa.RecordBatch]:
    """`pf.iter_batches(batch_size=batch_rows, row_groups=..., columns=...)`, with
    `list_column` decoded here where it can be (batches do not cross row groups)."""
    lay = layout(pf, list_column) if list_column in columns else None
    if lay is None:
        yield from pf.iter_batches(batch_size=batch_rows, row_groups=row_groups, columns=columns)
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        for rg in row_groups:
            table = read_row_group(fd, pf, rg, columns, lay)
            if table is None:
                yield from pf.iter_batches(batch_size=batch_rows, row_groups=[rg], columns=columns)
            else:
                yield from table.to_batches(max_chunksize=batch_rows)
    finally:
        os.close(fd)
