"""What a MARS case records: item keys, bounded plain snapshot texts, and rings per file."""

from __future__ import annotations

from cache.casebook.model import make_case
from components.common.casebook import count_by_key
from components.mars import cases as mcs

REL = "DeepSeek-8B/aime25_deepseek.parquet"


def test_items_nest_file_question_trace_probe() -> None:
    assert mcs.question_item(REL, 3) == {"file": REL, "qid": "3"}
    assert mcs.trace_item(REL, 3, 7) == {"file": REL, "qid": "3", "trace": "7"}
    assert mcs.probe_item(REL, 3, 7, 4096) == {
        "file": REL,
        "qid": "3",
        "trace": "7",
        "probe": "4096",
    }


def test_snapshots_bound_texts_and_drop_nan() -> None:
    long = "<b>x</b> " * 100
    q = mcs.question_snapshot(
        {
            "n_traces": 20,
            "pass_at_1": 0.123456,
            "majority_answer": long,
            "majority_correct": False,
            "n_answers": 4,
            "n_null": 1,
            "median_len_correct": float("nan"),
            "median_len_wrong": 1234.56,
            "ground_truth": "12",
        },
        5000.0,
    )
    assert q["pass_at_1"] == 0.1235 and q["majority_correct"] is False
    assert len(q["majority_answer"]) <= mcs.SNAPSHOT_CHARS + 1
    assert q["median_length_right"] is None and q["median_length_wrong"] == 1234.6
    t = mcs.trace_snapshot(
        {
            "trace_idx": 2,
            "final_answer": None,
            "final_correct": False,
            "final_group": -1,
            "length": 9000,
            "mean_conf": 12.3,
            "tail_conf": None,
            "min_group": 4.5,
            "bottom_10": 6.0,
            "probe_pos": [2048, 4096],
        }
    )
    assert t["verdict"] == "no answer" and t["final_answer"] is None
    assert t["tail_conf"] is None and t["lowest_group_conf"] == 4.5 and t["n_probes"] == 2
    p = mcs.probe_snapshot(
        {"position": 2048, "answer": "7", "is_correct_group": True, "avg_conf": 3.0}
    )
    assert p == {
        "position": 2048,
        "answer": "7",
        "answer_group": None,
        "correct": True,
        "correct_stored": None,
        "avg_conf": 3.0,
        "conf_at_pos": None,
    }


def test_rings_count_the_cases_of_one_file_only() -> None:
    cases = [
        make_case("mars", "mars", item=mcs.question_item(REL, 1)),
        make_case("mars", "mars", item=mcs.trace_item(REL, 1, 4)),
        make_case("mars", "mars", item=mcs.probe_item(REL, 3, 0, 2048)),
        make_case("mars", "mars", item=mcs.question_item("Qwen3-8B/other.parquet", 2)),
    ]
    assert count_by_key(cases, "qid", file=REL) == {1: 2, 3: 1}
