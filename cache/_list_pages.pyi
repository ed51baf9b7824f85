# The compiled page decoder (_list_pages.c); every output is a C-contiguous numpy array.
from typing import Any

def decode_page(
    rep: Any,
    definition: Any,
    n_levels: int,
    def_width: int,
    max_def: int,
    empty_def: int,
    values: Any,
    byte_stream_split: bool,
    out_values: Any,
    value_pos: int,
    out_starts: Any,
    start_pos: int,
    /,
) -> tuple[int, int]: ...
