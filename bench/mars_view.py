"""MARS view benchmark: opening a question server-side (target < 0.5 s) and the figure JSON of
1,000 confidence curves with probe markers (target <= 2 MB).

    python bench/mars_view.py            # a generated file of 2 questions x 1,100 traces
    python bench/mars_view.py --path F   # any MARS file (its feature table is built first)

"Opening a question" = everything the page does on the server once the file's feature store is
in memory: the question's rows, its pool and vote shares, the probe texts of the question read
from the parquet file, the default figures (100 curves with markers, votes) serialised to JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--path", type=Path, default=None)
    args = ap.parse_args(argv)
    # a fixed cache folder for the bench (reruns reuse the feature store), unless one is set
    os.environ.setdefault(
        "RTE_CACHE_DIR", str(Path(tempfile.gettempdir()) / "rte-bench" / "view-cache")
    )

    # why here (each): cache paths are read from RTE_CACHE_DIR, which is set just above
    from analysis.mars.store import load_features, read_probes, read_traces  # why: see above
    from analysis.mars.summaries import sample_traces, vote_shares  # why: see above
    from analysis.mars.windows import curve_set, pool_bands  # why: see above
    from cache.sample.mars import write_file  # why: see above
    from components.common.lite_spec import chart_spec  # why: see above
    from components.mars import curve_figures as cf  # why: see above
    from components.mars import figures as mf  # why: see above

    def curves_of(feats):  # type: ignore[no-untyped-def]  # why: bench helper
        raw = read_traces(path, qid, feats["trace_idx"].to_list())
        confs = [c.to_numpy() for c in raw["confs"]]
        return curve_set(feats["trace_idx"].to_list(), confs, 2048, feats["probe_pos"].to_list())

    path = args.path
    if path is None:
        path = Path(tempfile.gettempdir()) / "rte-bench" / "mars_view_2x1100.parquet"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            write_file(path, "hmmt", 1100, seed=3, n_questions=2)
    t = time.perf_counter()
    store = load_features(path)
    print(f"feature store of {path.name}: {time.perf_counter() - t:.2f} s (build or load)")

    qid = store.qids[0]
    timings = []
    for _ in range(3):
        t = time.perf_counter()
        feats = store.question(qid).sort("trace_idx")
        pool = store.pool(qid)
        vs = vote_shares(pool)
        probes = read_probes(path, qid)
        shown = sample_traces(feats, 100, seed=qid)
        j1 = cf.curves_figure(shown, curves_of(shown), probes).to_json()
        j2 = mf.vote_figure(vs, pool.ground_truth).to_json()
        j3 = mf.answers_bar(store.question_groups(qid)).to_json()
        timings.append(time.perf_counter() - t)
    print(
        f"open question {qid} ({feats.height} traces): best {min(timings):.3f} s, "
        f"first {timings[0]:.3f} s (target < 0.5 s); default JSON {(len(j1) + len(j2) + len(j3)) / 1e6:.2f} MB"
    )

    n = min(1000, feats.height)
    big = sample_traces(feats, n, seed=qid)
    t = time.perf_counter()
    fig = cf.curves_figure(big, curves_of(big), probes)
    payload = fig.to_json()
    dt = time.perf_counter() - t
    print(
        f"{n} curves + {sum(len(x or []) for x in big['probe_pos'].to_list())} probe markers: "
        f"figure JSON {len(payload) / 1e6:.2f} MB (target <= 2 MB), built in {dt:.3f} s"
    )
    t = time.perf_counter()
    lite = json.dumps(chart_spec(fig), allow_nan=False)
    dt = time.perf_counter() - t
    print(
        f"the same as the lite chart draws it (the default, no Plotly): spec JSON "
        f"{len(lite) / 1e6:.2f} MB (target <= 2 MB), reduced in {dt:.3f} s"
    )
    raw = read_traces(path, qid, feats["trace_idx"].to_list())
    classes = ["right" if c else "wrong" for c in feats["final_correct"].to_list()]
    grid, bs = pool_bands([c.to_numpy() for c in raw["confs"]], classes, 2048)
    bands = cf.bands_figure(grid, bs, 2048).to_json()
    print(f"quantile bands of {n} traces: {len(bands) / 1e6:.3f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
