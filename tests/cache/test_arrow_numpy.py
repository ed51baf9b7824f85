"""Arrow <-> numpy through buffers: the same values and types as pyarrow's own conversions,
for sliced, chunked and null-holding arrays."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from cache import arrow_numpy as an


@pytest.mark.parametrize(
    "typ",
    [pa.int8(), pa.int32(), pa.int64(), pa.uint16(), pa.float16(), pa.float32(), pa.float64()],
)
def test_primitive_matches_pyarrow_with_nulls_and_slices(typ: pa.DataType) -> None:
    raw = [1, None, 3, 4, None, 6, 7, 8, 9, None, 11]
    arr = pa.array(raw, type=typ)
    fill = 0 if pa.types.is_unsigned_integer(typ) else -1
    for piece in (arr, arr.slice(1), arr.slice(3, 5), arr.slice(9)):
        want = [(fill if v is None else v) for v in piece.to_pylist()]
        got = an.primitive(piece, fill)
        assert got.dtype == np.dtype(typ.to_pandas_dtype())
        assert got.tolist() == want


def test_primitive_of_chunked_and_empty_columns() -> None:
    col = pa.chunked_array([pa.array([1, None], pa.int64()), pa.array([3], pa.int64())])
    assert an.primitive(col, 0).tolist() == [1, 0, 3]
    assert an.primitive(pa.chunked_array([], type=pa.int64()), 0).tolist() == []
    nan = an.primitive(pa.array([1.5, None], pa.float32()), float("nan"))
    assert nan[0] == 1.5 and np.isnan(nan[1])


def test_an_unknown_type_takes_pyarrows_path() -> None:
    assert an.primitive(pa.array([True, None, False]), False).tolist() == [True, False, False]


def test_list_parts_of_sliced_large_and_null_lists() -> None:
    arr = pa.array([[1.0, 2.0], [3.0], None, [], [4.0, 5.0, 6.0]], type=pa.list_(pa.float16()))
    for piece in (arr, arr.slice(1), arr.slice(2, 3)):
        off, values = an.list_parts(piece)
        back = [an.primitive(values, -1)[off[i] : off[i + 1]].tolist() for i in range(len(piece))]
        assert back == [v or [] for v in piece.to_pylist()]
    big = arr.cast(pa.large_list(pa.float16())).slice(1)
    off, _ = an.list_parts(big)
    assert off.tolist() == [0, 1, 1, 1, 4]


def test_numpy_to_arrow_equals_pa_array() -> None:
    assert an.array(np.array([True, False, True]), pa.bool_()).equals(pa.array([True, False, True]))
    assert an.array(np.arange(3, dtype=np.int64), pa.int32()).equals(
        pa.array([0, 1, 2], pa.int32())
    )
    got = an.list_array(np.array([0, 2, 2, 3]), np.array([1.5, 2.0, 3.0]), pa.float32())
    assert got.equals(pa.array([[1.5, 2.0], [], [3.0]], type=pa.list_(pa.float32())))
    texts = ["a", None, "ü∑", "", "\U0001f600"]
    assert an.strings(texts).equals(pa.array(texts, type=pa.string()))
    assert an.strings([]).equals(pa.array([], type=pa.string()))
    with pytest.raises(UnicodeEncodeError):
        an.strings(["\ud800"])  # pyarrow's own message for text UTF-8 cannot hold
    schema = pa.schema([("a", pa.int64()), ("b", pa.string())])
    assert an.empty_table(schema).equals(schema.empty_table())
