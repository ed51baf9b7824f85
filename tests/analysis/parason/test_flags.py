"""Flags (issue 11, item 4): empty reasoning, too many items, think tags in the reasoning, and the
authors' `<Conclusion>` after `</think>`."""

from __future__ import annotations

from analysis.parason.metrics import compute_metrics, trajectory_text
from analysis.parason.parse import WARNING_CODES, parse
from analysis.parason.store import record
from analysis.parason.tokens import get_counter

WORDS = get_counter("words")


def chat(reasoning: str, content: str = "The answer is \\boxed{4}.") -> str:
    text, _ = trajectory_text(
        {"question": "q?", "response_reasoning": reasoning, "response_content": content}
    )
    return text


def codes(text: str) -> set[str]:
    return {w.code for w in parse(text).warnings}


def test_empty_reasoning_is_flagged_and_undefined():
    for reasoning in ("", "   \n"):
        text = chat(reasoning)
        tr = parse(text)
        assert "empty_reasoning" in codes(text) and not tr.valid
        m = compute_metrics(tr, WORDS)
        assert m.T == 0 and m.C == 0  # not a count of the answer alone
        assert m.speedup is None and m.acceleration_ratio is None  # undefined, not 1.00x
    rec = record(0, {"response_reasoning": "", "response_content": "\\boxed{1}"}, WORDS)
    assert rec["speedup"] is None and "empty_reasoning" in rec["warning_codes"]
    assert "empty_reasoning" not in codes(chat("some thought"))


def test_more_than_50_items_is_a_warning():
    def block(n: int) -> str:
        items = "".join(f"<Trial>{k}: g</Trial>" for k in range(1, n + 1))
        threads = "".join(f"<Thread>{k}: t</Thread>" for k in range(1, n + 1))
        return f"<Parallel><Outlines>{items}</Outlines>{threads}</Parallel> \\boxed{{1}}"

    assert WARNING_CODES["too_many_items"][0] == "warning"
    assert parse(block(50)).valid
    tr = parse(block(51))
    assert "too_many_items" in {w.code for w in tr.warnings} and not tr.valid


def test_think_tags_inside_the_reasoning_are_a_note():
    for inner in ("<think>\nagain", "done?\n</think>\nno, more", "<think>x</think>y"):
        block = "<Parallel><Outlines><Trial>1: g</Trial></Outlines><Thread>1: a</Thread></Parallel>"
        text = chat(f"start\n{inner}\n{block}\nend")
        tr = parse(text)
        assert tr.valid, [w.code for w in tr.warnings]
        assert "think_in_reasoning" in codes(text)
        assert WARNING_CODES["think_in_reasoning"][0] == "info"
        assert len(tr.blocks) == 1 and "tags_after_think" not in codes(text)
        assert tr.boxed == "4"  # the template's own </think> still starts the answer


def test_conclusion_after_think_is_valid_and_silent():
    # the form the authors' generator writes every row in
    text = chat(
        "<Parallel>\n<Outlines>\n<Subtask>1: a</Subtask>\n</Outlines>\n<Thread>\n1: x\n</Thread>\n"
        "</Parallel>",
        "<Conclusion>so it is 4</Conclusion>\n\\boxed{4}",
    )
    tr = parse(text)
    assert tr.valid
    assert tr.warnings == []
    assert "so it is 4" in tr.node_text("answer")
