"""The cold build of a MARS file's three derived tables (features, groups, notes) through the
versioned store, and where they and the answer memo live.

Why a module of its own: a cold `python -m analysis simulate` builds through here before it
reads anything, and this import chain loads neither polars nor the feature store's readers
(`analysis.mars.store`), so the build (and its worker processes) starts sooner.
"""

from __future__ import annotations

from pathlib import Path

from analysis.mars.confidence import WINDOW
from analysis.mars.features import MarsTables
from analysis.mars.ingest import build_features
from analysis.mars.table_names import FEATURES, FEATURES_VERSION, GROUPS, NOTES
from analysis.mars.verdict_memo import MEMO_FILE
from cache.paths import derived_dir
from cache.progress import ProgressFn
from cache.scan import parquet_info
from cache.store import atomic_write_parquet, derived_file, derived_table, table_path, work_dir


def answer_memo_path() -> Path:
    """The persistent answer memo every MARS build of this cache shares
    (`analysis.mars.verdict_memo`)."""
    return derived_dir() / MEMO_FILE


def feature_paths(
    path: Path, *, window: int = WINDOW, progress: ProgressFn | None = None
) -> tuple[Path, Path, Path]:
    """Paths of the (features, groups, notes) tables of a MARS file, building them if needed."""
    path = Path(path)
    parquet_info(path)  # a missing/corrupt file raises a DataError naming it
    params = {"window": window}
    sources = [path]
    built: dict[str, MarsTables] = {}

    def build_all(prog: ProgressFn | None, features_out: str | None = None) -> MarsTables:
        if "t" not in built:
            wd = work_dir(FEATURES, FEATURES_VERSION, sources, params)
            built["t"] = build_features(
                path,
                window=window,
                work_dir=wd,
                progress=prog,
                memo=answer_memo_path(),
                features_out=features_out,
            )
            # companions first, so a finished features table always has its groups and notes
            for name, table in ((GROUPS, built["t"].groups), (NOTES, built["t"].notes)):
                atomic_write_parquet(table, table_path(name, FEATURES_VERSION, sources, params))
        return built["t"]

    # the features are written while they are built (`analysis.mars.feature_sink`)
    fp = derived_file(
        FEATURES,
        FEATURES_VERSION,
        sources,
        lambda p, tmp: build_all(p, tmp),
        params=params,
        progress=progress,
    )
    gp = derived_table(
        GROUPS, FEATURES_VERSION, sources, lambda p: build_all(p).groups, params=params
    )
    np_ = derived_table(
        NOTES, FEATURES_VERSION, sources, lambda p: build_all(p).notes, params=params
    )
    return fp, gp, np_
