"""Answer-grouping facts from a helper process, for a build that runs in one process.

Why: a cold build of a file whose answers the persistent memo (`analysis.mars.verdict_memo`) does
not know yet spends a large share of its time on math-verify (its import, the parses, the
verdicts) beside its numeric work. This build computes the numbers itself, with its
decode thread, while a helper process groups the same questions' answers (`warm_grouping`, so it
asks math-verify exactly what this process's grouping will ask) and sends back every fact it
learnt. They go into this process's memo, so its grouping finds them there and never imports
math-verify. A numeric worker instead (the earlier design) costs a second start-up with pyarrow,
a second decode set-up and the hand-over of every question's numbers.

The facts are a cache of pure results: a question whose facts have not arrived (a helper that
failed or was slow) is grouped here as before, by math-verify, with the same result.

The helper starts from the facts this process's memo already holds (a second file of the same
model shares most of its probe garbage with the first), so it computes only the new ones.

Protocol: pickled records over the helper's pipes. To it: first (SEED, parses, fingerprints,
verdicts), the memo's facts as lists of items (none when the memo is empty or over SEED_MAX
facts), then (qid, final answers, probe answers, ground truths), one per question, then end of
input. From it: (qid, parses, fingerprints, verdicts, groups), the facts learnt while grouping
that question, as lists of items, and the groups themselves (ground truth, final and probe group
ids, each group's label and correctness), so this process finalises the question without
grouping it again (`finalise_question` checks they are its own answers' groups); at the end of
its input, (END, peak RSS in bytes) (`cache.process_memory`), so a build's memory figure counts
it.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import IO

from analysis.mars import answers
from analysis.mars.question_groups import GroupSummary, WarmedGroups, warm_grouping
from analysis.mars.verdict_memo import LEGACY_SUFFIX, MEMO_FILE, VerdictMemo, version_key
from cache.paths import derived_dir
from cache.process_memory import peak_rss_bytes

QuestionAnswers = tuple[int, list, list, list]  # qid, final answers, probe answers, ground truths
HELPER = ["-m", "analysis.mars.fact_feed"]  # the helper's arguments to this interpreter
END = -1  # the qid of the helper's last record, which carries its peak RSS
SEED = -2  # the qid of the record that hands the helper the facts known already
SEED_MAX = 100_000  # facts; a bigger memo is not copied over (the helper recomputes what it needs)
FINISH_WAIT_S = 5.0  # every question's facts are in by then: only its last record is left
# a question's math-verify calls each stop at 2 s; a helper silent this long is stuck: this
# process stops waiting and groups the rest itself
STALL_S = 120.0
# from this size up, a file whose answers the memo does not know yet gets a helper (the build's
# choice, `analysis.mars.ingest`): below it the helper's start-up costs more than it saves
OVERLAP_MIN_BYTES = 64 << 20
_log = logging.getLogger(__name__)
_spare: subprocess.Popen | None = None  # a helper started early (`start_early`), not yet used


def worker_env() -> dict[str, str]:
    """The environment for a helper process of this package: this one's, with this checkout
    first on the path (an uninstalled tree), and numpy's OpenBLAS on one thread. Why one: no
    helper calls BLAS, but OpenBLAS starts a thread per core when numpy is imported and they
    spin for a while before they sleep (`blas_thread_server` in a profile), on the core
    the build's decoding needs."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    env["OPENBLAS_NUM_THREADS"] = "1"
    return env


def _spawn() -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, *HELPER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=worker_env(),
    )


def start_early(path: Path) -> None:
    """Start the helper for a cold build of `path` now, if that build will want one: the cache
    holds no answer memo yet (so every answer is new), the file is big enough for the build to
    pair with a helper and there is a second core. The next `FactFeed` takes it.

    Why: the helper's start-up and its import of math-verify then run on the idle
    core while this process is still importing the builder and reading the file's layout, and
    the facts of the first question (most of their CPU time latex2sympy's parser building its
    tables) were the last thing a cold `simulate` of a realistic pool waited for. A helper
    the build does not take (it found another plan) is stopped at exit, unused."""
    global _spare
    if _spare is not None or (os.cpu_count() or 1) < 2:
        return
    try:
        memo = derived_dir() / MEMO_FILE
        if memo.exists() or memo.with_suffix(LEGACY_SUFFIX).exists():
            return
        if path.stat().st_size < OVERLAP_MIN_BYTES:
            return
        _spare = _spawn()
    except OSError as exc:  # no process to spare: the build starts its own when it needs one
        _log.debug("answer facts helper not started early: %s", exc)
        return
    atexit.unregister(stop_spare)  # one registration, however many times it is started
    atexit.register(stop_spare)


def stop_spare() -> None:
    """Stop a helper `start_early` started that no build took."""
    global _spare
    proc, _spare = _spare, None
    if proc is not None:
        with contextlib.suppress(OSError):
            proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()


def _take_spare() -> subprocess.Popen | None:
    global _spare
    proc, _spare = _spare, None
    if proc is not None and proc.poll() is not None:  # it ended (killed?): not usable
        return None
    return proc


class FactFeed:
    """The parent's side: starts the helper, feeds it the questions' answers on one thread,
    merges the facts it sends into `memo` on another; `wait(q)` before grouping question q."""

    def __init__(self, questions: Iterable[QuestionAnswers], memo: VerdictMemo) -> None:
        self.memo = memo
        self._ready: set[int] = set()
        self._sent: dict[int, tuple[list, list]] = {}  # each question's answers, as sent
        self._warmed: dict[int, WarmedGroups] = {}  # its groups, as the helper sent them
        self._cond = threading.Condition()
        self._ended = False
        self.peak_rss: int | None = None  # the helper's, once it has ended normally
        self.received = 0  # facts the helper sent
        self._proc = _take_spare() or _spawn()
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._feeder = threading.Thread(
            target=self._feed, args=(questions, self._proc.stdin), daemon=True
        )
        self._reader = threading.Thread(target=self._read, args=(self._proc.stdout,), daemon=True)
        self._feeder.start()
        self._reader.start()

    def _feed(self, questions: Iterable[QuestionAnswers], pipe: IO[bytes]) -> None:
        try:
            with self.memo.lock:
                known = self.memo.size()
                seed = (
                    (SEED, *(list(d.items()) for d in self._facts()))
                    if 0 < known <= SEED_MAX
                    else (SEED, [], [], [])
                )
            pickle.dump(seed, pipe, protocol=pickle.HIGHEST_PROTOCOL)
            for item in questions:
                self._sent[item[0]] = (item[1], item[2])
                pickle.dump(item, pipe, protocol=pickle.HIGHEST_PROTOCOL)
                pipe.flush()
        except (OSError, ValueError) as exc:  # the helper ended (or was stopped) early
            _log.debug("answer facts helper input closed: %s", exc)
        except Exception:  # noqa: BLE001 - a file problem: the build reports it itself
            _log.debug("answer facts helper: reading the answers failed", exc_info=True)
        finally:
            with contextlib.suppress(OSError):
                pipe.close()

    def _facts(self) -> tuple[dict, dict, dict]:
        return self.memo.parses, self.memo.fingerprints, self.memo.verdicts

    def _read(self, pipe: IO[bytes]) -> None:
        try:
            while True:
                try:
                    record = pickle.load(pipe)  # noqa: S301 - our own helper's pipe
                except (EOFError, OSError, pickle.UnpicklingError, ValueError):
                    return
                if record[0] == END:
                    self.peak_rss = int(record[1])
                    return
                q, parses, fingerprints, verdicts, groups = record
                finals, probe_answers = self._sent.pop(q)
                gt, final_group, probe_group, labels, correct = groups
                warmed = WarmedGroups(
                    gt,
                    finals,
                    probe_answers,
                    GroupSummary(labels, correct),
                    final_group,
                    probe_group,
                )
                self.received += self.memo.learn(parses, fingerprints, verdicts)
                with self._cond:
                    self._warmed[q] = warmed
                    self._ready.add(q)
                    self._cond.notify_all()
        finally:
            with self._cond:
                self._ended = True
                self._cond.notify_all()

    def ready(self, q: int) -> bool:
        """Are question q's facts here (or will they never come)?"""
        with self._cond:
            return self._ended or q in self._ready

    def take_groups(self, q: int) -> WarmedGroups | None:
        """Question q's groups as the helper made them (once; None if they did not come)."""
        with self._cond:
            return self._warmed.pop(q, None)

    def wait(self, q: int) -> None:
        """Block until question q's facts are here or the helper has ended (or stalled)."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._ended or q in self._ready, STALL_S):
                _log.warning("answer facts helper silent for %.0f s: grouping here", STALL_S)
                self._ended = True

    def finish(self) -> None:
        """The build is done (every question's facts waited for): let the helper send its last
        record and end, then close."""
        self._reader.join(FINISH_WAIT_S)
        self.close()

    def close(self) -> None:
        """Stop the helper (if it still runs) and its threads."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._reader.join()
        self._feeder.join()
        if self._proc.stdout is not None:
            self._proc.stdout.close()


def _learnt(memo: VerdictMemo, seen: list[int]) -> tuple[list, list, list]:
    """The facts `memo` learnt since the sizes in `seen`: the newest items of each dict (dicts
    keep insertion order), read from the end, so a question costs its own facts, not a pass over
    everything the memo was seeded with."""
    out: list[list] = []
    dicts: tuple[dict, ...] = (memo.parses, memo.fingerprints, memo.verdicts)
    for i, d in enumerate(dicts):
        items = list(islice(reversed(d.items()), len(d) - seen[i]))
        items.reverse()
        out.append(items)
        seen[i] = len(d)
    return out[0], out[1], out[2]


def helper_main(inp: IO[bytes], out: IO[bytes]) -> None:
    """The helper process: group each question it is sent and send back what it learnt."""
    memo = VerdictMemo(version_key())
    answers.use_memo(memo)
    # math-verify now, not at the first parse: a helper started early (`start_early`) imports
    # it while its parent is still reading; otherwise it costs the same either way
    answers.preload()
    seen = [0, 0, 0]
    while True:
        try:
            record = pickle.load(inp)  # noqa: S301 - our parent's pipe
        except EOFError:
            pickle.dump((END, peak_rss_bytes()), out, protocol=pickle.HIGHEST_PROTOCOL)
            out.flush()
            return
        if record[0] == SEED:  # the facts known already: not computed again, not sent back
            _, known_parses, known_fingerprints, known_verdicts = record
            memo.parses.update(known_parses)
            memo.fingerprints.update(known_fingerprints)
            memo.verdicts.update(known_verdicts)
            seen = [len(memo.parses), len(memo.fingerprints), len(memo.verdicts)]
            continue
        q, finals, probe_answers, gts = record
        w = warm_grouping(finals, probe_answers, gts)
        parses, fingerprints, verdicts = _learnt(memo, seen)
        groups = (
            w.ground_truth,
            w.final_group,
            w.probe_group,
            w.summary.labels,
            w.summary.group_correct,
        )
        pickle.dump(
            (q, parses, fingerprints, verdicts, groups), out, protocol=pickle.HIGHEST_PROTOCOL
        )
        out.flush()


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        helper_main(sys.stdin.buffer, sys.stdout.buffer)
