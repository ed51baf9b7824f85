"""The MARS sample: layout, exact schema, determinism and realistic statistics."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cache.sample.mars import FILES, SCHEMA, write_file

EXPECTED_TYPES = {
    "qid": pa.int64(),
    "trace_idx": pa.int64(),
    "ground_truth": pa.string(),
    "extracted_answer": pa.string(),
    "confs": pa.list_(pa.float16()),
}


@pytest.fixture(scope="module")
def mars_root(sample_root: Path) -> Path:
    return sample_root / "mars"


def test_all_nine_files_with_exact_schema(mars_root: Path) -> None:
    assert len(FILES) == 9
    for rel, _kind, n_traces, drop in FILES:
        path = mars_root / rel
        assert path.exists(), rel
        schema = pq.read_schema(path)
        for name, typ in EXPECTED_TYPES.items():
            assert schema.field(name).type == typ, (rel, name)
        probe = schema.field("probes").type.value_type
        assert [probe.field(i).name for i in range(probe.num_fields)] == [
            "position",
            "answer",
            "is_correct",
            "raw_text",
            "avg_conf",
        ]
        assert probe.field("avg_conf").type == pa.float64()
        md = pq.ParquetFile(path).metadata
        assert md.num_row_groups == 30
        assert md.num_rows == 30 * n_traces - drop


def test_deepseek_aime_has_128_traces_per_question(mars_root: Path) -> None:
    df = pl.read_parquet(
        mars_root / "DeepSeek-8B/aime25_deepseek.parquet", columns=["qid", "trace_idx"]
    )
    counts = df.group_by("qid").len()
    assert counts.height == 30 and counts["len"].min() >= 128


def test_deterministic(tmp_path: Path) -> None:
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    for p in (a, b):
        write_file(p, "brumo", 8, seed=11, n_questions=3, drop=1)
    assert pq.read_table(a).equals(pq.read_table(b))
    assert pq.read_table(a).schema.equals(SCHEMA)


def test_a_benchmarks_files_share_its_questions(mars_root: Path) -> None:
    """Per benchmark, every file names the same ground truth for each of the 30 qids (as on the
    Hub); the traces differ (each model's own draw) and the answers of a question vary by model."""
    kinds: dict[str, list[str]] = {}
    for rel, kind, _n, _drop in FILES:
        kinds.setdefault(kind, []).append(rel)
    assert sorted(len(v) for v in kinds.values()) == [3, 3, 3]
    for kind, rels in kinds.items():
        tables = [
            pl.read_parquet(mars_root / r, columns=["qid", "ground_truth", "confs"]) for r in rels
        ]
        truths = [
            t.group_by("qid").agg(pl.col("ground_truth").unique()).sort("qid") for t in tables
        ]
        for t in truths:
            assert t["qid"].to_list() == list(range(30)), kind
            assert t["ground_truth"].list.len().max() == 1, kind  # one truth per qid in a file
            assert t["ground_truth"].to_list() == truths[0]["ground_truth"].to_list(), kind
        firsts = [t.filter(pl.col("qid") == 0)["confs"][0].to_list() for t in tables]
        assert firsts[0] != firsts[1] and firsts[1] != firsts[2], kind  # own traces


def test_shared_questions_carry_truths_not_traces(tmp_path: Path) -> None:
    """A file given another's questions names its truths per qid; drawn alone it names its own."""
    a, b, c = tmp_path / "a.parquet", tmp_path / "b.parquet", tmp_path / "c.parquet"
    qs = write_file(a, "hmmt", 6, seed=8, n_questions=3, drop=1)
    write_file(b, "hmmt", 6, seed=9, n_questions=3, questions=qs)
    write_file(c, "hmmt", 6, seed=9, n_questions=3)
    ta, tb, tc = (pq.read_table(p).to_pydict() for p in (a, b, c))
    gt = dict(zip(ta["qid"], ta["ground_truth"], strict=True))
    assert [gt[q] for q in tb["qid"]] == tb["ground_truth"]
    assert tc["ground_truth"] != tb["ground_truth"]  # drawn alone, seed 9 names other truths
    assert ta["confs"][:6] != tb["confs"][:6]


def test_realistic_statistics(mars_root: Path) -> None:
    path = mars_root / "DeepSeek-8B/aime25_deepseek.parquet"
    lf = pl.scan_parquet(path)
    lengths = lf.select(pl.col("confs").list.len()).collect().to_series().to_numpy()
    assert 8_000 <= np.median(lengths) <= 12_500
    assert lengths.max() > 30_000 and np.percentile(lengths, 99) > 2.5 * np.median(
        lengths
    )  # heavy tail
    meta = lf.select("qid", "ground_truth", "extracted_answer").collect()
    acc = (
        meta.with_columns(ok=pl.col("extracted_answer") == pl.col("ground_truth"))
        .group_by("qid")
        .agg(pl.col("ok").mean())["ok"]
    )
    assert acc.min() <= 0.05 and acc.max() >= 0.95  # difficulty from ~0% to ~100%
    nulls = meta["extracted_answer"].null_count()
    assert 0 < nulls < 0.1 * meta.height
    assert (meta["extracted_answer"].drop_nulls().str.len_chars() > 120).sum() >= 1  # long spans
    wrong = meta.filter(pl.col("extracted_answer") != pl.col("ground_truth"))
    per_q = wrong.group_by("qid", "extracted_answer").len().sort("len", descending=True)
    top = per_q.group_by("qid").agg(
        pl.col("len").first().alias("top"), pl.col("len").sum().alias("all"), pl.len().alias("k")
    )
    assert (top["k"] >= 3).sum() >= 10  # several wrong answers...
    assert (top["top"] / top["all"]).median() > 0.3  # ...with skewed popularity
    hmmt = pl.read_parquet(mars_root / "Qwen3-32B/hmmt.parquet", columns=["ground_truth"])
    assert hmmt["ground_truth"].str.contains("\\\\").any()  # LaTeX ground truths


def test_confidences_and_probes_are_consistent(mars_root: Path) -> None:
    t = pq.ParquetFile(mars_root / "Qwen3-32B/aime25.parquet").read_row_group(0).to_pylist()
    right, wrong = [], []
    for row in t:
        c = np.asarray(row["confs"], dtype=np.float32)
        assert c.min() >= 0 and c.max() < 26
        n = len(c)
        pos = [p["position"] for p in row["probes"]]
        expect = list(range(2048, n, 2048)) + [n]
        assert pos == expect
        for p in row["probes"]:
            lo = max(0, p["position"] - 2048)
            assert p["avg_conf"] == pytest.approx(
                float(np.mean(c[lo : p["position"]], dtype=np.float64)), rel=1e-9
            )
            assert p["raw_text"].startswith("\\boxed{" + p["answer"] + "}")
            assert len(p["raw_text"]) <= len(p["answer"]) + 8 + 300
        if row["extracted_answer"] is not None:
            assert (
                row["probes"][-1]["answer"] == row["extracted_answer"]
                or len(row["extracted_answer"]) > 100
            )
        (right if row["extracted_answer"] == row["ground_truth"] else wrong).append(c)
    if right and wrong:
        assert np.mean([x.mean() for x in right]) > np.mean([x.mean() for x in wrong])
        assert np.mean([x.std() for x in right]) < np.mean([x.std() for x in wrong])


def test_early_probes_are_noisier_than_late_ones(mars_root: Path) -> None:
    df = (
        pl.scan_parquet(mars_root / "DeepSeek-8B/aime25_deepseek.parquet")
        .filter(pl.col("qid") < 6)
        .select("trace_idx", "extracted_answer", "probes")
        .explode("probes")
        .unnest("probes")
        .with_columns(
            n=pl.len().over("trace_idx", "extracted_answer"),
            k=pl.int_range(pl.len()).over("trace_idx", "extracted_answer"),
        )
        .collect()
    )
    df = df.with_columns(
        agree=pl.col("answer") == pl.col("extracted_answer"), early=pl.col("k") == 0
    )
    early = df.filter(pl.col("early"))["agree"].mean()
    late = df.filter(pl.col("k") == pl.col("n") - 2)["agree"].mean()
    assert early < late


def test_repro_reference_ships_with_the_sample(mars_root: Path) -> None:
    """The published simulator's summaries (cache/sample/mars_reference) land where the
    playground looks for them (`mars_reference_dir`), byte for byte, for all 7 methods."""
    from analysis.playground import PUBLISHED_METHODS
    from cache.datasets import mars_reference_dir
    from cache.sample.mars import REFERENCE_DIR

    assert (REFERENCE_DIR / "NOTE.md").is_file()
    rel = "DeepSeek-8B/aime25_deepseek.parquet"
    for method in PUBLISHED_METHODS:
        src = REFERENCE_DIR / "DeepSeek-8B/aime-2025" / method
        dest = mars_root / mars_reference_dir(rel, method)
        for name in ("summary_per_question.csv", "summary_overall.csv"):
            assert (dest / name).read_bytes() == (src / name).read_bytes(), (method, name)
    assert not list((mars_root / "repro_reference").rglob("*.md"))  # the note stays in the repo
