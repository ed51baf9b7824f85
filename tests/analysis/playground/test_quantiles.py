"""`quantiles.percentile_last_axis` gives np.percentile's bits (and spares numpy.ma)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from analysis.playground.quantiles import percentile_last_axis


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("q", [0, 1, 10, 37.5, 50, 90, 90.0, 99.9, 100])
@pytest.mark.parametrize("n", [1, 2, 3, 16, 127, 128])
# inf - inf between neighbours warns in numpy's interpolation and in ours alike (rows 6, 7, 10)
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_bit_identical_to_numpy(dtype: type, q: float, n: int) -> None:
    rng = np.random.default_rng(n * 1000 + int(q * 10))
    a = rng.normal(size=(24, n)).astype(dtype)
    a[3] = 1.5  # a constant row
    a[4, : n // 2] = a[4, -1]  # ties
    a[5] = np.round(a[5])
    if n > 1:
        a[6, 0] = np.inf
        a[7, -1] = -np.inf
        a[8, 0] = np.nan
        a[9, :] = np.nan
        a[10, [0, -1]] = [np.inf, -np.inf]
    got = percentile_last_axis(a, q)
    assert _same_bits(got, np.percentile(a, q, axis=-1))
    assert _same_bits(percentile_last_axis(a[0], q), np.percentile(a[0], q, axis=-1))


def test_three_dimensions_and_odd_input_fall_back_or_match() -> None:
    a = np.random.default_rng(1).random((4, 5, 33))
    assert _same_bits(percentile_last_axis(a, 90), np.percentile(a, 90, axis=-1))
    ints = np.arange(12).reshape(3, 4)
    assert _same_bits(percentile_last_axis(ints, 90), np.percentile(ints, 90, axis=-1))
    with pytest.raises(ValueError):
        percentile_last_axis(a, 101)


def test_no_numpy_ma() -> None:
    """np.percentile's first call imports numpy.ma (np.unique); this does not."""
    code = (
        "import sys, numpy as np\n"
        "from analysis.playground.quantiles import percentile_last_axis\n"
        "percentile_last_axis(np.random.default_rng(0).random((16, 128)), 90)\n"
        "print('numpy.ma' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
