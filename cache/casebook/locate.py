"""Is a case's data still there? Checks the stored source and item keys against the data.

Opening a case restores its view; when its source folder, file or item is gone, the casebook
says which, and shows the snapshot stored at capture time instead. Only footers and one or two
key columns are read (lazy scans), so the check is cheap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import polars as pl

from cache.errors import DataError
from cache.scan import parquet_info
from cache.schemas import FINEPROOFS_ROLES, MARS_ROLES, PARASON_SFT_ROLES, Role, map_roles
from cache.sources import SOURCE_KINDS, SourceConfig, default_source, resolve_file

# the dataset whose files a view reads (the playground reads the MARS pools)
DATA_OF = {"playground": "mars"}
FINEPROOFS_PREFIXES = "data/prefix_values.parquet"


def source_of(dataset: str, stored: Mapping[str, str]) -> SourceConfig:
    """The stored source identity as a SourceConfig (the preset fills what is missing)."""
    preset = default_source(dataset)
    kind = stored.get("kind") or preset.kind
    return SourceConfig(
        kind=kind if kind in SOURCE_KINDS else preset.kind,
        repo_id=stored.get("repo_id") or preset.repo_id,
        revision=stored.get("revision") or preset.revision,
        local_path=stored.get("local_path") or preset.local_path,
    )


def _has(path: object, roles: Iterable[Role], role_values: Mapping[str, str], what: str) -> bool:
    cols = parquet_info(path).columns  # type: ignore[arg-type]  # a Path from resolve_file
    rm = map_roles(cols, tuple(roles), str(path), what)
    lf = pl.scan_parquet(path)  # type: ignore[arg-type]  # a Path from resolve_file
    for role, value in role_values.items():
        col = rm[role]
        if col is None:
            return True  # nothing to check against
        dtype = lf.collect_schema()[col]
        target: object = int(value) if dtype.is_integer() else value
        lf = lf.filter(pl.col(col) == target)
    return lf.select(pl.len()).collect().item() > 0


def missing(dataset: str, source: Mapping[str, str], item: Mapping[str, str]) -> str:
    """Why the case cannot be reopened as it was ("" when its file and item are there)."""
    data = DATA_OF.get(dataset, dataset)
    src = source_of(data, source)
    file = source.get("file", "")
    if data == "fineproofs":
        file = file or FINEPROOFS_PREFIXES
    if not file:
        return ""
    try:
        path = resolve_file(data, file, src)
        if data == "parason" and item.get("uuid") and "/" in file and file.startswith("sft"):
            ok = _has(path, PARASON_SFT_ROLES, {"uuid": item["uuid"]}, "a Parason SFT file")
            return "" if ok else f"trajectory {item['uuid']} is no longer in {file}"
        if data == "mars" and item.get("qid", "").isdigit():
            ok = _has(path, MARS_ROLES, {"qid": item["qid"]}, "a MARS file")
            return "" if ok else f"question {item['qid']} is no longer in {file}"
        if data == "fineproofs" and item.get("problem") and item.get("sample", "").isdigit():
            want = {"problem": item["problem"], "sample": item["sample"]}
            ok = _has(path, FINEPROOFS_ROLES, want, "the FineProofs prefix table")
            return "" if ok else f"trace {item['problem']} #{item['sample']} is no longer there"
    except DataError as exc:
        return f"its data is not available: {exc.message}"
    except (ValueError, pl.exceptions.PolarsError) as exc:
        return f"its item could not be checked ({type(exc).__name__})"
    return ""
