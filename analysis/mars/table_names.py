"""The names and version of the MARS derived tables (declared in `cache.derived_tables`), in a
module that imports nothing else.

Why its own module: the warm stopping CLI (`analysis.playground.pools`) finds the cached tables by
name and version; importing `features` or `store` for two constants would slow its start-up.
"""

from __future__ import annotations

from cache.derived_tables import MARS_FEATURES, MARS_GROUPS, MARS_NOTES

FEATURES = MARS_FEATURES.name
GROUPS = MARS_GROUPS.name
NOTES = MARS_NOTES.name
FEATURES_VERSION = MARS_FEATURES.version  # the three share it: one pass builds them
PROBE_STEP = 2048  # probes were taken every 2048 tokens (a property of the data, not of W)
# the feature columns a `QuestionPool` is built from (`pool_from_features`); the simulator loads
# only these (the curves and per-probe lists are most of the table), the lows only for DeepConf
POOL_COLUMNS = (
    "qid",
    "trace_idx",
    "length",
    "final_group",
    "mean_conf",
    "tail_conf",
    "min_group",
    "bottom_10",
    "end_conf",
    "ckpt_pos",
    "ckpt_conf",
    "ckpt_group",
    "probe_pos",
)
LOW_COLUMNS = ("low_window", "low_value")
