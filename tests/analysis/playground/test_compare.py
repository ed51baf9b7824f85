"""Ours vs the published reference CSVs: a malformed reference is a data problem (SchemaError
naming the file and the columns), never a KeyError/TypeError."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.playground.compare import reference_comparison
from cache.errors import SchemaError

REF = "repro_reference/DeepSeek-8B/aime-2025/sc-pp/summary_per_question.csv"


def _ours() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "question_id": [0, 1, 2],
            "accuracy_pct": [50.0, 100.0, 0.0],
            "token_savings_pct": [10.0, 20.0, 30.0],
            "mean_position": [4096.0, 2048.0, 6144.0],
        }
    )


def test_good_reference_is_diffed() -> None:
    ref = pd.DataFrame({"question_id": [2, 0, 1], "accuracy_pct": [0.0, 40.0, 100.0]})
    m = reference_comparison(_ours(), ref, source=REF)
    assert list(m["question_id"]) == [0, 1, 2]
    assert list(m["d_accuracy_pct"]) == pytest.approx([10.0, 0.0, 0.0])


def test_missing_question_id_names_file_and_column() -> None:
    ref = pd.DataFrame({"qid": [0, 1, 2], "accuracy_pct": [50.0, 100.0, 0.0]})
    with pytest.raises(SchemaError) as e:
        reference_comparison(_ours(), ref, source=REF)
    assert REF in e.value.message and "question_id" in e.value.message


def test_non_numeric_metric_names_file_and_column() -> None:
    ref = pd.DataFrame(
        {
            "question_id": [0, 1, 2],
            "accuracy_pct": ["50%", "n/a", "0"],
            "token_savings_pct": [1.0, 2.0, 3.0],
        }
    )
    with pytest.raises(SchemaError) as e:
        reference_comparison(_ours(), ref, source=REF)
    msg = e.value.message
    assert REF in msg and "accuracy_pct" in msg and "token_savings_pct" not in msg


def test_non_integer_question_id_is_a_schema_error() -> None:
    ref = pd.DataFrame({"question_id": ["a", "b", "c"], "accuracy_pct": [1.0, 2.0, 3.0]})
    with pytest.raises(SchemaError, match="question_id"):
        reference_comparison(_ours(), ref, source=REF)


def test_no_metric_column_is_a_schema_error() -> None:
    ref = pd.DataFrame({"question_id": [0, 1, 2], "comment": ["x", "y", "z"]})
    with pytest.raises(SchemaError, match="accuracy_pct"):
        reference_comparison(_ours(), ref, source=REF)
