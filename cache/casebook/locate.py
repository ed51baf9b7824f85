"""Is a case's data still there? Checks the stored source and item keys against the data.

Opening a case restores its view; when its source folder, file or item is gone, the casebook
says which, and shows the snapshot stored at capture time instead. Only footers and one or two
key columns are read (lazy scans), so the check is cheap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fnmatch import fnmatchcase

import polars as pl

from cache.datasets import ItemCheck, dataset_of_view
from cache.errors import DataError
from cache.scan import parquet_info
from cache.schemas import Role, map_roles
from cache.sources import SOURCE_KINDS, SourceConfig, default_source, resolve_file


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


def _applies(check: ItemCheck, file: str, item: Mapping[str, str]) -> bool:
    """The check runs on files it names, for an item with every key (numbers where needed)."""
    return (
        fnmatchcase(file, check.file_glob)
        and all(item.get(k) for k in check.keys)
        and all(item.get(k, "").isdigit() for k in check.digits)
    )


def missing(dataset: str, source: Mapping[str, str], item: Mapping[str, str]) -> str:
    """Why the case cannot be reopened as it was ("" when its file and item are there). The
    case's dataset is the view it was captured in; its declaration (`cache.datasets`) names the
    data it reads and how an item is found there (`ItemCheck`)."""
    info = dataset_of_view(dataset)
    data = info.name if info is not None else dataset
    check = info.item_check if info is not None else None
    src = source_of(data, source)
    file = source.get("file", "") or (check.default_file if check is not None else "")
    if not file:
        return ""
    try:
        path = resolve_file(data, file, src)
        if check is not None and _applies(check, file, item):
            want = {k: item[k] for k in check.keys}
            ok = _has(path, check.roles, want, check.what)
            return "" if ok else check.gone.format(**want, file=file)
    except DataError as exc:
        return f"its data is not available: {exc.message}"
    except (ValueError, pl.exceptions.PolarsError) as exc:
        return f"its item could not be checked ({type(exc).__name__})"
    return ""
