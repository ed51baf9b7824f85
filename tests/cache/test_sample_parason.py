"""The Parason sample: exact card schema, determinism, coverage, 1x/8x pairing, RL format."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import analysis.parason.store as pm
from analysis.parason.metrics import added_branches, compute_metrics
from analysis.parason.parse import parse
from analysis.parason.tokens import WordCounter, estimate_total_tokens
from cache.errors import SchemaError, SourceNotFound
from cache.sample.parason import (
    N_VARIANTS,
    make_uuid,
    make_variant,
    qwen_chat,
    sample_token_count,
    write_sample,
)
from cache.sample.parason_texts import HAND
from cache.sources import SourceConfig


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("parason")
    write_sample(d)  # its speed is bench/sample_build.py's business, not a test's
    return d


@pytest.fixture(scope="module")
def sft(root):
    return {s: pl.read_parquet(root / s / "train.parquet") for s in ("sft-1x", "sft-8x")}


def test_layout_and_schema(root, sft):
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*.parquet")) == [
        "rl/train.parquet",
        "sft-1x/train.parquet",
        "sft-8x/train.parquet",
    ]
    expected = {
        "uuid": pl.String,
        "question": pl.String,
        "response_reasoning": pl.String,
        "response_content": pl.String,
        "correctness": pl.Boolean,
        "raw_messages": pl.List(pl.Struct({"role": pl.String, "content": pl.String})),
        "qwen_text": pl.String,
        "num_qwen_tokens": pl.Int64,
    }
    for df in sft.values():
        assert dict(df.schema) == expected
        assert 250 <= df.height <= 1000
    rl = pl.read_parquet(root / "rl" / "train.parquet")
    assert rl.height >= 50
    assert rl.schema["prompt"] == pl.List(pl.Struct({"role": pl.String, "content": pl.String}))
    assert rl.schema["reward_model"] == pl.Struct({"style": pl.String, "ground_truth": pl.String})
    assert set(rl["reward_model"].struct.field("style")) == {"rule"}
    assert rl["extra_info"].struct.field("index").to_list() == list(range(rl.height))
    assert all(p[0]["role"] == "user" and "\\boxed{}" in p[0]["content"] for p in rl["prompt"])


def test_deterministic(root, tmp_path):
    write_sample(tmp_path)
    for sub in ("sft-1x", "sft-8x", "rl"):
        a = pl.read_parquet(root / sub / "train.parquet")
        b = pl.read_parquet(tmp_path / sub / "train.parquet")
        assert a.equals(b)


def test_chat_template_and_token_counts(sft):
    for df in sft.values():
        for row in df.iter_rows(named=True):
            assert row["qwen_text"] == qwen_chat(
                row["question"], row["response_reasoning"], row["response_content"]
            )
            assert row["num_qwen_tokens"] == estimate_total_tokens(row["qwen_text"])
            user, asst = row["raw_messages"]
            assert user == {"role": "user", "content": row["question"]}
            assert asst["role"] == "assistant"
            assert (
                asst["content"]
                == f"<think>\n{row['response_reasoning']}\n</think>\n\n{row['response_content']}"
            )
            assert "<think>" not in row["response_reasoning"]


def test_hand_written_answers_and_correctness(sft):
    df = sft["sft-1x"]
    assert sum(t.correct for t in HAND) >= 15
    for t in HAND:
        row = df.filter(pl.col("uuid") == make_uuid(t.key)).row(0, named=True)
        tr = parse(row["qwen_text"])
        assert row["correctness"] is t.correct
        assert (tr.boxed == t.answer) is t.correct, t.key
    # variants: the boxed answer is right exactly when correctness is true
    by_uuid = dict(zip(df["uuid"], df.iter_rows(named=True), strict=True))
    for k in range(0, N_VARIANTS, 7):
        t, correct = make_variant(k)
        row = by_uuid[make_uuid(t.key)]
        assert row["correctness"] is correct
        assert (parse(row["qwen_text"]).boxed == t.answer) is correct


def test_grammar_coverage(sft):
    recs = [compute_metrics(parse(q)) for q in sft["sft-1x"]["qwen_text"]]
    valid = [m for m in recs if m.valid]
    kinds = {k for m in valid for k in m.block_kinds}
    assert {"subtask", "trial", "mixed", "untyped"} <= kinds
    assert {1, 2, 3, 4} <= {m.stages for m in valid}
    branches = {b for m in valid for b in m.branches}
    assert set(range(2, 13)) <= branches | {7, 9, 10, 11} and 12 in branches and 2 in branches
    assert max(branches) >= 40
    assert any("<Conclusion>" in q for q in sft["sft-1x"]["qwen_text"])
    invalid = [m for m in recs if not m.valid]
    codes = {c for m in invalid for c in m.warning_codes}
    assert {"unclosed_thread", "numbering_gap"} <= codes
    assert any("<script>alert(1)</script>" in q for q in sft["sft-1x"]["qwen_text"])
    assert sft["sft-1x"]["correctness"].sum() < sft["sft-1x"].height  # some incorrect rows


def test_8x_same_uuids_and_trial_stages_expanded(sft):
    one, eight = sft["sft-1x"], sft["sft-8x"]
    assert one["uuid"].to_list() == eight["uuid"].to_list()
    assert one["uuid"].n_unique() == one.height
    n_added = 0
    for q1, q8 in zip(one["qwen_text"], eight["qwen_text"], strict=True):
        t1, t8 = parse(q1), parse(q8)
        if not t1.valid:  # the malformed rows are copied unchanged
            assert q1 == q8
            continue
        assert len(t1.blocks) == len(t8.blocks)
        flags = added_branches(t1, t8)
        for b1, b8 in zip(t1.blocks, t8.blocks, strict=True):
            if b1.kind == "trial" and len(b1.items) < 8:
                assert len(b8.threads) == 8
                added = [flags[t.node] for t in b8.threads]
                assert added == [i >= len(b1.threads) for i in range(8)]
                n_added += sum(added)
            else:
                assert len(b8.threads) == len(b1.threads)
                assert not any(flags[t.node] for t in b8.threads)
    assert n_added > 100


def test_metrics_derived_table_built_once(root, monkeypatch):
    path = root / "sft-1x" / "train.parquet"
    calls = []
    real = pm.compute_table
    monkeypatch.setattr(pm, "compute_table", lambda *a, **k: calls.append(1) or real(*a, **k))
    df = pm.metrics_table(path)
    again = pm.metrics_table(path)
    assert len(calls) == 1 and df.equals(again)
    assert dict(df.schema) == pm.SCHEMA
    assert df.height == pl.scan_parquet(path).select(pl.len()).collect().item()
    assert df["row"].to_list() == list(range(df.height))
    assert (df["speedup"] >= 1).all() and (df["C"] <= df["T"]).all()
    assert df.filter(~pl.col("valid")).height >= 3
    words = pm.metrics_table(path, counter="words")
    assert len(calls) == 2 and words["counter"][0] == WordCounter.name


def test_metrics_table_errors(root, tmp_path):
    with pytest.raises(SchemaError):
        pm.metrics_table(root / "rl" / "train.parquet")
    with pytest.raises(SourceNotFound):
        pm.metrics_table(tmp_path / "nope.parquet")


def test_metrics_table_maps_aliases_and_raw_messages(tmp_path):
    body = "<Parallel><Outlines><Trial>1: a</Trial><Trial>2: b</Trial></Outlines><Thread>1: x y</Thread><Thread>2: z</Thread></Parallel>"
    pl.DataFrame(
        {"id": ["a1"], "problem": ["q?"], "reasoning": [body], "is_correct": [True]}
    ).write_parquet(tmp_path / "alias.parquet")
    df = pm.compute_table(tmp_path / "alias.parquet")
    assert df["uuid"].to_list() == ["a1"] and df["question"].to_list() == ["q?"]
    assert df["correctness"].to_list() == [True] and df["branches"].to_list() == [[2]]
    msgs = [
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": f"<think>\n{body}\n</think>\n\n\\boxed{{4}}"},
        ]
    ]
    pl.DataFrame({"uuid": ["m1"], "raw_messages": msgs}).write_parquet(tmp_path / "msgs.parquet")
    df = pm.compute_table(tmp_path / "msgs.parquet")
    assert df["block_kinds"].to_list() == [["trial"]] and df["answer"].to_list() == ["4"]
    row = pm.load_row(tmp_path / "msgs.parquet", uuid="m1")
    assert row is not None and row["uuid"] == "m1"
    assert pm.load_row(tmp_path / "msgs.parquet", uuid="nope") is None


def test_rl_table_flattens_verl_rows(root):
    rl = pm.rl_table(root / "rl" / "train.parquet")
    assert rl.columns == ["index", "prompt", "messages", "data_source", "ability", "ground_truth"]
    assert rl.height >= 50 and rl["ground_truth"].null_count() == 0
    assert rl["prompt"][0].startswith("How many positive divisors")


def test_warm_builds_both_subsets(sample_root):
    paths = pm.warm(SourceConfig(kind="sample"))
    assert len(paths) == 2 and all(
        p.exists() and p.name.startswith("parason-metrics-") for p in paths
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a<b>c <think>x</think>",
        "<THINK><Parallel>\n<Outlines></Outlines>",
        "<|im_start|>u<|im_end|>",
    ],
)
def test_stored_token_rule_is_the_estimate_counters_rule(text: str) -> None:
    """The generator states its `num_qwen_tokens` rule itself (cache imports no analysis); it
    must stay the rule of the app's estimate counter."""
    assert sample_token_count(text) == estimate_total_tokens(text)
