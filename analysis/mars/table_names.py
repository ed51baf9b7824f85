"""The names and version of the MARS derived tables, in a module that imports nothing.

Why its own module: the warm stopping CLI (`analysis.stopping.pools`) finds the cached tables by
name and version; importing `features` or `store` for two constants would cost ~0.5 s.
"""

from __future__ import annotations

FEATURES = "mars-features"
GROUPS = "mars-groups"
NOTES = "mars-notes"
FEATURES_VERSION = 7  # 7: a group is labelled by its most common member
PROBE_STEP = 2048  # probes were taken every 2048 tokens (a property of the data, not of W)
