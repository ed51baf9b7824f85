"""Stopping-playground benchmark: published setting (budget 512 x 64 iterations x 30 questions).

    python bench/playground.py [--synthetic | --realistic | --data FILE] [--reference-sweep]

Times, from prepared (cached) pools, one full run per policy (targets: <= 0.3 s for SC, DCO and
Parallel-Probe, <= 1 s for calibrated MARS) and frontier sweeps of 11 parameter values (<= 3 s;
the runs of a sweep share what does not depend on the value, `analysis.playground.sharing`),
each next to the plain per-iteration Python loop (`analysis.playground.reference_loop`) on the same
pools in the same process, and checks that both give identical per-question results. CPU
seconds are printed beside wall seconds (a shared machine's wall time measures its other jobs).

Pools: the bundled sample's DeepSeek-8B AIME 2025 file (30 questions x 128 traces, built into a
temporary folder if the sample is not there), with --synthetic 30 x 4,096 synthetic traces, or
with --realistic the realistic 30 x 512 pool of bench/mars_ingest.py (generated into --dir if
absent; docs/PERFORMANCE.md's figures), with --data any MARS file. Each figure is printed as wall and
CPU seconds against its target, with a verdict for each (on a loaded machine the wall time
measures the other jobs; the CPU seconds are the steadier figure).
Every timed run starts cold: the q-model / calibration caches, the bootstrap memo and the
Dirichlet probability memo (with its quadrature tables) are cleared.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from analysis.mars.store import load_features  # noqa: E402
from analysis.playground import (  # noqa: E402
    SimSettings,
    main_param,
    policy_for_method,
    prepare,
    simulate,
    sweep,
    with_main_param,
)
from analysis.playground.bootstrap import _iteration_rows  # noqa: E402
from analysis.playground.reference_loop import reference_simulate  # noqa: E402
from analysis.playground.rules import clear_dirichlet_memo  # noqa: E402
from analysis.playground.synthetic import synthetic_pool  # noqa: E402
from cache.sample import sample_root  # noqa: E402
from cache.sample.mars import FILES, write_file  # noqa: E402

TARGETS = {"offline": 0.3, "dco": 0.3, "sc-pp": 0.3, "sc-mars-cal": 1.0, "dco-mars-cal": 1.0}
SWEEPS = ["sc-mars-cal", "dco", "sc-consensus", "sc-pp", "dco-stability", "ac-dirichlet"]
METHODS = [
    "offline",
    "dco",
    "sc-pp",
    "sc-mars",
    "dco-mars",
    "sc-mars-cal",
    "dco-mars-cal",
    "sc-consensus",
    "sc-stability",
    "esc",
    "ac-beta",
]


def sample_pools():  # type: ignore[no-untyped-def]  # returns the pools as built by the sample loader
    rel = "DeepSeek-8B/aime25_deepseek.parquet"
    path = sample_root("mars") / rel
    if not path.is_file():
        i = [f[0] for f in FILES].index(rel)
        _rel, kind, n_traces, drop = FILES[i]
        path = Path(tempfile.mkdtemp(prefix="rte-bench-")) / rel
        write_file(path, kind, n_traces, seed=1000 + i, drop=drop)
    store = load_features(path)
    return f"sample {rel}", [store.pool(q) for q in store.qids]


def synthetic_pools():  # type: ignore[no-untyped-def]  # returns the pools as built by the synthetic generator
    return "synthetic 30 x 4096", [synthetic_pool(q, n=4096, seed=1) for q in range(30)]


def file_pools(path: Path):  # type: ignore[no-untyped-def]  # returns the pools as built by the store
    store = load_features(path)
    return f"file {path}", [store.pool(q) for q in store.qids]


def realistic_pools(folder: Path):  # type: ignore[no-untyped-def]  # the store's pools
    """The realistic 30 x 512 pool of bench/mars_ingest.py, generated if absent."""
    path = folder / "mars_realistic_30x512_realistic-garbage.parquet"
    if not path.exists():
        from cache.sample.mars import write_full_size_file  # why: only to generate the pool

        t = time.perf_counter()
        write_full_size_file(path, n_questions=30, n_traces=512, garbage="realistic")
        print(f"generated {path} in {time.perf_counter() - t:.1f} s")
    return file_pools(path)


def verdict(wall: float, cpu: float, target: float) -> str:
    """'ok' when the wall time meets the target; 'cpu ok' when only the CPU seconds do (the
    machine's other jobs took the difference); 'SLOW' otherwise."""
    if wall <= target:
        return "ok"
    return "cpu ok (wall over: machine loaded?)" if cpu <= target else "SLOW"


def cold(preps) -> None:
    for p in preps:
        p.cache.clear()
    _iteration_rows.cache_clear()
    clear_dirichlet_memo()


def timed(fn, repeat: int = 3) -> tuple[float, object]:
    """(best wall seconds, result); the CPU seconds of the best run go to `LAST_CPU`."""
    global LAST_CPU
    best, out = float("inf"), None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        wall = time.perf_counter() - t
        if wall < best:
            best, LAST_CPU = wall, time.process_time() - c
    return best, out


LAST_CPU = 0.0


def policy_of(method: str):
    kw = {"warmup_gamma": True, "ucb_z": 1.0, "gamma_min": 0.5} if method.endswith("-cal") else {}
    return policy_for_method(method, **kw)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--synthetic", action="store_true", help="30 x 4096 synthetic traces")
    ap.add_argument(
        "--reference-sweep", action="store_true", help="also time the loop sweep (slow)"
    )
    ap.add_argument("--methods", nargs="*", default=METHODS)
    ap.add_argument("--data", type=Path, default=None, help="a MARS file instead of the sample")
    ap.add_argument(
        "--realistic", action="store_true", help="the realistic 30 x 512 pool (see --dir)"
    )
    ap.add_argument("--dir", type=Path, default=Path("/tmp/rte-bench"), help="generated pools")
    ap.add_argument("--sweeps", nargs="*", default=SWEEPS, help="methods whose frontier to time")
    args = ap.parse_args()
    if args.data is not None:
        label, pools = file_pools(args.data)
    elif args.realistic:
        label, pools = realistic_pools(args.dir)
    else:
        label, pools = synthetic_pools() if args.synthetic else sample_pools()
    t = time.perf_counter()
    preps = [prepare(p) for p in pools]
    print(
        f"pools: {label}; prepare {time.perf_counter() - t:.3f} s (once per file, cached by the page)"
    )
    st = SimSettings()
    print(f"setting: budget {st.budget} x {st.iterations} iterations x {len(preps)} questions\n")
    print(
        f"{'method':14s} {'vectorised':>11s} {'cpu':>7s} {'loop':>9s} {'ratio':>7s} {'target':>7s}  same  acc%   sav%"
    )
    ok_all = True
    for m in args.methods:
        pol = policy_of(m)

        def fast(pol=pol):
            cold(preps)
            return simulate(preps, pol, st)

        t_fast, run = timed(fast)
        c_fast = LAST_CPU
        cold(preps)
        t0 = time.perf_counter()
        ref = reference_simulate(preps, pol, st)
        t_ref = time.perf_counter() - t0
        same = run.per_question_frame().equals(ref.per_question_frame())
        ok_all &= same
        target = TARGETS.get(m)
        flag = "" if target is None else verdict(t_fast, c_fast, target)
        o = run.overall_frame().iloc[0]
        tgt = f"{target:.1f}s" if target else "-"
        print(
            f"{m:14s} {t_fast:10.3f}s {c_fast:6.3f}s {t_ref:8.2f}s {t_ref / t_fast:6.0f}x {tgt:>7s}  {'yes' if same else 'NO':4s} "
            f"{o['accuracy_pct']:5.1f} {o['mean_token_savings_pct']:6.1f} {flag}"
        )
    print("\nfrontier sweeps (11 values of the main parameter, one bootstrap sample reused):")
    sweeps: list[tuple[str, float, float]] = []
    for m in args.sweeps:
        pol = policy_of(m)
        name, _lab, values = main_param(pol)

        def run_sweep(pol=pol, values=values):
            cold(preps)
            return sweep(preps, pol, values, st)

        t_sw, pts = timed(run_sweep, repeat=2)
        c_sw = LAST_CPU
        sweeps.append((m, t_sw, c_sw))
        line = (
            f"{m:14s} sweep over {name:10s} wall {t_sw:7.3f}s  cpu {c_sw:7.3f}s  target 3.0s  "
            f"{verdict(t_sw, c_sw, 3.0)}"
        )
        if args.reference_sweep or m in ("dco", "sc-pp"):
            cold(preps)
            t0 = time.perf_counter()
            for v in values:
                reference_simulate(preps, with_main_param(pol, v), st)
            t_ref = time.perf_counter() - t0
            line += f"   loop {t_ref:7.2f}s  ratio {t_ref / t_sw:5.0f}x"
        print(line)
        accs = ", ".join(f"{p.value:g}:{p.accuracy_pct:.1f}/{p.savings_pct:.1f}" for p in pts)
        print(f"    (value: acc%/sav%) {accs}")
    if sweeps:
        over = [f"{m} ({w:.2f}s wall, {c:.2f}s cpu)" for m, w, c in sweeps if min(w, c) > 3.0]
        print("\nsweeps over 3 s (wall and cpu): " + (", ".join(over) if over else "none"))
    print(
        "\nall vectorised results identical to the loop"
        if ok_all
        else "\nMISMATCH between engine and loop"
    )
    return 0 if ok_all else 1


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
