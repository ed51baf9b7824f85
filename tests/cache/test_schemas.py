"""Role mapping: aliases, case, missing required vs optional roles, unknown columns."""

from __future__ import annotations

import pytest

from cache.errors import SchemaError
from cache.schemas import FINEPROOFS_ROLES, MARS_ROLES, MARS_TYPES, Role, check_types, map_roles


def test_likely_names_and_aliases_map_to_the_same_roles() -> None:
    likely = [
        "problem_id",
        "sample_index",
        "step_idx",
        "num_steps",
        "mean_grade",
        "std_grade",
        "n_graded",
        "grade_hist",
        "base_grade",
        "source",
    ]
    alias = [
        "id",
        "sample_index",
        "prefix_index",
        "num_steps",
        "mean_grade",
        "grade_std",
        "n_continuations",
        "histogram",
        "final_grade",
        "data_source",
        "weird_extra",
    ]
    a = map_roles(likely, FINEPROOFS_ROLES, "prefix_values.parquet")
    b = map_roles(alias, FINEPROOFS_ROLES, "prefix_values.parquet")
    for role in (
        "problem",
        "sample",
        "step",
        "value",
        "std",
        "count",
        "hist",
        "endpoint",
        "source",
    ):
        assert a.has(role) and b.has(role), role
    assert b["problem"] == "id" and b["hist"] == "histogram" and b["count"] == "n_continuations"
    assert b.unknown == ("weird_extra",)
    assert not a.has("start") and "start" in a.missing_optional()


def test_case_insensitive_fallback() -> None:
    m = map_roles(["QID", "Trace_Idx", "ground_truth", "confs"], MARS_ROLES, "f.parquet")
    assert m["qid"] == "QID" and m["trace_idx"] == "Trace_Idx"
    assert m["probes"] is None  # optional


def test_missing_required_role_names_the_column_and_file() -> None:
    with pytest.raises(SchemaError) as err:
        map_roles(
            ["qid", "trace_idx", "ground_truth"],
            MARS_ROLES,
            "DeepSeek-8B/aime25_deepseek.parquet",
            "MARS",
        )
    msg = err.value.message
    assert "confs" in msg and "DeepSeek-8B/aime25_deepseek.parquet" in msg
    assert "MARS" in err.value.hint


def test_one_column_is_never_claimed_twice() -> None:
    roles = (Role("a", ("x",)), Role("b", ("x", "y")))
    m = map_roles(["x", "y"], roles, "t")
    assert (m["a"], m["b"]) == ("x", "y")


def test_type_check() -> None:
    check_types({"confs": "list<element: halffloat>", "qid": "int64"}, MARS_TYPES, "f")
    with pytest.raises(SchemaError, match="confs is string"):
        check_types({"confs": "string"}, MARS_TYPES, "f")
