"""What the stopping-policy playground reads of MARS: the only module of this slice that
`analysis.playground` and `components.playground` import (the import-linter contract allows it alone).

The question pool and the table names load with this module (numpy only). The feature store
(polars, pyarrow), the cold build and the fact helper load on the first use of their names,
through the module `__getattr__`: a warm `python -m analysis simulate` reads the cached tables
with numpy and must not pay for those imports. Callers that must stay light therefore import
this module and use `for_playground.load_features(...)` at call time, not
`from ... import load_features` at the top.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from analysis.mars.pool import QuestionPool, checkpoint_answers, probe_grid, sorted_distinct
from analysis.mars.table_names import (
    FEATURES,
    FEATURES_VERSION,
    GROUPS,
    LOW_COLUMNS,
    NOTES,
    POOL_COLUMNS,
)

if TYPE_CHECKING:  # the lazy names below, for the type checker
    from analysis.mars.fact_feed import start_early
    from analysis.mars.feature_files import feature_paths
    from analysis.mars.store import load_features

# name -> the module that defines it, imported on first use
_LAZY = {
    "feature_paths": "analysis.mars.feature_files",
    "load_features": "analysis.mars.store",
    "start_early": "analysis.mars.fact_feed",
}

__all__ = [
    "FEATURES",
    "FEATURES_VERSION",
    "GROUPS",
    "LOW_COLUMNS",
    "NOTES",
    "POOL_COLUMNS",
    "QuestionPool",
    "checkpoint_answers",
    "feature_paths",
    "load_features",
    "probe_grid",
    "sorted_distinct",
    "start_early",
]


def __getattr__(name: str) -> Any:
    """A lazy name's value, imported from its module once (then a plain module attribute)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
