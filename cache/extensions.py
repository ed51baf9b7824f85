"""The optional compiled modules, and the switch that turns them off.

Why: `pip install` builds `analysis.mars._trace_kernel` and `cache._list_pages` when a C compiler is
there and silently skips them otherwise; each caller then takes its numpy/pyarrow path with the
same results. `RTE_NO_EXT=1` takes those paths even where the modules are built, so the suite can
check them (tests/test_no_extensions.py) on a machine that has a compiler.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

SWITCH = "RTE_NO_EXT"


def disabled() -> bool:
    """Whether `RTE_NO_EXT=1` asks for the paths without compiled modules."""
    return os.environ.get(SWITCH, "") == "1"


def load(name: str) -> ModuleType | None:
    """The compiled module `name`, or None when it is not built or the switch is on."""
    if disabled():
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
