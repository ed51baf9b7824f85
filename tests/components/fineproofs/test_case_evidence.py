"""The FineProofs captures store the value curve (mean grade per prefix, drops and the
first-error candidate marked, the step of a step case highlighted); a step case's item carries
the step index so labels join back on it, while lookups by prefix still find it."""

from __future__ import annotations

import polars as pl

from cache.casebook.evidence import EVIDENCE_KEY
from cache.casebook.model import make_case
from components.fineproofs.cases import step_item, step_snapshot, trace_snapshot, value_evidence


def _series() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "ordinal": [0, 1, 2, 3, 4],
            "step": [0, 2, 4, 6, 8],
            "value": [0.9, 0.85, float("nan"), 0.2, 0.3],
            "se": [0.02] * 5,
            "sig_drop": [False, False, None, True, False],
            "recovery": [False, False, False, False, True],
            "first_error": [False, False, False, True, False],
        }
    )


def test_the_trace_snapshot_draws_the_value_curve_with_its_marks() -> None:
    snap = trace_snapshot({"num_steps": 8}, 5, _series())
    ev = snap[EVIDENCE_KEY]
    (s,) = ev["series"]
    assert s["x"] == [0, 1, 2, 3, 4] and s["y"] == [0.9, 0.85, None, 0.2, 0.3]
    assert [(m["x"], m["label"]) for m in ev["marks"]] == [
        (3, "× first error"),
        (3, "▼ drop"),
        (4, "▲ recovery"),
    ]
    assert ev["y_range"] == [0.0, 1.0] and "highlight" not in ev
    assert snap["n_prefixes"] == 5 and snap["num_steps"] == 8


def test_the_step_snapshot_highlights_its_prefix() -> None:
    r = {"ordinal": 3, "step": 6, "value": 0.2, "sig_drop": True, "first_error": True}
    snap = step_snapshot(r, _series())
    assert snap[EVIDENCE_KEY]["highlight"] == {"x": 3, "y": 0.2, "label": "prefix 3 · step 6"}
    assert snap["prefix"] == 3 and snap["step"] == 6
    assert EVIDENCE_KEY not in step_snapshot(r)
    assert value_evidence(_series().clear(), "t") is None


def test_a_step_item_carries_the_step_and_is_found_by_prefix() -> None:
    assert step_item("p", 2, 3, 6) == {"problem": "p", "sample": "2", "prefix": "3", "step": "6"}
    assert step_item("p", 2, 3) == {"problem": "p", "sample": "2", "prefix": "3"}
    assert step_item("p", 2, 3, float("nan")) == step_item("p", 2, 3, None)
    case = make_case("fineproofs", "fineproofs", item=step_item("p", 2, 3, 6))
    wanted = step_item("p", 2, 3)  # how the step panel looks its cases up
    assert wanted.items() <= case.item.items()
