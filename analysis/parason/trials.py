"""The result each Trial branch ends on, next to the trajectory's final answer, as a derived table.

Why: a Trial stage tries alternatives (an OR join); a branch that ends on a result other than
the final answer is either a rejected attempt doing its job or a sign that the trajectory kept
the wrong branch, and telling them apart means reading the stage. Finding such stages needs every
branch's text, so the results are taken once per SFT file (one row per branch of a top-level
Trial stage) and the lens (`analysis.parason.lenses`) reads this table, not the raw file.

A branch's result: its last `\\boxed{...}`, else the number after its last "=" (the last line of
work of a Trial usually reads "... = 2 (mod 7)"); None when it states neither. Results compare
as numbers when both parse as one (`2` = `2.0`, `1/2` = `0.5`), else as text without spaces,
dollar signs and a trailing full stop.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import polars as pl

from analysis.parason.accepted import trial_verdict
from analysis.parason.landmarks import last_boxed
from analysis.parason.metrics import trajectory_text
from analysis.parason.parse import parse
from analysis.parason.store import iter_rows
from cache.derived_tables import PARASON_TRIALS
from cache.progress import ProgressFn, no_progress
from cache.store import read_derived

NAME = PARASON_TRIALS.name
VERSION = PARASON_TRIALS.version
SCHEMA = {
    "uuid": pl.String,
    "stage": pl.Int64,  # 0-based top-level block index (node ids b<stage>t<branch>)
    "branch": pl.Int64,
    "branches": pl.Int64,
    "result": pl.String,
    "final": pl.String,
    "verdict": pl.String,  # "accepted" / "rejected" / None (`analysis.parason.accepted`)
    "agrees": pl.Boolean,  # null when the branch or the trajectory states no result
}
_AFTER_EQUALS = re.compile(r"=\s*\$?\s*(-?\d+(?:[.,/]\d+)?)")


def branch_result(body: str) -> str | None:
    """A branch's result: its last boxed answer, else the number after its last '='."""
    boxed, _span, _n = last_boxed(body)
    if boxed is not None and boxed.strip():
        return boxed.strip()
    hits = _AFTER_EQUALS.findall(body)
    return hits[-1] if hits else None


def _number(text: str) -> Fraction | None:
    try:
        return Fraction(text.replace(",", ""))
    except (ValueError, ZeroDivisionError):
        return None


def same_result(a: str, b: str) -> bool:
    """Equal as numbers when both are numbers, else as text (spaces, `$`, final '.' dropped)."""
    na, nb = (re.sub(r"[\s$]", "", x).rstrip(".") for x in (a, b))
    fa, fb = _number(na), _number(nb)
    if fa is not None and fb is not None:
        return fa == fb
    return na == nb


def trial_rows(uid: str, text: str) -> list[dict]:
    """One row per branch of each top-level Trial stage of one trajectory."""
    traj = parse(text)
    final = traj.boxed.strip() if traj.boxed else None
    rows = []
    for blk in traj.blocks:
        if blk.kind != "trial":
            continue
        for th in blk.threads:
            body = text[th.body_start : th.body_end]
            result = branch_result(body)
            rows.append(
                {
                    "uuid": uid,
                    "stage": blk.stage,
                    "branch": th.index,
                    "branches": len(blk.threads),
                    "result": result,
                    "final": final,
                    "verdict": trial_verdict(body),
                    "agrees": None
                    if result is None or final is None
                    else same_result(result, final),
                }
            )
    return rows


def compute_trials(path: Path, progress: ProgressFn | None = None) -> pl.DataFrame:
    """`trial_rows` of every row of one SFT file (first copy of a duplicated uuid)."""
    hook = progress or no_progress
    rows: list[dict] = []
    seen: set[str] = set()
    for start, batch in iter_rows(path):
        for i, row in enumerate(batch):
            uid = row.get("uuid")
            uid = str(uid) if uid is not None else f"row-{start + i}"
            if uid in seen:
                continue
            seen.add(uid)
            rows.extend(trial_rows(uid, trajectory_text(row)[0]))
        hook(0.0, f"read {start + len(batch)} trajectories")
    return pl.DataFrame(rows, schema=SCHEMA) if rows else pl.DataFrame(schema=SCHEMA)


def trials_table(path: Path, progress: ProgressFn | None = None) -> pl.DataFrame:
    """The cached Trial-branch table of one SFT file (built once per source/version)."""
    return read_derived(
        NAME, VERSION, [Path(path)], lambda p: compute_trials(Path(path), p), progress=progress
    )
