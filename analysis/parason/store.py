"""Per-trajectory Parason metrics for a whole SFT subset, as a versioned derived table.

Why a derived table: parsing a whole subset is slow next to reading a table, and the page needs the
whole table for every filter/sort/chart interaction, and the CLI and the page must agree. It is
built once per (source file, derivation version, counter) through `cache.store.read_derived`.

Missing optional columns (uuid, question, correctness, num_qwen_tokens) degrade to nulls /
row numbers; without any trajectory text column the build raises `SchemaError`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import polars as pl

from analysis.parason.metrics import compute_metrics, trajectory_text
from analysis.parason.parse import parse
from analysis.parason.tokens import TokenCounter, get_counter
from cache.derived_tables import PARASON_METRICS
from cache.errors import CorruptFile, SchemaError, SourceNotFound
from cache.progress import ProgressFn, no_progress, scaled
from cache.schemas import PARASON_RL_ROLES, PARASON_SFT_ROLES, map_roles
from cache.sources import SourceConfig, resolve_file
from cache.store import read_derived, table_path

NAME = PARASON_METRICS.name  # name and version declared in cache.derived_tables
VERSION = PARASON_METRICS.version
TEXT_COLUMNS = ("qwen_text", "response_reasoning", "response_content")
OPTIONAL_COLUMNS = ("uuid", "question", "correctness", "num_qwen_tokens")
BATCH = 512

SCHEMA: dict[str, pl.DataType] = {
    "row": pl.Int64(),
    "uuid": pl.String(),
    "question": pl.String(),
    "correctness": pl.Boolean(),
    "stages": pl.Int64(),
    "branches": pl.List(pl.Int64()),
    "branches_max": pl.Int64(),
    "branches_mean": pl.Float64(),
    "kind_mix": pl.String(),
    "block_kinds": pl.List(pl.String()),
    "T": pl.Float64(),
    "C": pl.Float64(),
    "speedup": pl.Float64(),
    "acceleration_ratio": pl.Float64(),
    "parallel_ratio": pl.Float64(),
    "subtask_ratio": pl.Float64(),
    "trial_ratio": pl.Float64(),
    "block_speedup": pl.List(pl.Float64()),
    "imbalance": pl.List(pl.Float64()),
    "longest": pl.List(pl.Int64()),  # per stage, the longest thread's index
    "depth": pl.Int64(),
    "valid": pl.Boolean(),
    "n_warnings": pl.Int64(),
    "warning_codes": pl.List(pl.String()),
    "note_codes": pl.List(pl.String()),
    "answer": pl.String(),
    "n_chars": pl.Int64(),
    "counter": pl.String(),
    "counted_total": pl.Float64(),  # the counter's count of the whole text, prompt included
    "stored_total": pl.Float64(),  # the row's num_qwen_tokens (the whole chat template)
    "duplicate": pl.Boolean(),  # an exact copy of an earlier row (every column equal)
}


CANONICAL = {
    "uuid": "uuid",
    "question": "question",
    "reasoning": "response_reasoning",
    "content": "response_content",
    "correctness": "correctness",
    "raw_messages": "raw_messages",
    "qwen_text": "qwen_text",
    "num_tokens": "num_qwen_tokens",
}


def _roles(names: list[str], where: str) -> dict[str, str]:
    """canonical column name -> actual column, via the shared role aliases (all optional here:
    the metrics degrade instead of failing; only a trajectory text is needed)."""
    roles = [replace(r, required=False) for r in PARASON_SFT_ROLES]
    rmap = map_roles(names, roles, where)
    out = {CANONICAL[role]: col for role, col in rmap.columns.items() if col is not None}
    if not {"qwen_text", "response_reasoning", "response_content", "raw_messages"} & set(out):
        raise SchemaError(
            f"{where} has none of the trajectory columns {', '.join(TEXT_COLUMNS)}",
            f"found columns: {', '.join(names[:12])}; is this a Parason SFT file (not rl/)?",
        )
    return out


def _relname(path: Path) -> str:
    """`sft-1x/train.parquet`: the file as the dataset names it."""
    path = Path(path)
    return f"{path.parent.name}/{path.name}"


def _columns(path: Path) -> list[str]:
    if not Path(path).exists():
        raise SourceNotFound(
            f"{_relname(path)} does not exist ({path})",
            "build the sample with `python -m cache sample`, or choose a source that has it",
        )
    try:
        return list(pl.scan_parquet(path).collect_schema().names())
    except Exception as exc:  # polars raises several types for unreadable files
        first = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
        raise CorruptFile(
            f"{_relname(path)} is not a readable Parquet file ({first})",
            f"replace {path} with the dataset's {_relname(path)} (re-download it, or copy it "
            "again), or choose another source in the sidebar; the views that do not need this "
            "file (the RL tab for an SFT file) still work",
        ) from exc


def iter_rows(path: Path, batch: int = BATCH) -> Iterator[tuple[int, list[dict]]]:
    """(first row index, rows) batches with only the columns the metrics need, under their
    canonical names (aliases such as `reasoning` or `messages` are mapped by role)."""
    names = _columns(path)
    cols = _roles(names, Path(path).name)
    try:
        lf = pl.scan_parquet(path).select([pl.col(a).alias(c) for c, a in cols.items()])
        n = lf.select(pl.len()).collect().item()
        for start in range(0, n, batch):
            df = lf.slice(start, batch).collect()
            yield start, df.to_dicts()
    except (SchemaError, SourceNotFound):
        raise
    except Exception as exc:
        raise CorruptFile(f"cannot read {path}: {exc}", "the file may be truncated") from exc


def load_row(path: Path, uuid: str | None = None, row: int | None = None) -> dict | None:
    """One SFT row (canonical column names) by uuid, or by row number (tables without uuid)."""
    names = _columns(path)
    cols = _roles(names, Path(path).name)
    try:
        lf = pl.scan_parquet(path).select([pl.col(a).alias(c) for c, a in cols.items()])
        if uuid is not None and "uuid" in cols:
            df = lf.filter(pl.col("uuid").cast(pl.String) == uuid).head(1).collect()
        elif row is not None:
            df = lf.slice(int(row), 1).collect()
        else:
            return None
    except Exception as exc:
        raise CorruptFile(f"cannot read {path}: {exc}", "the file may be truncated") from exc
    return df.row(0, named=True) if df.height else None


def rl_table(path: Path) -> pl.DataFrame:
    """The RL prompts flattened for browsing: index, prompt (user text), data_source, ability,
    ground_truth. Missing optional columns become nulls."""
    names = _columns(path)
    rmap = map_roles(names, PARASON_RL_ROLES, Path(path).name, "Parason rl/")
    try:
        df = pl.read_parquet(path, columns=[c for c in rmap.columns.values() if c])
    except Exception as exc:
        raise CorruptFile(f"cannot read {path}: {exc}", "the file may be truncated") from exc

    def text_of(msgs: object) -> str:
        if isinstance(msgs, str):
            return msgs
        if isinstance(msgs, list):
            return "\n\n".join(str(m.get("content", "")) for m in msgs if isinstance(m, dict))
        return ""

    def messages_of(msgs: object) -> list[dict[str, str]]:
        """Each chat message with its role (a system message is shown as one)."""
        if isinstance(msgs, str):
            return [{"role": "user", "content": msgs}]
        if not isinstance(msgs, list):
            return []
        return [
            {"role": str(m.get("role") or "?"), "content": str(m.get("content") or "")}
            for m in msgs
            if isinstance(m, dict)
        ]

    n = df.height

    def column(role: str) -> list | None:
        """The role's column as a list (strings for the plain ones), None when it is absent."""
        name = rmap[role]
        if name is None:
            return None
        series = df[name]
        return (
            series.to_list()
            if role in ("prompt", "reward_model", "extra_info")
            else (series.cast(pl.String).to_list())
        )

    prompts = column("prompt") or [None] * n
    out: dict[str, list] = {
        "index": list(range(n)),
        "prompt": [text_of(m) for m in prompts],
        "messages": [messages_of(m) for m in prompts],
        "data_source": column("data_source") or [None] * n,
        "ability": column("ability") or [None] * n,
        "ground_truth": [None] * n,
    }
    rm = column("reward_model")
    if rm is not None:
        out["ground_truth"] = [
            str(r.get("ground_truth"))
            if isinstance(r, dict) and r.get("ground_truth") is not None
            else None
            for r in rm
        ]
    ei = column("extra_info")
    if ei is not None:
        out["index"] = [
            int(e["index"]) if isinstance(e, dict) and isinstance(e.get("index"), int) else i
            for i, e in enumerate(ei)
        ]
    return pl.DataFrame(
        out,
        schema={
            "index": pl.Int64,
            "prompt": pl.String,
            "messages": pl.List(pl.Struct({"role": pl.String, "content": pl.String})),
            "data_source": pl.String,
            "ability": pl.String,
            "ground_truth": pl.String,
        },
    )


def record(row_index: int, row: dict, counter: TokenCounter, item_kinds: bool = False) -> dict:
    """One table row from one SFT row (the CLI prints the same records, plus `item_kinds`)."""
    text, total = trajectory_text(row)
    traj = parse(text)
    counts = counter.count_parts(traj, total if counter.key == "estimate" else None)
    m = compute_metrics(traj, counter, counts=counts)
    rec = m.as_record()
    stored = row.get("num_qwen_tokens")
    uid = row.get("uuid")
    corr = row.get("correctness")
    return {
        "row": row_index,
        "uuid": str(uid) if uid is not None else f"row-{row_index}",
        "question": row.get("question") if isinstance(row.get("question"), str) else None,
        "correctness": bool(corr) if isinstance(corr, bool) else None,
        **{
            k: rec[k]
            for k in SCHEMA
            if k in rec and k not in ("uuid", "question", "correctness", "row")
        },
        "counter": m.counter,
        "counted_total": float(sum(counts)),
        "stored_total": float(stored)
        if isinstance(stored, int | float) and not isinstance(stored, bool)
        else None,
        "duplicate": False,
        **({"item_kinds": m.item_kinds} if item_kinds else {}),
    }


def first_copies(path: Path) -> list[bool]:
    """Per row: False when it is an exact copy of an earlier row (every column equal). Why: a
    subset that holds a row twice would count it twice in the browse count, charts and picker."""
    try:
        flags = pl.scan_parquet(path).select(pl.struct(pl.all()).is_first_distinct()).collect()
    except Exception as exc:  # polars raises several types for unreadable files
        raise CorruptFile(f"cannot read {path}: {exc}", "the file may be truncated") from exc
    return flags.to_series().to_list()


def compute_table(
    path: Path, counter: str = "estimate", progress: ProgressFn | None = None
) -> pl.DataFrame:
    """Metrics of every row of one SFT parquet (no caching)."""
    hook = progress or no_progress
    cnt = get_counter(counter)
    n_total = (
        max(1, pl.scan_parquet(path).select(pl.len()).collect().item())
        if Path(path).exists()
        else 1
    )
    recs: list[dict] = []
    first = first_copies(path) if Path(path).exists() else []
    for start, rows in iter_rows(path):
        for i, row in enumerate(rows):
            rec = record(start + i, row, cnt)
            rec["duplicate"] = start + i < len(first) and not first[start + i]
            recs.append(rec)
        hook(min(1.0, (start + len(rows)) / n_total), f"parsed {start + len(rows)} trajectories")
    return pl.DataFrame(recs, schema=SCHEMA) if recs else pl.DataFrame(schema=SCHEMA)


def metrics_table(
    path: Path, counter: str = "estimate", progress: ProgressFn | None = None
) -> pl.DataFrame:
    """The cached per-trajectory metrics table of one SFT parquet (built once per source/version)."""
    path = Path(path)
    _columns(path)  # clear error before touching the store
    get_counter(counter)  # fail early on an unavailable counter
    return read_derived(
        NAME,
        VERSION,
        [path],
        lambda p: compute_table(path, counter, p),
        params={"counter": counter},
        progress=progress,
    )


def warm(source: SourceConfig, progress: ProgressFn | None = None) -> list[Path]:
    """Build the metrics tables of both SFT subsets for a source (`python -m cache warm`)."""
    hook = progress or no_progress
    out = []
    for i, sub in enumerate(("sft-1x", "sft-8x")):
        path = resolve_file(
            "parason", f"{sub}/train.parquet", source, progress=scaled(hook, i / 2, i / 2 + 0.1)
        )
        metrics_table(path, progress=scaled(hook, i / 2 + 0.1, (i + 1) / 2))
        out.append(table_path(NAME, VERSION, [path], {"counter": "estimate"}))
    return out
