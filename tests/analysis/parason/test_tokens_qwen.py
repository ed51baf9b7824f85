"""The exact-count path: a tokenizer.json found in a real HF cache layout (offline), or by env.

No Qwen3 tokenizer can be downloaded here, so the tests build a small word-level tokenizer with the
`tokenizers` library and place it where huggingface_hub would have cached Qwen/Qwen3-8B's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
from tokenizers import Tokenizer, models, pre_tokenizers

from analysis.parason.metrics import compute_metrics, trajectory_text
from analysis.parason.parse import parse
from analysis.parason.tokens import QwenCounter

REPO = Path(__file__).resolve().parents[3]
TEXT = "Set up.\n<Parallel>\n<Outlines>\n<Trial>1: try a</Trial>\n<Trial>2: try b</Trial>\n</Outlines>\n<Thread>\n1: a works fine\n</Thread>\n<Thread>\n2: b fails\n</Thread>\n</Parallel>\nSo \\boxed{5}."


def _tokenizer_json(path: Path) -> Tokenizer:
    words = sorted(set(TEXT.replace("\n", " ").split()) | {"[UNK]"})
    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    path.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(path))
    return tok


def test_counts_are_the_tokenizers_own(tmp_path: Path) -> None:
    tok = _tokenizer_json(tmp_path / "tokenizer.json")
    traj = parse(TEXT)
    counts = QwenCounter(str(tmp_path / "tokenizer.json")).count_parts(traj)
    pieces = [TEXT[s:e] for s, e in zip(traj.part_start, traj.part_end, strict=True)]
    assert counts == [float(len(tok.encode(p, add_special_tokens=False).ids)) for p in pieces]
    assert sum(counts) >= len(TEXT.split())  # tags split some words into two pieces


def test_found_in_an_offline_hf_cache_and_used_by_the_cli(tmp_path: Path) -> None:
    commit = "d" * 40
    repo_dir = tmp_path / "hub" / "models--Qwen--Qwen3-8B"
    _tokenizer_json(repo_dir / "snapshots" / commit / "tokenizer.json")
    (repo_dir / "refs").mkdir(parents=True)
    (repo_dir / "refs" / "main").write_text(commit)
    data = tmp_path / "sft-1x" / "train.parquet"
    data.parent.mkdir()
    pl.DataFrame(
        {"uuid": ["u1"], "question": ["q"], "response_reasoning": [TEXT], "response_content": ["\\boxed{5}"],
         "correctness": [True], "num_qwen_tokens": [60]}
    ).write_parquet(data)  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "hub")}
    env.pop("RTE_QWEN_TOKENIZER", None)
    out = subprocess.run(
        [sys.executable, "-m", "analysis", "parason-stats", str(data), "--counter", "qwen", "--json"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    counter = QwenCounter(str(repo_dir / "snapshots" / commit / "tokenizer.json"))
    text, _total = trajectory_text(pl.read_parquet(data).row(0, named=True))
    expected = compute_metrics(parse(text), counter=counter).as_record()["T"]
    assert expected != 60  # not the stored num_qwen_tokens spread: the tokenizer's own count
    assert len(records) == 1 and records[0]["T"] == expected
    assert "Qwen3" in out.stdout or "qwen" in json.dumps(records[0]).lower()


def test_missing_tokenizer_is_a_clear_message(tmp_path: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "empty")}
    env.pop("RTE_QWEN_TOKENIZER", None)
    out = subprocess.run(
        [sys.executable, "-m", "analysis", "parason-stats", str(tmp_path), "--counter", "qwen"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 2 and "Traceback" not in out.stderr
