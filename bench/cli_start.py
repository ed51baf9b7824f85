"""Warm `python -m analysis simulate` start-up: a whole process's wall time, and inside one such
process its import time, its table-load time, `prepare` and the simulation itself.

    python bench/cli_start.py                      # the bundled sample's DeepSeek-8B AIME file
    python bench/cli_start.py --data PATH --runs 7 --methods offline dco sc-pp sc-mars-cal

Target (issue 12): <= 0.3 s wall for offline, dco and sc-pp at budget 128 x 16 iterations,
<= 0.6 s for sc-mars-cal. The feature store is built once first (a cold build is
bench/mars_ingest.py's business), so every timed run is warm. Each figure is the median of
`--runs` fresh processes; `python -c pass` is printed as the interpreter's own floor.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# one warm simulate, phase by phase, in a fresh interpreter (printed as JSON)
_PHASES = """
import json, sys, time
t0 = time.perf_counter()
from analysis.stopping import SimSettings, simulate
from analysis.stopping.cli import resolve_mars_file, _policy, register
from analysis.stopping import prepare
from analysis.mars.store import POOL_COLUMNS, load_features
import argparse
t1 = time.perf_counter()
ap = argparse.ArgumentParser(); register(ap.add_subparsers())
args = ap.parse_args(sys.argv[1:])
policy = _policy(args)
path = resolve_mars_file(args.data, args.model, args.dataset)
t2 = time.perf_counter()
store = load_features(path, with_lows=policy.voting.filter, columns=POOL_COLUMNS)
t3 = time.perf_counter()
preps = [prepare(store.pool(q)) for q in store.qids]
t4 = time.perf_counter()
simulate(preps, policy, SimSettings(args.budget, args.iterations, args.warmup, args.window, args.seed))
t5 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "parse": t2 - t1, "load": t3 - t2, "prepare": t4 - t3,
                  "simulate": t5 - t4}))
"""


def _args(data: Path, method: str, out: Path) -> list[str]:
    extra = ["--warmup-gamma", "--ucb-z", "1.0", "--gamma-min", "0.5"] if "cal" in method else []
    return [
        "simulate",
        "--data",
        str(data),
        "--method",
        method,
        "--budget",
        "128",
        "--iterations",
        "16",
        "--out",
        str(out),
        *extra,
    ]


def _wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=None, help="MARS folder or file (default: sample)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--methods", nargs="+", default=["offline", "dco", "sc-pp", "sc-mars-cal"])
    args = ap.parse_args(argv)
    if args.data is None:
        # why here: after the sys.path insert
        from cache.sample import ensure_sample

        args.data = ensure_sample("mars")
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="rte-cli-start-") as tmp:
        out = Path(tmp)
        for m in args.methods:  # warm the feature store (and the OS file cache) once
            subprocess.run(
                [py, "-m", "analysis", *_args(args.data, m, out / m)],
                cwd=ROOT,
                check=True,
                capture_output=True,
            )
        floor = statistics.median(_wall([py, "-c", "pass"]) for _ in range(args.runs))
        print(f"python -c pass: {floor:.3f} s (the interpreter's floor)")
        for m in args.methods:
            walls = [
                _wall([py, "-m", "analysis", *_args(args.data, m, out / m)])
                for _ in range(args.runs)
            ]
            phases = [
                json.loads(
                    subprocess.run(
                        [py, "-c", _PHASES, *_args(args.data, m, out / m)],
                        cwd=ROOT,
                        check=True,
                        capture_output=True,
                        text=True,
                    ).stdout
                )
                for _ in range(args.runs)
            ]
            med = {k: statistics.median(p[k] for p in phases) for k in phases[0]}
            print(
                f"{m:<12} wall {statistics.median(walls):.3f} s (min {min(walls):.3f})  "
                f"import {med['import']:.3f} s  table load {med['load']:.3f} s  "
                f"prepare {med['prepare']:.3f} s  simulate {med['simulate']:.3f} s"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
