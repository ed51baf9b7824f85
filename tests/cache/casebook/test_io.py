"""Import and export on both backends: round trips in JSONL, CSV and Parquet, an idempotent
merge, rejected files that write nothing, collection order, PRM labels."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace

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
)
from cache.casebook.io import FORMATS


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
        ids = [
            json.loads(line)["id"]
            for line in export_collection(store, col.id, "jsonl").splitlines()
        ]
        assert ids == [cases[2].id, cases[0].id]
        df = pl.read_parquet(
            io.BytesIO(export_collection(store, col.id, "parquet", include_deleted=True))
        )
        assert df["id"].to_list() == [cases[2].id, cases[0].id, cases[1].id]
    finally:
        store.close()


def test_prm_labels() -> None:
    cases = [
        *(
            make_case(
                "fineproofs",
                "fineproofs",
                item={"problem": p, "sample": s, "prefix": k},
                verdict=v,
                note=n,
            )
            for p, s, k, v, n in [
                ("P2", "1", "3", "bad", "wrong lemma"),
                ("P1", "0", "7", "good", ""),
                ("P1", "0", "2", "good", "fine"),
            ]
        ),
        make_case("fineproofs", "fineproofs", item={"problem": "P3", "sample": "0", "prefix": "1"}),
        make_case("fineproofs", "fineproofs", item={"problem": "P4"}, verdict="bad"),
        make_case(
            "mars", "mars", item={"problem": "P1", "sample": "0", "prefix": "1"}, verdict="x"
        ),
    ]
    df = prm_labels(cases)
    assert df.columns == ["problem_id", "sample_index", "step", "label", "note"]
    assert df.schema["sample_index"] == pl.Int64 and df.schema["step"] == pl.Int64
    assert df.rows() == [
        ("P1", 0, 2, "good", "fine"),
        ("P1", 0, 7, "good", ""),
        ("P2", 1, 3, "bad", "wrong lemma"),
    ]
    assert prm_labels([]).shape == (0, 5)


def test_format_of() -> None:
    assert [format_of(n) for n in ("a.jsonl", "b.CSV", "c.parquet", "d.ndjson")] == [
        "jsonl",
        "csv",
        "parquet",
        "jsonl",
    ]
    with pytest.raises(ImportRejected):
        format_of("cases.txt")
