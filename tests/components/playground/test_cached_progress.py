"""A new window W keeps its progress bar until the pools are in memory: loading and preparing
the pools after the feature table is built took seconds with nothing on screen."""

from __future__ import annotations

from pathlib import Path

from cache.sources import SourceConfig
from components.playground import cached as pc


def test_the_bar_stays_up_while_the_pools_are_prepared(tmp_path: Path, monkeypatch) -> None:
    events: list[str] = []

    class Bar:
        def __init__(self, label: str) -> None:
            self.label = label

        def __enter__(self):  # type: ignore[no-untyped-def]
            events.append("bar on")
            return lambda f, m="": None

        def __exit__(self, *exc: object) -> None:
            events.append("bar off")

    def prepared(path: str, mtime: int, window: int) -> list:
        events.append("prepare")
        return []

    path = tmp_path / "f.parquet"
    path.write_bytes(b"x")
    monkeypatch.setattr(pc, "st_progress", Bar)
    monkeypatch.setattr(pc, "resolve", lambda *a, **k: path)
    monkeypatch.setattr(pc, "feature_paths", lambda *a, **k: events.append("build"))
    monkeypatch.setattr(pc, "_prepared", prepared)
    pc.prepared("x.parquet", SourceConfig(), window=4096)
    assert events == ["bar on", "build", "prepare", "bar off"]
    events.clear()
    pc.prepared("x.parquet", SourceConfig(), window=4096)  # built: no bar, straight from memory
    assert events == ["prepare"]
