"""Unbounded L-BFGS-B through scipy's own compiled routine, without importing scipy.optimize.

Why: the q-model fit (`mars.fit_q_model`) is two tiny L-BFGS-B problems, but `import
scipy.optimize` costs more CPU (it pulls in scipy.linalg, sparse, linprog, ...)
than the whole rest of a warm `simulate` run. The minimiser itself is one compiled routine,
`setulb` in the extension `scipy/optimize/_lbfgsb`, driven by reverse communication: it returns
a task code, the caller evaluates f and g when asked (`FG`), counts an iteration at each new
iterate (`NEW_X`) and stops at any other code. We load that extension by its file (scipy's
own __init__ does not run) and drive it the way `scipy.optimize.minimize(...,
method="L-BFGS-B", jac=...)` does with the same defaults, so the iterates and the result are
bit-identical (tests/analysis/playground/test_lbfgsb.py compares them with scipy.optimize).

The routine is private: its task codes and work-array sizes may change in any release. The driver
runs only on the scipy versions it was tested on (`KNOWN_SCIPY`, read from scipy's version.py
without importing scipy) and whose `setulb` has the signature line `_KNOWN`; with any other scipy,
or if the file cannot be loaded, `minimize_lbfgsb` calls `scipy.optimize.minimize` itself (the same
result, slower to import). Add a version here only after tests/analysis/playground/test_lbfgsb.py
passed on it.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType

import numpy as np

_EXT = "scipy.optimize._lbfgsb"
# the scipy releases whose private routine the driver below was checked against
KNOWN_SCIPY = frozenset({"1.17.1"})
# the signature line of `setulb` whose protocol the driver below follows
_KNOWN = "setulb(m,x,l,u,nbd,f,g,factr,pgtol,wa,iwa,task,lsave,isave,dsave,maxls,ln_task)"
_FG, _NEW_X, _STOP = 3, 1, 5  # task codes (`task[0]`) of the routine
_STOP_ITER, _STOP_FEV = 504, 502  # `task[1]` when the caller stops it


@dataclass(frozen=True)
class LbfgsbResult:
    x: np.ndarray
    nit: int
    nfev: int
    task: tuple[int, int]  # the routine's final (status, message) codes


@lru_cache(maxsize=1)
def _extension() -> ModuleType | None:
    """The compiled L-BFGS-B module: the one scipy.optimize loaded if it is imported already,
    else loaded from its file (not registered in sys.modules). None if it cannot be had or
    speaks another protocol."""
    if scipy_version() not in KNOWN_SCIPY:
        return None
    mod = sys.modules.get(_EXT)
    if mod is None:
        try:
            # the file only: `find_spec` locates the scipy package without running its
            # __init__, which imports subprocess, sysconfig and scipy._lib; the
            # extension needs none of it (it links its OpenBLAS itself)
            pkg = importlib.util.find_spec("scipy")
            if pkg is None or pkg.origin is None:
                return None
            folder = Path(pkg.origin).parent / "optimize"
            files = [folder / f"_lbfgsb{s}" for s in importlib.machinery.EXTENSION_SUFFIXES]
            found = next((f for f in files if f.is_file()), None)
            spec = importlib.util.spec_from_file_location(_EXT, found) if found else None
            if spec is None or spec.loader is None:
                return None
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        except (ImportError, OSError):
            return None
    doc = (getattr(getattr(mod, "setulb", None), "__doc__", None) or "").strip()
    return mod if doc.splitlines()[:1] == [_KNOWN] else None


def scipy_version() -> str | None:
    """The installed scipy's version, from its version.py file (scipy's __init__ does not run).
    None without scipy or without that file."""
    loaded = sys.modules.get("scipy")
    if loaded is not None:
        return str(getattr(loaded, "__version__", "")) or None
    pkg = importlib.util.find_spec("scipy")
    if pkg is None or pkg.origin is None:
        return None
    try:
        text = (Path(pkg.origin).parent / "version.py").read_text()
    except OSError:
        return None
    found = re.search(r"""^version\s*=\s*['"]([^'"]+)['"]""", text, re.MULTILINE)
    return found.group(1) if found else None


def fast_path_available() -> bool:
    """Whether `minimize_lbfgsb` drives the routine itself (else it calls scipy.optimize)."""
    return _extension() is not None


def minimize_lbfgsb(
    fun: Callable[[np.ndarray], float],
    jac: Callable[[np.ndarray], np.ndarray],
    x0: np.ndarray | list[float],
    maxiter: int,
) -> LbfgsbResult:
    """`scipy.optimize.minimize(fun, x0, jac=jac, method="L-BFGS-B", options={"maxiter":
    maxiter})` without bounds, with scipy's other defaults (maxcor 10, ftol 2.22e-9, gtol 1e-5,
    maxfun 15000, maxls 20): the same iterates, the same x."""
    ext = _extension()
    x = np.array(np.atleast_1d(np.asarray(x0)), dtype=np.float64).ravel()
    if ext is None:
        from scipy.optimize import minimize  # why here: the slow import only as the fallback

        res = minimize(fun, x, jac=jac, method="L-BFGS-B", options={"maxiter": maxiter})
        return LbfgsbResult(
            np.asarray(res.x, dtype=np.float64), int(res.nit), int(res.nfev), (-1, -1)
        )
    n = x.shape[0]
    m, maxfun, maxls = 10, 15000, 20
    factr = 2.2204460492503131e-09 / np.finfo(float).eps
    pgtol = 1e-5
    nbd = np.zeros(n, np.int32)  # no bound on any variable
    lower = np.zeros(n, np.float64)
    upper = np.zeros(n, np.float64)
    wa = np.zeros(2 * m * n + 5 * n + 11 * m * m + 8 * m, np.float64)
    iwa = np.zeros(3 * n, np.int32)
    task = np.zeros(2, np.int32)
    ln_task = np.zeros(2, np.int32)
    lsave = np.zeros(4, np.int32)
    isave = np.zeros(44, np.int32)
    dsave = np.zeros(29, np.float64)
    f: float | np.ndarray = np.array(0.0, dtype=np.float64)
    g = np.zeros(n, np.float64)
    # f and g are evaluated at x0 first and then once per distinct point asked for (scipy's
    # memoised objective does the same; only the evaluation count depends on it)
    at = x.copy()
    f_at, g_at = _evaluate(fun, jac, at)
    nfev, nit = 1, 0
    while True:
        g = np.asarray(g).astype(np.float64)
        ext.setulb(m, x, lower, upper, nbd, f, g, factr, pgtol, wa, iwa, task, lsave, isave, dsave, maxls, ln_task)  # fmt: skip
        if task[0] == _FG:
            if not np.array_equal(x, at):
                at = x.astype(np.float64)
                f_at, g_at = _evaluate(fun, jac, at)
                nfev += 1
            f, g = f_at, g_at
        elif task[0] == _NEW_X:
            nit += 1
            if nit >= maxiter:
                task[0], task[1] = _STOP, _STOP_ITER
            elif nfev > maxfun:
                task[0], task[1] = _STOP, _STOP_FEV
        else:
            break
    return LbfgsbResult(x, nit, nfev, (int(task[0]), int(task[1])))


def _evaluate(
    fun: Callable[[np.ndarray], float], jac: Callable[[np.ndarray], np.ndarray], x: np.ndarray
) -> tuple[float, np.ndarray]:
    """f and g at a copy of x (the objective may not keep or change the array it is given)."""
    fx = fun(np.copy(x))
    if not np.isscalar(fx):
        fx = np.asarray(fx).item()
    return fx, np.atleast_1d(jac(np.copy(x)))  # type: ignore[return-value]  # a float, as checked above
