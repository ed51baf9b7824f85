"""Parser edge cases (docs/formats/parason.md, "Tolerant parsing")."""

from __future__ import annotations

import pytest

from analysis.parason.parse import parse


def covers(tr) -> bool:
    """Parts are contiguous and cover the whole text."""
    pos = 0
    for s, e, _, _ in tr.parts:
        if s != pos or e <= s:
            return False
        pos = e
    return pos == len(tr.text)


def codes(tr) -> set[str]:
    return {w.code for w in tr.warnings}


def block(items: str, threads: str, extra: str = "") -> str:
    return f"<Parallel>\n<Outlines>\n{items}</Outlines>\n{threads}{extra}\n</Parallel>"


VALID = (
    "<think>\nintro\n"
    + block(
        "<Subtask>1: a</Subtask>\n<Trial> 2: b</Trial>\n<Outline>3: c</Outline>\n",
        "<Thread>\n1: x\n</Thread><Thread>\n2: y\n</Thread><Thread>\n3: z\n</Thread>",
        "\n<Conclusion>done</Conclusion>",
    )
    + "\nmore\n</think>\n\nso \\boxed{5}"
)


def test_valid_block_structure_and_kinds():
    tr = parse(VALID)
    assert covers(tr)
    assert tr.warnings == []
    assert tr.valid
    (b,) = tr.blocks
    assert b.kind == "mixed"
    assert [it.kind for it in b.items] == ["subtask", "trial", "untyped"]
    assert [it.number for it in b.items] == ["1", "2", "3"]
    assert [(t.number, t.item, t.kind, t.closed) for t in b.threads] == [
        ("1", 0, "subtask", True),
        ("2", 1, "trial", True),
        ("3", 2, "untyped", True),
    ]
    assert tr.text[b.conclusions[0][0] : b.conclusions[0][1]] == "<Conclusion>done</Conclusion>"
    assert tr.boxed == "5"
    assert tr.prelude is not None and "intro" in tr.text[tr.prelude.start : tr.prelude.end]
    assert tr.tail is not None and "more" in tr.text[tr.tail.start : tr.tail.end]
    assert tr.answer is not None and tr.text[tr.answer.start :].startswith("</think>")


@pytest.mark.parametrize("text", ["", "   \n ", None])
def test_empty(text):
    tr = parse(text)
    assert covers(tr)
    assert tr.blocks == []
    assert "empty_trajectory" in codes(tr)


def test_maths_with_angle_brackets_is_text():
    tr = parse("if a<b>c and x<y then <b>bold</b> <think2> <Threads> \\boxed{1}")
    assert covers(tr)
    assert tr.blocks == []
    assert set(tr.part_role) == {"segment"}
    assert tr.warnings == []


def test_unbalanced_parallel_reopened():
    t = "<Parallel><Outlines><Trial>1: a</Trial></Outlines><Thread>1: x</Thread>\n<Parallel><Thread>1: y</Thread></Parallel>"
    tr = parse(t)
    assert covers(tr)
    assert len(tr.blocks) == 2
    assert not tr.blocks[0].closed and tr.blocks[1].closed
    assert "unclosed_parallel" in codes(tr)


def test_unclosed_thread_truncated():
    t = "<Parallel><Outlines><Subtask>1: a</Subtask><Subtask>2: b</Subtask></Outlines><Thread>1: x</Thread><Thread>2: trunc"
    tr = parse(t)
    assert covers(tr)
    th = tr.blocks[0].threads[1]
    assert not th.closed and th.end == len(t)
    assert tr.text[th.body_start : th.body_end] == "2: trunc"
    assert {"unclosed_thread", "unclosed_parallel"} <= codes(tr)
    assert not tr.valid


def test_close_parallel_inside_thread():
    t = "<Parallel><Outlines><Trial>1: a</Trial></Outlines><Thread>1: x </Parallel> y</Thread></Parallel>"
    tr = parse(t)
    assert covers(tr)
    assert len(tr.blocks) == 1
    assert tr.blocks[0].threads[0].closed is False
    assert {"unclosed_thread", "stray_close"} <= codes(tr)


def test_threads_without_outlines():
    tr = parse("<Parallel><Thread>1: x</Thread><Thread>2: y</Thread></Parallel>")
    assert covers(tr)
    b = tr.blocks[0]
    assert len(b.threads) == 2 and b.items == []
    assert b.kind == "untyped"
    assert all(t.kind == "untyped" for t in b.threads)
    assert "missing_outlines" in codes(tr)


def test_items_without_closing_tags_are_tolerated():
    tr = parse(block("<Trial>1: a\n<Trial>2: b\n", "<Thread>1: x</Thread><Thread>2: y</Thread>"))
    b = tr.blocks[0]
    assert [it.number for it in b.items] == ["1", "2"]
    assert [it.closed for it in b.items] == [False, False]
    assert codes(tr) == {"item_unclosed", "no_boxed"}
    assert tr.valid  # info only


def test_duplicate_and_missing_numbers():
    tr = parse(
        block(
            "<Subtask>1: a</Subtask><Subtask>1: b</Subtask><Subtask>4: c</Subtask>",
            "<Thread>1: x</Thread><Thread>4: y</Thread><Thread>5: z</Thread>",
        )
    )
    c = codes(tr)
    assert {"duplicate_number", "numbering_gap", "thread_number_mismatch"} <= c
    b = tr.blocks[0]
    # by number first (1 -> item 0, 4 -> item 2), then by position (5 -> the free item 1)
    assert [t.item for t in b.threads] == [0, 2, 1]


def test_more_threads_than_items_and_reverse():
    tr = parse(block("<Trial>1: a</Trial>", "<Thread>1: x</Thread><Thread>2: y</Thread>"))
    assert "extra_threads" in codes(tr)
    assert [t.item for t in tr.blocks[0].threads] == [0, None]
    assert tr.blocks[0].threads[1].kind == "untyped"
    tr = parse(block("<Trial>1: a</Trial><Trial>2: b</Trial>", "<Thread>1: x</Thread>"))
    assert "missing_threads" in codes(tr)


def test_thread_without_number_pairs_by_position():
    tr = parse(
        block(
            "<Subtask>1: a</Subtask><Trial>2: b</Trial>",
            "<Thread>1: x</Thread><Thread>no number</Thread>",
        )
    )
    assert "thread_no_number" in codes(tr)
    assert tr.blocks[0].threads[1].item == 1
    assert tr.blocks[0].threads[1].kind == "trial"


def test_number_first_pairing_and_order_warning():
    tr = parse(
        block(
            "<Subtask>1: a</Subtask><Trial>2: b</Trial>",
            "<Thread>2: y</Thread><Thread>1: x</Thread>",
        )
    )
    b = tr.blocks[0]
    assert [t.item for t in b.threads] == [1, 0]
    assert [t.kind for t in b.threads] == ["trial", "subtask"]
    assert "thread_order" in codes(tr)


def test_stray_text_between_threads():
    tr = parse(
        block(
            "<Trial>1: a</Trial><Trial>2: b</Trial>",
            "oops<Thread>1: x</Thread> hmm <Thread>2: y</Thread>",
        )
    )
    stray = [w for w in tr.warnings if w.code == "text_between_threads"]
    assert len(stray) == 2
    assert tr.text[stray[0].pos : stray[0].pos + 4] == "oops"
    assert covers(tr)


def test_empty_thread():
    tr = parse(
        block("<Trial>1: a</Trial><Trial>2: b</Trial>", "<Thread></Thread><Thread> 2: </Thread>")
    )
    assert sum(w.code == "empty_thread" for w in tr.warnings) == 2


def test_chat_markers_prompt_and_answer():
    t = "<|im_start|>user\nWhat is <Thread> 1+1?<|im_end|>\n<|im_start|>assistant\n<think>\nhi\n</think>\n\n\\boxed{2}<|im_end|>"
    tr = parse(t)
    assert covers(tr)
    assert tr.prompt_end == t.index("<think>")
    assert tr.blocks == []  # the <Thread> in the prompt is prompt text
    assert set(tr.part_node[:5]) == {"prompt"}
    assert tr.part_node[-1] == "answer" and tr.part_role[-1] == "chat"
    assert tr.boxed == "2"
    assert tr.think_open is not None and tr.think_close is not None


def test_conclusion_inside_after_block_and_after_think():
    t = (
        block("<Trial>1: a</Trial>", "<Thread>1: x</Thread>")
        + "\n<Conclusion>after</Conclusion>\n</think>\n<Conclusion>late</Conclusion> \\boxed{1}"
    )
    tr = parse(t)
    assert covers(tr)
    assert "conclusion_outside_block" in codes(tr)
    assert "conclusion_after_think" not in codes(tr)  # the authors' generator: valid, silent
    assert tr.valid
    assert "late" in tr.node_text("answer")
    # after `</Parallel>` it is outside the block, as the published count has it
    assert "after" in tr.node_text("s1") and "after" not in tr.node_text("b0:join")


def test_several_boxed_last_wins_and_nested_braces():
    tr = parse("first \\boxed{1} then \\boxed{\\frac{1}{2}} end")
    assert tr.boxed == "\\frac{1}{2}"
    assert "multiple_boxed" in codes(tr)
    assert parse("\\boxed{unbalanced {").boxed == "unbalanced {"


def test_nested_parallel_is_parsed_and_reported():
    inner = "<Parallel><Outlines><Trial>1: p</Trial><Trial>2: q</Trial></Outlines><Thread>1: p1</Thread><Thread>2: q1</Thread></Parallel>"
    t = (
        "<Parallel><Outlines><Subtask>1: a</Subtask><Subtask>2: b</Subtask></Outlines><Thread>1: x "
        + inner
        + " tail</Thread><Thread>2: y</Thread></Parallel>"
    )
    tr = parse(t)
    assert covers(tr)
    assert "nested_parallel" in codes(tr)
    outer = tr.blocks[0]
    assert len(outer.threads[0].blocks) == 1
    nb = outer.threads[0].blocks[0]
    assert nb.depth == 2 and nb.kind == "trial" and nb.prefix == "b0t0b0"
    assert [b.prefix for b in tr.all_blocks()] == ["b0", "b0t0b0"]
    assert "tail" in tr.node_text("b0t0")


def test_think_case_and_dotted_numbers():
    tr = parse(
        "<THINK>\n"
        + block(
            "<Trial>1.1: a</Trial><Trial>1.2: b</Trial>",
            "<Thread>1.2: y</Thread><Thread>1.1: x</Thread>",
        )
        + "</Think> \\boxed{1}"
    )
    assert tr.think_open == 0 and tr.think_close is not None
    assert [t.item for t in tr.blocks[0].threads] == [1, 0]
    assert "dotted_number" in codes(tr)


def test_thread_outside_parallel_makes_implicit_block():
    tr = parse("text <Thread>1: x</Thread> more")
    assert covers(tr)
    assert len(tr.blocks) == 1 and tr.blocks[0].implicit
    assert "missing_parallel" in codes(tr)
    assert not tr.valid


def test_stray_closing_tags_stay_text():
    tr = parse("a </Thread> b </Parallel> c </Outlines> \\boxed{1}")
    assert covers(tr)
    assert tr.blocks == []
    assert sum(w.code == "stray_close" for w in tr.warnings) == 3


def test_warning_positions_point_into_text():
    t = "x" * 10 + "<Parallel><Thread>1: a"
    tr = parse(t)
    for w in tr.warnings:
        assert 0 <= w.pos <= len(t)
    assert any(w.code == "unclosed_thread" and w.pos == len(t) for w in tr.warnings)
