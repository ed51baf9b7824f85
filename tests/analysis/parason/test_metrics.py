"""Metrics on hand-computed examples (words counter: every tag counts 1, text = its words).

Placement is the published one (`get_parallel_stats`, ThreadWeaver / Parason RL reward code):
`<Parallel>`/`</Parallel>` count in the enclosing sequence, `<Thread>`/`</Thread>` in the
block's sequential part s_b, and T covers the whole response."""

from __future__ import annotations

import polars as pl
import pytest

from analysis.parason import tokens
from analysis.parason.metrics import (
    added_branches,
    compute_metrics,
    filter_table,
    trajectory_text,
)
from analysis.parason.parse import parse
from analysis.parason.tokens import estimate_total_tokens, get_counter, node_tokens
from cache.errors import DataError

WORDS = get_counter("words")

ONE_BLOCK = (
    "<think>\nA B C\n<Parallel>\n<Outlines>\n<Subtask>1: x</Subtask>\n<Subtask>2: y</Subtask>\n"
    "</Outlines>\n<Thread>\n1: a a a a</Thread><Thread>\n2: b b</Thread>\n</Parallel>\nD E\n"
    "</think>\n\nF \\boxed{7}"
)


def test_node_tokens_by_hand():
    tr = parse(ONE_BLOCK)
    nt = node_tokens(tr, WORDS.count_parts(tr))
    # s0: <think> + 3 words + <Parallel>; fork: 6 outline tags + "1: x" + "2: y" + 2 <Thread>;
    # t0: "1: a a a a" 5 words; t1: "2: b b" 3; join: 2 </Thread>; s1: </Parallel> + 2 words;
    # answer: </think> + "F \boxed{7}"
    assert nt == {"s0": 5, "b0:fork": 12, "b0t0": 5, "b0t1": 3, "b0:join": 2, "s1": 3, "answer": 3}


def test_one_block_metrics_by_hand():
    m = compute_metrics(parse(ONE_BLOCK), WORDS)
    assert m.T == 33
    assert m.C == (5 + 3 + 3) + (12 + 2) + 5 == 30  # outside + s_b + max t
    assert m.speedup == pytest.approx(33 / 30)
    assert m.acceleration_ratio == pytest.approx(1 - 30 / 33)
    assert m.parallel_ratio == pytest.approx((14 + 5 + 3) / 33)  # <Parallel> tags are outside
    assert m.subtask_ratio == pytest.approx(8 / 33)  # thread bodies only, wrappers excluded
    assert m.trial_ratio == 0
    assert m.stages == 1 and m.branches == [2] and m.branches_max == 2 and m.branches_mean == 2
    assert m.block_kinds == ["subtask"] and m.kind_mix == "subtask"
    assert m.block_speedup == [pytest.approx(22 / 19)]
    assert m.imbalance == [pytest.approx(5 / 4)]
    assert m.depth == 1 and m.valid and m.answer == "7"
    assert m.counter_key == "words" and "words" in m.counter


def test_two_stages_trial_and_mixed():
    t = (
        "<Parallel><Outlines><Trial>1: p</Trial><Trial>2: q</Trial></Outlines>"
        "<Thread>1: w w w</Thread><Thread>2: w</Thread></Parallel>"
        " mid "
        "<Parallel><Outlines><Trial>1: p</Trial><Subtask>2: q</Subtask></Outlines>"
        "<Thread>1: w</Thread><Thread>2: w w</Thread></Parallel> \\boxed{1}"
    )
    m = compute_metrics(parse(t), WORDS)
    # block 0: s = 6 outline tags + 4 words + 4 thread wrappers = 14, threads 4 and 2;
    # block 1: s = 14, threads 2 and 3; outside: 4 <Parallel> tags + "mid" + "\boxed{1}" = 6
    assert m.T == 6 + 14 + 4 + 2 + 14 + 2 + 3 == 45
    assert m.C == 6 + (14 + 4) + (14 + 3) == 41
    assert m.trial_ratio == pytest.approx(6 / 45)
    assert m.subtask_ratio == 0  # the mixed block counts for neither
    assert m.block_kinds == ["trial", "mixed"] and m.kind_mix == "mixed+trial"
    assert m.branches == [2, 2] and m.stages == 2
    assert m.block_speedup == [pytest.approx(20 / 18), pytest.approx(19 / 17)]


def test_nested_recursion():
    inner = "<Parallel><Thread>1: q q q q q q</Thread><Thread>2: q</Thread></Parallel>"
    t = f"<Parallel><Thread>1: a {inner}</Thread><Thread>2: b b b b</Thread></Parallel>"
    m = compute_metrics(parse(t), WORDS)
    # inner block: s = 4 wrappers, threads 7 and 2 -> crit 11, total 13
    # outer thread 1 own: "1: a" 2 + the inner <Parallel>/</Parallel> 2 = 4 -> total 17, cp 15
    # outer thread 2: 5; outer s = 4 wrappers; outside: the outer <Parallel>/</Parallel> 2
    assert m.depth == 2
    assert m.T == 2 + 4 + 17 + 5 == 28
    assert m.C == 2 + 4 + 15
    assert m.imbalance == [pytest.approx(17 / 11)]


def test_empty_and_no_blocks():
    m = compute_metrics(parse(""), WORDS)
    assert m.T == 0 and m.C == 0 and m.speedup is None and m.acceleration_ratio is None
    m = compute_metrics(parse("just some text \\boxed{3}"), WORDS)
    assert m.T == m.C == 4 and m.speedup == 1.0 and m.stages == 0 and m.kind_mix == "none"


def test_estimate_spreads_total_by_char_share():
    text = "<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n" + ONE_BLOCK + "<|im_end|>"
    tr = parse(text)
    est = get_counter("estimate")
    counts = est.count_parts(tr, 500)
    assert sum(counts) == pytest.approx(500)
    specials = [
        c for c, r in zip(counts, tr.part_role, strict=True) if r in ("tag", "chat", "prompt_tag")
    ]
    assert specials and all(c == 1 for c in specials)
    m = compute_metrics(tr, est, 500)
    assert (
        pytest.approx(
            500 - sum(c for c, n in zip(counts, tr.part_node, strict=True) if n == "prompt")
        )
        == m.T
    )
    # without a total: the documented chars/token ratio, consistent with estimate_total_tokens
    assert sum(est.count_parts(tr)) == pytest.approx(estimate_total_tokens(text), abs=1)


def test_qwen_counter_unavailable_is_a_data_error(monkeypatch):
    monkeypatch.setattr(tokens, "find_qwen_tokenizer", lambda: None)
    monkeypatch.setattr(tokens, "bundled_vocabulary", lambda: False)
    monkeypatch.delenv("RTE_QWEN_TOKENIZER", raising=False)
    tokens.get_counter.cache_clear()
    with pytest.raises(DataError):
        tokens.get_counter("qwen")
    assert tokens.best_counter().key == "estimate"
    tokens.get_counter.cache_clear()


def test_trajectory_text_tolerates_missing_columns():
    text, total = trajectory_text(
        {"question": "q", "response_reasoning": "r", "response_content": "\\boxed{1}"}
    )
    assert text.startswith("<|im_start|>user\nq") and "<think>\nr\n</think>" in text
    assert total == estimate_total_tokens(text)
    assert trajectory_text({"qwen_text": "abc", "num_qwen_tokens": 7}) == ("abc", 7.0)
    assert trajectory_text({}) == ("", None)


def test_added_branches_by_text_then_position():
    one = "<Parallel><Outlines><Trial>1: a</Trial><Trial>2: b</Trial></Outlines><Thread>1: alpha</Thread><Thread>2: beta</Thread></Parallel>"
    eight = one.replace("</Outlines>", "<Trial>3: c</Trial></Outlines>").replace(
        "</Thread></Parallel>", "</Thread><Thread>3: gamma</Thread></Parallel>"
    )
    flags = added_branches(parse(one), parse(eight))
    assert flags == {"b0t0": False, "b0t1": False, "b0t2": True}
    rewritten = eight.replace("alpha", "ALPHA").replace("beta", "BETA")
    assert added_branches(parse(one), parse(rewritten)) == {
        "b0t0": False,
        "b0t1": False,
        "b0t2": True,
    }


def test_uuid_prefix_search_ignores_case():
    df = pl.DataFrame({"uuid": ["ABCDEF12-x", "abcdef99-y", "zzz"], "question": ["q1", "q2", "q3"]})
    assert filter_table(df, query="abcdef12")["uuid"].to_list() == ["ABCDEF12-x"]
    assert filter_table(df, query="ABCDEF")["uuid"].to_list() == ["ABCDEF12-x", "abcdef99-y"]
