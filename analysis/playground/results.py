"""Per-iteration rows and per-question / overall summaries with exactly the published columns
(`mars/results_io.py::aggregate_per_question`, `aggregate_overall`).

Documented difference: the published savings divide by a baseline of 0 (NaN) for a question
with no sampled tokens; we report 0 % savings there (only an all-null question has it).

The tables are plain columns (`*_columns`); the pandas frames the app and the tests use are
built from them, and `RunResult.write` writes the CSVs from them without pandas (a warm
`simulate` never imports it: a slow import), byte for byte what `DataFrame.to_csv(index=False)` writes
(test_results_csv.py checks it on awkward values).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from analysis.playground.notes import Note
from analysis.playground.params import Policy, SimSettings
from analysis.playground.result import QuestionResult
from analysis.playground.uncertainty import Interval, PairedComparison, bootstrap_interval
from analysis.playground.uncertainty import paired_comparison as _paired

if TYPE_CHECKING:
    import pandas as pd

Columns = dict[str, Any]  # column name -> numpy array or list, in the table's column order

RESULTS_COLUMNS = [
    "question_id",
    "iteration",
    "voted_answer",
    "ground_truth",
    "is_correct",
    "total_tokens",
    "baseline_tokens",
    "stopped_by",
    "position",
]
PER_QUESTION_COLUMNS = [
    "question_id",
    "accuracy",
    "accuracy_pct",
    "accuracy_std",
    "n_correct",
    "n_iterations",
    "total_tokens_mean",
    "total_tokens_sum",
    "token_savings_pct",
    "baseline_tokens_mean",
    "mean_position",
    "stopped_by_margin",
    "stopped_by_consensus",
    "stopped_by_budget",
]
DEEPCONF_COLUMNS = [
    "question_id",
    "iteration",
    "voted_answer",
    "ground_truth",
    "is_correct",
    "total_tokens",
]
OVERALL_COLUMNS = [
    "accuracy",
    "accuracy_pct",
    "accuracy_std",
    "n_questions",
    "total_tokens_mean",
    "mean_token_savings_pct",
    "stopped_by_margin",
    "stopped_by_consensus",
    "stopped_by_budget",
]


def _std(x: np.ndarray) -> float:
    return float(np.std(x, ddof=1)) if x.shape[0] > 1 else float("nan")


def question_summary(r: QuestionResult) -> dict:
    n = int(r.correct.shape[0])
    n_correct = int(r.correct.sum())
    acc = n_correct / n if n else 0.0
    sb = r.stopped_by
    return {
        "question_id": r.qid,
        "accuracy": acc,
        "accuracy_pct": acc * 100,
        "accuracy_std": _std(r.correct.astype(np.float64)),
        "n_correct": n_correct,
        "n_iterations": n,
        "total_tokens_mean": float(r.tokens.mean()) if n else 0.0,
        "total_tokens_sum": int(r.tokens.sum()),
        "token_savings_pct": float(r.savings.mean()) * 100 if n else 0.0,
        "baseline_tokens_mean": float(r.baseline.mean()) if n else 0.0,
        "mean_position": float(r.position.mean()) if n else 0.0,
        "stopped_by_margin": int((sb == "margin").sum()),
        "stopped_by_consensus": int((sb == "consensus").sum()),
        "stopped_by_budget": int((sb == "budget").sum()),
    }


def _csv_cells(values: Any) -> list:
    """One column as the cells pandas' `to_csv` writes: floats as numpy's shortest repr
    (`astype(str)`, NaN empty), ints and bools as Python values, text as is."""
    arr = np.asarray(values)
    if arr.dtype.kind == "f":
        cells = arr.astype(np.float64).astype(str).astype(object)
        cells[np.isnan(arr)] = ""
        return cells.tolist()
    return arr.tolist() if arr.dtype.kind in "iub" else list(values)


def write_csv(path: Path, columns: Sequence[str], data: Columns) -> Path:
    """`pd.DataFrame(data)[columns].to_csv(path, index=False)` without pandas: the same csv
    dialect (minimal quoting, '\\n' line ends, UTF-8)."""
    cells = [_csv_cells(data[c]) for c in columns]
    with open(path, "w", encoding="utf-8", newline="") as fh:
        out = csv.writer(fh, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        out.writerow(columns)
        out.writerows(zip(*cells, strict=True))
    return path


def _frame(columns: Sequence[str], data: Columns | list[dict]) -> pd.DataFrame:
    """A frame of these columns, from columns or from rows (dicts)."""
    import pandas as pd  # why here: only the app and the tests use frames (start-up time)

    if isinstance(data, dict):
        data = {c: data[c] for c in columns}
    return pd.DataFrame(data, columns=list(columns))


def _concat(parts: list[Columns], columns: Sequence[str]) -> Columns:
    return {
        c: (np.concatenate([np.asarray(p[c]) for p in parts]) if parts else np.zeros(0))
        if c not in _TEXT
        else [v for p in parts for v in p[c]]
        for c in columns
    }


_TEXT = frozenset(("voted_answer", "ground_truth", "stopped_by"))


@dataclass
class RunResult:
    """A simulated run of one policy over a file's questions."""

    policy: Policy
    settings: SimSettings
    questions: list[QuestionResult]
    notes: dict[int, list[Note]] = field(default_factory=dict)

    def accuracy_values(self) -> dict[int, np.ndarray]:
        """Per question, 100 x correct per iteration (the accuracy figure averages these)."""
        return {r.qid: r.correct.astype(np.float64) * 100 for r in self.questions}

    def savings_values(self) -> dict[int, np.ndarray]:
        """Per question, the token savings (%) of each iteration."""
        return {r.qid: r.savings * 100 for r in self.questions}

    @cached_property
    def accuracy_interval(self) -> Interval:
        """Accuracy (%) with its two-level bootstrap 95 % interval (`uncertainty`); computed
        once per run (runs are cached, the frontier asks again on every rerun)."""
        return bootstrap_interval(list(self.accuracy_values().values()))

    @cached_property
    def savings_interval(self) -> Interval:
        """Mean token savings (%) with its two-level bootstrap 95 % interval."""
        return bootstrap_interval(list(self.savings_values().values()))

    def paired_with(self, sc: RunResult) -> PairedComparison:
        """Accuracy difference against `sc` (pp) with a paired interval, and the per-question
        win / loss / tie count."""
        return _paired(self.accuracy_values(), sc.accuracy_values())

    def results_columns(self) -> Columns:
        parts = []
        for r in self.questions:
            n = r.correct.shape[0]
            parts.append(
                {
                    "question_id": np.full(n, r.qid, dtype=np.int64),
                    "iteration": np.asarray(r.iterations),
                    "voted_answer": [r.answer_text(i) for i in range(n)],
                    "ground_truth": [r.ground_truth] * n,
                    "is_correct": r.correct.astype(bool),
                    "total_tokens": np.asarray(r.tokens),
                    "baseline_tokens": np.asarray(r.baseline),
                    "stopped_by": r.stopped_by.astype(str).tolist(),
                    "position": np.asarray(r.position),
                }
            )
        return _concat(parts, RESULTS_COLUMNS)

    def results_frame(self) -> pd.DataFrame:
        if not self.questions:
            return _frame(RESULTS_COLUMNS, {c: [] for c in RESULTS_COLUMNS})
        return _frame(RESULTS_COLUMNS, self.results_columns())

    @cached_property
    def _question_rows(self) -> tuple[dict, ...]:
        """Computed once per run (runs are cached; the summary and the cases ask every rerun)."""
        return tuple(question_summary(r) for r in sorted(self.questions, key=lambda r: r.qid))

    @cached_property
    def _overall(self) -> dict:
        return overall_summary(list(self._question_rows))

    def per_question_rows(self) -> list[dict]:
        return [dict(r) for r in self._question_rows]

    def per_question_frame(self) -> pd.DataFrame:
        return _frame(PER_QUESTION_COLUMNS, self.per_question_rows())

    def overall(self) -> dict:
        """The overall summary row (`summary_overall.csv`)."""
        return dict(self._overall)

    def overall_frame(self) -> pd.DataFrame:
        return _frame(OVERALL_COLUMNS, [self.overall()])

    def deepconf_columns(self) -> dict[str, Columns]:
        """Offline only: per DeepConf vote, the per-iteration table (published results_{vm}.csv)."""
        out: dict[str, list[Columns]] = {}
        for r in self.questions:
            for name, ans in r.extra_votes.items():
                n = ans.shape[0]
                out.setdefault(name, []).append(
                    {
                        "question_id": np.full(n, r.qid),
                        "iteration": np.asarray(r.iterations),
                        "voted_answer": [r.labels[a] if a >= 0 else "" for a in ans],
                        "ground_truth": [r.ground_truth] * n,
                        "is_correct": r.is_correct(ans),
                        "total_tokens": np.asarray(r.tokens),
                    }
                )
        return {k: _concat(v, DEEPCONF_COLUMNS) for k, v in out.items()}

    def deepconf_frames(self) -> dict[str, pd.DataFrame]:
        return {k: _frame(DEEPCONF_COLUMNS, v) for k, v in self.deepconf_columns().items()}

    def write(self, out_dir: Path) -> list[Path]:
        """results.csv, summary_per_question.csv, summary_overall.csv (+ results_<vote>.csv)."""
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        rows = self.per_question_rows()
        per_q = {c: [row[c] for row in rows] for c in PER_QUESTION_COLUMNS}
        overall = overall_summary(rows)
        paths = [
            write_csv(out_dir / "results.csv", RESULTS_COLUMNS, self.results_columns()),
            write_csv(out_dir / "summary_per_question.csv", PER_QUESTION_COLUMNS, per_q),
            write_csv(
                out_dir / "summary_overall.csv",
                OVERALL_COLUMNS,
                {c: [overall[c]] for c in OVERALL_COLUMNS},
            ),
        ]
        for name, cols in self.deepconf_columns().items():
            paths.append(write_csv(out_dir / f"results_{name}.csv", DEEPCONF_COLUMNS, cols))
        return paths


def overall_summary(per_q: Sequence[dict] | pd.DataFrame) -> dict:
    """The overall row from the per-question rows (`question_summary`) or their frame."""
    if not hasattr(per_q, "columns"):  # rows, not a frame
        col = {
            c: np.array([r[c] for r in per_q], dtype=np.float64) for c in PER_QUESTION_COLUMNS[1:]
        }
    else:
        frame: Any = per_q
        col = {c: frame[c].to_numpy(dtype=np.float64) for c in PER_QUESTION_COLUMNS[1:]}
    n = len(col["accuracy"])
    acc = col["accuracy"]
    return {
        "accuracy": float(acc.mean()) if n else 0.0,
        "accuracy_pct": float(col["accuracy_pct"].mean()) if n else 0.0,
        "accuracy_std": _std(acc),
        "n_questions": n,
        "total_tokens_mean": float(col["total_tokens_mean"].mean()) if n else 0.0,
        "mean_token_savings_pct": float(col["token_savings_pct"].mean()) if n else 0.0,
        "stopped_by_margin": int(col["stopped_by_margin"].sum()),
        "stopped_by_consensus": int(col["stopped_by_consensus"].sum()),
        "stopped_by_budget": int(col["stopped_by_budget"].sum()),
    }
