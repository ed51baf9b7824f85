"""The checks of one closed ``<Parallel>`` block: its kind (from its outline items), the numbers
of items and threads, the pairing of each thread with an outline item (by number first, then by
position), and the warnings when they disagree."""

from __future__ import annotations

import re
from collections.abc import Callable

from analysis.parason.trajectory import Block, Thread

_NUM_RE = re.compile(r"\s*(\d+(?:\.\d+)*)\s*:")

Warn = Callable[..., None]  # `warn(code, pos, detail="")`, the parser's


def _number(text: str, pos: int, end: int) -> str | None:
    m = _NUM_RE.match(text, pos, end)
    return m.group(1) if m else None


def finish_block(blk: Block, text: str, warn: Warn) -> None:
    """Numbers, kinds, thread/item pairing (by number first, then by position) and checks."""
    items = blk.items
    threads = blk.threads
    kinds = {it.kind for it in items}
    if not kinds:
        blk.kind = "untyped"
    elif len(kinds) == 1:
        blk.kind = next(iter(kinds))
    else:
        blk.kind = "mixed"
    if not threads:
        warn("empty_block", blk.start)
    elif not items:
        warn("missing_outlines", blk.start)
    if len(items) > 50:
        warn("too_many_items", blk.start, str(len(items)))
    # item numbers
    by_number: dict[str, int] = {}
    ints: list[int] = []
    dotted = False
    for k, it in enumerate(items):
        it.number = num = _number(text, it.body_start, it.body_end)
        if num is None:
            warn("item_no_number", it.start)
            continue
        if num in by_number:
            warn("duplicate_number", it.start, f"item {num}")
            continue
        by_number[num] = k
        if "." in num:
            dotted = True
        else:
            ints.append(int(num))
    if dotted:
        warn("dotted_number", blk.start)
    if ints and sorted(ints) != list(range(1, len(ints) + 1)):
        warn("numbering_gap", blk.start, ",".join(str(i) for i in ints[:20]))
    # thread numbers + pairing by number
    used: set[int] = set()
    seen_thread_nums: set[str] = set()
    unpaired: list[Thread] = []
    last_item = -1
    order_bad = False
    for th in threads:
        th.number = num = _number(text, th.body_start, th.body_end)
        body = text[th.body_start : th.body_end]
        if not body.strip() or (num is not None and not _NUM_RE.sub("", body, count=1).strip()):
            warn("empty_thread", th.start, th.node)
        if num is None:
            if items:
                warn("thread_no_number", th.start, th.node)
            unpaired.append(th)
            continue
        if num in seen_thread_nums:
            warn("duplicate_number", th.start, f"thread {num}")
        seen_thread_nums.add(num)
        paired = by_number.get(num)
        if paired is None or paired in used:
            if items and paired is None:
                warn("thread_number_mismatch", th.start, f"thread {num}")
            unpaired.append(th)
            continue
        used.add(paired)
        th.item = paired
        if paired < last_item:
            order_bad = True
        last_item = max(last_item, paired)
    if order_bad:
        warn("thread_order", blk.start)
    free = [k for k in range(len(items)) if k not in used]
    for th, k in zip(unpaired, free, strict=False):
        th.item = k
    if len(threads) > len(items) and items:
        warn("extra_threads", blk.start, f"{len(threads)} threads, {len(items)} items")
    elif len(items) > len(threads) and threads:
        warn("missing_threads", blk.start, f"{len(items)} items, {len(threads)} threads")
    for th in threads:
        th.kind = items[th.item].kind if th.item is not None else "untyped"
