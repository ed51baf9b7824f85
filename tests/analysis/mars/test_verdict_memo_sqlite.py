"""The answer memo's SQLite file: builds in several processes save at once without losing a fact,
a save inserts only what was learnt since the last one, and a JSON memo of an earlier version is
read once into the database."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.mars import verdict_memo
from analysis.mars.verdict_memo import VerdictMemo

ROOT = Path(__file__).resolve().parents[3]

_WRITER = """
import sys
from pathlib import Path
from analysis.mars import verdict_memo
from analysis.mars.verdict_memo import VerdictMemo, version_key
path, tag, start = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
while not start.exists():  # both writers begin together
    pass
memo = VerdictMemo(version_key())
for i in range(150):
    memo.add_parse(f"{tag}{i}", i % 2 == 0, 0.01)
    memo.add_fingerprint(f"{tag}{i}", None if i % 3 else f"{i}.0", 0.01)
    memo.add_verdict(f"{tag}{i}", "shared", i % 5 == 0, 0.01)
    memo.add_verdict("x", "y", False, 0.01)  # learnt by both: the same pure fact
    verdict_memo.save(memo, path)  # one transaction per fact learnt: many overlapping saves
"""


def test_two_processes_saving_at_once_lose_no_fact(tmp_path: Path) -> None:
    path = tmp_path / "memo.sqlite"
    start = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path), tag, str(start)],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag in ("a", "b")
    ]
    start.touch()
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err[-2000:]
    back = verdict_memo.load(path)
    for tag in ("a", "b"):
        for i in range(150):
            assert back.parses[f"{tag}{i}"] is (i % 2 == 0)
            assert back.fingerprints[f"{tag}{i}"] == (None if i % 3 else f"{i}.0")
            assert back.verdicts[(f"{tag}{i}", "shared")] is (i % 5 == 0)
    assert back.verdicts[("x", "y")] is False
    assert back.size() == 2 * 3 * 150 + 1


def test_a_save_inserts_only_what_was_learnt_since_the_last(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "memo.sqlite"
    memo = VerdictMemo(verdict_memo.version_key())
    memo.add_parse("p", True, 0.01)
    inserted: list[tuple] = []
    real = verdict_memo._insert
    monkeypatch.setattr(
        verdict_memo, "_insert", lambda p, k, new: inserted.append(new) or real(p, k, new)
    )
    verdict_memo.save(memo, path)
    verdict_memo.save(memo, path)  # nothing new: no write at all
    memo.add_verdict("p", "q", True, 0.01)
    verdict_memo.save(memo, path)
    assert inserted == [([("p", True)], [], []), ([], [], [(("p", "q"), True)])]
    back = verdict_memo.load(path)
    assert back.parses == {"p": True} and back.verdicts == {("p", "q"): True}


def test_a_json_memo_of_an_earlier_version_is_migrated_once(tmp_path: Path) -> None:
    path = tmp_path / "mars-answer-memo.sqlite"
    legacy = path.with_suffix(verdict_memo.LEGACY_SUFFIX)
    legacy.write_text(
        json.dumps(
            {
                "key": verdict_memo.version_key(),
                "parses": {"\\sqrt{2}": True, "cases:forn=1weget": False},
                "fingerprints": {"\\sqrt{2}": "1.41421356,0", "7": None},
                "verdicts": [["\\sqrt{2}", "\\sqrt{8}/2", True], ["\ud800x", "y", False]],
            }
        )
    )
    first = verdict_memo.load(path)
    assert not legacy.exists() and path.exists()
    second = verdict_memo.load(path)  # from the database now
    for memo in (first, second):
        assert memo.parses == {"\\sqrt{2}": True, "cases:forn=1weget": False}
        assert memo.fingerprints == {"\\sqrt{2}": "1.41421356,0", "7": None}
        assert memo.verdicts == {("\\sqrt{2}", "\\sqrt{8}/2"): True, ("\ud800x", "y"): False}
    assert first.learnt == 0  # migrated facts are saved already


def test_a_json_memo_of_other_versions_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "mars-answer-memo.sqlite"
    legacy = path.with_suffix(verdict_memo.LEGACY_SUFFIX)
    legacy.write_text(json.dumps({"key": "rte0", "parses": {"a": True}}))
    assert verdict_memo.load(path).size() == 0


class _LockedAtFirst:
    """A connection whose first `n` journal-mode switches fail as SQLite's do when another
    process is creating the same file (no busy wait is possible there)."""

    def __init__(self, con, n: int) -> None:
        self.con, self.left, self.tries = con, n, 0

    def execute(self, sql: str, *args):
        if sql.startswith("PRAGMA journal_mode"):
            self.tries += 1
            if self.left:
                self.left -= 1
                raise sqlite3.OperationalError("database is locked")
        return self.con.execute(sql, *args)

    def close(self) -> None:
        self.con.close()


def test_opening_waits_out_a_locked_journal_switch(tmp_path: Path, monkeypatch) -> None:
    real = sqlite3.connect
    made: list[_LockedAtFirst] = []
    monkeypatch.setattr(
        verdict_memo.sqlite3,
        "connect",
        lambda *a, **k: made.append(_LockedAtFirst(real(*a, **k), 3)) or made[-1],
    )
    con = verdict_memo._connect(tmp_path / "memo.sqlite")
    assert made[0].tries == 4  # three refusals, then the switch
    assert con.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    con.close()


def test_opening_gives_up_on_a_lock_that_stays(tmp_path: Path, monkeypatch) -> None:
    real = sqlite3.connect
    monkeypatch.setattr(verdict_memo, "LOCK_WAIT_S", 0.05)
    monkeypatch.setattr(
        verdict_memo.sqlite3, "connect", lambda *a, **k: _LockedAtFirst(real(*a, **k), 10**6)
    )
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        verdict_memo._connect(tmp_path / "memo.sqlite")


_OPENER = """
import sys
from contextlib import closing
from pathlib import Path
from analysis.mars import verdict_memo
path, start = Path(sys.argv[1]), Path(sys.argv[2])
while not start.exists():
    pass
for _ in range(5):
    with closing(verdict_memo._connect(path)) as con:
        con.execute("SELECT count(*) FROM parses").fetchone()
"""


def test_processes_creating_the_memo_at_once_all_open_it(tmp_path: Path) -> None:
    for round_ in range(15):  # the clash is a race: several rounds of four new openers
        path, start = tmp_path / f"memo{round_}.sqlite", tmp_path / f"go{round_}"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", _OPENER, str(path), str(start)],
                cwd=ROOT,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(4)
        ]
        start.touch()
        for p in procs:
            _, err = p.communicate(timeout=60)
            assert p.returncode == 0, err[-2000:]
