"""Schemas checked on load, with columns mapped by *role*: the code asks for "the value column",
this module finds it under any of its known names. A missing required role raises a
`SchemaError` naming it; a missing optional role maps to None so the view can degrade."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from cache.errors import SchemaError


@dataclass(frozen=True)
class Role:
    name: str
    aliases: tuple[str, ...]  # accepted column names, preferred first
    required: bool = True
    description: str = ""


@dataclass(frozen=True)
class RoleMap:
    columns: dict[str, str | None]  # role -> column name (None: optional role absent)
    unknown: tuple[str, ...]  # columns no role claimed (shown as they are)

    def __getitem__(self, role: str) -> str | None:
        return self.columns.get(role)

    def has(self, role: str) -> bool:
        return self.columns.get(role) is not None

    def missing_optional(self) -> list[str]:
        return [r for r, c in self.columns.items() if c is None]


def map_roles(columns: Iterable[str], roles: Iterable[Role], where: str, what: str = "") -> RoleMap:
    """Match columns to roles (exact name first, then case-insensitive); raise on a missing required role."""
    cols = list(columns)
    lower = {c.lower(): c for c in cols}
    mapping: dict[str, str | None] = {}
    claimed: set[str] = set()
    missing: list[Role] = []
    for role in roles:
        found = next((a for a in role.aliases if a in cols and a not in claimed), None)
        if found is None:
            found = next(
                (
                    lower[a.lower()]
                    for a in role.aliases
                    if a.lower() in lower and lower[a.lower()] not in claimed
                ),
                None,
            )
        if found is None and role.required:
            missing.append(role)
        mapping[role.name] = found
        if found:
            claimed.add(found)
    if missing:
        names = "; ".join(f"{r.name} (tried {', '.join(r.aliases)})" for r in missing)
        raise SchemaError(
            f"{where}: required column missing: {names}",
            f"is this a {what} file? Found columns: {', '.join(cols) or 'none'}"
            if what
            else f"found columns: {', '.join(cols)}",
        )
    return RoleMap(mapping, tuple(c for c in cols if c not in claimed))


def check_types(
    schema: Mapping[str, str], expected: Mapping[str, tuple[str, ...]], where: str
) -> None:
    """Raise if a present column's arrow type text starts with none of the accepted prefixes."""
    bad = [
        f"{col} is {schema[col]} (expected {' or '.join(prefixes)})"
        for col, prefixes in expected.items()
        if col in schema and not schema[col].startswith(prefixes)
    ]
    if bad:
        raise SchemaError(
            f"{where}: unexpected column types: {'; '.join(bad)}", "is this the right file?"
        )


# ------------------------------------------------------------------------- dataset role tables

PARASON_SFT_ROLES = (
    Role("uuid", ("uuid", "id")),
    Role("question", ("question", "problem", "prompt_text")),
    Role("reasoning", ("response_reasoning", "reasoning")),
    Role("content", ("response_content", "content"), required=False),
    Role("correctness", ("correctness", "is_correct", "correct"), required=False),
    Role("raw_messages", ("raw_messages", "messages"), required=False),
    Role("qwen_text", ("qwen_text",), required=False),
    Role("num_tokens", ("num_qwen_tokens", "num_tokens"), required=False),
)

PARASON_RL_ROLES = (
    Role("prompt", ("prompt",)),
    Role("data_source", ("data_source",), required=False),
    Role("ability", ("ability",), required=False),
    Role("reward_model", ("reward_model",), required=False),
    Role("extra_info", ("extra_info",), required=False),
)

MARS_ROLES = (
    Role("qid", ("qid", "question_id")),
    Role("trace_idx", ("trace_idx", "trace_id")),
    Role("ground_truth", ("ground_truth", "answer_gt", "gt")),
    Role("extracted_answer", ("extracted_answer", "final_answer"), required=False),
    Role("confs", ("confs", "confidences")),
    Role("probes", ("probes",), required=False),
)

MARS_TYPES = {
    "qid": ("int",),
    "trace_idx": ("int",),
    "confs": (
        "list<element: halffloat",
        "list<element: float",
        "large_list<element: halffloat",
        "large_list<element: float",
        "list<item: halffloat",
        "list<item: float",
        "large_list<item: halffloat",
        "large_list<item: float",
    ),
}

FINEPROOFS_ROLES = (
    Role("problem", ("problem_id", "id")),
    Role("sample", ("sample_index", "sample_idx", "sample")),
    Role("step", ("step_idx", "prefix_index", "step_index", "prefix_idx")),
    Role("num_steps", ("num_steps", "n_steps"), required=False),
    Role("depth", ("rel_depth", "depth", "relative_depth"), required=False),
    Role("value", ("mean_grade",), required=False),
    Role("std", ("std_grade", "grade_std"), required=False),
    Role("min", ("min_grade",), required=False),
    Role("max", ("max_grade",), required=False),
    Role("count", ("n_graded", "n_continuations", "num_continuations", "n"), required=False),
    Role("hist", ("grade_hist", "histogram", "grade_histogram", "hist"), required=False),
    Role("endpoint", ("base_grade", "terminal_grade", "final_grade", "reward"), required=False),
    Role("source", ("source", "data_source"), required=False),
    Role("start", ("utf16_start", "char_start"), required=False),
    Role("end", ("utf16_end", "char_end", "prefix_end_utf16"), required=False),
)


# ------------------------------------------------------------- what the views accept, per file
# Mirrors the checks the views make when they load a file, so the home page and `python -m cache
# info` do not call a file "ok" that a view then rejects: Parason SFT needs a trajectory text
# (`analysis.parason.store._roles`), rl/ a prompt (`rl_table`), MARS the exact columns of its
# ingest (`analysis.mars.ingest_read.check_schema`), FineProofs the prefix roles plus a value or a
# histogram (`analysis.fineproofs.values.map_prefix_roles`). Each dataset's declaration
# (`cache.datasets`, `check_columns`) names its rule; `cache.datasets.check_view_columns` picks
# it. tests/cache/test_inventory.py checks each rule against the view's own loader.

_PARASON_TEXT_ROLES = ("qwen_text", "reasoning", "content", "raw_messages")
MARS_REQUIRED = ("qid", "trace_idx", "confs")
FINEPROOFS_PREFIX_FILE = "data/prefix_values.parquet"


def check_parason_columns(relpath: str, schema: Mapping[str, str]) -> None:
    """Parason: rl/ needs a prompt, an SFT file one of the trajectory texts."""
    cols = list(schema)
    if relpath.startswith("rl/"):
        map_roles(cols, PARASON_RL_ROLES, relpath, "Parason rl/")
        return
    loose = [Role(r.name, r.aliases, required=False) for r in PARASON_SFT_ROLES]
    found = map_roles(cols, loose, relpath)
    if not any(found.has(r) for r in _PARASON_TEXT_ROLES):
        raise SchemaError(
            f"{relpath} has none of the trajectory columns "
            "(qwen_text, response_reasoning, response_content, raw_messages)",
            f"is this a Parason SFT file? Found columns: {', '.join(cols[:12]) or 'none'}",
        )


def check_mars_columns(relpath: str, schema: Mapping[str, str]) -> None:
    """MARS: the exact columns of its ingest, `confs` a list."""
    cols = list(schema)
    missing = [c for c in MARS_REQUIRED if c not in schema]
    if missing:
        raise SchemaError(
            f"{relpath}: column `{missing[0]}` missing",
            "is this a MARS file? Expected columns qid, trace_idx, confs "
            f"(+ ground_truth, extracted_answer, probes); found {', '.join(cols[:12])}",
        )
    if not schema["confs"].startswith(("list", "large_list", "fixed_size_list")):
        raise SchemaError(
            f"{relpath}: `confs` is {schema['confs']}, not a list of per-token confidences",
            "is this a MARS file?",
        )


def check_fineproofs_columns(relpath: str, schema: Mapping[str, str]) -> None:
    """FineProofs: the prefix table needs its roles plus a value or a histogram (the side files
    are JSON, not checked here)."""
    if relpath != FINEPROOFS_PREFIX_FILE:
        return
    roles = map_roles(list(schema), FINEPROOFS_ROLES, relpath, "FineProofs prefix-value")
    if not roles.has("value") and not roles.has("hist"):
        raise SchemaError(
            f"{relpath}: neither a mean-grade column nor a grade histogram was found",
            "expected `mean_grade` or a 20-count histogram (`grade_hist`, `histogram`)",
        )
