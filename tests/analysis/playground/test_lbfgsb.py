"""The L-BFGS-B driver without scipy.optimize: bit-identical to `scipy.optimize.minimize`, and the
q-model fit with it to the fit through scipy.optimize."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from analysis.playground import lbfgsb
from analysis.playground.mars import fit_q_model, switch_features


def _logistic(rng: np.random.Generator, m: int, d: int, scale: float):  # type: ignore[no-untyped-def]  # returns (loss, grad)
    xs = rng.normal(size=(m, d)) * scale
    yf = (rng.random(m) < 1 / (1 + np.exp(-(xs @ rng.normal(size=d))))).astype(float)

    def loss(p: np.ndarray) -> float:
        z = p[0] + xs @ p[1:]
        return float(-(np.sum(yf * z - np.logaddexp(0, z)) - 0.01 * np.sum(p[1:] ** 2)))

    def grad(p: np.ndarray) -> np.ndarray:
        z = p[0] + xs @ p[1:]
        r = yf - 1 / (1 + np.exp(-z))
        g = np.empty_like(p)
        g[0] = -r.sum()
        g[1:] = -(xs.T @ r) + 0.02 * p[1:]
        return g

    return loss, grad


def test_the_compiled_routine_is_driven_here() -> None:
    assert lbfgsb.fast_path_available()  # else the test below only tests scipy against itself


@pytest.mark.parametrize("seed", range(6))
def test_same_iterates_as_scipy_optimize(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(25):
        m, d = int(rng.integers(5, 2500)), int(rng.integers(1, 7))
        loss, grad = _logistic(rng, m, d, float(rng.uniform(0.1, 8.0)))
        x0 = np.zeros(d + 1) if rng.random() < 0.5 else rng.normal(size=d + 1)
        maxiter = int(rng.choice([3, 40, 200]))
        with np.errstate(all="ignore"):
            want = minimize(loss, x0, jac=grad, method="L-BFGS-B", options={"maxiter": maxiter})
            got = lbfgsb.minimize_lbfgsb(loss, grad, x0, maxiter)
        assert np.array_equal(got.x, want.x)
        assert (got.nit, got.nfev) == (want.nit, want.nfev)


def test_the_fallback_is_scipy_optimize(monkeypatch: pytest.MonkeyPatch) -> None:
    loss, grad = _logistic(np.random.default_rng(9), 300, 4, 2.0)
    fast = lbfgsb.minimize_lbfgsb(loss, grad, np.zeros(5), 200)
    monkeypatch.setattr(lbfgsb, "_extension", lambda: None)
    slow = lbfgsb.minimize_lbfgsb(loss, grad, np.zeros(5), 200)
    assert np.array_equal(fast.x, slow.x)


def test_the_driver_knows_the_installed_scipy() -> None:
    import scipy

    assert lbfgsb.scipy_version() == scipy.__version__
    assert scipy.__version__ in lbfgsb.KNOWN_SCIPY  # else every run takes the fallback


def test_an_unknown_scipy_version_takes_scipy_optimize(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both ways on the same problems: the driven routine, then (scipy "9.0.0", which the driver
    does not know) scipy.optimize; the minima agree."""
    rng = np.random.default_rng(11)
    problems = []
    for _ in range(8):
        d = int(rng.integers(1, 6))
        loss, grad = _logistic(rng, int(rng.integers(20, 800)), d, float(rng.uniform(0.3, 4.0)))
        problems.append((loss, grad, rng.normal(size=d + 1)))
    with np.errstate(all="ignore"):
        fast = [lbfgsb.minimize_lbfgsb(f, g, x0, 200) for f, g, x0 in problems]
    assert all(r.task != (-1, -1) for r in fast)  # the driven routine ran
    monkeypatch.setattr(lbfgsb, "scipy_version", lambda: "9.0.0")
    lbfgsb._extension.cache_clear()
    try:
        assert not lbfgsb.fast_path_available()
        with np.errstate(all="ignore"):
            slow = [lbfgsb.minimize_lbfgsb(f, g, x0, 200) for f, g, x0 in problems]
    finally:
        monkeypatch.undo()
        lbfgsb._extension.cache_clear()
    assert lbfgsb.fast_path_available()
    for a, b in zip(fast, slow, strict=True):
        assert b.task == (-1, -1)  # scipy.optimize ran
        np.testing.assert_allclose(a.x, b.x, rtol=1e-7, atol=1e-9)
        assert (a.nit, a.nfev) == (b.nit, b.nfev)


def test_q_model_fit_is_the_scipy_fit() -> None:
    """The published fit (mars/q_model.py) through scipy.optimize, written out here, and ours."""
    rng = np.random.default_rng(3)
    n, k = 16, 9
    groups = rng.integers(-1, 3, size=(n, k)).astype(np.int32)
    conf = rng.uniform(5, 15, size=(n, k)).astype(np.float32)
    grid = 2048 * np.arange(1, k + 1)
    x = switch_features(grid, groups, conf)
    y = (groups != groups[:, -1:]).ravel()
    model = fit_q_model(x, y)

    mean, std = x.mean(axis=0), np.maximum(x.std(axis=0), 1e-10)
    xs, yf = (x - mean) / std, y.astype(np.float64)

    def loss(p: np.ndarray) -> float:
        z = p[0] + xs @ p[1:]
        return float(-(np.sum(yf * z - np.logaddexp(0, z)) - 0.01 * np.sum(p[1:] ** 2)))

    def grad(p: np.ndarray) -> np.ndarray:
        z = p[0] + xs @ p[1:]
        r = yf - 1.0 / (1.0 + np.exp(-z))
        return np.concatenate(([-r.sum()], -(xs.T @ r) + 0.02 * p[1:]))

    with np.errstate(over="ignore", invalid="ignore"):
        coef = minimize(loss, np.zeros(6), jac=grad, method="L-BFGS-B", options={"maxiter": 200}).x
        qc = np.clip(1.0 / (1.0 + np.exp(-(coef[0] + xs @ coef[1:]))), 1e-7, 1 - 1e-7)
        lq = np.log(qc / (1.0 - qc))

        def ploss(p: np.ndarray) -> float:
            zz = p[0] * lq + p[1]
            return float(-np.sum(yf * zz - np.logaddexp(0, zz)))

        def pgrad(p: np.ndarray) -> np.ndarray:
            r = yf - 1.0 / (1.0 + np.exp(-(p[0] * lq + p[1])))
            return np.array([-np.sum(r * lq), -np.sum(r)])

        platt = minimize(ploss, [1.0, 0.0], jac=pgrad, method="L-BFGS-B", options={"maxiter": 100})
    assert np.array_equal(model.coef, coef)
    assert (model.platt_a, model.platt_b) == (float(platt.x[0]), float(platt.x[1]))


def test_a_fresh_process_loads_the_routine_without_scipy_init() -> None:
    """The extension is loaded by its file: scipy's __init__ (subprocess, sysconfig, scipy._lib:
    ~40 ms of a warm sc-mars-cal run) never runs, and the iterates are still scipy's."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np\n"
        "from analysis.playground import lbfgsb\n"
        "c = np.array([1.5, -2.0, 0.25])\n"
        "r = lbfgsb.minimize_lbfgsb(lambda p: float(np.sum((p - c) ** 4) + np.sum(p ** 2)),\n"
        "                           lambda p: 4 * (p - c) ** 3 + 2 * p, np.zeros(3), 50)\n"
        "print(lbfgsb.fast_path_available(), 'scipy' in sys.modules, r.x.tobytes().hex())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    fast, scipy_loaded, x_hex = out.stdout.split()
    c = np.array([1.5, -2.0, 0.25])
    want = minimize(
        lambda p: float(np.sum((p - c) ** 4) + np.sum(p**2)),
        np.zeros(3),
        jac=lambda p: 4 * (p - c) ** 3 + 2 * p,
        method="L-BFGS-B",
        options={"maxiter": 50},
    )
    assert (fast, scipy_loaded) == ("True", "False")
    assert x_hex == want.x.tobytes().hex()
