"""`python -m cache casebook list|export|import`, run as a user would (subprocess, SQLite in a
temp cache folder; the target of an import may be PostgreSQL through RTE_DB_URL)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl

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
