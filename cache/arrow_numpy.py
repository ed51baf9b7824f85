"""Arrow columns to numpy through their buffers, without `to_numpy`.

Why: pyarrow's `to_numpy`, `pa.scalar` and `pa.array` import pandas on their first use (a slow
import), and so do `fill_null` and friends, which build a scalar. A MARS build in a CLI or
worker process needs numpy views of a few numeric columns and nothing from pandas; reading the
buffers directly keeps pandas out of it. Types this does not know (strings, dictionaries,
decimals...) and list columns holding nulls take pyarrow's own path, which is correct, only
slower to start.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

# arrow type names (str(type)) -> numpy dtypes read straight from the data buffer
_DTYPES = {
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
    "halffloat": np.float16,
    "float": np.float32,
    "double": np.float64,
}


def _one(arr: pa.Array, fill: float | int) -> np.ndarray:
    dtype = _DTYPES.get(str(arr.type))
    if dtype is None:
        return np.asarray(pc.fill_null(arr, fill).to_numpy(zero_copy_only=False))
    n = len(arr)
    validity, data = arr.buffers()[:2]
    if data is None or n == 0:
        return np.zeros(n, dtype=dtype)
    values = np.frombuffer(data, dtype=dtype, count=n, offset=arr.offset * np.dtype(dtype).itemsize)
    if validity is None or arr.null_count == 0:
        return values
    bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
    valid = bits[arr.offset : arr.offset + n].astype(bool)
    return np.where(valid, values, np.asarray(fill).astype(dtype))


def primitive(arr: pa.Array | pa.ChunkedArray, fill: float | int) -> np.ndarray:
    """The values of a numeric column, nulls replaced by `fill` (read-only when zero-copy)."""
    if isinstance(arr, pa.ChunkedArray):
        parts = [_one(c, fill) for c in arr.chunks]
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return np.zeros(0, dtype=_DTYPES.get(str(arr.type), np.float64))
        return np.concatenate(parts)
    return _one(arr, fill)


def list_parts(arr: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """(offsets int64 [n+1] starting at 0, child values sliced to them) of a list column; null
    lists are empty."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    if arr.null_count:
        # a null list may own a non-empty child range: let arrow drop it (the slow path)
        arr = arr.fill_null(pa.scalar([], type=arr.type))
    width = np.int64 if pa.types.is_large_list(arr.type) else np.int32
    buf = arr.buffers()[1]
    offsets = np.frombuffer(
        buf, dtype=width, count=len(arr) + 1, offset=arr.offset * np.dtype(width).itemsize
    )
    offsets = offsets.astype(np.int64)
    start, stop = int(offsets[0]), int(offsets[-1])
    return offsets - start, arr.values.slice(start, stop - start)


# ---------------------------------------------------------------------------------------------
# numpy to arrow, the other way (pa.array imports pandas on its first call)


def array(values: np.ndarray, typ: pa.DataType) -> pa.Array:
    """A null-free arrow array of `typ` (numeric or bool) holding `values`."""
    n = int(values.shape[0])
    if pa.types.is_boolean(typ):
        bits = np.packbits(np.asarray(values, dtype=bool), bitorder="little")
        return pa.Array.from_buffers(typ, n, [None, pa.py_buffer(bits)])
    dtype = _DTYPES.get(str(typ))
    if dtype is None:
        return pa.array(values, type=typ)
    data = np.ascontiguousarray(values, dtype=dtype)
    return pa.Array.from_buffers(typ, n, [None, pa.py_buffer(data)])


def list_array(offsets: np.ndarray, values: np.ndarray, typ: pa.DataType) -> pa.Array:
    """A `list<typ>` array (int32 offsets) of the ragged `values` cut at `offsets` [n+1]."""
    n = int(offsets.shape[0]) - 1
    off = np.ascontiguousarray(offsets, dtype=np.int32)
    child = array(values, typ)
    return pa.Array.from_buffers(pa.list_(typ), n, [None, pa.py_buffer(off)], children=[child])


def strings(items: list[str | None]) -> pa.Array:
    """A `string` array of `items` (None is null); text UTF-8 cannot encode goes to pyarrow,
    which says what is wrong with it."""
    n = len(items)
    try:
        encoded = [b"" if s is None else s.encode("utf-8") for s in items]
    except UnicodeEncodeError:
        return pa.array(items, type=pa.string())
    lengths = np.fromiter((len(b) for b in encoded), dtype=np.int64, count=n)
    if lengths.sum() >= 2**31:
        return pa.array(items, type=pa.string())
    off = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(lengths, out=off[1:])
    data = pa.py_buffer(b"".join(encoded))
    nulls = np.fromiter((s is None for s in items), dtype=bool, count=n)
    if not nulls.any():
        return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(off), data])
    valid = pa.py_buffer(np.packbits(~nulls, bitorder="little"))
    return pa.Array.from_buffers(
        pa.string(), n, [valid, pa.py_buffer(off), data], null_count=int(nulls.sum())
    )


def empty_table(schema: pa.Schema) -> pa.Table:
    """A table of `schema` with no rows."""
    return pa.Table.from_batches([], schema=schema)
