"""Which of a question's traces to look at: filters over the features table (one row a trace),
and stepping from one wrong trace to the next among those that pass.

Why here: the Curves tab and the Single trace picker must agree on the set, and the empty state
must say which filter to loosen; both are plain functions of the table, tested on a hand-built
one. Verdicts are the Single trace tab's: `right` (final answer correct), `wrong` (an answer,
not correct), `no answer` (no final answer extracted: `final_group < 0`).
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

ANY = "any"
RIGHT = "right"
WRONG = "wrong"
NO_ANSWER = "no answer"
VERDICTS = (ANY, RIGHT, WRONG, NO_ANSWER)
NO_ANSWER_LABEL = "(no answer)"  # how the answer filter names a trace without a final answer

# the confidences a range may apply to: features column -> its name in the view
CONFIDENCES = {
    "tail_conf": "tail",
    "mean_conf": "mean",
    "min_group": "lowest group",
    "bottom_10": "bottom 10%",
}
DEFAULT_CONFIDENCE = "tail_conf"


@dataclass(frozen=True)
class TraceFilter:
    """What a trace must satisfy; a None range or an empty answer set does not filter."""

    verdict: str = ANY
    answers: tuple[str, ...] = ()  # final answers (NO_ANSWER_LABEL for none)
    length: tuple[int, int] | None = None  # tokens, both ends included
    confidence: str = DEFAULT_CONFIDENCE  # a CONFIDENCES column
    conf_range: tuple[float, float] | None = None  # both ends included; NaN never matches

    def active(self) -> bool:
        return (
            self.verdict != ANY
            or bool(self.answers)
            or self.length is not None
            or self.conf_range is not None
        )


def verdict_expr() -> pl.Expr:
    """Each trace's verdict (right / wrong / no answer)."""
    return (
        pl.when(pl.col("final_group") < 0)
        .then(pl.lit(NO_ANSWER))
        .when(pl.col("final_correct").fill_null(False))
        .then(pl.lit(RIGHT))
        .otherwise(pl.lit(WRONG))
    )


def answer_expr() -> pl.Expr:
    """Each trace's final answer as the answer filter names it."""
    return (
        pl.when(pl.col("final_group") < 0)
        .then(pl.lit(NO_ANSWER_LABEL))
        .otherwise(pl.col("final_answer").fill_null(NO_ANSWER_LABEL))
    )


def _conditions(f: TraceFilter) -> dict[str, pl.Expr]:
    """One boolean expression per active part, keyed by the part's name in the empty state."""
    out: dict[str, pl.Expr] = {}
    if f.verdict != ANY:
        out["verdict"] = verdict_expr() == f.verdict
    if f.answers:
        out["final answer"] = answer_expr().is_in(list(f.answers))
    if f.length is not None:
        lo, hi = f.length
        out["length"] = pl.col("length").is_between(lo, hi)
    if f.conf_range is not None:
        lo_c, hi_c = f.conf_range
        c = pl.col(f.confidence).cast(pl.Float64)
        out[f"{CONFIDENCES.get(f.confidence, f.confidence)} confidence"] = c.is_not_nan().fill_null(
            False
        ) & c.is_between(lo_c, hi_c).fill_null(False)
    return out


def apply(feats: pl.DataFrame, f: TraceFilter) -> pl.DataFrame:
    """The traces of `feats` that pass `f`, in their order."""
    conds = list(_conditions(f).values())
    if not conds:
        return feats
    return feats.filter(pl.all_horizontal(conds))


def loosen_hints(feats: pl.DataFrame, f: TraceFilter) -> list[tuple[str, int]]:
    """For an empty result: each active part with how many traces would match without it, the
    most useful first (ties in the parts' order)."""
    conds = _conditions(f)
    hints = []
    for name in conds:
        rest = [e for k, e in conds.items() if k != name]
        n = feats.height if not rest else feats.filter(pl.all_horizontal(rest)).height
        hints.append((name, n))
    return sorted(hints, key=lambda h: -h[1])


def answer_counts(feats: pl.DataFrame) -> list[tuple[str, int]]:
    """The question's final answers with their trace counts, most frequent first (ties by
    answer), for the answer picker."""
    if not feats.height:
        return []
    counts = (
        feats.select(answer_expr().alias("a"))
        .group_by("a")
        .len()
        .sort(["len", "a"], descending=[True, False])
    )
    return [(str(a), int(n)) for a, n in counts.iter_rows()]


def step_wrong(
    traces: list[int], verdicts: list[str], current: int | None, step: int
) -> int | None:
    """The next (`step` = 1) or previous (-1) wrong trace after `current` in `traces` (the
    filtered traces in trace order, `verdicts` theirs); None when there is none that way. A
    `current` not among them steps from where it would sit in the order."""
    wrong = [t for t, v in zip(traces, verdicts, strict=True) if v == WRONG]
    if current is None:
        return wrong[0] if step > 0 and wrong else None
    after = [t for t in wrong if (t > current if step > 0 else t < current)]
    if not after:
        return None
    return min(after) if step > 0 else max(after)


def read_ahead(
    traces: list[int], verdicts: list[str], current: int, n_next: int = 6, n_prev: int = 2
) -> list[int]:
    """The traces worth reading with `current` (a file read decodes the question's whole row
    group, so a few more traces cost little): the next `n_next` and previous `n_prev` wrong
    traces, and the picker's neighbours; without `current`, in that order, no repeats."""
    out: list[int] = []
    t: int | None = current
    for _ in range(n_next):
        t = step_wrong(traces, verdicts, t, 1)
        if t is None:
            break
        out.append(t)
    t = current
    for _ in range(n_prev):
        t = step_wrong(traces, verdicts, t, -1)
        if t is None:
            break
        out.append(t)
    if current in traces:
        i = traces.index(current)
        out += [traces[j] for j in (i + 1, i - 1) if 0 <= j < len(traces)]
    return [x for x in dict.fromkeys(out) if x != current]
