"""Step text of a FineProofs trace: prefix rows joined to their spans in the base trace, the
text cut into highlightable pieces, and the per-trace series for download.

Why its own module: the offsets are UTF-16 (analysis/fineproofs/utf16.py) and the pieces must
cover every character exactly once; none of this depends on how values are annotated.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from analysis.fineproofs.utf16 import Utf16Index


@dataclass
class StepText:
    """Series rows joined to their text spans in the base trace."""

    frame: pl.DataFrame  # series + py_start, py_end, step_text, span_issue
    notes: list[str] = field(default_factory=list)


def attach_step_text(series: pl.DataFrame, text: str, steps: list[tuple]) -> StepText:
    """Map each prefix's step span (UTF-16, from the trace file) to Python indices and text.

    `steps` holds (step_idx, utf16_start, utf16_end) from the trace file. Prefixes are matched
    by step index; when the trace's steps carry no index they are matched by order. Offsets that
    split a surrogate pair or fall outside the text are reported per row, never sliced.
    """
    index = Utf16Index(text)
    notes: list[str] = []
    by_idx = {int(s[0]): (s[1], s[2]) for s in steps if s[0] is not None}
    ordered = [(s[1], s[2]) for s in steps]
    use_order = not by_idx and bool(ordered)
    if use_order and len(ordered) != series.height:
        notes.append(
            f"the trace file lists {len(ordered)} step spans without step indices for "
            f"{series.height} prefixes; matched by order."
        )
    starts: list[int | None] = []
    ends: list[int | None] = []
    texts: list[str | None] = []
    issues: list[str | None] = []
    kinds: list[str | None] = []
    for i, row in enumerate(series.iter_rows(named=True)):
        span = None
        if use_order:
            span = ordered[i] if i < len(ordered) else None
        elif row["step"] is not None:
            span = by_idx.get(int(row["step"]))
        from_file = span is not None
        if span is None and row.get("utf16_start") is not None and row.get("utf16_end") is not None:
            span = (row["utf16_start"], row["utf16_end"])
        if span is None:
            starts.append(None)
            ends.append(None)
            texts.append(None)
            issues.append("no span for this step in the trace file")
            kinds.append("no_span")
            continue
        m = index.span(span[0], span[1])
        found = [(x.kind, x.message) for x in m.issues]
        # the prefix table's own end offset (`prefix_end_utf16`) must fit the same text
        stored_end = row.get("utf16_end")
        if from_file and stored_end is not None:
            bad = index.check(stored_end)
            if bad is not None:
                found.append((bad.kind, f"prefix table end offset: {bad.message}"))
        starts.append(m.start)
        ends.append(m.end)
        texts.append(text[m.start : m.end] if m.ok else None)
        issues.append("; ".join(msg for _, msg in found) or None)
        kinds.append(",".join(dict.fromkeys(k for k, _ in found)) or None)
    n_bad = sum(1 for x in issues if x)
    if n_bad:
        notes.append(
            f"{n_bad} of {series.height} step spans have an invalid offset "
            "(see `span_issue` in the table and the step panel)."
        )
    frame = series.with_columns(
        py_start=pl.Series(starts, dtype=pl.Int64),
        py_end=pl.Series(ends, dtype=pl.Int64),
        step_text=pl.Series(texts, dtype=pl.String),
        span_issue=pl.Series(issues, dtype=pl.String),
        issue_kinds=pl.Series(kinds, dtype=pl.String),
    )
    return StepText(frame, notes)


Segment = tuple[int, int, int | None, bool]


def text_segments(text: str, spans: pl.DataFrame) -> list[Segment]:
    """Split `text` into consecutive (start, end, ordinal-or-None, own) pieces for highlighting.

    Why the lead-in: prefix k holds every step up to its own, so the change d_k happened
    somewhere in the steps written since prefix k-1, not only in the step that ends prefix k. The
    text between the end of prefix k-1's step and the start of prefix k's step (the text before
    prefix 1's step, for k = 1) is therefore a piece of prefix k with `own` False; the step that
    ends the prefix has `own` True. A lead-in is only given when prefix k-1's span was mapped, so
    text is never credited to the wrong prefix. Spans come from `attach_step_text`
    (py_start/py_end/ordinal); unmappable or overlapping spans are skipped so every character
    appears exactly once, in order.
    """
    rows = (
        spans.filter(pl.col("py_start").is_not_null() & pl.col("py_end").is_not_null())
        .select("py_start", "py_end", "ordinal")
        .sort("py_start", "py_end")
        .rows()
    )
    out: list[Segment] = []
    pos = 0
    prev_ord: int | None = None
    first_ord = int(spans["ordinal"].min()) if spans.height else 1  # type: ignore[arg-type]  # polars types a column min loosely
    for a, b, o in rows:
        if a < pos or b <= a:
            continue
        o = int(o)
        if a > pos:
            follows = (prev_ord == o - 1) if prev_ord is not None else (pos == 0 and o == first_ord)
            out.append((pos, a, o if follows else None, False))
        out.append((a, b, o, True))
        pos = b
        prev_ord = o
    if pos < len(text):
        out.append((pos, len(text), None, False))
    return out


SERIES_EXPORT_COLUMNS = (
    "problem_id", "sample_index", "ordinal", "step", "num_steps", "rel_depth", "value", "se",
    "std", "n", "change", "z", "sig_drop", "sig_rise", "recovery", "first_error", "best_zero",
    "bimodal", "low_frac", "high_frac", "endpoint", "flags",
)  # fmt: skip


def export_frame(series: pl.DataFrame) -> pl.DataFrame:
    """The per-trace series for download: fixed columns first, histogram as text, extras after."""
    cols = [c for c in SERIES_EXPORT_COLUMNS if c in series.columns]
    extra = [
        c
        for c in series.columns
        if c not in cols
        and c not in ("hist", "prev_value", "prev_se", "row", "n_prefixes", "source")
        and not series.schema[c].is_nested()
    ]
    for c in ("py_start", "py_end", "step_text", "span_issue", "issue_kinds"):
        if c in extra:
            extra.remove(c)
            extra.append(c)
    out = series.select(*cols, *extra)
    if "hist" in series.columns:
        out = out.with_columns(grade_hist=series["hist"].cast(pl.List(pl.String)).list.join(","))
    return out
