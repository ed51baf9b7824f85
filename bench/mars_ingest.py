"""Ingest benchmark: the cold build of a MARS feature table vs a plain pyarrow read of its
`confs` column, measured in the same run, on two generated files:

- `realistic`: 30 x 512 traces whose early probes hold realistic garbage (prose fragments with
  their spaces stripped, numbers, half-finished LaTeX: `cache.sample.mars.realistic_garbage`),
  the pool on which answer grouping used to dominate the build;
- `full`: the full-size file, 30 x 4,096 traces, median ~10k tokens (~1.4e9 values), with the
  same realistic garbage (targets: <= 1.5x the plain read, peak RSS <= 2.5 GB).

    python bench/mars_ingest.py                  # both files
    python bench/mars_ingest.py --pool realistic # the 30 x 512 one only
    python bench/mars_ingest.py --small          # 4 x 256 traces, a quick check
    python bench/mars_ingest.py --pool full --one-row-group  # the same file as one row group
    python bench/mars_ingest.py --pool full --load 1         # one busy process beside it all

Each measurement runs in a fresh child process; the peak RSS of every process is printed (the
build's parent and its other process (the helper that learns math-verify's facts for a cold
build), and their sum; `VmHWM`, see
cache/process_memory.py). The plain read runs three times, before, between and after the builds,
and the ratios use its median. The build runs twice: truly
cold (an empty persistent answer memo, `analysis.mars.verdict_memo`), then again with the memo
the first run left, which is what a rebuild (a version bump, another session of the
same cache) or another file with the same probe strings finds.

`--one-row-group` measures a copy of the file written as one row group (made once, beside it):
the layout a writer that never splits its row groups leaves, where no question can be read alone.
`--load N` keeps N busy processes (a pure-Python loop each) running through every measurement,
the plain reads included: how the ratio holds on a machine that other jobs share.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _rss_mb() -> float:
    # why here (and not at the top): a measured child's imports are its own (see `_plain_read`)
    from cache.process_memory import peak_rss_bytes

    return peak_rss_bytes() / 2**20


def _cpu_s() -> float:
    """CPU seconds (user + sys) of this process and its finished children: a figure that other
    jobs sharing the machine disturb much less than wall time."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + ch.ru_utime + ch.ru_stime


def _plain_read(path: str, out: mp.Queue) -> None:
    # why here (and in each measured child): its peak RSS counts only what it imports itself
    import pyarrow.parquet as pq

    t = time.perf_counter()
    table = pq.read_table(path, columns=["confs"])
    n = sum(len(c.values) for c in table.column("confs").chunks)
    out.put(("read_table", time.perf_counter() - t, _rss_mb(), n, _cpu_s()))


def _stream_read(path: str, out: mp.Queue) -> None:
    import pyarrow.parquet as pq  # why: see `_plain_read`

    t = time.perf_counter()
    n = 0
    for b in pq.ParquetFile(path).iter_batches(batch_size=512, columns=["confs"]):
        n += len(b.column(0).values)
    out.put(("iter_batches", time.perf_counter() - t, _rss_mb(), n, _cpu_s()))


def _pages_read(path: str, out: mp.Queue) -> None:
    """The same batches as `_stream_read`, `confs` decoded by the build's own page decoder."""
    import pyarrow.parquet as pq  # why: see `_plain_read`

    from cache import list_pages  # why: timed in a fresh process, as the reads above

    t = time.perf_counter()
    n = 0
    pf = pq.ParquetFile(path)
    rgs = list(range(pf.num_row_groups))
    for b in list_pages.iter_batches(pf, Path(path), rgs, ["confs"], 512, "confs"):
        n += len(b.column(0).values)
    out.put(("list_pages", time.perf_counter() - t, _rss_mb(), n, _cpu_s()))


def _features(path: str, out: mp.Queue, memo: str | None = None) -> None:
    from analysis.mars import ingest as mars_ingest  # why: see `_plain_read`

    t = time.perf_counter()
    tables = mars_ingest.build_features(Path(path), memo=Path(memo) if memo else None)
    elapsed = time.perf_counter() - t
    # peak RSS of the whole build: this process plus its fact helper at its own peak
    # (a conservative sum: the peaks need not coincide)
    peaks = [r / 2**20 for r in mars_ingest.LAST_WORKER_PEAK_RSS]
    out.put(
        (
            "features",
            elapsed,
            _rss_mb(),
            tables.features.num_rows,
            peaks,
            _cpu_s(),
            "math_verify" in sys.modules,
        )
    )


def _helper_alone(path: str, out: mp.Queue) -> None:
    """What the fact helper of a cold build does, alone in a fresh process and timed by phase:
    its imports, math-verify's import, the first question's grouping (where latex2sympy's ANTLR
    parser builds its prediction tables) and the other questions'. Why: its CPU is what a cold
    build adds to a rebuild with the memo, so with both it gives the cold build's floor."""
    os.environ["OPENBLAS_NUM_THREADS"] = "1"  # as the helper runs (`fact_feed.worker_env`)
    t0, c0 = time.perf_counter(), _cpu_s()
    from analysis.mars import answers  # why here: timed, in a fresh process
    from analysis.mars.question_groups import warm_grouping  # why: timed as above
    from analysis.mars.verdict_memo import VerdictMemo, version_key  # why: timed as above

    t1 = time.perf_counter()
    answers.use_memo(VerdictMemo(version_key()))
    answers._math_verify()
    t2, c2 = time.perf_counter(), _cpu_s()
    from analysis.mars import ingest_read  # why: the helper is handed the answers

    pf = ingest_read.open_file(Path(path))
    todo: list[ingest_read.Task] = [(list(range(pf.num_row_groups)), None)]
    questions = list(ingest_read.answers_to_warm(Path(path), todo))
    c3 = _cpu_s()
    laps: list[float] = []
    for _, finals, probe_answers, gts in questions:
        t = time.perf_counter()
        warm_grouping(finals, probe_answers, gts)
        laps.append(time.perf_counter() - t)
    cpu = _cpu_s() - c0 - (c3 - c2)  # reading the answers is the parent's work, not counted
    out.put((t1 - t0, t2 - t1, laps, answers._parse.cache_info().misses, cpu))


def _run(target: Callable[..., None], path: Path, *extra: object) -> tuple:
    ctx = mp.get_context("spawn")
    q: mp.Queue = ctx.Queue()
    p = ctx.Process(target=target, args=(str(path), q, *extra))
    p.start()
    res = q.get()
    p.join()
    return res


def _bench(path: Path) -> None:
    """The plain reads and the cold build of one file, each in a fresh process."""
    import pyarrow.parquet as pq  # why: see `main`

    md = pq.ParquetFile(path).metadata
    print(
        f"file: {path} ({path.stat().st_size / 2**20:.0f} MiB, {md.num_rows} rows, "
        f"{md.num_row_groups} row groups)"
    )
    print(f"load average before: {os.getloadavg()[0]:.2f} (other jobs skew wall times)")
    from analysis.mars import confidence  # why here: see `main`

    kernel = "compiled" if confidence._trace_kernel is not None else "NOT BUILT: the numpy loop"
    print(f"per-trace pass: {kernel} (analysis/mars/_trace_kernel.c)")
    from cache import list_pages  # why here: see `main`

    decoder = "compiled" if list_pages._list_pages is not None else "NOT BUILT: pyarrow"
    print(f"confs page decoder: {decoder} (cache/_list_pages.c)")
    # the plain read runs before, between and after the two builds, and the ratios use the
    # median: on a shared machine one read moved between 0.9 and 1.9 s in the same hour
    reads = [_run(_plain_read, path)]
    _, t_stream, rss_stream, _, cpu_stream = _run(_stream_read, path)
    print(
        f"plain pyarrow iter_batches(columns=['confs']): {t_stream:.2f} s, {cpu_stream:.2f} CPU-s, "
        f"RSS {rss_stream:.0f} MB"
    )
    _, t_pages, rss_pages, _, cpu_pages = _run(_pages_read, path)
    print(
        f"the build's page decoder, same batches: {t_pages:.2f} s, {cpu_pages:.2f} CPU-s, "
        f"RSS {rss_pages:.0f} MB (RATIO {cpu_pages / cpu_stream:.2f}x the CPU of iter_batches)"
    )
    builds = []
    with tempfile.TemporaryDirectory(prefix="rte-bench-memo-") as tmp:
        memo = str(Path(tmp) / "answer-memo.sqlite")
        for label, what in (
            ("cold feature build (empty answer memo)", "cold"),
            ("rebuild, answer memo of the cold build (tables cold)", "memo"),
        ):
            _, t_feat, rss_parent, rows, peaks, cpu_feat, mv = _run(_features, path, memo)
            each = ", ".join(f"process {i + 1}: {w:.0f} MB" for i, w in enumerate(peaks))
            total = rss_parent + sum(peaks)
            print(
                f"{label}: {t_feat:.2f} s for {rows} traces "
                f"({f'parent + {len(peaks)} other process(es)' if peaks else 'one process'}); "
                f"peak RSS parent {rss_parent:.0f} MB{', ' + each if each else ''}; "
                f"sum {total:.0f} MB; math-verify imported in the parent: {'yes' if mv else 'no'}"
            )
            builds.append((what, t_feat, cpu_feat, len(peaks)))
            reads.append(_run(_plain_read, path))
    t_imp, t_mv, laps, n_parsed, cpu_helper = _run(_helper_alone, path)
    if laps:
        print(
            f"the fact helper's work alone, fresh process: {t_imp + t_mv + sum(laps):.2f} s, "
            f"{cpu_helper:.2f} CPU-s: imports {t_imp:.2f} s, math-verify's import {t_mv:.2f} s, "
            f"the first question {laps[0]:.2f} s (the parser's tables are built), the other "
            f"{len(laps) - 1} questions {sum(laps[1:]):.2f} s; {n_parsed} strings parsed"
        )
    times = sorted(r[1] for r in reads)
    t_read = statistics.median(times)
    cpu_read = statistics.median(r[4] for r in reads)
    n_values, rss_read = reads[0][3], max(r[2] for r in reads)
    print(
        f"plain pyarrow read_table(columns=['confs']), before, between and after the builds: "
        f"{', '.join(f'{r[1]:.2f}' for r in reads)} s (median {t_read:.2f} s), "
        f"{n_values / 1e6:.0f} M values, peak RSS {rss_read:.0f} MB"
    )
    for what, t_feat, cpu_feat, _others in builds:
        print(
            f"RATIO {what} build / plain read = {t_feat / t_read:.2f}x wall, "
            f"{cpu_feat / max(cpu_read, 1e-9):.2f}x CPU ({cpu_feat:.1f} CPU-s; "
            f"target <= 1.5x; against the fastest read {t_feat / times[0]:.2f}x)"
        )
    by = {what: (t_feat, cpu_feat, others) for what, t_feat, cpu_feat, others in builds}
    if laps and by["cold"][2] == 1 and by["memo"][2] == 0:
        # the cold build ran beside the fact helper (its one other process): both busy all
        # the time, it cannot be faster on these cores (busy processes of --load take a share of them: the floor is then too low)
        cores = len(os.sched_getaffinity(0))
        floor = (by["memo"][1] + cpu_helper) / cores
        print(
            f"the cold build's CPU floor on {cores} cores: (the memo build's {by['memo'][1]:.1f}"
            f" + the helper's {cpu_helper:.1f} CPU-s) / {cores} = {floor:.2f} s; the cold build "
            f"took {by['cold'][0]:.2f} s ({by['cold'][0] / floor:.2f}x the floor)"
        )
    print(
        f"CPU seconds (process + helper, incl. imports): read_table {cpu_read:.1f}, "
        f"iter_batches {cpu_stream:.1f}"
    )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def pool_file(folder: Path, name: str, nq: int, nt: int) -> Path:
    """The generated pool `name` (n questions x n traces, realistic probe garbage), made when
    absent. The garbage kind is in the name: a file generated before the full pool had
    realistic garbage (same size, far fewer strings for math-verify) must not be reused."""
    from cache.sample.mars import write_full_size_file  # why here: only when generating

    path = folder / f"mars_{name}_{nq}x{nt}_realistic-garbage.parquet"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        t = time.perf_counter()
        write_full_size_file(path, n_questions=nq, n_traces=nt, garbage="realistic")
        print(f"generated {path} in {time.perf_counter() - t:.1f} s")
    return path


def one_row_group_copy(path: Path) -> Path:
    """`path` rewritten as one row group (same columns, encodings and compression), made when
    absent. Why a copy: the generator writes a row group per question, as the Hub files are."""
    import pyarrow.parquet as pq  # why here: see `main`

    from cache.sample.mars import WRITER_OPTIONS  # why here: only when generating

    dest = path.with_name(f"{path.stem}_one-row-group.parquet")
    if not dest.exists():
        t = time.perf_counter()
        table = pq.read_table(path)
        tmp = dest.with_suffix(".parquet.tmp")
        pq.write_table(table, tmp, row_group_size=table.num_rows, **WRITER_OPTIONS)
        del table
        tmp.replace(dest)
        print(f"generated {dest} in {time.perf_counter() - t:.1f} s")
    return dest


@contextmanager
def busy_processes(n: int) -> Iterator[None]:
    """N processes spinning a pure-Python loop for as long as the block runs."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(max(n, 0))]
    try:
        if procs:
            time.sleep(0.5)  # let them reach the loop
            print(f"{len(procs)} busy process(es) running beside every measurement")
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--small", action="store_true", help="4 questions x 256 traces")
    ap.add_argument("--pool", choices=("realistic", "full", "both"), default="both")
    ap.add_argument("--dir", type=Path, default=Path("/tmp/rte-bench"), help="generated files")
    ap.add_argument(
        "--one-row-group", action="store_true", help="measure a one-row-group copy of each file"
    )
    ap.add_argument("--load", type=int, default=0, help="busy processes beside it all")
    args = ap.parse_args(argv)
    sizes = {"realistic": (30, 512), "full": (30, 4096)}
    if args.small:
        sizes = {"realistic": (4, 256), "full": (4, 256)}
    for name in ("realistic", "full") if args.pool == "both" else (args.pool,):
        nq, nt = sizes[name]
        path = pool_file(args.dir, name, nq, nt)
        if args.one_row_group:
            path = one_row_group_copy(path)
        layout = ", one row group" if args.one_row_group else ""
        print(f"== {name} pool ({nq} x {nt} traces{layout})")
        with busy_processes(args.load):
            _bench(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
