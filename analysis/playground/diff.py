"""`python -m analysis diff DIR REFERENCE_DIR`: two `simulate` result folders compared per
question, the largest differences printed.

A module of its own so that pandas, which only `diff` needs (it reads the CSVs), is imported at
its top and never by `simulate` (`analysis.__main__` imports only the named command's module).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from cache.errors import SourceNotFound

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
    if not path.is_file():
        raise SourceNotFound(
            f"{path} not found", "diff needs summary_per_question.csv in both folders"
        )
    return pd.read_csv(path)


def cmd_diff(args: argparse.Namespace) -> int:
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


def register(subparsers: argparse._SubParsersAction) -> None:
    d = subparsers.add_parser("diff", help="compare two simulate result folders per question")
    d.add_argument("dir")
    d.add_argument("reference")
    d.add_argument("--top", type=int, default=10)
    d.add_argument(
        "--tolerance", type=float, default=None, help="exit 1 if a difference exceeds it (pp)"
    )
    d.set_defaults(func=cmd_diff)
