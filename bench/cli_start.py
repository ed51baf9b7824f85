"""Warm `python -m analysis simulate` start-up: a whole process's wall and CPU time, and inside one
such process its import time, its table-load time, `prepare`, the simulation and the CSV writing.

    python bench/cli_start.py                      # the bundled sample's DeepSeek-8B AIME file
    python bench/cli_start.py --data PATH --runs 7 --methods offline dco sc-pp sc-mars-cal

Target (issue 12): <= 0.3 s wall for offline, dco and sc-pp at budget 128 x 16 iterations,
<= 0.6 s for sc-mars-cal. The feature tables (and the simulator's flat copy of their pool
columns, `analysis.stopping.pools`) are built first (a cold build is bench/mars_ingest.py's
business), so every timed run is warm. Each figure is the median of `--runs` fresh processes.
CPU seconds (user + sys of the child) are printed beside wall seconds: on a shared machine the
wall time of a short process mostly measures the other jobs. `python -c pass` and
`python -c "import numpy"` are printed as the floors: the interpreter's, and the one module a
warm run cannot do without.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# one warm simulate, phase by phase, in a fresh interpreter (printed as JSON): the CLI's own
# steps (`analysis.stopping.cli.cmd_simulate`), timed apart
_PHASES = """
import json, sys, time
from pathlib import Path
t0 = time.perf_counter()
import argparse
from analysis.stopping import prepare, simulate, SimSettings
from analysis.stopping.cli import _policy, register, resolve_mars_file
from analysis.stopping.pools import cached_pools
t1 = time.perf_counter()
ap = argparse.ArgumentParser(); register(ap.add_subparsers())
args = ap.parse_args(sys.argv[1:])
policy = _policy(args)
path = resolve_mars_file(Path(args.data), args.model, args.dataset)
t2 = time.perf_counter()
pools = cached_pools(path, args.window, with_lows=policy.voting.filter)
assert pools is not None, "the feature tables are not built"
t3 = time.perf_counter()
preps = [prepare(p) for p in pools]
t4 = time.perf_counter()
run = simulate(preps, policy, SimSettings(args.budget, args.iterations, args.warmup, args.window,
                                          args.seed))
t5 = time.perf_counter()
run.write(Path(args.out))
t6 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "parse": t2 - t1, "load": t3 - t2, "prepare": t4 - t3,
                  "simulate": t5 - t4, "write": t6 - t5}))
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


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _timed(cmd: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one child process."""
    c, t = _child_cpu(), time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - t, _child_cpu() - c


def _median(cmd: list[str], runs: int) -> tuple[float, float, float]:
    """(median wall, min wall, median CPU) over `runs` processes."""
    got = [_timed(cmd) for _ in range(runs)]
    walls = [w for w, _c in got]
    return statistics.median(walls), min(walls), statistics.median(c for _w, c in got)


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
        for m in args.methods:  # build the tables and the flat copy, warm the OS file cache
            for _ in range(2):
                subprocess.run(
                    [py, "-m", "analysis", *_args(args.data, m, out / m)],
                    cwd=ROOT,
                    check=True,
                    capture_output=True,
                )
        for label, cmd in (
            ("python -c pass", "pass"),
            ('python -c "import numpy"', "import numpy"),
        ):
            wall, _lo, cpu = _median([py, "-c", cmd], args.runs)
            print(f"{label:<26} wall {wall:.3f} s  cpu {cpu:.3f} s  (floor)")
        for m in args.methods:
            wall, lo, cpu = _median(
                [py, "-m", "analysis", *_args(args.data, m, out / m)], args.runs
            )
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
                f"{m:<12} wall {wall:.3f} s (min {lo:.3f})  cpu {cpu:.3f} s | "
                f"import {med['import']:.3f}  table load {med['load']:.3f}  "
                f"prepare {med['prepare']:.3f}  simulate {med['simulate']:.3f}  "
                f"write {med['write']:.3f} s"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
