"""Casebook import and export: JSONL (exact; cases, then collections), CSV and Parquet (one row
per case, dict/list fields as JSON text plus flattened `item_<key>` columns), and FineProofs step
labels (CSV, JSONL, Parquet). The formats: docs/formats/casebook.md.

An import is validated as a whole before anything is written (`ImportRejected` names the line
and field), then merged by case id, then collection id, in one transaction (`CaseStore.merge`):
importing the same file twice changes nothing the second time.

JSONL keeps every character (a lone surrogate is written as a `\\uXXXX` escape). CSV and
Parquet hold UTF-8 text, so there a lone surrogate or NUL in a note becomes a visible
`\\uXXXX` sequence: use JSONL for an exact backup.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Literal

import polars as pl

from cache.casebook.errors import CasebookReadOnly, ImportRejected, InvalidCase, NotFound
from cache.casebook.model import (
    CASE_FIELDS,
    COLLECTION_TYPE,
    Case,
    Collection,
    ImportReport,
    case_from_dict,
    case_to_dict,
    collection_from_dict,
    collection_to_dict,
    deep_link,
)
from cache.casebook.store import CaseStore
from cache.datasets import view_info

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


def _case_line(case: Case) -> str:
    return _json_line({**case_to_dict(case), "deep_link": deep_link(case)})


def export_casebook(cases: Iterable[Case], collections: Iterable[Collection] = ()) -> bytes:
    """JSONL: one line per case, then one per collection (`"type": "collection"`). A collection
    line lists those of its cases that are in the file, in its order, so the file imports on
    its own (into a fresh casebook too)."""
    cases = list(cases)
    have = {c.id for c in cases}
    lines = [_case_line(c) for c in cases]
    for col in collections:
        kept = replace(col, case_ids=tuple(i for i in col.case_ids if i in have))
        lines.append(_json_line(collection_to_dict(kept)))
    return "".join(line + "\n" for line in lines).encode("utf-8")


def export_cases(cases: Iterable[Case], fmt: Format) -> bytes:
    """One row per case with every field and its deep link."""
    _check_fmt(fmt)
    cases = list(cases)
    if fmt == "jsonl":
        return export_casebook(cases)
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
    """The collection's cases in collection order (soft-deleted ones left out by default); in
    JSONL followed by the collection's own line."""
    col = store.get_collection(collection_id)
    if col is None:
        raise NotFound(f"no collection {collection_id} in the casebook", "pick another one")
    cases = [c for c in map(store.get, col.case_ids) if c is not None]
    cases = [c for c in cases if include_deleted or not c.deleted]
    return export_casebook(cases, [col]) if fmt == "jsonl" else export_cases(cases, fmt)


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


@dataclass(frozen=True)
class ImportFile:
    """A parsed import file: its cases, its collections, and where each collection came from
    (collection id -> "line 7", for the store's messages)."""

    cases: list[Case]
    collections: list[Collection]
    where: dict[str, str]


def _reject(where: str, exc: ValueError | InvalidCase, what: str) -> ImportRejected:
    msg = exc.message if isinstance(exc, InvalidCase) else str(exc)
    return ImportRejected(f"{where}: {msg}", f"fix or remove that {what}; nothing was imported")


def _parse_case_rows(rows: list[tuple[int, dict[str, Any]]], where: str) -> list[Case]:
    out: list[Case] = []
    seen: dict[str, int] = {}
    for n, row in rows:
        try:
            case = case_from_dict(row)
        except (ValueError, InvalidCase) as exc:
            raise _reject(f"{where} {n}", exc, "case") from exc
        if case.id in seen:
            raise ImportRejected(
                f"{where} {n}: case id {case.id} already appears on {where} {seen[case.id]}",
                "each case may appear once; nothing was imported",
            )
        seen[case.id] = n
        out.append(case)
    return out


def _parse_collection_rows(rows: list[tuple[int, dict[str, Any]]]) -> ImportFile:
    cols: list[Collection] = []
    where: dict[str, str] = {}
    names: dict[str, int] = {}
    for n, row in rows:
        try:
            col = collection_from_dict(row)
        except (ValueError, InvalidCase) as exc:
            raise _reject(f"line {n}", exc, "collection") from exc
        for key, seen, what in ((col.id, where, "id"), (col.name, names, "name")):
            if key in seen:
                raise ImportRejected(
                    f"line {n}: a collection with {what} {key!r} already appears earlier",
                    "each collection may appear once; nothing was imported",
                )
        where[col.id], names[col.name] = f"line {n}", n
        cols.append(col)
    return ImportFile([], cols, where)


def _split_jsonl(
    rows: list[tuple[int, dict[str, Any]]],
) -> tuple[list[tuple[int, dict[str, Any]]], list[tuple[int, dict[str, Any]]]]:
    """(case lines, collection lines): a line without `type` is a case (older exports)."""
    cases: list[tuple[int, dict[str, Any]]] = []
    cols: list[tuple[int, dict[str, Any]]] = []
    for n, row in rows:
        kind = row.get("type", "case")
        if kind not in ("case", COLLECTION_TYPE):
            raise ImportRejected(
                f"line {n}: unknown line type {kind!r}",
                'a line is a case (no "type") or a collection ("type": "collection"); '
                "nothing was imported",
            )
        (cases if kind == "case" else cols).append((n, row))
    return cases, cols


def _check_not_empty(data: bytes) -> None:
    if not data.removeprefix(codecs.BOM_UTF8).strip():
        raise ImportRejected(
            "the file is empty",
            "choose a casebook export (.jsonl, .csv or .parquet) that holds cases; "
            "nothing was imported",
        )


def parse_file(data: bytes, fmt: Format) -> ImportFile:
    """Every case and collection of the file, validated; `ImportRejected` on the first problem
    (an empty file, or one without a case or collection, is one)."""
    _check_fmt(fmt)
    _check_not_empty(data)
    if fmt == "jsonl":
        case_rows, col_rows = _split_jsonl(_rows_jsonl(data))
        parsed = _parse_collection_rows(col_rows)
        cases = _parse_case_rows(case_rows, "line")
    else:
        rows = _rows_csv(data) if fmt == "csv" else _rows_parquet(data)
        parsed = ImportFile([], [], {})
        cases = _parse_case_rows(rows, "line" if fmt == "csv" else "row")
    if not cases and not parsed.collections:
        raise ImportRejected(
            "the file holds no cases (a header or schema only)",
            "export the cases again, or choose another file; nothing was imported",
        )
    return replace(parsed, cases=cases)


def parse_cases(data: bytes, fmt: Format) -> list[Case]:
    """Every case of the file, validated; `ImportRejected` on the first problem."""
    return parse_file(data, fmt).cases


def import_cases(store: CaseStore, data: bytes, fmt: Format) -> ImportReport:
    """Validate the whole file, then merge its cases and collections in one transaction."""
    if store.readonly:
        raise CasebookReadOnly()
    parsed = parse_file(data, fmt)
    return store.merge(parsed.cases, parsed.collections, parsed.where)


# --------------------------------------------------------------------- FineProofs step labels

LABEL_COLUMNS: tuple[str, ...] = (
    "problem_id",
    "sample_index",
    "step_idx",
    "prefix_ordinal",
    "label",
    "note",
    "author",
    "updated_at",
)
_LABEL_SCHEMA = dict(
    zip(
        LABEL_COLUMNS,
        (pl.String, pl.Int64, pl.Int64, pl.Int64, pl.String, pl.String, pl.String, pl.String),
        strict=True,
    )
)
_WHOLE = re.compile(r"^-?[0-9]+$")


@dataclass(frozen=True)
class StepLabels:
    """FineProofs step labels (`LABEL_COLUMNS`), and how many labelled step cases were left out
    because neither their item nor their snapshot holds the step index."""

    frame: pl.DataFrame
    no_step_index: int


def _whole(*values: Any) -> int | None:
    """The first value that is a whole number (int, integral float, digits), else None."""
    for v in values:
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            return v
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, str) and _WHOLE.match(v.strip()):
            return int(v)
    return None


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _is_step_case(c: Case) -> bool:
    """A judged prefix or step of a view whose cases are step labels (FineProofs)."""
    view = view_info(c.dataset)
    return (
        view is not None
        and view.step_labels
        and c.verdict is not None
        and not c.deleted
        and ("prefix" in c.item or "step" in c.item)
    )


def step_labels(cases: Iterable[Case]) -> StepLabels:
    """One row per live, labelled FineProofs step case (label = verdict). `step_idx` is the
    prefix table's own row key (item `step`, else snapshot `step`), so the labels join back to
    data/prefix_values.parquet on (problem_id, sample_index, step_idx)."""
    rows, skipped = [], 0
    for c in cases:
        sample = _whole(c.item.get("sample"))
        if not _is_step_case(c) or not c.item.get("problem") or sample is None:
            continue
        step = _whole(c.item.get("step"), c.snapshot.get("step"))
        if step is None:
            skipped += 1
            continue
        ordinal = _whole(c.item.get("prefix"), c.snapshot.get("prefix"))
        note = _utf8_safe(c.note)
        rows.append(
            (
                c.item["problem"],
                sample,
                step,
                ordinal,
                c.verdict,
                note,
                c.author,
                _iso(c.updated_at),
            )
        )
    df = pl.DataFrame(rows, schema=_LABEL_SCHEMA, orient="row")
    return StepLabels(df.sort(["problem_id", "sample_index", "step_idx", "updated_at"]), skipped)


def prm_labels(cases: Iterable[Case]) -> pl.DataFrame:
    """The step labels' table (see `step_labels`)."""
    return step_labels(cases).frame


def labels_bytes(labels: pl.DataFrame, fmt: Format) -> bytes:
    """The step labels as a CSV, JSONL or Parquet file."""
    _check_fmt(fmt)
    buf = io.BytesIO()
    if fmt == "csv":
        labels.write_csv(buf)
    elif fmt == "jsonl":
        labels.write_ndjson(buf)
    else:
        labels.write_parquet(buf)
    return buf.getvalue()
