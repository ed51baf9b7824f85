"""Where a derived table lives: its key from the sources' identity, the derivation and its
parameters. Pure and free of polars/pyarrow, so a warm CLI can find a table without them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from cache.paths import derived_dir


def source_identity(path: Path) -> dict[str, object]:
    """What makes a source file 'the same': resolved path, size and mtime (ns)."""
    p = Path(path).resolve()
    st = p.stat()
    return {"path": str(p), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def table_key(name: str, version: int, sources: Sequence[Path], params: dict | None = None) -> str:
    """A stable hex key for one derivation of one set of sources."""
    payload = {
        "name": name,
        "version": version,
        "params": params or {},
        "sources": [source_identity(s) for s in sources],
    }
    blob = json.dumps(payload, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:20]


def table_path(
    name: str, version: int, sources: Sequence[Path], params: dict | None = None
) -> Path:
    """The parquet file of one derivation of `sources` (built or not)."""
    return derived_dir() / f"{name}-v{version}-{table_key(name, version, sources, params)}.parquet"
