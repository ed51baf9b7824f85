"""A persistent memo of answer-grouping facts, shared by every build that reads the same store.

Why: grouping a MARS question asks math-verify three kinds of pure questions about normalised
answer strings: does it parse, what is its numeric fingerprint, and are two of them the same
value. The strings repeat across questions, files and rebuilds (probe garbage such as
`cases:forn=1weget` recurs in every pool of a model), and on a realistic pool answering them the
first time costs more than the whole numeric pass (parsing, solving and verifying); the
in-process caches of `analysis.mars.answers` forget them when the process ends. This memo keeps
the answers on disk so that the next build (another file, a rebuild after a version bump, another
session or worker sharing the cache) does not import math-verify at all when every question it
asks is known.

Exactness: a fact is kept only under the versions that produced it (math-verify, its LaTeX
parser, sympy, and MEMO_VERSION of our own shortcuts), and only when its call finished well
before math-verify's 2 s alarm could fire (`MAX_RECORD_S`): a verdict cut short by a timeout reads
as False and must not outlive the load that caused it. A memo file that cannot be read counts as
empty, with a log warning, and is rewritten whole at the next save: it is a cache of pure
results, so nothing is lost.

File: one JSON object per version key, `{"key": ..., "parses": {s: bool}, "fingerprints":
{s: str | null}, "verdicts": [[a, b, bool], ...]}`; saved by merging with what is on disk under a
file lock, written to a temp file and renamed.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

MEMO_FILE = "mars-answer-memo.json"  # its name in the cache's derived folder
MEMO_VERSION = 1  # bump when the grouping shortcuts of analysis.mars.answers change a verdict
MAX_RECORD_S = 1.9  # math-verify's alarm is 2 s (whole seconds): below this none fired
LOCK_WAIT_S = 30.0  # another build saving its facts takes well under a second
MAX_ENTRIES = 500_000  # a file grows with the distinct strings of every pool built
_PACKAGES = ("math-verify", "latex2sympy2_extended", "sympy")
_log = logging.getLogger(__name__)


def version_key() -> str:
    """The versions a fact depends on, read from package metadata (no import of sympy)."""
    parts = [f"rte{MEMO_VERSION}"]
    for name in _PACKAGES:
        try:
            parts.append(f"{name}{version(name)}")
        except PackageNotFoundError:
            parts.append(f"{name}-")
    return "-".join(parts)


@dataclass
class VerdictMemo:
    """The facts known for one version key, and those learnt since the last save."""

    key: str
    parses: dict[str, bool] = field(default_factory=dict)
    fingerprints: dict[str, str | None] = field(default_factory=dict)
    verdicts: dict[tuple[str, str], bool] = field(default_factory=dict)
    learnt: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add_parse(self, norm: str, ok: bool, seconds: float) -> None:
        if seconds < MAX_RECORD_S:
            with self.lock:
                self.parses[norm] = ok
                self.learnt += 1

    def add_fingerprint(self, norm: str, fp: str | None, seconds: float) -> None:
        if seconds < MAX_RECORD_S:
            with self.lock:
                self.fingerprints[norm] = fp
                self.learnt += 1

    def add_verdict(self, a: str, b: str, same: bool, seconds: float) -> None:
        if seconds < MAX_RECORD_S:
            with self.lock:
                self.verdicts[(a, b)] = same
                self.learnt += 1

    def size(self) -> int:
        return len(self.parses) + len(self.fingerprints) + len(self.verdicts)


def _read(path: Path, key: str) -> VerdictMemo:
    memo = VerdictMemo(key)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return memo
    except OSError as exc:
        _log.warning("answer memo %s unreadable (%s): grouping recomputes its facts", path, exc)
        return memo
    try:
        doc = json.loads(raw)
        if doc.get("key") != key:
            return memo  # other versions: their facts may differ, start afresh
        memo.parses = {str(k): bool(v) for k, v in doc["parses"].items()}
        memo.fingerprints = {
            str(k): (None if v is None else str(v)) for k, v in doc["fingerprints"].items()
        }
        memo.verdicts = {(str(a), str(b)): bool(v) for a, b, v in doc["verdicts"]}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        _log.warning("answer memo %s is corrupt (%s): it will be rewritten", path, exc)
        return VerdictMemo(key)
    return memo


def load(path: Path) -> VerdictMemo:
    """The memo stored at `path` for the installed versions (empty if none)."""
    return _read(path, version_key())


def save(memo: VerdictMemo, path: Path) -> None:
    """Merge what `memo` learnt into the file (other builds may have saved meanwhile)."""
    if memo.learnt == 0:
        return
    # why here: the fact helper (`analysis.mars.fact_feed`) never saves, and these imports were
    # a fifth of its start-up
    from filelock import FileLock

    from cache.store import atomic_write_bytes, lock_file  # why: as above

    lock = lock_file(path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(lock), timeout=LOCK_WAIT_S):
        merged = _read(path, memo.key)
        if merged.size() + memo.size() > MAX_ENTRIES:
            merged = VerdictMemo(memo.key)  # bounded: start again from this build's facts
        with memo.lock:
            merged.parses.update(memo.parses)
            merged.fingerprints.update(memo.fingerprints)
            merged.verdicts.update(memo.verdicts)
            memo.learnt = 0
        doc = {
            "key": merged.key,
            "parses": merged.parses,
            "fingerprints": merged.fingerprints,
            "verdicts": [[a, b, v] for (a, b), v in sorted(merged.verdicts.items())],
        }
        # ASCII escapes: an answer may hold a lone surrogate, which UTF-8 cannot encode
        atomic_write_bytes(json.dumps(doc).encode("ascii"), path)
