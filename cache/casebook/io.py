"""Casebook import and export: JSONL (exact), CSV and Parquet (one row per case, dict/list fields
as JSON text plus flattened `item_<key>` columns), and PRM labels from FineProofs cases.

An import is validated as a whole before anything is written (`ImportRejected` names the line
and field), then merged by case id in one transaction (`CaseStore.merge`): importing the same
file twice changes nothing the second time.

JSONL keeps every character (a lone surrogate is written as a `\\uXXXX` escape). CSV and
Parquet hold UTF-8 text, so there a lone surrogate or NUL in a note becomes a visible
`\\uXXXX` sequence: use JSONL for an exact backup.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import polars as pl

from cache.casebook.errors import CasebookReadOnly, ImportRejected, InvalidCase, NotFound
from cache.casebook.model import (
    CASE_FIELDS,
    Case,
    ImportReport,
    case_from_dict,
    case_to_dict,
    deep_link,
)
from cache.casebook.store import CaseStore

Format = Literal["jsonl", "csv", "parquet"]
FORMATS: tuple[str, ...] = ("jsonl", "csv", "parquet")
JSON_FIELDS = ("query", "source", "item", "tags", "snapshot")
FLOAT_FIELDS = ("created_at", "updated_at", "deleted_at")
_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSAFE = re.compile("[\x00\ud800-\udfff]")


def format_of(name: str) -> Format:
    """The format named by a file's extension (.jsonl/.ndjson, .csv, .parquet/.pq)."""
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    fmt = {"jsonl": "jsonl", "ndjson": "jsonl", "csv": "csv", "parquet": "parquet", "pq": "parquet"}
    if ext not in fmt:
        raise ImportRejected(
            f"cannot tell the format of {name!r} from its extension",
            "name it .jsonl, .csv or .parquet, or pass --format",
        )
    return fmt[ext]  # type: ignore[return-value]  # the values above are all Format literals


def _check_fmt(fmt: str) -> None:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (use one of {', '.join(FORMATS)})")


# -------------------------------------------------------------------------------- export


def _json_line(obj: Any) -> str:
    """JSON as valid UTF-8 text: a lone surrogate (only possible inside strings) as an escape."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _utf8_safe(text: str) -> str:
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _flat_rows(cases: Sequence[Case]) -> tuple[list[str], list[dict[str, Any]]]:
    item_keys = list(dict.fromkeys(k for c in cases for k in c.item))
    columns = [*CASE_FIELDS, "deep_link", *(f"item_{k}" for k in item_keys)]
    rows = []
    for c in cases:
        d = case_to_dict(c)
        row: dict[str, Any] = {}
        for name in CASE_FIELDS:
            v = d[name]
            row[name] = _json_line(v) if name in JSON_FIELDS else v
        row["note"] = _utf8_safe(c.note)
        row["deep_link"] = deep_link(c)
        for k in item_keys:
            row[f"item_{k}"] = c.item.get(k)
        rows.append(row)
    return columns, rows


def export_cases(cases: Iterable[Case], fmt: Format) -> bytes:
    """One row per case with every field and its deep link."""
    _check_fmt(fmt)
    cases = list(cases)
    if fmt == "jsonl":
        lines = [_json_line({**case_to_dict(c), "deep_link": deep_link(c)}) for c in cases]
        return "".join(line + "\n" for line in lines).encode("utf-8")
    columns, rows = _flat_rows(cases)
    if fmt == "csv":
        buf = io.StringIO(newline="")
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(columns)
        for row in rows:
            w.writerow(
                [
                    "" if row[c] is None else repr(row[c]) if isinstance(row[c], float) else row[c]
                    for c in columns
                ]
            )
        return buf.getvalue().encode("utf-8")
    schema: dict[str, Any] = {c: pl.String for c in columns}
    schema.update({f: pl.Float64 for f in FLOAT_FIELDS})
    schema["version"] = pl.Int64
    df = pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)
    out = io.BytesIO()
    df.write_parquet(out)
    return out.getvalue()


def export_collection(
    store: CaseStore, collection_id: str, fmt: Format, include_deleted: bool = False
) -> bytes:
    """The collection's cases in collection order (soft-deleted ones left out by default)."""
    col = store.get_collection(collection_id)
    if col is None:
        raise NotFound(f"no collection {collection_id} in the casebook", "pick another one")
    cases = [c for c in map(store.get, col.case_ids) if c is not None]
    return export_cases([c for c in cases if include_deleted or not c.deleted], fmt)


# -------------------------------------------------------------------------------- import


def _rows_jsonl(data: bytes) -> list[tuple[int, dict[str, Any]]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportRejected(
            f"the file is not UTF-8 text (byte {exc.start})", "export it again as JSONL"
        ) from exc
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ImportRejected(
                f"line {n}: not valid JSON ({exc.msg} at column {exc.colno}); "
                "the file may be truncated",
                "export the cases again; nothing was imported",
            ) from exc
        if not isinstance(obj, dict):
            raise ImportRejected(
                f"line {n}: a case must be a JSON object, not {type(obj).__name__}",
                "is this a casebook export? nothing was imported",
            )
        rows.append((n, obj))
    return rows


def _missing_columns(columns: Iterable[str]) -> list[str]:
    have = set(columns)
    return [f for f in CASE_FIELDS if f not in have]


def _reject_columns(missing: list[str]) -> ImportRejected:
    return ImportRejected(
        f"not a casebook export: missing column(s) {', '.join(missing)}",
        "import a file written by `casebook export` (or the casebook page); nothing was imported",
    )


def _from_text_row(row: dict[str, Any], n: int, text_floats: bool) -> dict[str, Any]:
    """A CSV/Parquet row back to the case dict: JSON text columns parsed, numbers typed."""
    d = {k: row.get(k) for k in CASE_FIELDS}
    for name in JSON_FIELDS:
        v = d[name]
        if not isinstance(v, str):
            raise ImportRejected(f"row {n}: column {name!r} must hold JSON text")
        try:
            d[name] = json.loads(v)
        except json.JSONDecodeError as exc:
            raise ImportRejected(f"row {n}: column {name!r} is not valid JSON ({exc.msg})") from exc
    if text_floats:
        for name in (*FLOAT_FIELDS, "version"):
            v = d[name]
            if v in ("", None):
                d[name] = None
                continue
            try:
                d[name] = int(v) if name == "version" else float(v)
            except ValueError as exc:
                raise ImportRejected(f"row {n}: column {name!r} is not a number ({v!r})") from exc
    for name in ("note", "author", "title"):
        if d[name] is None:
            d[name] = ""
    if d["verdict"] == "":
        d["verdict"] = None
    return d


def _rows_csv(data: bytes) -> list[tuple[int, dict[str, Any]]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportRejected(f"the file is not UTF-8 text (byte {exc.start})") from exc
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # notes may be up to 2 MB
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        missing = _missing_columns(reader.fieldnames or [])
        if missing:
            raise _reject_columns(missing)
        return [(reader.line_num, _from_text_row(row, reader.line_num, True)) for row in reader]
    except csv.Error as exc:
        raise ImportRejected(f"line {reader.line_num}: malformed CSV ({exc})") from exc


def _rows_parquet(data: bytes) -> list[tuple[int, dict[str, Any]]]:
    try:
        df = pl.read_parquet(io.BytesIO(data))
    except Exception as exc:  # polars raises several types for a bad file
        raise ImportRejected(
            f"not a readable Parquet file ({type(exc).__name__}: {str(exc)[:200]})",
            "export the cases again; nothing was imported",
        ) from exc
    missing = _missing_columns(df.columns)
    if missing:
        raise _reject_columns(missing)
    return [(n, _from_text_row(row, n, False)) for n, row in enumerate(df.to_dicts(), 1)]


def parse_cases(data: bytes, fmt: Format) -> list[Case]:
    """Every case of the file, validated; `ImportRejected` on the first problem."""
    _check_fmt(fmt)
    if fmt == "jsonl":
        rows = _rows_jsonl(data)
        where = "line"
    else:
        rows = _rows_csv(data) if fmt == "csv" else _rows_parquet(data)
        where = "line" if fmt == "csv" else "row"
    out: list[Case] = []
    seen: dict[str, int] = {}
    for n, row in rows:
        try:
            case = case_from_dict(row)
        except (ValueError, InvalidCase) as exc:
            msg = exc.message if isinstance(exc, InvalidCase) else str(exc)
            raise ImportRejected(
                f"{where} {n}: {msg}", "fix or remove that case; nothing was imported"
            ) from exc
        if case.id in seen:
            raise ImportRejected(
                f"{where} {n}: case id {case.id} already appears on {where} {seen[case.id]}",
                "each case may appear once; nothing was imported",
            )
        seen[case.id] = n
        out.append(case)
    return out


def import_cases(store: CaseStore, data: bytes, fmt: Format) -> ImportReport:
    """Validate the whole file, then merge it by case id in one transaction."""
    if store.readonly:
        raise CasebookReadOnly()
    return store.merge(parse_cases(data, fmt))


# --------------------------------------------------------------------------- PRM labels


def prm_labels(cases: Iterable[Case]) -> pl.DataFrame:
    """Step labels for process-reward-model pipelines: one row per live FineProofs case whose
    item names problem/sample/prefix and which has a verdict (label = verdict)."""
    rows = []
    for c in cases:
        if c.dataset != "fineproofs" or c.verdict is None or c.deleted:
            continue
        try:
            problem = c.item["problem"]
            sample, step = int(c.item["sample"]), int(c.item["prefix"])
        except (KeyError, ValueError):
            continue
        rows.append((problem, sample, step, c.verdict, c.note))
    schema = {
        "problem_id": pl.String,
        "sample_index": pl.Int64,
        "step": pl.Int64,
        "label": pl.String,
        "note": pl.String,
    }
    rows = [(p, s, t, lab, _utf8_safe(note)) for p, s, t, lab, note in rows]
    df = pl.DataFrame(rows, schema=schema, orient="row")
    return df.sort(["problem_id", "sample_index", "step"])
