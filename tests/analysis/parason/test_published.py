"""Token placement as the published code counts it (`get_parallel_stats`, ThreadWeaver and Parason
RL reward code): the parser's metrics must equal a one-pass count over the response's tokens.

The reference below is written for this test from the published rules: every reserved tag is one
token; tokens before `<Parallel>` and the `<Parallel>`/`</Parallel>` tags themselves are
non-block sequential; inside a block, the `<Thread>`/`</Thread>` wrappers and everything outside
a thread are the block's sequential part; the response is everything after the assistant header.
Text tokens are whitespace words, as the `words` counter counts them.
"""

from __future__ import annotations

import re

import pytest

from analysis.parason.metrics import compute_metrics
from analysis.parason.parse import TAG_RE, parse
from analysis.parason.tokens import get_counter
from cache.sample.parason import make_variant, qwen_chat
from cache.sample.parason_texts import HAND, digit_sum_45, render

WORDS = get_counter("words")
ASSISTANT = "<|im_start|>assistant\n"


def response_tokens(text: str) -> list[str]:
    """The response as tokens: each reserved tag (and chat marker) one token, text as words."""
    k = text.rfind(ASSISTANT)
    text = text[k + len(ASSISTANT) :] if k >= 0 else text
    out: list[str] = []
    pos = 0
    for m in TAG_RE.finditer(text):
        out.extend(["w"] * len(text[pos : m.start()].split()))
        out.append(m.group(0))
        pos = m.end()
    out.extend(["w"] * len(text[pos:].split()))
    return out


def published_counts(tokens: list[str]) -> tuple[int, int, int]:
    """(T, C, tokens of blocks) by the published rules, one pass over the tokens."""
    outside = seq_total = par_total = 0
    in_block = in_thread = False
    blk_seq = cur = 0
    threads: list[int] = []
    for tok in tokens:
        if not in_block:
            outside += 1
            if tok == "<Parallel>":
                in_block, in_thread, blk_seq, threads = True, False, 0, []
            continue
        if tok == "</Parallel>" and not in_thread:
            seq_total += blk_seq + sum(threads)
            par_total += blk_seq + max(threads, default=0)
            outside += 1
            in_block = False
        elif tok == "<Thread>" and not in_thread:
            in_thread, cur = True, 0
            blk_seq += 1
        elif tok == "</Thread>" and in_thread:
            in_thread = False
            threads.append(cur)
            blk_seq += 1
        elif in_thread:
            cur += 1
        else:
            blk_seq += 1
    if in_block:
        if in_thread:
            threads.append(cur)
        seq_total += blk_seq + sum(threads)
        par_total += blk_seq + max(threads, default=0)
    return outside + seq_total, outside + par_total, seq_total


def texts() -> list[tuple[str, str]]:
    out = []
    for t in [*HAND, digit_sum_45()]:
        for expand in (0, 8):
            out.append((f"{t.key}-{expand}x", qwen_chat(t.question, render(t, expand), t.content)))
    for k in range(6):
        t, _ = make_variant(k)
        out.append((t.key, qwen_chat(t.question, render(t), t.content)))
    return out


@pytest.mark.parametrize(("key", "text"), texts(), ids=[k for k, _ in texts()])
def test_metrics_equal_the_published_count(key, text):
    m = compute_metrics(parse(text), WORDS)
    T, C, in_blocks = published_counts(response_tokens(text))
    assert m.T == T
    assert m.C == C
    assert m.parallel_ratio == pytest.approx(in_blocks / T)


def test_hand_counted_placement():
    """One block, two threads, counted by hand (tags 1 each, words 1 each)."""
    text = (
        f"{ASSISTANT}<think>\nplan it\n<Parallel>\n<Outlines>\n<Trial>1: a</Trial>\n"
        "<Trial>2: b</Trial>\n</Outlines>\n<Thread>\n1: x x x</Thread>\n<Thread>\n2: y</Thread>\n"
        "</Parallel>\nso\n</think>\n\n\\boxed{3}<|im_end|>"
    )
    m = compute_metrics(parse(text), WORDS)
    # outside: <think> plan it <Parallel> | </Parallel> so </think> \boxed{3} <|im_end|> = 4 + 5
    # s_b: <Outlines> <Trial> 1: a </Trial> <Trial> 2: b </Trial> </Outlines> = 10, plus the
    # four thread wrappers = 14; threads: "1: x x x" = 4, "2: y" = 2
    assert m.T == 9 + 14 + 4 + 2 == 29
    assert m.C == 9 + 14 + 4 == 27
    assert m.stage_stats[0].s == 14
    assert m.stage_stats[0].thread_tokens == [4, 2]
    assert m.longest == [0]  # the first thread is the longer: the stage waits for it
    assert m.parallel_ratio == pytest.approx(20 / 29)
    assert m.trial_ratio == pytest.approx(6 / 29)
    assert published_counts(response_tokens(text)) == (29, 27, 20)


def test_wrappers_are_charged_to_fork_and_join():
    tr = parse("<Parallel><Thread>1: x</Thread><Thread>2: y</Thread></Parallel>")
    by_tag = {
        (tr.text[s:e], n)
        for s, e, r, n in zip(tr.part_start, tr.part_end, tr.part_role, tr.part_node, strict=True)
        if r == "tag"
    }
    assert by_tag == {
        ("<Parallel>", "s0"),
        ("<Thread>", "b0:fork"),
        ("</Thread>", "b0:join"),
        ("</Parallel>", "s1"),
    }
    assert re.fullmatch(r"\s*1: x\s*", tr.node_text("b0t0"))


def test_the_longest_thread_is_the_one_the_stage_waits_for():
    """A lens opens a stage at its longest thread (`Metrics.longest`): here the second."""
    text = (
        f"{ASSISTANT}<think>\n<Parallel>\n<Thread>\n1: x</Thread>\n<Thread>\n2: y y y y</Thread>\n"
        "<Thread>\n3: z z</Thread>\n</Parallel>\n</think>\n\n\\boxed{3}<|im_end|>"
    )
    m = compute_metrics(parse(text), WORDS)
    tokens = m.stage_stats[0].thread_tokens
    assert m.longest == [tokens.index(max(tokens))] == [1]
