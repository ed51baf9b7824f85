"""Feature store: sample output vs a direct computation, the pool contract, resumability, bad data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import analysis.mars.features as mf
import analysis.mars.ingest as ingest
import analysis.mars.question_groups as qg
import analysis.mars.summaries as summaries
from analysis.mars.answers import AnswerGrouper
from analysis.mars.confidence import conf_at_pos_one, group_confidences, windowed_means
from analysis.mars.feature_files import feature_paths
from analysis.mars.ingest import build_features
from analysis.mars.store import load_features, read_probes, read_traces
from analysis.mars.summaries import pool_from_features
from analysis.mars.table_names import PROBE_STEP
from cache.errors import CorruptFile, SchemaError
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
        assert f["end_conf"] == conf_at_pos_one(c, len(c))  # float64 whole mean, bit for bit
        ref_curve = windowed_means(np.array([0, len(c)]), c, mf.CURVE_POINTS)[0]
        np.testing.assert_allclose(f["curve"], ref_curve, rtol=2e-4)
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
    assert len(list(wd.glob("*.features.arrow"))) == 2
    calls: list[int] = []
    real = ingest.finalise_question

    def spy(q, part, *warmed):  # type: ignore[no-untyped-def]
        calls.append(q)
        return real(q, part, *warmed)

    monkeypatch.setattr(ingest, "finalise_question", spy)
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
    path = tmp_path / "nope.parquet"
    pq.write_table(pa.table({"qid": [0], "trace_idx": [0]}), path)
    with pytest.raises(SchemaError, match="confs"):
        build_features(path)


def test_question_overview_and_vote_shares(tables: mf.MarsTables) -> None:
    ov = summaries.question_overview(tables.features, tables.groups)
    assert ov["qid"].to_list() == [0, 1, 2, 3]
    for r in ov.iter_rows(named=True):
        q = [x for x in tables.features.to_pylist() if x["qid"] == r["qid"]]
        assert r["n_traces"] == len(q)
        assert r["pass_at_1"] == pytest.approx(np.mean([x["final_correct"] for x in q]))
    pool = pool_from_features(tables.features, tables.groups, 0)
    vs = summaries.vote_shares(pool, top_k=2)
    np.testing.assert_allclose(vs.shares.sum(axis=0), 1.0, rtol=1e-6)
    assert vs.labels[-1] == "no answer"
    assert any(vs.correct) == bool(pool.group_correct.any())


def test_store_builds_once_and_reads_raw_traces(small_file: Path, tables: mf.MarsTables) -> None:
    store = load_features(small_file)
    assert store.features.height == tables.features.num_rows
    fp, _, _ = feature_paths(small_file)
    mtime = fp.stat().st_mtime_ns
    light = load_features(small_file, with_lows=False)  # cached: no rebuild
    assert fp.stat().st_mtime_ns == mtime and "low_window" not in light.features.columns
    assert light.pool(1).low_window.size == 0 and store.pool(1).low_window.size > 0
    assert light.pool(1).ckpt_group.tolist() == store.pool(1).ckpt_group.tolist()
    raw = read_traces(small_file, 1, [0, 3])
    assert raw["trace_idx"].to_list() == [0, 3]
    assert str(raw.schema["confs"]) == "List(Float32)"
    ref = pq.read_table(small_file).to_pylist()
    row = next(r for r in ref if r["qid"] == 1 and r["trace_idx"] == 3)
    np.testing.assert_array_equal(raw["confs"][1].to_numpy(), np.asarray(row["confs"], np.float32))
    probes = read_probes(small_file, 1, [3])
    assert probes["position"].to_list() == [p["position"] for p in row["probes"]]
    assert probes["raw_text"].to_list() == [p["raw_text"] for p in row["probes"]]


def test_corrupt_bytes_mid_file_are_a_data_error(small_file: Path, tmp_path: Path) -> None:
    bad = tmp_path / "corrupt.parquet"
    blob = bytearray(small_file.read_bytes())
    md = pq.ParquetFile(small_file).metadata
    rg = md.row_group(2)
    col = next(
        rg.column(i)
        for i in range(rg.num_columns)
        if rg.column(i).path_in_schema.startswith("confs")
    )
    start = col.data_page_offset
    blob[start + 64 : start + 4064] = bytes(4000)  # zero out compressed page bytes, keep footer
    bad.write_bytes(bytes(blob))
    with pytest.raises(CorruptFile, match="corrupt.parquet"):
        build_features(bad, work_dir=tmp_path / "w", batch_rows=4)
    # the questions before the damage were finished and kept for a resumed build
    assert len(list((tmp_path / "w").glob("*.features.arrow"))) >= 1


def test_the_published_cap_applies_per_question(tmp_path: Path) -> None:
    """A question with over 50 distinct non-numeric answers keeps `a b^{-1}` and `\\frac{a}{b}`
    apart; one with few merges them. Decided per question from all its answers, final and
    probe."""

    def row(q: int, t: int, final: str, probes: list[str]) -> dict:
        return {
            "qid": q,
            "trace_idx": t,
            "ground_truth": "7",
            "extracted_answer": final,
            "confs": [1.0] * (2048 * (len(probes) + 1)),
            "probes": [
                {"position": 2048 * (k + 1), "answer": a, "is_correct": False}
                for k, a in enumerate(probes)
            ],
        }

    garbage = [f"Letmecheckcase{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(55)]
    rows = [row(q, 0, "a b^{-1}", []) for q in (0, 1)]
    rows += [row(q, 1, "\\frac{a}{b}", garbage if q == 1 else garbage[:3]) for q in (0, 1)]
    path = tmp_path / "cap.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), path)
    f = {(r["qid"], r["trace_idx"]): r for r in build_features(path).features.to_pylist()}
    assert f[(0, 0)]["final_group"] == f[(0, 1)]["final_group"]
    assert f[(1, 0)]["final_group"] != f[(1, 1)]["final_group"]


def test_groups_made_ahead_are_reused_only_when_they_are_the_parts(
    small_file: Path, monkeypatch
) -> None:
    """`finalise_question` takes the groups `warm_grouping` made ahead only for the same answers
    in the same order and the same ground truth; either way the tables are those of grouping
    the part itself."""
    batch = pq.ParquetFile(small_file).read_row_group(0).combine_chunks().to_batches()[0]
    q, part = next(iter(mf.split_by_question(mf.numeric_batch(batch, 2048)).items()))
    own = mf.finalise_question(q, part)
    same = qg.warm_grouping(part["final"], part["p_ans"], part["gt"])
    reordered = qg.warm_grouping(part["final"][::-1], part["p_ans"], part["gt"])
    other_gt = qg.warm_grouping(part["final"], part["p_ans"], ["-12345"])
    assert not np.array_equal(reordered.final_group, same.final_group)
    made: list[object] = []
    real = qg._question_grouper

    def counted(*args):  # type: ignore[no-untyped-def]
        made.append(args[0])
        return real(*args)

    monkeypatch.setattr(qg, "_question_grouper", counted)
    for warmed, groups_again in ((same, 0), (reordered, 1), (other_gt, 1), (None, 1)):
        made.clear()
        f, g, notes = mf.finalise_question(q, part, warmed)
        assert f.equals(own[0]) and g.equals(own[1]) and notes == own[2]
        assert len(made) == groups_again
