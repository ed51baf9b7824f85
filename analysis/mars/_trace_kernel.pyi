# The compiled per-trace pass (_trace_kernel.c); every buffer is a C-contiguous numpy array.
from typing import Any

def trace_pass(
    values: Any,
    offsets: Any,
    group_offsets: Any,
    ck_offsets: Any,
    curve: Any,
    min_group: Any,
    low_counts: Any,
    low_window: Any,
    low_value: Any,
    ck_sum64: Any,
    total64: Any,
    sum32: Any,
    tail32: Any,
    bottom10: Any,
    window: int,
    ck_step: int,
    n_points: int,
    /,
) -> int: ...
