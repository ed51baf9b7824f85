"""`python -m cache casebook list|export|import`, run as a user would (subprocess, SQLite in a
temp cache folder; the target of an import may be PostgreSQL through RTE_DB_URL)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from cache.casebook import make_case, open_store
from tests.cache.casebook.conftest import fresh_pg_url

REPO = Path(__file__).resolve().parents[3]


def _run(*args: str, cache: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("RTE_DB_URL", "RTE_CASEBOOK")}
    return subprocess.run(
        [sys.executable, "-m", "cache", "casebook", *args],
        cwd=REPO,
        env={**base, "RTE_CACHE_DIR": str(cache), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_list_export_import_end_to_end(tmp_path: Path, pg_server: str) -> None:
    src = tmp_path / "src"
    src.mkdir()  # a casebook named by its URL gets no folder made for it
    store = open_store(f"sqlite:///{src / 'casebook.sqlite'}", readonly=False)
    a = store.add(make_case("mars", "mars", title="Late flip", tags=["flip"], item={"qid": "3"}))
    b = store.add(make_case("parason", "parason", title="Deep fork", tags=["dag", "flip"]))
    c = store.add(make_case("fineproofs", "fineproofs", title="Drop", verdict="bad"))
    col = store.create_collection("Team demo")
    store.set_collection_cases(col.id, [c.id, a.id], col.version)
    store.close()

    out = _run("list", cache=src)
    assert out.returncode == 0, out.stderr
    assert "Late flip" in out.stdout and "Deep fork" in out.stdout and "3 case(s)" in out.stderr
    js = _run("list", "--json", "--tag", "flip", "--dataset", "mars", cache=src)
    rows = json.loads(js.stdout)
    assert [r["id"] for r in rows] == [a.id] and rows[0]["deep_link"] == "mars"

    for fmt in ("jsonl", "csv"):
        path = tmp_path / f"all.{fmt}"
        exp = _run("export", str(path), "--format", fmt, cache=src)
        assert exp.returncode == 0 and "3 case(s)" in exp.stdout, exp.stderr
    part = tmp_path / "demo.parquet"  # the format from the extension
    assert _run("export", str(part), "--collection", "team demo", cache=src).returncode == 0
    assert pl.read_parquet(part)["id"].to_list() == [c.id, a.id]

    dst = tmp_path / "dst"
    first = _run("import", str(tmp_path / "all.csv"), cache=dst)
    assert first.returncode == 0 and "added 3, updated 0, unchanged 0" in first.stdout, first.stderr
    again = _run("import", str(tmp_path / "all.jsonl"), "--format", "jsonl", cache=dst)
    assert "added 0, updated 0, unchanged 3" in again.stdout, again.stderr
    pg = _run("import", str(tmp_path / "all.jsonl"), cache=dst, RTE_DB_URL=fresh_pg_url(pg_server))
    assert "added 3" in pg.stdout, pg.stderr
    assert {c.id for c in open_store(f"sqlite:///{dst / 'casebook.sqlite'}").list_cases()} == {
        a.id,
        b.id,
        c.id,
    }


def test_errors_are_messages_not_tracebacks(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n')
    checks = [
        (_run("import", str(bad), cache=tmp_path), "line 1: missing field"),
        (
            _run("export", str(tmp_path / "x.csv"), "--collection", "nope", cache=tmp_path),
            "no collection",
        ),
        (_run("list", cache=tmp_path, RTE_DB_URL="postgresql://u@127.0.0.1:1/x"), "cannot reach"),
        (_run("import", str(bad), cache=tmp_path, RTE_CASEBOOK="readonly"), "read-only"),
    ]
    for out, expect in checks:
        assert out.returncode == 2, out.stdout + out.stderr
        assert "error: " in out.stderr and expect in out.stderr and "hint:" in out.stderr, (
            out.stderr
        )
        assert "Traceback" not in out.stderr


def _casebook_with_steps(folder: Path) -> dict[str, str]:
    """A casebook in `folder` (its cache folder): two labelled FineProofs steps (one captured
    before the step index was kept), a MARS case, a collection. Returns names -> ids."""
    folder.mkdir(exist_ok=True)
    store = open_store(f"sqlite:///{folder / 'casebook.sqlite'}", readonly=False)
    item = {"problem": "P1", "sample": "0", "prefix": "2"}
    step = store.add(
        make_case("fineproofs", "fineproofs", item=item, verdict="first error",
                  snapshot={"step": 4, "prefix": 2}, title="Step <b>4</b>", author="ana")
    )  # fmt: skip
    blind = store.add(
        make_case("fineproofs", "fineproofs", item={**item, "prefix": "3"}, verdict="unclear")
    )
    mars = store.add(make_case("mars", "mars", title="Late flip", item={"qid": "3"}))
    col = store.create_collection("Team demo", "for Friday")
    store.set_collection_cases(col.id, [mars.id, step.id], col.version)
    store.close()
    return {"step": step.id, "blind": blind.id, "mars": mars.id, "collection": col.id}


def _ok(out: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stdout + out.stderr
    return out


def _refused(out: subprocess.CompletedProcess[str], expect: str) -> None:
    assert out.returncode == 2, out.stdout + out.stderr
    assert "error: " in out.stderr and expect in out.stderr and "hint:" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


def test_export_html_report(tmp_path: Path) -> None:
    src = tmp_path / "src"
    _casebook_with_steps(src)
    out = _ok(_run("export", str(tmp_path / "all.html"), cache=src))
    assert "3 case(s) ->" in out.stdout and "(html," in out.stdout
    page = (tmp_path / "all.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "Step &lt;b&gt;4&lt;/b&gt;" in page
    assert "<b>4</b>" not in page and "Late flip" in page
    demo = tmp_path / "demo.report"
    _ok(_run("export", str(demo), "--format", "html", "--collection", "team demo", cache=src))
    text = demo.read_text()
    assert "<title>Team demo</title>" in text and "for Friday" in text and "Late flip" in text
    assert "2 cases · exported" in text


def test_export_html_report_with_maths(tmp_path: Path) -> None:
    """`--maths` typesets the notes' formulas (KaTeX inline); without it the notes stay as written."""
    src = tmp_path / "src"
    src.mkdir()
    store = open_store(f"sqlite:///{src / 'casebook.sqlite'}", readonly=False)
    store.add(make_case("mars", "mars", item={"qid": "1"}, note="flip at $\\frac{3}{4}$ <b>"))
    store.close()
    _ok(_run("export", str(tmp_path / "m.html"), "--maths", cache=src))
    _ok(_run("export", str(tmp_path / "p.html"), cache=src))
    typeset, plain = (tmp_path / "m.html").read_text(), (tmp_path / "p.html").read_text()
    assert 'data-tex="\\frac{3}{4}"' in typeset and typeset.count("<script") == 1
    assert "Content-Security-Policy" in typeset and "&lt;b&gt;" in typeset
    assert "<script" not in plain and "flip at $\\frac{3}{4}$ &lt;b&gt;" in plain


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_export_step_labels(tmp_path: Path, fmt: str) -> None:
    src = tmp_path / "src"
    _casebook_with_steps(src)
    path = tmp_path / f"labels.{fmt}"
    out = _ok(_run("export", str(path), "--labels", cache=src))
    assert f"1 step label(s) -> {path} ({fmt}," in out.stdout
    assert "note: 1 case(s) skipped: no step index" in out.stderr
    readers: dict[str, Callable[[Path], pl.DataFrame]] = {
        "csv": pl.read_csv,
        "jsonl": pl.read_ndjson,
        "parquet": pl.read_parquet,
    }
    df = readers[fmt](path)
    assert df.columns == [
        "problem_id", "sample_index", "step_idx", "prefix_ordinal",
        "label", "note", "author", "updated_at",
    ]  # fmt: skip
    row = df.row(0, named=True)
    assert (row["problem_id"], row["sample_index"], row["step_idx"]) == ("P1", 0, 4)
    assert (row["prefix_ordinal"], row["label"], row["author"]) == (2, "first error", "ana")
    assert row["updated_at"].endswith("Z") and row["updated_at"][10] == "T"


def test_export_usage_errors(tmp_path: Path) -> None:
    src = tmp_path / "src"
    _casebook_with_steps(src)
    _refused(_run("export", str(tmp_path / "l.html"), "--labels", cache=src), "not html")
    _refused(_run("export", str(tmp_path / "cases.txt"), cache=src), "cannot tell the format")
    assert not (tmp_path / "l.html").exists() and not (tmp_path / "cases.txt").exists()


def test_collections_travel_in_jsonl(tmp_path: Path) -> None:
    src, dst = tmp_path / "src", tmp_path / "dst"
    ids = _casebook_with_steps(src)
    backup = tmp_path / "all.jsonl"
    out = _ok(_run("export", str(backup), cache=src))
    assert "3 case(s), 1 collection(s) ->" in out.stdout
    lines = [json.loads(line) for line in backup.read_text().splitlines()]
    assert lines[-1]["type"] == "collection" and lines[-1]["case_ids"] == [ids["mars"], ids["step"]]
    first = _ok(_run("import", str(backup), cache=dst))
    assert (
        "added 3," in first.stdout
        and "collections: added 1, updated 0, unchanged 0" in first.stdout
    )
    again = _ok(_run("import", str(backup), cache=dst))
    assert "collections: added 0, updated 0, unchanged 1" in again.stdout
    copy = open_store(f"sqlite:///{dst / 'casebook.sqlite'}")
    original = open_store(f"sqlite:///{src / 'casebook.sqlite'}")
    assert copy.collections() == original.collections()
    copy.close()
    original.close()
    one = tmp_path / "demo.jsonl"
    _ok(_run("export", str(one), "--collection", ids["collection"], cache=src))
    kinds = [json.loads(line).get("type") for line in one.read_text().splitlines()]
    assert kinds == [None, None, "collection"]
    mars_only = tmp_path / "mars.jsonl"  # a filtered export keeps the collections it touches
    _ok(_run("export", str(mars_only), "--dataset", "mars", cache=src))
    last = json.loads(mars_only.read_text().splitlines()[-1])
    assert last["case_ids"] == [ids["mars"]]


@pytest.mark.parametrize("content", [b"", b" \n\n", None])
def test_importing_an_empty_file_fails(tmp_path: Path, content: bytes | None) -> None:
    path = tmp_path / ("cases.jsonl" if content is not None else "cases.csv")
    if content is None:  # a CSV export of no cases: the header alone
        _ok(_run("export", str(path), cache=tmp_path / "empty"))
    else:
        path.write_bytes(content)
    out = _run("import", str(path), cache=tmp_path)
    _refused(out, "the file is empty" if content is not None else "holds no cases")
    assert "added" not in out.stdout


def test_database_location_from_the_environment(tmp_path: Path) -> None:
    plain = tmp_path / "plain.sqlite"
    _ok(_run("list", cache=tmp_path / "c", RTE_DB_URL=str(plain)))
    assert plain.is_file()
    missing = tmp_path / "nonexistent" / "dir"
    for value in (f"sqlite:///{missing / 'c.sqlite'}", str(missing / "c.sqlite")):
        _refused(_run("list", cache=tmp_path / "c", RTE_DB_URL=value), f"the folder {missing}")
    assert not (tmp_path / "nonexistent").exists()
    fresh = tmp_path / "fresh"
    out = _ok(_run("list", cache=fresh, RTE_CASEBOOK="readonly"))
    assert "0 case(s)" in out.stderr and "schema version" not in out.stderr
    assert not (fresh / "casebook.sqlite").exists()
