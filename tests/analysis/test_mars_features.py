"""Feature store: sample output vs a direct computation, the pool contract, resumability, bad data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import analysis.mars_features as mf
from analysis.answers import AnswerGrouper
from analysis.confidence import conf_at_pos_one, group_confidences
from analysis.mars_features import PROBE_STEP, build_features, pool_from_features
from cache.sample.mars import SCHEMA, write_file


@pytest.fixture(scope="module")
def small_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("mars") / "small.parquet"
    write_file(path, "hmmt", 12, seed=5, drop=2, n_questions=4, median_len=5000)
    return path


@pytest.fixture(scope="module")
def tables(small_file: Path) -> mf.MarsTables:
    return build_features(small_file, batch_rows=7)  # batches straddle questions on purpose


def test_features_match_direct_computation(small_file: Path, tables: mf.MarsTables) -> None:
    raw = pq.read_table(small_file).to_pylist()
    feats = {(r["qid"], r["trace_idx"]): r for r in tables.features.to_pylist()}
    assert len(feats) == len(raw)
    for row in raw:
        f = feats[(row["qid"], row["trace_idx"])]
        c = np.asarray(row["confs"], dtype=np.float32)
        g = group_confidences(c)
        k = max(1, int(0.1 * len(g)))
        assert f["length"] == len(c)
        assert np.float32(f["min_group"]) == g.min()
        assert np.float32(f["mean_conf"]) == np.mean(c)
        assert np.float32(f["tail_conf"]) == np.mean(c[-2048:])
        b10 = np.mean(np.sort(g)[:k])
        assert np.float32(f["bottom_10"]) == b10
        mult = list(range(PROBE_STEP, len(c), PROBE_STEP))
        assert f["ckpt_pos"] == mult
        assert f["ckpt_conf"] == [conf_at_pos_one(c, p) for p in mult]
        probes = row["probes"]
        assert f["probe_pos"] == [p["position"] for p in probes]
        assert f["probe_avg_conf"] == pytest.approx([p["avg_conf"] for p in probes], rel=1e-6)
        assert len(f["curve"]) == mf.CURVE_POINTS


def test_groups_follow_first_appearance(small_file: Path, tables: mf.MarsTables) -> None:
    raw = pq.read_table(
        small_file, columns=["qid", "trace_idx", "ground_truth", "extracted_answer", "probes"]
    )
    for q in range(4):
        rows = sorted((r for r in raw.to_pylist() if r["qid"] == q), key=lambda r: r["trace_idx"])
        g = AnswerGrouper(rows[0]["ground_truth"])
        finals = g.add_many([r["extracted_answer"] for r in rows]).tolist()
        probes = g.add_many([p["answer"] for r in rows for p in r["probes"]]).tolist()
        feats = [r for r in tables.features.to_pylist() if r["qid"] == q]
        assert [f["final_group"] for f in feats] == finals
        assert [x for f in feats for x in f["probe_group"]] == probes
        grp = [r for r in tables.groups.to_pylist() if r["qid"] == q]
        assert [r["label"] for r in grp] == g.labels
        assert [r["is_correct"] for r in grp] == g.group_correct.tolist()
        assert sum(r["n_final"] for r in grp) == sum(x >= 0 for x in finals)
    kinds = {r["kind"] for r in tables.notes.to_pylist()}
    assert "missing_rows" in kinds


def test_pool_contract(tables: mf.MarsTables) -> None:
    pool = pool_from_features(tables.features, tables.groups, 1, notes=tables.notes)
    feats = sorted(
        (r for r in tables.features.to_pylist() if r["qid"] == 1), key=lambda r: r["trace_idx"]
    )
    assert pool.n_traces == len(feats)
    assert pool.trace_idx.tolist() == [r["trace_idx"] for r in feats]
    grid = sorted({p for r in feats for p in r["probe_pos"] if p % PROBE_STEP == 0})
    assert pool.grid.tolist() == grid
    assert pool.ckpt_group.shape == (len(feats), len(grid))
    for j, r in enumerate(feats):
        for k, p in enumerate(grid):
            if p >= r["length"]:
                assert pool.ckpt_group[j, k] == r["final_group"]
                assert pool.ckpt_conf[j, k] == np.float32(r["end_conf"])
            else:
                i = r["ckpt_pos"].index(p)
                assert pool.ckpt_group[j, k] == r["ckpt_group"][i]
                assert pool.ckpt_conf[j, k] == np.float32(r["ckpt_conf"][i])
        lo, hi = pool.low_offsets[j], pool.low_offsets[j + 1]
        assert pool.low_window[lo:hi].tolist() == r["low_window"]
        assert (np.diff(pool.low_value[lo:hi]) < 0).all()
    assert pool.group_correct.dtype == bool and len(pool.group_labels) == len(pool.group_correct)


def test_resumable(small_file: Path, tables: mf.MarsTables, tmp_path: Path, monkeypatch) -> None:
    wd = tmp_path / "work"
    wd.mkdir()
    partial = build_features(small_file, work_dir=wd, stop_after=2)  # "crash" after 2 questions
    assert partial.features.column("qid").to_pylist().count(3) == 0
    assert len(list(wd.glob("*.features.parquet"))) == 2
    calls: list[int] = []
    real = mf._finalise_question

    def spy(q, part):  # type: ignore[no-untyped-def]
        calls.append(q)
        return real(q, part)

    monkeypatch.setattr(mf, "_finalise_question", spy)
    full = build_features(small_file, work_dir=wd)
    assert sorted(calls) == [2, 3]  # the two finished questions were not recomputed
    assert full.features.equals(tables.features)
    assert full.groups.equals(tables.groups)


def _bad_file(path: Path) -> None:
    probe_t = SCHEMA.field("probes").type

    def pr(pos: int, ans: str | None = "1") -> dict:
        return {
            "position": pos,
            "answer": ans,
            "is_correct": False,
            "raw_text": "\\boxed{1}<b>",
            "avg_conf": 1.0,
        }

    rows = [
        # q0: NaN + negative confs, probes out of order and beyond the end, a long answer
        {
            "qid": 0,
            "trace_idx": 0,
            "ground_truth": "1",
            "extracted_answer": "1",
            "confs": [1.0, float("nan"), -2.0, 3.0] * 1200,
            "probes": [pr(4096), pr(2048), pr(9999)],
        },
        {
            "qid": 0,
            "trace_idx": 1,
            "ground_truth": "1",
            "extracted_answer": "word " * 100,
            "confs": [],
            "probes": [],
        },
        {
            "qid": 0,
            "trace_idx": 3,
            "ground_truth": "1",
            "extracted_answer": "2",
            "confs": [float("inf")] * 10,
            "probes": None,
        },
        # q1: no non-null answers at all
        {
            "qid": 1,
            "trace_idx": 0,
            "ground_truth": "5",
            "extracted_answer": None,
            "confs": [4.0] * 3000,
            "probes": [pr(2048, None), pr(3000, "")],
        },
        {
            "qid": 1,
            "trace_idx": 1,
            "ground_truth": "5",
            "extracted_answer": None,
            "confs": None,
            "probes": [pr(10)],
        },
    ]
    table = pa.Table.from_pylist(rows, schema=SCHEMA)
    assert table.schema.field("probes").type == probe_t
    pq.write_table(table, path)


def test_bad_data_becomes_notes(tmp_path: Path) -> None:
    path = tmp_path / "bad.parquet"
    _bad_file(path)
    t = build_features(path)
    kinds = {(r["qid"], r["kind"]) for r in t.notes.to_pylist()}
    for expected in [
        (0, "nonfinite_confs"),
        (0, "negative_confs"),
        (0, "empty_confs"),
        (0, "probes_unsorted"),
        (0, "probe_beyond_end"),
        (0, "long_answer"),
        (0, "missing_rows"),
        (1, "no_answers"),
    ]:
        assert expected in kinds, expected
    f = {(r["qid"], r["trace_idx"]): r for r in t.features.to_pylist()}
    assert f[(0, 0)]["probe_pos"] == [2048, 4096]  # sorted, 9999 > len dropped
    assert np.isfinite(f[(0, 0)]["mean_conf"]) and f[(0, 0)]["n_nonfinite"] == 1200
    assert f[(0, 1)]["length"] == 0 and f[(0, 1)]["curve"] == []
    assert f[(0, 3)]["mean_conf"] == 0.0  # only non-finite tokens
    assert f[(1, 0)]["final_group"] == -1
    assert f[(1, 1)]["length"] == 0
    pool = pool_from_features(t.features, t.groups, 1, notes=t.notes)
    assert (pool.final_group == -1).all() and any("no_answers" in n for n in pool.notes)


def test_missing_required_column_is_a_schema_error(tmp_path: Path) -> None:
    from cache.errors import SchemaError

    path = tmp_path / "nope.parquet"
    pq.write_table(pa.table({"qid": [0], "trace_idx": [0]}), path)
    with pytest.raises(SchemaError, match="confs"):
        build_features(path)
