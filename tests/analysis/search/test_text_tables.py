"""Each dataset's text table: what it holds and where its rows open."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from analysis.fineproofs.texts import pieces, proof_correct
from analysis.fineproofs.texts import text_tables as fineproofs_tables
from analysis.mars.texts import build as mars_build
from analysis.parason.texts import text_tables as parason_tables
from cache.fineproofs_io import PREFIX_FILE, StepSpan, TraceRecord
from cache.sources import SourceConfig, resolve_file
from cache.text_tables import TEXT_SCHEMA, pairs_of


def test_mars_rows_per_trace_in_order(tmp_path: Path) -> None:
    probe = pa.struct(
        [("position", pa.int64()), ("answer", pa.string()), ("is_correct", pa.bool_()),
         ("raw_text", pa.string()), ("avg_conf", pa.float64())]
    )  # fmt: skip
    table = pa.table(
        {
            "question_id": [3, 3, 4],  # an alias of qid
            "trace_idx": [0, 1, 0],
            "ground_truth": ["12", "12", "x"],
            "extracted_answer": ["12", None, "<b>"],
            "confs": pa.array([[1.0], [1.0], [1.0]], pa.list_(pa.float16())),
            "probes": pa.array(
                [
                    [
                        {"position": 2048, "answer": "1", "is_correct": False, "raw_text": "a 𝑥"},
                        {"position": None, "answer": "1", "is_correct": True, "raw_text": "no pos"},
                        {"position": 4096, "answer": "12", "is_correct": True, "raw_text": ""},
                    ],
                    None,
                    [{"position": 10, "answer": None, "is_correct": None, "raw_text": "b"}],
                ],  # fmt: skip
                pa.list_(probe),
            ),
        }
    )
    path = tmp_path / "m.parquet"
    pq.write_table(table, path)
    out = mars_build(path, "X/m.parquet")
    assert out.schema == TEXT_SCHEMA
    rows = out.to_pylist()
    got = [(r["item"], r["field"], r["text"], r["correct"]) for r in rows]
    assert got == [
        ("q3", "ground truth", "12", None),
        ("q3 t0", "extracted answer", "12", None),
        ("q3 t0", "probe raw_text", "a 𝑥", False),  # no position, empty text: left out
        ("q4", "ground truth", "x", None),
        ("q4 t0", "extracted answer", "<b>", None),
        ("q4 t0", "probe raw_text", "b", None),
    ]
    assert dict(pairs_of(rows[2]["query"])) == {
        "file": "X/m.parquet", "qid": "3", "trace": "0", "view": "Single trace", "probe": "2048",
    }  # fmt: skip
    assert rows[2]["locator"] == "token 2048"
    assert dict(pairs_of(rows[2]["keys"])) == {"qid": "3", "trace": "0", "position": "2048"}


def test_fineproofs_pieces_cover_the_text_once() -> None:
    text = "Step 𝑥 one.\n\nStep two.\n\nTail"
    # UTF-16 ends: "Step 𝑥 one." is 12 units (𝑥 is two)
    rec = TraceRecord("ab" * 8, 0, text, (StepSpan(1, 0, 12), StepSpan(2, 14, 23)), {}, ())
    got = pieces(rec)
    assert "".join(t for _, t in got) == text
    assert got == [(1, "Step 𝑥 one."), (2, "\n\nStep two."), (None, "\n\nTail")]


def test_parason_rows_open_at_their_node(sample_root: Path) -> None:
    (path,) = parason_tables(SourceConfig())
    rows = pq.read_table(path).to_pylist()
    nodes = [r for r in rows if r["field"] == "reasoning"]
    assert nodes and all(r["locator"].startswith("node ") for r in nodes)
    for r in nodes[:50]:
        q = dict(pairs_of(r["query"]))
        assert q["view"] == "Trajectory" and r["locator"] == f"node {q['node']}"
        assert q["subset"] == r["group"] and q["uuid"] == r["item"]
    rl = [r for r in rows if r["field"] == "RL prompt"]
    assert rl and all(dict(pairs_of(r["query"]))["view"] == "RL" for r in rl)
    # the link opens the prompt itself: its index, the item the hit names
    assert all(r["item"] == f"prompt {dict(pairs_of(r['query']))['rlp']}" for r in rl)
    assert {"question", "answer", "ground truth"} <= {r["field"] for r in rows}


def test_proof_correct_is_full_marks() -> None:
    assert proof_correct(1.0) is True and proof_correct(7 / 7) is True
    assert proof_correct(6 / 7) is False and proof_correct(0.0) is False
    assert proof_correct(None) is None and proof_correct(float("nan")) is None
    assert proof_correct(7.0) is None and proof_correct(-0.5) is None  # not a grade in [0, 1]


def test_fineproofs_rows_carry_their_traces_endpoint_correctness(sample_root: Path) -> None:
    source = SourceConfig()
    (path,) = fineproofs_tables(source)
    rows = pq.read_table(path).to_pylist()
    # the endpoint grade straight from the prefix file: one per trace (base_grade, k/7)
    prefix = pq.read_table(
        resolve_file("fineproofs", PREFIX_FILE, source),
        columns=["problem_id", "sample_index", "base_grade"],
    ).to_pylist()
    grade: dict[tuple[str, int], float | None] = {}
    for r in prefix:
        key = (r["problem_id"].lower(), r["sample_index"])
        if grade.get(key) is None:
            grade[key] = r["base_grade"]
    want = {
        k: None if g is None else abs(g - 1.0) < 1e-9 for k, g in grade.items()
    }  # 7/7 correct, less wrong, no grade unknown
    traces = [r for r in rows if r["field"] == "trace text"]
    assert traces
    for r in traces:
        keys = dict(pairs_of(r["keys"]))
        assert r["correct"] is want[(keys["problem"].lower(), int(keys["sample"]))], keys
    got = {r["correct"] for r in traces}
    assert got == {True, False, None}  # the sample has full marks, less, and a missing grade
    assert all(r["correct"] is None for r in rows if r["field"] == "problem")


def test_a_fineproofs_piece_names_the_prefix_that_adds_it_and_its_last_step(
    sample_root: Path,
) -> None:
    """A piece runs from the previous prefix's end up to its step's end, so it holds text
    before that step's own span (steps between carry none): the locator names the prefix its
    link opens and says "up to step N", never "step N" alone."""
    (path,) = fineproofs_tables(SourceConfig())
    rows = [r for r in pq.read_table(path).to_pylist() if r["field"] == "trace text"]
    stepped = [r for r in rows if r["locator"]]
    assert stepped
    for r in stepped:
        prefix = dict(pairs_of(r["query"])).get("prefix")
        want = f"prefix {prefix} · up to step " if prefix else "up to step "
        assert r["locator"].startswith(want) and r["locator"][len(want) :].isdigit(), r
