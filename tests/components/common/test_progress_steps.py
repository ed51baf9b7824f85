"""A progress bar moves at most every `STEP_S`: cached work calls its hook a dozen times in a
few milliseconds, and each move would be a message for the browser to render."""

from __future__ import annotations

import pytest

from components.common import cached


class FakeBar:
    def __init__(self) -> None:
        self.moves: list[tuple[float, str]] = []
        self.cleared = False

    def progress(self, value: float, text: str = "") -> None:
        self.moves.append((value, text))

    def empty(self) -> None:
        self.cleared = True


def test_a_burst_of_steps_moves_the_bar_once_per_step_time(monkeypatch: pytest.MonkeyPatch) -> None:
    bar = FakeBar()
    clock = iter([0.0, *[0.001 * i for i in range(1, 40)], 0.25, 0.26, 0.4])
    monkeypatch.setattr(cached.st, "progress", lambda value, text="": bar)
    monkeypatch.setattr(cached.time, "monotonic", lambda: next(clock))
    with cached.st_progress("Working…") as hook:
        for i in range(39):  # within the first 0.1 s: no move
            hook(i / 50, f"step {i}")
        hook(0.8, "late")  # 0.25 s: moves
        hook(0.85, "soon after")  # 0.26 s: too soon
        hook(0.9, "later")  # 0.4 s: moves
    assert bar.moves == [(0.8, "Working… late"), (0.9, "Working… later")]
    assert bar.cleared
