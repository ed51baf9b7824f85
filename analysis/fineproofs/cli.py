"""`python -m analysis fineproofs-trace DATA_DIR --problem ID --sample N [--json]`.

Why: a quick look at one proof attempt without the app: for every collected prefix it prints the
step, its Python start/end in the trace text (mapped from the stored UTF-16 offsets), the step's
text, value, SE, change from the previous prefix and flags (significant drop, recovery,
first-error candidate, best continuation 0, bimodal). DATA_DIR is a folder laid out like the Hub
repo (holding `data/`), or that `data/` folder itself. Data problems exit with code 2 and a message.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import polars as pl

from analysis.fineproofs.steptext import attach_step_text
from analysis.fineproofs.store import read_prefix_table
from analysis.fineproofs.values import SeriesParams, annotate, normalise, trace_series
from cache.errors import SourceNotFound
from cache.fineproofs_io import PREFIX_FILE, data_root, load_trace

# what a terminal shows of a step (full text goes to --json)
_PREVIEW = 70


def _num(x: object) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)  # type: ignore[arg-type]  # x is a JSON number here; mypy sees object


def _fmt(x: object, spec: str = ".3f") -> str:
    v = _num(x)
    if v is None:
        return "-"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return format(v, spec)


def _preview(text: str | None) -> str:
    if text is None:
        return "(unmapped)"
    flat = text.replace("\r", "\\r").replace("\n", "\\n")
    return flat if len(flat) <= _PREVIEW else flat[: _PREVIEW - 1] + "…"


def collect_trace(
    data_dir: Path, problem_id: str, sample_index: int, params: SeriesParams | None = None
) -> tuple[pl.DataFrame, list[str], dict]:
    """(series with step text, notes, trace meta) for one trace; raises DataError."""
    root = data_root(Path(data_dir))
    path = root / PREFIX_FILE
    lf = read_prefix_table(path)
    norm = normalise(lf, where=PREFIX_FILE)
    frame = norm.frame.filter(
        (pl.col("problem_id") == problem_id) & (pl.col("sample_index") == sample_index)
    )
    if frame.height == 0:
        known = norm.frame.filter(pl.col("problem_id") == problem_id)["sample_index"].unique()
        hint = (
            f"problem {problem_id} has samples {', '.join(map(str, sorted(known.to_list())))}"
            if known.len()
            else 'list problem ids with: python -c "import polars as pl; '
            f"print(pl.read_parquet('{path}')['problem_id'].unique())\""
        )
        raise SourceNotFound(
            f"no prefix rows for problem {problem_id} sample {sample_index} in {PREFIX_FILE}", hint
        )
    series = trace_series(annotate(frame, params or SeriesParams()), problem_id, sample_index)
    notes = list(norm.notes)
    rec = load_trace(root, problem_id, sample_index)
    notes.extend(rec.notes)
    st = attach_step_text(series, rec.text, rec.step_spans())
    notes.extend(st.notes)
    return st.frame, notes, {"text_chars": len(rec.text), **rec.meta}


def run(args: argparse.Namespace) -> int:
    frame, notes, meta = collect_trace(Path(args.data_dir), args.problem, args.sample)
    cols = [
        "ordinal", "step", "py_start", "py_end", "step_text", "value", "se", "change", "z",
        "rel_depth", "n", "flags", "span_issue", "issue_kinds",
    ]  # fmt: skip
    if args.json:
        rows = frame.select([c for c in cols if c in frame.columns]).to_dicts()
        for r in rows:
            for k, v in list(r.items()):
                if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
                    r[k] = None if math.isnan(v) else ("inf" if v > 0 else "-inf")
        doc = {
            "problem_id": args.problem,
            "sample_index": args.sample,
            "endpoint": _num(frame["endpoint"].drop_nulls().first())
            if "endpoint" in frame.columns
            else None,
            "notes": notes,
            "source": meta.get("source"),
            "prefixes": rows,
        }
        json.dump(doc, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    endpoint = frame["endpoint"].drop_nulls().first() if "endpoint" in frame.columns else None
    print(
        f"trace {args.problem} sample {args.sample}: {frame.height} prefixes, "
        f"endpoint grade {_fmt(endpoint)}  (value = mean grade of continuations, SE = std/sqrt(n))"
    )
    header = f"{'#':>3} {'step':>5} {'start':>7} {'end':>7} {'value':>6} {'SE':>6} {'change':>7}  flags / text"
    print(header)
    for r in frame.iter_rows(named=True):
        print(
            f"{r['ordinal']:>3} {r['step']:>5} {r['py_start'] if r['py_start'] is not None else '-':>7} "
            f"{r['py_end'] if r['py_end'] is not None else '-':>7} {_fmt(r['value']):>6} "
            f"{_fmt(r['se']):>6} {_fmt(r['change'], '+.3f'):>7}  {r['flags'] or ''}"
        )
        print(f"{'':>32}{_preview(r['step_text'])}")
        if r["span_issue"]:
            print(f"{'':>32}! {r['span_issue']}")
    for n in notes:
        print(f"note: {n}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `fineproofs-trace` to `python -m analysis`."""
    p = subparsers.add_parser(
        "fineproofs-trace",
        help="print the prefix-value series of one FineProofs trace with its step texts",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("data_dir", metavar="DATA_DIR", help="folder laid out like the Hub repo")
    p.add_argument("--problem", required=True, help="16-hex problem id")
    p.add_argument("--sample", required=True, type=int, help="sample index of the base trace")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=run)


__all__ = ["collect_trace", "register", "run"]
