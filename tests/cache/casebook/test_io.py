"""Import and export on both backends: round trips in JSONL, CSV and Parquet, an idempotent
merge, rejected files that write nothing, collection order, PRM labels."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from typing import Any

import polars as pl
import pytest

from cache.casebook import (
    Case,
    CaseStore,
    ImportRejected,
    export_cases,
    export_collection,
    format_of,
    import_cases,
    make_case,
    open_store,
    prm_labels,
    step_labels,
)
from cache.casebook.io import FORMATS, labels_bytes


def _cases() -> list[Case]:
    return [
        make_case(
            "parason",
            "parason",
            query=[("subset", "sft-1x"), ("uuid", "u1"), ("k", "a"), ("k", "b")],
            source={"kind": "hub", "repo_id": "parallel-reasoner/parason-data", "revision": "main"},
            item={"subset": "sft-1x", "uuid": "u1", "node": "n2"},
            title='Fork, "quoted", comma',
            tags=["dag", "ÄÖ 😀"],
            verdict="interesting",
            note="line 1\nline 2\r\n<script>x</script> $\\frac{1}{3}$ 𝔘 é\n",
            author="ana",
            snapshot={"speedup": 1 / 3, "T": 12345, "list": [1, 2.5, None], "s": "x"},
            now=1_700_000_000.123456789,
        ),
        make_case(
            "mars",
            "mars",
            query=[("file", "DeepSeek-8B/aime25.parquet"), ("qid", "3")],
            item={"file": "DeepSeek-8B/aime25.parquet", "qid": "3", "trace": "17"},
            note="",
            now=1_700_000_100.5,
        ),
        make_case(
            "fineproofs",
            "fineproofs",
            item={"problem": "P7", "sample": "2", "prefix": "5"},
            verdict="error",
            note="step 5 divides by zero",
            now=1_700_000_200.0,
        ),
    ]


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_in_every_format(store: CaseStore, fmt: str) -> None:
    cases = _cases()
    cases[2] = replace(cases[2], deleted_at=1_700_000_300.25, version=3)
    data = export_cases(cases, fmt)  # type: ignore[arg-type]  # FORMATS holds the Format literals
    report = import_cases(store, data, fmt)  # type: ignore[arg-type]  # as above
    assert (report.added, report.updated, report.unchanged) == (3, 0, 0)
    for c in cases:
        assert store.get(c.id) == c
    again = import_cases(store, data, fmt)  # type: ignore[arg-type]  # as above
    assert (again.added, again.updated, again.unchanged) == (0, 0, 3)
    assert export_cases([store.get(c.id) for c in cases], fmt) == data  # type: ignore[arg-type, misc]  # all present


def test_flat_columns_for_spreadsheets() -> None:
    cases = _cases()
    rows = list(csv.DictReader(io.StringIO(export_cases(cases, "csv").decode(), newline="")))
    assert (
        rows[0]["item_uuid"] == "u1"
        and rows[1]["item_qid"] == "3"
        and rows[2]["item_problem"] == "P7"
    )
    assert rows[1]["item_uuid"] == ""
    assert rows[0]["deep_link"] == "parason?subset=sft-1x&uuid=u1&k=a&k=b"
    assert json.loads(rows[0]["tags"]) == ["dag", "ÄÖ 😀"]
    df = pl.read_parquet(io.BytesIO(export_cases(cases, "parquet")))
    assert df.schema["created_at"] == pl.Float64 and df.schema["version"] == pl.Int64
    assert df["item_trace"].to_list() == [None, "17", None]
    lines = export_cases(cases, "jsonl").decode().splitlines()
    assert json.loads(lines[1])["deep_link"] == "mars?file=DeepSeek-8B%2Faime25.parquet&qid=3"


def test_jsonl_keeps_a_lone_surrogate(store: CaseStore) -> None:
    case = make_case("mars", "mars", note="lone \ud800 here \\ud800 \x00")
    data = export_cases([case], "jsonl")
    data.decode("utf-8")  # valid UTF-8
    import_cases(store, data, "jsonl")
    assert store.get(case.id) == case


def test_merge_by_id_and_updated_at(store: CaseStore) -> None:
    a, b, c = _cases()
    store.add(a)
    store.add(b)
    edited_here = store.update(replace(b, title="edited here"), b.version)  # newer than the file
    newer_a = replace(a, title="newer in the file", updated_at=a.updated_at + 10)
    report = import_cases(store, export_cases([newer_a, b, c], "jsonl"), "jsonl")
    assert (report.added, report.updated, report.unchanged, report.kept) == (1, 1, 1, (b.id,))
    got = store.get(a.id)
    assert got is not None and got.title == "newer in the file" and got.version == a.version + 1
    assert store.get(b.id) == edited_here
    assert store.get(c.id) == c


def _jsonl(cases: list[Case]) -> bytes:
    return export_cases(cases, "jsonl")


@pytest.mark.parametrize(
    ("make_bad", "fmt", "expect"),
    [
        (lambda ok: ok[: len(ok) - 40], "jsonl", "line 3: not valid JSON"),  # truncated
        (lambda ok: ok + ok.splitlines(keepends=True)[0], "jsonl", "line 4: case id"),  # duplicate
        (lambda ok: ok + b"[1, 2]\n", "jsonl", "line 4: a case must be a JSON object"),
        (
            lambda ok: ok.replace(b'"dataset":"mars"', b'"dataset":"nope"'),
            "jsonl",
            "line 2: unknown dataset",
        ),
        (
            lambda ok: ok.replace(b'"version":1', b'"version":"1"', 1),
            "jsonl",
            "line 1: field 'version'",
        ),
        (lambda ok: ok.replace(b'"view":"mars",', b""), "jsonl", "line 2: missing field 'view'"),
        (lambda ok: b'{"a": 1}\n', "jsonl", "line 1: missing field"),
        (lambda ok: b"\xff\xfe garbage", "jsonl", "not UTF-8"),
        (lambda ok: b"name,value\nx,1\n", "csv", "missing column(s) id"),
        (lambda ok: b"PAR1 not really", "parquet", "not a readable Parquet file"),
    ],
)
def test_rejected_imports_write_nothing(
    store: CaseStore, make_bad: object, fmt: str, expect: str
) -> None:
    cases = _cases()
    store.add(replace(cases[0], title="stored"))
    bad = make_bad(_jsonl(cases))  # type: ignore[operator]  # the lambdas above
    before = store.list_cases(include_deleted=True)
    with pytest.raises(ImportRejected) as err:
        import_cases(store, bad, fmt)  # type: ignore[arg-type]  # a Format literal
    assert expect in err.value.message, err.value.message
    assert store.list_cases(include_deleted=True) == before


def test_rejected_csv_and_parquet_rows(store: CaseStore) -> None:
    cases = _cases()
    text = export_cases(cases, "csv").decode()
    broken = text.replace(',"{""speedup""', ',"{""speedup"":', 1)  # a broken JSON cell
    with pytest.raises(ImportRejected) as err:
        import_cases(store, broken.encode(), "csv")
    assert "column 'snapshot' is not valid JSON" in err.value.message
    df = pl.read_parquet(io.BytesIO(export_cases(cases, "parquet")))
    buf = io.BytesIO()
    pl.concat([df, df.head(1)]).write_parquet(buf)
    with pytest.raises(ImportRejected) as err:
        import_cases(store, buf.getvalue(), "parquet")
    assert "row 4: case id" in err.value.message
    assert store.count() == 0


def test_export_collection_in_order(db_url: str) -> None:
    store = open_store(db_url, readonly=False)
    try:
        cases = [store.add(c) for c in _cases()]
        col = store.create_collection("talk")
        col = store.set_collection_cases(
            col.id, [cases[2].id, cases[0].id, cases[1].id], col.version
        )
        store.delete(cases[1].id)
        lines = [
            json.loads(line) for line in export_collection(store, col.id, "jsonl").splitlines()
        ]
        assert [d["id"] for d in lines[:-1]] == [cases[2].id, cases[0].id]
        # the collection's own line comes last, listing the cases the file holds
        assert lines[-1]["type"] == "collection" and lines[-1]["id"] == col.id
        assert lines[-1]["case_ids"] == [cases[2].id, cases[0].id]
        assert "type" not in lines[0]  # case lines are as before
        df = pl.read_parquet(
            io.BytesIO(export_collection(store, col.id, "parquet", include_deleted=True))
        )
        assert df["id"].to_list() == [cases[2].id, cases[0].id, cases[1].id]
    finally:
        store.close()


def _step(
    p: str, s: str, k: str, v: str | None, n: str = "", snapshot: dict[str, Any] | None = None
) -> Case:
    item = {"problem": p, "sample": s, "prefix": k}
    return make_case("fineproofs", "fineproofs", item=item, verdict=v, note=n, snapshot=snapshot)


def test_step_labels_take_the_step_index_not_the_prefix_ordinal() -> None:
    new_style = make_case(
        "fineproofs",
        "fineproofs",
        item={"problem": "P1", "sample": "0", "prefix": "2", "step": "9"},
        verdict="first error",
        author="ana",
        now=1_796_317_445.75,  # 2026-12-03T17:04:05Z
    )
    cases = [
        new_style,
        _step("P2", "1", "3", "wrong step", "wrong lemma", snapshot={"step": 12, "prefix": 3}),
        _step("P1", "0", "7", "correct step", snapshot={"step": 30.0}),
        _step("P1", "0", "8", "correct step", snapshot={}),  # no step index: skipped, counted
        _step("P3", "0", "1", None, snapshot={"step": 1}),  # no label
        make_case("fineproofs", "fineproofs", item={"problem": "P4", "sample": "0"}, verdict="x"),
        make_case(
            "mars", "mars", item={"problem": "P1", "sample": "0", "prefix": "1"}, verdict="x"
        ),
    ]
    labels = step_labels(cases)
    df = labels.frame
    assert df.columns == [
        "problem_id", "sample_index", "step_idx", "prefix_ordinal",
        "label", "note", "author", "updated_at",
    ]  # fmt: skip
    assert df.schema["step_idx"] == pl.Int64 and df.schema["prefix_ordinal"] == pl.Int64
    assert df.select(
        "problem_id", "sample_index", "step_idx", "prefix_ordinal", "label"
    ).rows() == [
        ("P1", 0, 9, 2, "first error"),
        ("P1", 0, 30, 7, "correct step"),
        ("P2", 1, 12, 3, "wrong step"),
    ]
    assert df.row(0, named=True)["updated_at"] == "2026-12-03T17:04:05Z"
    assert df.row(0, named=True)["author"] == "ana"
    assert labels.no_step_index == 1
    assert prm_labels(cases).equals(df)
    assert step_labels([]).frame.shape == (0, 8)


@pytest.mark.parametrize("fmt", FORMATS)
def test_step_labels_files_keep_every_character(fmt: str) -> None:
    note = 'a "quoted", comma\nnew line 😀 \ud800'
    df = step_labels([_step("P1", "0", "2", "wrong step", note, snapshot={"step": 4})]).frame
    data = labels_bytes(df, fmt)  # type: ignore[arg-type]  # FORMATS holds the Format literals
    back = {
        "csv": lambda b: pl.read_csv(b, schema_overrides={"problem_id": pl.String}),
        "jsonl": pl.read_ndjson,
        "parquet": pl.read_parquet,
    }[fmt](io.BytesIO(data))
    assert back.columns == df.columns
    assert back.row(0, named=True)["note"] == 'a "quoted", comma\nnew line 😀 \\ud800'
    assert back.row(0, named=True)["step_idx"] == 4


def test_format_of() -> None:
    assert [format_of(n) for n in ("a.jsonl", "b.CSV", "c.parquet", "d.ndjson")] == [
        "jsonl",
        "csv",
        "parquet",
        "jsonl",
    ]
    with pytest.raises(ImportRejected):
        format_of("cases.txt")


@pytest.mark.parametrize(
    ("fmt", "data", "expect"),
    [
        ("jsonl", b"", "the file is empty"),
        ("jsonl", b"  \n\r\n\t\n", "the file is empty"),
        ("jsonl", b"\xef\xbb\xbf\n", "the file is empty"),  # a BOM and a newline
        ("csv", b"", "the file is empty"),
        ("csv", b"\n \n", "the file is empty"),
        ("csv", export_cases([], "csv"), "holds no cases"),  # the header alone
        ("parquet", b"", "the file is empty"),
        ("parquet", export_cases([], "parquet"), "holds no cases"),  # zero rows
    ],
    ids=["jsonl", "jsonl-blank", "jsonl-bom", "csv", "csv-blank", "csv-header", "pq", "pq-0"],
)
def test_an_empty_file_is_rejected(store: CaseStore, fmt: str, data: bytes, expect: str) -> None:
    with pytest.raises(ImportRejected) as err:
        import_cases(store, data, fmt)  # type: ignore[arg-type]  # a Format literal
    assert expect in err.value.message and "nothing was imported" in err.value.hint
    assert store.count(include_deleted=True) == 0
