"""Per-iteration rows and per-question / overall summaries with exactly the published columns
(`mars/results_io.py::aggregate_per_question`, `aggregate_overall`).

Documented difference: the published savings divide by a baseline of 0 (NaN) for a question
with no sampled tokens; we report 0 % savings there (only an all-null question has it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.stopping.notes import Note
from analysis.stopping.params import Policy, SimSettings
from analysis.stopping.result import QuestionResult

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


@dataclass
class RunResult:
    """A simulated run of one policy over a file's questions."""

    policy: Policy
    settings: SimSettings
    questions: list[QuestionResult]
    notes: dict[int, list[Note]] = field(default_factory=dict)

    def results_frame(self) -> pd.DataFrame:
        parts = []
        for r in self.questions:
            n = r.correct.shape[0]
            parts.append(
                pd.DataFrame(
                    {
                        "question_id": np.full(n, r.qid, dtype=np.int64),
                        "iteration": r.iterations,
                        "voted_answer": [r.answer_text(i) for i in range(n)],
                        "ground_truth": [r.ground_truth] * n,
                        "is_correct": r.correct.astype(bool),
                        "total_tokens": r.tokens,
                        "baseline_tokens": r.baseline,
                        "stopped_by": r.stopped_by.astype(str),
                        "position": r.position,
                    }
                )
            )
        if not parts:
            return pd.DataFrame({c: [] for c in RESULTS_COLUMNS})
        return pd.concat(parts, ignore_index=True)[RESULTS_COLUMNS]

    def per_question_frame(self) -> pd.DataFrame:
        rows = [question_summary(r) for r in sorted(self.questions, key=lambda r: r.qid)]
        return pd.DataFrame(rows, columns=PER_QUESTION_COLUMNS)

    def overall_frame(self) -> pd.DataFrame:
        return pd.DataFrame([overall_summary(self.per_question_frame())], columns=OVERALL_COLUMNS)

    def deepconf_frames(self) -> dict[str, pd.DataFrame]:
        """Offline only: one per-iteration frame per DeepConf vote (published results_{vm}.csv)."""
        out: dict[str, list[pd.DataFrame]] = {}
        for r in self.questions:
            for name, ans in r.extra_votes.items():
                n = ans.shape[0]
                out.setdefault(name, []).append(
                    pd.DataFrame(
                        {
                            "question_id": np.full(n, r.qid),
                            "iteration": r.iterations,
                            "voted_answer": [r.labels[a] if a >= 0 else "" for a in ans],
                            "ground_truth": [r.ground_truth] * n,
                            "is_correct": r.is_correct(ans),
                            "total_tokens": r.tokens,
                        }
                    )
                )
        return {k: pd.concat(v, ignore_index=True) for k, v in out.items()}

    def write(self, out_dir: Path) -> list[Path]:
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        paths = [
            out_dir / "results.csv",
            out_dir / "summary_per_question.csv",
            out_dir / "summary_overall.csv",
        ]
        self.results_frame().to_csv(paths[0], index=False)
        self.per_question_frame().to_csv(paths[1], index=False)
        self.overall_frame().to_csv(paths[2], index=False)
        for name, frame in self.deepconf_frames().items():
            p = out_dir / f"results_{name}.csv"
            frame.to_csv(p, index=False)
            paths.append(p)
        return paths


def overall_summary(per_q: pd.DataFrame) -> dict:
    n = len(per_q)
    acc = per_q["accuracy"].to_numpy(dtype=np.float64)
    return {
        "accuracy": float(acc.mean()) if n else 0.0,
        "accuracy_pct": float(per_q["accuracy_pct"].mean()) if n else 0.0,
        "accuracy_std": _std(acc),
        "n_questions": n,
        "total_tokens_mean": float(per_q["total_tokens_mean"].mean()) if n else 0.0,
        "mean_token_savings_pct": float(per_q["token_savings_pct"].mean()) if n else 0.0,
        "stopped_by_margin": int(per_q["stopped_by_margin"].sum()),
        "stopped_by_consensus": int(per_q["stopped_by_consensus"].sum()),
        "stopped_by_budget": int(per_q["stopped_by_budget"].sum()),
    }
