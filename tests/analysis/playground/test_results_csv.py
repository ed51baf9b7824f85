"""The CSVs are written without pandas, byte for byte what `DataFrame.to_csv(index=False)` wrote,
and a warm `python -m analysis simulate` imports none of pandas, polars, pyarrow,
scipy.optimize."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.playground import SimSettings, policy_for_method, prepare, simulate
from analysis.playground.results import write_csv
from analysis.playground.synthetic import synthetic_pool
from cache.sample.mars import write_file

REPO = Path(__file__).resolve().parents[3]


def test_awkward_values_as_pandas_writes_them(tmp_path: Path) -> None:
    texts = ["", "a,b", 'say "x"', "two\nlines", "naïve √2", " lead", "nan", "None", "\\frac{1}{2}"]
    n = len(texts)
    data = {
        "question_id": np.arange(n, dtype=np.int64) * 10**12,
        "text": texts,
        "ok": np.array([True, False] * 4 + [True]),
        "x": np.array([0.1, 1e-05, 1e16, 123456789.125, -0.0, np.nan, np.inf, 2 / 3, 1.0]),
        "n": [1, 2, 3, 4, 5, 6, 7, 8, 9],
        "f": [0.5, float("nan"), 3.0, 1e-07, 100.0, 1.5e300, 0.30000000000000004, 7.0, 2.5],
    }
    cols = list(data)
    ours = write_csv(tmp_path / "ours.csv", cols, data)
    pd.DataFrame(data)[cols].to_csv(tmp_path / "pandas.csv", index=False)
    assert ours.read_bytes() == (tmp_path / "pandas.csv").read_bytes()
    empty = write_csv(tmp_path / "empty.csv", cols, {c: [] for c in cols})
    pd.DataFrame({c: [] for c in cols}).to_csv(tmp_path / "pandas_empty.csv", index=False)
    assert empty.read_bytes() == (tmp_path / "pandas_empty.csv").read_bytes()


def test_run_files_equal_the_frames_to_csv(tmp_path: Path) -> None:
    preps = [prepare(synthetic_pool(q, n=48, seed=4)) for q in range(3)]
    for method in ("offline", "dco", "sc-mars-cal", "esc"):
        run = simulate(
            preps, policy_for_method(method, warmup_gamma=True, ucb_z=1.0), SimSettings(32, 6)
        )
        paths = run.write(tmp_path / method)
        frames = {
            "results.csv": run.results_frame(),
            "summary_per_question.csv": run.per_question_frame(),
            "summary_overall.csv": run.overall_frame(),
            **{f"results_{k}.csv": v for k, v in run.deepconf_frames().items()},
        }
        assert sorted(p.name for p in paths) == sorted(frames)
        for name, frame in frames.items():
            frame.to_csv(tmp_path / "want.csv", index=False)
            assert (tmp_path / method / name).read_bytes() == (tmp_path / "want.csv").read_bytes()


_PROBE = """
import json, runpy, sys
sys.argv = ["analysis", *sys.argv[1:]]
try:
    runpy.run_module("analysis", run_name="__main__")
except SystemExit:
    pass
heavy = ("pandas", "polars", "pyarrow", "scipy.optimize", "scipy.special", "tqdm",
         "analysis.mars.store", "analysis.mars.features", "numpy.ma")
print(json.dumps(sorted(m for m in heavy if m in sys.modules)), file=sys.stderr)
"""


def test_a_warm_simulate_imports_only_numpy(tmp_path: Path) -> None:
    data = tmp_path / "DeepSeek-8B/aime25_deepseek.parquet"
    write_file(data, "aime", 24, seed=5, drop=1, n_questions=3)
    env = {**os.environ, "RTE_CACHE_DIR": str(tmp_path / "cache")}
    loaded = {}
    # build the tables and their flat copy; the lows join the copy; then every run is warm
    for i, method in enumerate(
        ("offline", "sc-pp", "dco", "dco", "sc-pp", "sc-mars-cal", "offline")
    ):
        extra = ["--warmup-gamma", "--ucb-z", "1"] if method.endswith("cal") else []
        argv = ["simulate", "--data", str(data), "--method", method, "--budget", "16"]
        argv += ["--iterations", "3", "--out", str(tmp_path / method), *extra]
        out = subprocess.run(
            [sys.executable, "-c", _PROBE, *argv], cwd=REPO, env=env, capture_output=True,
            text=True, timeout=300, check=True,
        )  # fmt: skip
        loaded[i, method] = json.loads(out.stderr.strip().splitlines()[-1])
    # the build (through analysis.mars.feature_files: no polars, no feature store), then the copy
    assert "analysis.mars.features" in loaded[0, "offline"]
    assert not {"polars", "analysis.mars.store"} & set(loaded[0, "offline"])
    assert loaded[1, "sc-pp"] == []  # the build left the copy
    assert loaded[2, "dco"] == ["pyarrow"]  # the lows' copy
    for key in list(loaded)[3:]:
        # no numpy.ma (~10 ms): np.unique's and np.percentile's first call imports it, and the
        # warm path takes neither (`analysis.playground.quantiles`)
        assert loaded[key] == [], key
