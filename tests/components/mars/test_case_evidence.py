"""The MARS captures store the evidence of the chart they point at: a question's vote shares, a
trace's stored curve (Curves tab) or group confidence (Single trace tab), a probe on its trace."""

from __future__ import annotations

import json

import numpy as np

from analysis.mars.confidence import group_confidences
from analysis.mars.features import CURVE_POINTS
from analysis.mars.summaries import VoteShares
from cache.casebook.evidence import EVIDENCE_KEY
from cache.casebook.evidence_svg import evidence_svg
from components.mars import cases as mcs


def _trace_row() -> dict:
    curve = [10.0 - 0.01 * i for i in range(CURVE_POINTS)]
    curve[40] = 2.5  # the lowest slice
    return {
        "trace_idx": 7,
        "final_answer": "42",
        "final_correct": True,
        "final_group": 0,
        "length": 9600,
        "mean_conf": 9.0,
        "tail_conf": 8.0,
        "min_group": 2.5,
        "bottom_10": 3.0,
        "probe_pos": [2048, 4096, 9600],
        "probe_correct": [False, True, True],
        "curve": curve,
    }


def test_a_question_snapshot_draws_the_vote_shares() -> None:
    vs = VoteShares(
        positions=np.array([2048, 4096, 6144, 8192]),
        labels=["17", "<b>42</b>", "other (3 answers)", "no answer"],
        correct=[False, True, False, False],
        shares=np.array(
            [
                [0.5, 0.4, 0.3, 0.2],
                [0.1, 0.3, 0.5, 0.7],
                [0.1, 0.1, 0.1, 0.1],
                [0.3, 0.2, 0.1, 0.0],
            ],
            dtype=np.float32,
        ),
    )
    snap = mcs.question_snapshot({"qid": 3, "n_traces": 10, "pass_at_1": 0.5}, 5000.0, vs)
    ev = snap[EVIDENCE_KEY]
    assert ev["kind"] == "line" and ev["y_range"] == [0.0, 1.0] and ev["title"].startswith("Q3 ")
    names = [s["name"] for s in ev["series"]]
    assert names == ["17", "<b>42</b> ✓", "other (3 answers)", "no answer"]
    assert ev["series"][1]["y"] == [0.1, 0.3, 0.5, 0.7] and ev["series"][1]["x"][0] == 2048
    # the ground truth first leads at the third checkpoint
    assert ev["highlight"] == {"x": 6144, "y": 0.5, "label": "ground truth leads from here"}
    assert "&lt;b&gt;42&lt;/b&gt; ✓" in evidence_svg(ev) and "<b>42" not in evidence_svg(ev)
    json.dumps(snap, allow_nan=False)
    # without the votes the figures are unchanged and there is no picture
    assert EVIDENCE_KEY not in mcs.question_snapshot({"qid": 3}, None)


def test_a_trace_snapshot_draws_the_stored_curve_with_its_probes() -> None:
    f = _trace_row()
    snap = mcs.trace_snapshot(f)
    ev = snap[EVIDENCE_KEY]
    (s,) = ev["series"]
    assert len(s["x"]) == CURVE_POINTS and s["x"][0] == 50.0 and s["x"][-1] == 9550.0
    assert [m["x"] for m in ev["marks"]] == [2048, 4096, 9600]
    assert [m["label"] for m in ev["marks"]] == ["✗", "✓", "✓"]
    assert ev["highlight"]["x"] == s["x"][40] and ev["highlight"]["y"] == 2.5
    assert "right" in ev["title"] and snap["verdict"] == "right" and snap["n_probes"] == 3


def test_in_the_single_trace_tab_the_evidence_is_the_group_confidence() -> None:
    f = _trace_row()
    confs = np.full(6000, 5.0, dtype=np.float32)
    confs[3000:3100] = 0.5
    window = 256
    snap = mcs.trace_snapshot(f, confs, window)
    ev = snap[EVIDENCE_KEY]
    (s,) = ev["series"]
    groups = group_confidences(confs, window)
    assert len(s["x"]) <= 300 and s["x"][0] == window - 1 and s["x"][-1] == 5999
    assert min(s["y"]) == float(f"{groups.min():.5g}")
    assert ev["highlight"]["label"].startswith("lowest group") and "W = 256" in s["name"]


def test_a_probe_snapshot_highlights_the_probe_on_its_trace() -> None:
    r = {"position": 4096, "answer": "42", "is_correct_group": True, "avg_conf": 7.25}
    confs = np.linspace(1, 9, 8000, dtype=np.float32)
    snap = mcs.probe_snapshot(r, _trace_row(), confs, 2048)
    ev = snap[EVIDENCE_KEY]
    assert ev["highlight"] == {"x": 4096, "y": 7.25, "label": "probe 42 (right)"}
    assert snap["position"] == 4096 and snap["correct"] is True
    assert EVIDENCE_KEY not in mcs.probe_snapshot(r)  # no trace at hand: no picture
