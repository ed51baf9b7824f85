"""Warm `python -m analysis simulate` start-up: a whole process's wall and CPU time, and inside one
such process its import time, its table-load time, `prepare`, the simulation and the CSV writing.

    python bench/cli_start.py                      # the bundled sample's DeepSeek-8B AIME file
    python bench/cli_start.py --data PATH --runs 7 --methods offline dco sc-pp sc-mars-cal
    python bench/cli_start.py --data PATH --baseline /tmp/old   # before/after, interleaved

Target (issue 12): <= 0.3 s wall for offline, dco and sc-pp at budget 128 x 16 iterations,
<= 0.6 s for sc-mars-cal. The feature tables (and the simulator's flat copy of their pool
columns, `analysis.playground.pools`) are built first (a cold build is bench/mars_ingest.py's
business), so every timed run is warm. Each figure is the median of `--runs` fresh processes.
CPU seconds (user + sys of the child, `resource.getrusage`) are printed beside wall seconds: on
a shared machine the wall time of a short process mostly measures the other jobs. CPU counts
every thread: OpenBLAS starts a thread per core when numpy loads, which spins for work (about
0.09 CPU-s here), so CPU can exceed wall unless OPENBLAS_NUM_THREADS=1. The floors are
measured in the same run, interleaved with the simulate runs: `python -c pass` (the interpreter
and its `site`, which runs the installed packages' .pth files), `python -S -c pass` (without
site) and `python -c "import numpy"` (the one module a warm run cannot do without).

`--baseline DIR` times a second checkout (e.g. `git worktree add DIR <commit>`, or
`git archive <commit> | tar -x -C DIR`) in the same loop, run for run alternating with this one,
and prints the ratio (this / baseline) of the medians. Both use the same cache folder
(`RTE_CACHE_DIR`), so they read the same feature tables.
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

TARGETS = {"sc-mars-cal": 0.6}  # seconds of wall; every other method: DEFAULT_TARGET
DEFAULT_TARGET = 0.3

# one warm simulate, phase by phase, in a fresh interpreter (printed as JSON): the CLI's own
# steps (`analysis.playground.cli.cmd_simulate`), timed apart, wall and CPU (process_time).
# "start" is the CPU the interpreter spent before this script's first line (site included).
_PHASES = """
import json, sys, time
from pathlib import Path
W, C = time.perf_counter, time.process_time
marks = [("start", W(), C())]
import numpy
marks.append(("numpy", W(), C()))
import argparse
from analysis.playground import prepare, simulate, SimSettings
from analysis.playground.cli import _policy, register, resolve_mars_file
from analysis.playground.pools import cached_pools
marks.append(("ours", W(), C()))
ap = argparse.ArgumentParser(); register(ap.add_subparsers())
args = ap.parse_args(sys.argv[1:])
policy = _policy(args)
path = resolve_mars_file(Path(args.data), args.model, args.dataset)
marks.append(("parse", W(), C()))
pools = cached_pools(path, args.window, with_lows=policy.voting.filter)
assert pools is not None, "the feature tables are not built"
marks.append(("load", W(), C()))
preps = [prepare(p) for p in pools]
marks.append(("prepare", W(), C()))
run = simulate(preps, policy, SimSettings(args.budget, args.iterations, args.warmup, args.window,
                                          args.seed))
marks.append(("simulate", W(), C()))
run.write(Path(args.out))
marks.append(("write", W(), C()))
out = {"start_cpu": marks[0][2]}
for (_n0, w0, c0), (n1, w1, c1) in zip(marks, marks[1:]):
    out[n1], out[n1 + "_cpu"] = w1 - w0, c1 - c0
print(json.dumps(out))
"""
PHASES = ("numpy", "ours", "parse", "load", "prepare", "simulate", "write")


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


def _timed(cmd: list[str], cwd: Path) -> tuple[float, float, str]:
    """(wall, CPU) seconds of one child process, and what it printed."""
    c, t = _child_cpu(), time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True)
    return time.perf_counter() - t, _child_cpu() - c, done.stdout


class _Series:
    """Whole-process (wall, CPU) samples and in-process phase samples of one command."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.phases: list[dict[str, float]] = []

    def med(self, key: str) -> float:
        if key == "wall":
            return statistics.median(self.wall)
        if key == "cpu":
            return statistics.median(self.cpu)
        return statistics.median(p[key] for p in self.phases)


def _floor_cmds(py: str) -> dict[str, list[str]]:
    return {
        "python -c pass": [py, "-c", "pass"],
        "python -S -c pass": [py, "-S", "-c", "pass"],
        'python -c "import numpy"': [py, "-c", "import numpy"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, default=None, help="MARS folder or file (default: sample)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--methods", nargs="+", default=["offline", "dco", "sc-pp", "sc-mars-cal"])
    ap.add_argument(
        "--baseline", type=Path, default=None, help="another checkout, timed interleaved"
    )
    args = ap.parse_args(argv)
    if args.data is None:
        # why here: after the sys.path insert
        from cache.sample import ensure_sample

        args.data = ensure_sample("mars")
    data = args.data.resolve()
    py = sys.executable
    roots = {"now": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    with tempfile.TemporaryDirectory(prefix="rte-cli-start-") as tmp:
        out = Path(tmp)
        for name, root in roots.items():  # build the tables and the flat copy, warm the caches
            for m in args.methods:
                for _ in range(2):
                    _timed([py, "-m", "analysis", *_args(data, m, out / name / m)], root)
        floors = {label: _Series() for label in _floor_cmds(py)}
        series = {(name, m): _Series() for name in roots for m in args.methods}
        for _ in range(args.runs):  # one round: every command once, so drift hits all alike
            for label, cmd in _floor_cmds(py).items():
                w, c, _o = _timed(cmd, out)
                floors[label].wall.append(w)
                floors[label].cpu.append(c)
            for m in args.methods:
                for name, root in roots.items():
                    s = series[(name, m)]
                    w, c, _o = _timed([py, "-m", "analysis", *_args(data, m, out / name / m)], root)
                    s.wall.append(w)
                    s.cpu.append(c)
                    _w, _c, printed = _timed(
                        [py, "-c", _PHASES, *_args(data, m, out / name / m)], root
                    )
                    s.phases.append(json.loads(printed))
        print(f"{args.runs} runs each, interleaved; medians; wall / CPU seconds")
        for label, f in floors.items():
            print(f"  floor  {label:<26} wall {f.med('wall'):.3f}  cpu {f.med('cpu'):.3f}")
        pn, pc = floors["python -c pass"], floors['python -c "import numpy"']
        print(
            f"  floor  site (.pth files)          cpu "
            f"{pn.med('cpu') - floors['python -S -c pass'].med('cpu'):.3f}   "
            f"numpy import alone cpu {pc.med('cpu') - pn.med('cpu'):.3f}"
        )
        for m in args.methods:
            target = TARGETS.get(m, DEFAULT_TARGET)
            for name in roots:
                s = series[(name, m)]
                imp = s.med("numpy") + s.med("ours")
                imp_c = s.med("numpy_cpu") + s.med("ours_cpu")
                print(
                    f"{m:<12} {name:<8} wall {s.med('wall'):.3f} s ({s.med('wall') / target:.2f}x "
                    f"the {target} s target)  cpu {s.med('cpu'):.3f} s ({s.med('cpu') / target:.2f}x)"
                    f" | import {imp:.3f} (cpu {imp_c:.3f}: numpy {s.med('numpy_cpu'):.3f}, ours "
                    f"{s.med('ours_cpu'):.3f})  table load {s.med('load'):.3f} (cpu "
                    f"{s.med('load_cpu'):.3f})"
                )
                print(
                    "    phases, wall (cpu): "
                    + "  ".join(f"{p} {s.med(p):.3f} ({s.med(p + '_cpu'):.3f})" for p in PHASES)
                    + f"  | interpreter+site cpu {s.med('start_cpu'):.3f}"
                    + f'  | above python -c "import numpy": wall '
                    f"{s.med('wall') - pc.med('wall'):.3f} cpu {s.med('cpu') - pc.med('cpu'):.3f}"
                )
            if "baseline" in roots:
                a, b = series[("now", m)], series[("baseline", m)]
                print(
                    f"{m:<12} now/baseline: wall {a.med('wall') / b.med('wall'):.2f}  "
                    f"cpu {a.med('cpu') / b.med('cpu'):.2f}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
