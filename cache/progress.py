"""Progress hooks: the data layer reports `(fraction, message)`; the CLI shows tqdm, the app st.progress."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tqdm import tqdm

ProgressFn = Callable[[float, str], None]


def no_progress(fraction: float, message: str = "") -> None:
    """Default hook: ignore."""


def scaled(progress: ProgressFn | None, start: float, stop: float) -> ProgressFn:
    """Map a sub-task's 0..1 onto [start, stop] of the parent's bar."""
    hook = progress or no_progress

    def inner(fraction: float, message: str = "") -> None:
        hook(start + (stop - start) * min(1.0, max(0.0, fraction)), message)

    return inner


@contextmanager
def tqdm_progress(desc: str) -> Iterator[ProgressFn]:
    """A hook that drives a tqdm bar on stderr (used by `python -m cache`)."""
    bar = tqdm(total=1000, desc=desc, unit="‰", leave=True)

    def hook(fraction: float, message: str = "") -> None:
        target = int(min(1.0, max(0.0, fraction)) * 1000)
        if target > bar.n:
            bar.update(target - bar.n)
        if message:
            bar.set_postfix_str(message[:60], refresh=False)

    try:
        yield hook
    finally:
        hook(1.0)
        bar.close()
