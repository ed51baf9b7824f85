"""Ours against the published MARS simulator (github Wenbo11/MARS), side by side on one pool, in
one run: the cold `offline` run with empty caches (our feature build, their per-question cache
build, answer grouping included), the warm runs, and whether the two agree iteration by iteration.

    python bench/published.py --published DIR --python VENV/bin/python --pythonpath DYNASOR
    python bench/published.py ... --runs 5 --cold-runs 2 --methods offline dco sc-pp sc-mars-cal
    python bench/published.py ... --skip-cold            # warm runs and agreement only

Targets (issue 12): cold >= 50x faster than theirs, warm >= 10x for `offline`, `dco` and
`sc-pp` at budget 128 x 16 iterations (`sc-mars-cal` under 0.6 s).

What you need, none of it in this repository: a checkout of the published simulator (`DIR`,
run unmodified: `examples/run_experiment.py` from `DIR`), a Python with its dependencies
(`--python`; numpy, pandas, pyarrow, scipy, scikit-learn, sympy, latex2sympy2), and
`dynasor.core.evaluator` on `--pythonpath` (github hao-ai-lab/Dynasor, the commit its `uv.lock`
pins; not the PyPI package named dynasor). Without `--published` the script says so and exits 2.

The pool: the realistic 30 x 512 file of bench/mars_ingest.py (generated when absent), copied with
`trace_idx` renumbered 0..n-1 per question, nothing else changed. Why the copy: the published
simulator takes a trace's confidences by its position in the question's list but its probes by
`trace_idx`, so after a gap (the file drops a few traces, as real pools do) it pairs traces with
the wrong probes and stops ("Trace 57 ... is missing probe result at position 6144"). Ours gives
the same results on both files. Both simulators read the same copy.

Each run is a fresh process; ours and theirs alternate run for run. After each cold pair, ours
runs cold once more with its answer memo kept (the tables still cold: what a rebuild after a
version bump of the tables finds), against the same cold runs of theirs. Wall time, CPU seconds (user
+ sys of the process and the children it waited for) and the peak memory of the whole process
tree are printed: PSS summed over the tree (forked workers share their parent's pages, so summed
RSS counts those pages once per worker; RSS is printed beside it). Cold means: our cache folder
(`RTE_CACHE_DIR`, the feature tables and the answer memo) and their `data/<model>/.cache_<file>`
are empty before the run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.mars.verdict_memo import MEMO_FILE  # noqa: E402
from bench.mars_ingest import pool_file  # noqa: E402
from cache.sample.mars import WRITER_OPTIONS  # noqa: E402

MODEL, DATASET = "deepseek-8b", "aime-2025"
FILE_REL = Path("DeepSeek-8B/aime25_deepseek.parquet")  # where --model/--dataset point them
CAL_FLAGS = ["--warmup-gamma", "--ucb-z", "1.0", "--gamma-min", "0.5"]
TARGETS = {"cold": 50.0, "warm": 10.0}  # times faster than theirs
WARM_TARGET_METHODS = ("offline", "dco", "sc-pp")
COMPARED = (
    "voted_answer",
    "is_correct",
    "total_tokens",
    "baseline_tokens",
    "stopped_by",
    "position",
)


@dataclass
class Run:
    wall: float
    cpu: float
    pss_mb: float
    rss_mb: float
    rc: int


def _tree(pid: int) -> list[int]:
    out, i = [pid], 0
    while i < len(out):
        p = out[i]
        i += 1
        try:
            for t in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{t}/children") as f:
                    out += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return out


def _status_kb(pid: int, field: str, path: str = "status") -> int:
    try:
        with open(f"/proc/{pid}/{path}") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def measure(cmd: list[str], cwd: Path, env: dict[str, str], log: Path) -> Run:
    """Run `cmd` to its end; a thread samples the process tree's memory every 50 ms (PSS every
    200) while this one waits for the exit, so the wall time is exact (a polling loop rounded
    it up to its 50 ms step: a fifth of a 0.25 s warm run)."""
    peak = {"rss": 0, "pss": 0}
    stop = threading.Event()

    def sample(pid: int) -> None:
        k = 0
        while not stop.is_set():
            pids = _tree(pid)
            peak["rss"] = max(peak["rss"], sum(_status_kb(p, "VmRSS:") for p in pids))
            if k % 4 == 0:
                pss = sum(_status_kb(p, "Pss:", "smaps_rollup") for p in pids)
                peak["pss"] = max(peak["pss"], pss)
            k += 1
            stop.wait(0.05)

    t0 = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        sampler = threading.Thread(target=sample, args=(proc.pid,), daemon=True)
        sampler.start()
        _, st, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        stop.set()
        sampler.join()
        status = os.waitstatus_to_exitcode(st)
        proc.returncode = status
    cpu = ru.ru_utime + ru.ru_stime
    return Run(wall, cpu, peak["pss"] / 1024, peak["rss"] / 1024, status)


def _encodings(path: Path) -> list[tuple]:
    """Each column chunk's path and encodings in the first row group."""
    rg = pq.ParquetFile(path).metadata.row_group(0)
    return [
        (rg.column(i).path_in_schema, sorted(rg.column(i).encodings))
        for i in range(rg.num_columns)
        if rg.column(i).path_in_schema != "trace_idx"
    ]


def contiguous_copy(src: Path, dst: Path) -> Path:
    """`src` with `trace_idx` renumbered 0..n-1 within each question (order kept), written with
    the generator's options: the same encodings, so a plain read of the copy costs what one of
    the original does (a copy with pyarrow's default dictionaries read `confs` ~2.5x slower)."""
    if (
        dst.exists()
        and dst.stat().st_mtime >= src.stat().st_mtime
        and _encodings(dst) == _encodings(src)
    ):
        return dst
    f = pq.ParquetFile(src)
    tmp = dst.with_suffix(".part")
    writer = None
    for rg in range(f.metadata.num_row_groups):
        t = f.read_row_group(rg)
        qid = np.asarray(t.column("qid").combine_chunks())
        trace = np.asarray(t.column("trace_idx").combine_chunks())
        if np.unique(qid).shape[0] != 1 or not np.all(np.diff(trace) > 0):
            raise SystemExit(f"{src}: expected one question per row group, traces in order")
        at = t.schema.get_field_index("trace_idx")
        t = t.set_column(at, "trace_idx", pa.array(np.arange(trace.shape[0], dtype=np.int64)))
        if writer is None:
            writer = pq.ParquetWriter(tmp, t.schema, **WRITER_OPTIONS)
        writer.write_table(t)
    assert writer is not None
    writer.close()
    tmp.replace(dst)
    return dst


def method_flags(method: str) -> list[str]:
    return ["--method", method, *(CAL_FLAGS if method.endswith("-cal") else [])]


class Sides:
    """How to run ours and theirs on the pool, each in its own folders under `work`."""

    def __init__(self, args: argparse.Namespace, pool: Path, work: Path) -> None:
        self.args, self.pool, self.work = args, pool, work
        self.data = work / "theirs"
        (self.data / "data" / FILE_REL.parent).mkdir(parents=True, exist_ok=True)
        link = self.data / "data" / FILE_REL
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(pool)
        self.their_cache = link.parent / f".cache_{FILE_REL.stem}"
        self.our_cache = work / "ours-cache"
        base = {k: v for k, v in os.environ.items() if not k.startswith("RTE_")}
        self.env_ours = dict(base, RTE_CACHE_DIR=str(self.our_cache), HF_HUB_OFFLINE="1")
        extra = [str(args.published), *args.pythonpath]
        self.env_theirs = dict(base, PYTHONPATH=os.pathsep.join(extra))
        self.n = 0

    def _out(self, side: str, method: str) -> Path:
        self.n += 1
        return self.work / "out" / f"{self.n:03d}-{side}-{method}"

    def ours(self, method: str) -> tuple[Run, Path]:
        out = self._out("ours", method)
        cmd = [sys.executable, "-m", "analysis", "simulate", "--data", str(self.pool)]
        cmd += ["--model", MODEL, "--dataset", DATASET, *method_flags(method)]
        cmd += ["--budget", str(self.args.budget), "--iterations", str(self.args.iterations)]
        cmd += ["--out", str(out)]
        out.parent.mkdir(parents=True, exist_ok=True)
        return measure(cmd, ROOT, self.env_ours, out.with_suffix(".log")), out

    def theirs(self, method: str) -> tuple[Run, Path]:
        out = self._out("theirs", method)
        script = str(self.args.published / "examples" / "run_experiment.py")
        cmd = [str(self.args.python), script, "--model", MODEL, "--dataset", DATASET]
        cmd += [*method_flags(method), "--budget", str(self.args.budget)]
        cmd += ["--iterations", str(self.args.iterations), "--output-dir", str(out)]
        out.parent.mkdir(parents=True, exist_ok=True)
        run = measure(cmd, self.data, self.env_theirs, out.with_suffix(".log"))
        found = sorted(out.rglob("results.csv"))
        return run, found[0].parent if found else out

    def plain_read(self) -> Run:
        """The floor of a cold build: a plain pyarrow read of the `confs` column, fresh process."""
        code = "import sys, pyarrow.parquet as pq; pq.read_table(sys.argv[1], columns=['confs'])"
        cmd = [sys.executable, "-c", code, str(self.pool)]
        return measure(cmd, ROOT, self.env_ours, self.work / "out" / "plain-read.log")

    def clear(self, side: str, keep_memo: bool = False) -> None:
        """Empty one side's cache; `keep_memo` keeps our answer memo (what a rebuild finds:
        after a version bump of the tables, or for another file with the same answer strings)."""
        if side == "theirs":
            shutil.rmtree(self.their_cache, ignore_errors=True)
            return
        memo = self.our_cache / "derived" / MEMO_FILE
        saved = memo.read_bytes() if keep_memo and memo.exists() else None
        if keep_memo and saved is None:
            raise SystemExit(f"no answer memo at {memo} to keep")
        shutil.rmtree(self.our_cache, ignore_errors=True)
        if saved is not None:
            memo.parent.mkdir(parents=True, exist_ok=True)
            memo.write_bytes(saved)


def agreement(ours: Path, theirs: Path) -> str:
    """How many (question, iteration) rows of results.csv differ, and where."""
    import pandas as pd  # why here: the timed children never see this process's imports

    try:
        a = pd.read_csv(ours / "results.csv", keep_default_na=False)
        b = pd.read_csv(theirs / "results.csv", keep_default_na=False)
    except OSError as exc:
        return f"no results to compare ({exc})"
    key = ["question_id", "iteration"]
    m = a.merge(b, on=key, how="outer", suffixes=("_ours", "_theirs"), indicator=True)
    off = m["_merge"] != "both"
    for c in COMPARED:
        x, y = m[f"{c}_ours"].astype(str), m[f"{c}_theirs"].astype(str)
        off |= x != y
    if not off.any():
        return f"identical ({len(m)} iterations)"
    qs = sorted({int(q) for q in m.loc[off, "question_id"]})
    return f"{int(off.sum())} of {len(m)} iterations differ (questions {', '.join(map(str, qs))})"


def _med(runs: list[Run], what: str) -> float:
    return statistics.median(getattr(r, what) for r in runs)


def _row(label: str, ours: list[Run], theirs: list[Run], target: float | None) -> str:
    ratio = _med(theirs, "wall") / _med(ours, "wall")
    cpu_ratio = _med(theirs, "cpu") / max(_med(ours, "cpu"), 1e-9)
    verdict = "" if target is None else ("met" if ratio >= target else "NOT met")
    return (
        f"{label:<22} {_med(ours, 'wall'):>8.2f} {_med(theirs, 'wall'):>9.2f} {ratio:>7.1f}x "
        f"{cpu_ratio:>7.1f}x {_med(ours, 'pss_mb'):>9.0f} {_med(theirs, 'pss_mb'):>10.0f} "
        f"{verdict:>8}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--published", type=Path, help="checkout of github Wenbo11/MARS")
    ap.add_argument("--python", type=Path, default=Path(sys.executable), help="its Python")
    ap.add_argument("--pythonpath", nargs="*", default=[], help="e.g. a Dynasor checkout")
    ap.add_argument("--pool", type=Path, default=None, help="MARS file (default: realistic)")
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "rte-bench")
    ap.add_argument("--runs", type=int, default=5, help="warm runs per method and side")
    ap.add_argument("--cold-runs", type=int, default=1)
    ap.add_argument("--skip-cold", action="store_true")
    ap.add_argument("--methods", nargs="+", default=["offline", "dco", "sc-pp", "sc-mars-cal"])
    ap.add_argument("--budget", type=int, default=128)
    ap.add_argument("--iterations", type=int, default=16)
    args = ap.parse_args(argv)
    script = args.published / "examples" / "run_experiment.py" if args.published else None
    if script is None or not script.is_file():
        print(
            "not measured: pass --published DIR, a checkout of github Wenbo11/MARS "
            "(examples/run_experiment.py), with --python and --pythonpath for its dependencies",
            file=sys.stderr,
        )
        return 2
    pool = contiguous_copy(
        args.pool or pool_file(args.dir, "realistic", 30, 512),
        args.dir / "published-pool-contiguous.parquet",
    )
    work = args.dir / "published-work"
    shutil.rmtree(work / "out", ignore_errors=True)
    sides = Sides(args, pool, work)
    size = pool.stat().st_size / 2**20
    print(f"pool {pool} ({size:.0f} MiB); budget {args.budget} x {args.iterations} iterations")
    head = (
        f"{'job':<22} {'ours s':>8} {'theirs s':>9} {'wall':>8} {'cpu':>8} "
        f"{'ours MB':>9} {'theirs MB':>10} {'target':>8}"
    )
    rows: list[str] = []
    cold_o: list[Run] = []
    cold_t: list[Run] = []
    memo_o: list[Run] = []
    if not args.skip_cold:
        for i in range(args.cold_runs):
            for side in ("theirs", "ours") if i % 2 else ("ours", "theirs"):
                sides.clear(side)
                run, _ = sides.ours("offline") if side == "ours" else sides.theirs("offline")
                (cold_o if side == "ours" else cold_t).append(run)
                print(
                    f"  cold {side}: {run.wall:.1f} s, {run.cpu:.1f} CPU-s, rc {run.rc}", flush=True
                )
            # ours again with the answer memo the cold run left (tables still cold)
            sides.clear("ours", keep_memo=True)
            run, _ = sides.ours("offline")
            memo_o.append(run)
            print(f"  cold ours, memo kept: {run.wall:.1f} s, {run.cpu:.1f} CPU-s", flush=True)
        rows.append(_row("cold offline", cold_o, cold_t, TARGETS["cold"]))
        rows.append(_row("cold, our memo kept", memo_o, cold_t, None))
        reads = [sides.plain_read() for _ in range(max(args.cold_runs, 1))]
        floor = _med(reads, "wall")
        print(
            f"  plain read_table(columns=['confs']): {floor:.2f} s; ours cold "
            f"{_med(cold_o, 'wall') / floor:.1f}x it, memo kept {_med(memo_o, 'wall') / floor:.1f}x",
            flush=True,
        )
    # warm: both caches built (by the cold runs, or now), one untimed run of each side first
    last: dict[tuple[str, str], Path] = {}
    for method in args.methods:
        sides.ours(method)
        sides.theirs(method)
    for method in args.methods:
        o: list[Run] = []
        t: list[Run] = []
        for i in range(args.runs):
            for side in ("theirs", "ours") if i % 2 else ("ours", "theirs"):
                run, out = sides.ours(method) if side == "ours" else sides.theirs(method)
                (o if side == "ours" else t).append(run)
                last[(side, method)] = out
        bad = [r.rc for r in o + t if r.rc]
        target = TARGETS["warm"] if method in WARM_TARGET_METHODS else None
        rows.append(_row(f"warm {method}", o, t, target) + (f"  exit codes {bad}" if bad else ""))
        print(
            f"  warm {method}: ours {_med(o, 'wall'):.2f} s, theirs {_med(t, 'wall'):.2f} s",
            flush=True,
        )
    print()
    print(head)
    print("\n".join(rows))
    print("(medians; wall and cpu columns are theirs / ours; MB = peak PSS of the process tree)")
    if cold_o:
        rss = _med(cold_o, "rss_mb"), _med(cold_t, "rss_mb")
        print(f"cold peak RSS summed over the tree: ours {rss[0]:.0f} MB, theirs {rss[1]:.0f} MB")
    print("\nagreement, results.csv of the last warm runs (question x iteration):")
    for method in args.methods:
        print(f"  {method:<12} {agreement(last[('ours', method)], last[('theirs', method)])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
