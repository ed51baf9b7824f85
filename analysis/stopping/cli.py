"""`python -m analysis simulate ...` and `python -m analysis diff DIR REFERENCE_DIR`.

simulate reproduces the published workflow (github Wenbo11/MARS `examples/run_experiment.py`):
  python -m analysis simulate --data PATH --model deepseek-8b --dataset aime-2025 \
      --method sc-mars-cal --warmup-gamma --ucb-z 1.0 --gamma-min 0.5 --out DIR
PATH is a folder laid out like the Hub repo (the model/dataset pick the file) or one parquet
file. Writes results.csv, summary_per_question.csv, summary_overall.csv (the published columns;
`offline` also writes results_<vote>.csv for the DeepConf offline votes).

diff compares two such folders per question and prints the largest differences.

Start-up time: a warm simulate imports numpy and pyarrow.parquet and reads only the pool columns of
the cached feature table (`pools.cached_pools`); polars, pandas, tqdm and the feature builder
load only when the table has to be built (or for `diff`, which reads CSVs with pandas).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from analysis.stopping import (
    Policy,
    PreparedQuestion,
    SimSettings,
    policy_for_method,
    prepare,
    simulate,
)
from analysis.stopping.policies import all_methods, options
from analysis.stopping.policy_base import Option
from analysis.stopping.pools import cached_pools
from cache.errors import SchemaError, SourceNotFound

if TYPE_CHECKING:
    import pandas as pd

    from cache.progress import ProgressFn

MODELS = ("deepseek-8b", "qwen3-32b", "qwen3-next")
DATASETS = ("aime-2025", "brumo-2025", "hmmt")


def resolve_mars_file(data: Path, model: str, dataset: str) -> Path:
    """The parquet file for `--data` (a file, or a Hub-layout folder + model/dataset)."""
    data = Path(data)
    if data.is_file():
        return data
    if data.is_dir():
        from cache.datasets import mars_file_for  # why here: a file path needs no registry

        rel = mars_file_for(model, dataset)
        path = data / rel
        if path.is_file():
            return path
        raise SourceNotFound(
            f"{rel} not found under {data}",
            "point --data at a folder laid out like the Hub repo, or at one MARS parquet file",
        )
    raise SourceNotFound(
        f"{data} does not exist", "check --data (python -m cache sample builds the sample)"
    )


def load_prepared(
    path: Path, window: int, progress: ProgressFn | None = None, *, with_lows: bool = True
) -> list[PreparedQuestion]:
    """Prepared questions of a MARS file through the feature store (built once, cached).

    Only the columns a pool is built from are read; the record lows (the biggest of them) only
    with `with_lows`, which the DeepConf-filtered methods need for truncation. Without them a
    pool has no lows, which no other method reads. A built table is read with pyarrow alone
    (`pools.cached_pools`); otherwise the feature store builds it (polars, the builder) and the
    same fast read serves the built table (and leaves its flat copy for the next run)."""
    pools = cached_pools(path, window, with_lows=with_lows)
    if pools is not None:
        return [prepare(p) for p in pools]
    # why here (start-up time): the feature store loads only when the fast read cannot serve
    from analysis.mars.feature_files import feature_paths

    feature_paths(path, window=window, progress=progress)  # builds the tables
    pools = cached_pools(path, window, with_lows=with_lows)  # and leaves the flat copy
    if pools is not None:
        return [prepare(p) for p in pools]
    from analysis.mars.store import POOL_COLUMNS, load_features  # why here: polars, rarely

    store = load_features(
        path, window=window, progress=progress, with_lows=with_lows, columns=POOL_COLUMNS
    )
    return [prepare(store.pool(q)) for q in store.qids]


def _policy(args: argparse.Namespace) -> Policy:
    """The policy of `--method`, from every registered policy option (`policies.options`)."""
    return policy_for_method(args.method, **{o.name: getattr(args, o.name) for o in options()})


def cmd_simulate(args: argparse.Namespace) -> int:

    path = resolve_mars_file(Path(args.data), args.model, args.dataset)
    settings = SimSettings(args.budget, args.iterations, args.warmup, args.window, args.seed)
    policy = _policy(args)
    pools = cached_pools(path, args.window, with_lows=policy.voting.filter)
    if pools is not None:
        preps = [prepare(p) for p in pools]
    else:
        # why here: only a cold build starts the fact helper, and before the builder's imports
        from analysis.mars.fact_feed import start_early
        from cache.progress import tqdm_progress  # why here: tqdm only for a build

        start_early(path)

        with tqdm_progress(f"features {path.name}") as bar:
            preps = load_prepared(path, args.window, bar, with_lows=policy.voting.filter)
    if not preps:
        raise SchemaError(f"{path} holds no questions", "is this a MARS file?")
    t0 = time.perf_counter()
    run = simulate(preps, policy, settings)  # the q-model fit switches BLAS threads itself
    elapsed = time.perf_counter() - t0
    paths = run.write(Path(args.out))
    overall = run.overall()
    print(f"method {policy.method} on {path.name}: {len(preps)} questions, {elapsed:.2f} s")
    print(
        f"accuracy {overall['accuracy_pct']:.2f}%  savings {overall['mean_token_savings_pct']:.2f}%  "
        f"tokens {overall['total_tokens_mean']:.0f}"
    )
    print(f"policy {policy!r}")
    by_note: dict[str, list[int]] = {}
    for r in run.questions:
        for note in r.notes:
            by_note.setdefault(note.message, []).append(r.qid)
    for text, qids in by_note.items():  # one line per distinct note, not per question
        where = ", ".join(f"Q{q:02d}" for q in qids[:8]) + (
            f" and {len(qids) - 8} more" if len(qids) > 8 else ""
        )
        print(f"  note {where}: {text}", file=sys.stderr)
    for p in paths:
        print(f"wrote {p}")
    return 0


DIFF_COLUMNS = (
    "accuracy_pct",
    "token_savings_pct",
    "total_tokens_mean",
    "mean_position",
    "stopped_by_margin",
    "stopped_by_budget",
)


def diff_frames(ours: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """Per-question differences (ours - reference) of the summary columns both have."""
    import pandas as pd  # why here: see the module docstring

    cols = [c for c in DIFF_COLUMNS if c in ours.columns and c in ref.columns]
    m = ours[["question_id", *cols]].merge(
        ref[["question_id", *cols]],
        on="question_id",
        how="outer",
        suffixes=("", "_ref"),
        indicator=True,
    )
    out = pd.DataFrame({"question_id": m["question_id"], "present": m["_merge"].astype(str)})
    for c in cols:
        out[c] = m[c]
        out[f"{c}_ref"] = m[f"{c}_ref"]
        out[f"d_{c}"] = m[c] - m[f"{c}_ref"]
    return out.sort_values("question_id").reset_index(drop=True)


def _read(path: Path) -> pd.DataFrame:
    import pandas as pd  # why here: see the module docstring

    if not path.is_file():
        raise SourceNotFound(
            f"{path} not found", "diff needs summary_per_question.csv in both folders"
        )
    return pd.read_csv(path)


def cmd_diff(args: argparse.Namespace) -> int:
    import pandas as pd  # why here: see the module docstring

    ours = _read(Path(args.dir) / "summary_per_question.csv")
    ref = _read(Path(args.reference) / "summary_per_question.csv")
    d = diff_frames(ours, ref)
    missing = d[d["present"] != "both"]
    for _, row in missing.iterrows():
        side = "reference" if row["present"] == "left_only" else "ours"
        print(f"Q{int(row['question_id']):02d}: missing in {side}")
    both = d[d["present"] == "both"].copy()
    if both.empty:
        print("no common questions")
        return 1
    key = "d_accuracy_pct"
    size_cols = [c for c in ("d_accuracy_pct", "d_token_savings_pct") if c in both.columns]
    both["_size"] = both[size_cols].abs().max(axis=1)
    top = both.sort_values("_size", ascending=False).head(args.top)
    print(f"{'Q':>4} {'acc':>8} {'acc_ref':>8} {'d_acc':>8} {'sav':>8} {'sav_ref':>8} {'d_sav':>8}")
    for _, r in top.iterrows():
        print(
            f"{int(r['question_id']):>4} {r.get('accuracy_pct', np.nan):8.2f} {r.get('accuracy_pct_ref', np.nan):8.2f} "
            f"{r.get(key, np.nan):+8.2f} {r.get('token_savings_pct', np.nan):8.2f} "
            f"{r.get('token_savings_pct_ref', np.nan):8.2f} {r.get('d_token_savings_pct', np.nan):+8.2f}"
        )
    acc_d = both.get(key, pd.Series(dtype=float)).abs().max()
    sav_d = both.get("d_token_savings_pct", pd.Series(dtype=float)).abs().max()
    print(
        f"{len(both)} questions compared; max |d accuracy| {acc_d:.4f} pp, max |d savings| {sav_d:.4f} pp"
    )
    ov_o, ov_r = (
        Path(args.dir) / "summary_overall.csv",
        Path(args.reference) / "summary_overall.csv",
    )
    if ov_o.is_file() and ov_r.is_file():
        a, b = pd.read_csv(ov_o).iloc[0], pd.read_csv(ov_r).iloc[0]
        for c in ("accuracy_pct", "mean_token_savings_pct"):
            if c in a and c in b:
                print(f"overall {c}: {a[c]:.4f} vs {b[c]:.4f} ({a[c] - b[c]:+.4f})")
    if args.tolerance is not None:
        return 0 if max(acc_d, sav_d) <= args.tolerance and missing.empty else 1
    return 0


def _add_option(group: argparse._ActionsContainer, o: Option) -> None:
    """One policy option as a flag: a bool is a switch, the rest take a value of its type."""
    if o.type is bool:
        group.add_argument(o.flag, action="store_true", help=o.help)
    else:
        group.add_argument(o.flag, type=o.type, default=o.default, help=o.help)


def register(subparsers: argparse._SubParsersAction) -> None:

    p = subparsers.add_parser("simulate", help="simulate an early-stopping policy on a MARS file")
    p.add_argument("--data", required=True, help="Hub-layout folder or one MARS parquet file")
    p.add_argument("--model", choices=MODELS, default="deepseek-8b")
    p.add_argument("--dataset", choices=DATASETS, default="aime-2025")
    p.add_argument("--method", choices=all_methods(), default="sc-mars-cal")
    p.add_argument("--budget", type=int, default=512)
    p.add_argument("--iterations", type=int, default=64)
    p.add_argument("--warmup", type=int, default=16)
    p.add_argument("--window", type=int, default=2048)
    p.add_argument("--seed", type=int, default=42)
    ours = p.add_argument_group(
        "our additions (not in the published simulator; each flag sets the policy field named)"
    )
    for o in options():  # every registered policy's options (`PolicyDecl.options`)
        _add_option(p if o.published else ours, o)
    p.add_argument("--out", required=True, help="output folder for the three CSVs")
    p.set_defaults(func=cmd_simulate)

    d = subparsers.add_parser("diff", help="compare two simulate result folders per question")
    d.add_argument("dir")
    d.add_argument("reference")
    d.add_argument("--top", type=int, default=10)
    d.add_argument(
        "--tolerance", type=float, default=None, help="exit 1 if a difference exceeds it (pp)"
    )
    d.set_defaults(func=cmd_diff)
