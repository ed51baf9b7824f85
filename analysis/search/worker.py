"""A regular expression's scan in a separate, warm process, killed when one row outlasts the
search's deadline.

Why a process: Python's `re` cannot be stopped from outside. It holds the GIL while it matches,
and a signal reaches only the main thread (a Streamlit script runs in another), so a pattern
that backtracks on one long row (`(a|aa)+$`) would run for ever in the server. A worker is
started once and reused (a pool of idle ones, so two sessions never wait on each other); one
that is killed is replaced by the next call. The worker runs the same `re.compile(source,
flags)` and `finditer` as the caller would, so the hits are the same. It stops by itself
between rows at the deadline (the usual time limit: what it found is kept); only a row still
running past the deadline and a grace period is a reason to kill it, and the shared counter it
writes before each row says which row that was. The hits come back in parts as it goes, so
those of the rows before the stuck one are kept (the few rows since its last part, which ran
in it within `FLUSH` seconds, are run again by the caller).
"""

from __future__ import annotations

import contextlib
import fcntl
import mmap
import os
import re
import struct
import subprocess
import sys
import tempfile
import threading
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path

GRACE = 0.5  # seconds past the deadline before a worker stuck in one row is killed
PIPE_SIZE = 1 << 20  # bytes a pipe holds (Linux's default cap for a user)
FLUSH = 0.05  # seconds between the parts of hits a worker sends
MAX_IDLE = 2  # warm workers kept
_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding `analysis`
_SLOT = struct.Struct("q")  # the row the worker is on


@dataclass
class Found:
    """Hits of one batch of texts as (index in the batch, start, end) lists; `stuck` is the index
    of a row that ran past the deadline (the worker was killed on it), `timed_out` that the
    batch stopped at the deadline."""

    index: list[int] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    timed_out: bool = False
    stuck: int | None = None


@dataclass(frozen=True)
class Batch:
    """Texts as one UTF-8 buffer and their byte offsets (n + 1 of them): what crosses the pipe,
    in two writes, instead of a pickle of many strings (which costs the worker more than the
    scan)."""

    offsets: array[int]
    data: bytes | memoryview

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def text(self, i: int) -> str:
        return str(memoryview(self.data)[self.offsets[i] : self.offsets[i + 1]], "utf-8")


def batch_of(texts: list[str]) -> Batch:
    parts = [t.encode() for t in texts]
    offsets = array("q", [0])
    for b in parts:
        offsets.append(offsets[-1] + len(b))
    return Batch(offsets, b"".join(parts))


def finditer_batch(
    source: str,
    flags: int,
    texts: Batch,
    limit: int | None,
    seconds: float,
    slot: mmap.mmap,
    send: Callable[[tuple[object, ...]], None],
) -> None:
    """`re.finditer` over each text in turn (the worker's loop), up to `limit` hits or the
    deadline, which is checked between rows. The hits go out in parts, one every `FLUSH`
    seconds at most (`("part", rows done, index, starts, ends)`), and a last one
    (`("done", rows done, index, starts, ends, timed out)`)."""
    finditer = re.compile(source, flags).finditer
    offsets, data = texts.offsets, memoryview(texts.data)
    pack, clock = _SLOT.pack_into, time.monotonic
    now = clock()
    deadline, flushed = now + seconds, now
    index: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    found = 0
    for i in range(len(texts)):
        pack(slot, 0, i)
        now = clock()
        if now > deadline:
            send(("done", i, index, starts, ends, True))
            return
        if now - flushed > FLUSH:  # a part, hits or none: the caller knows rows 0..i-1 are done
            send(("part", i, index, starts, ends))
            index, starts, ends, flushed = [], [], [], now
        for m in finditer(str(data[offsets[i] : offsets[i + 1]], "utf-8")):
            index.append(i)
            starts.append(m.start())
            ends.append(m.end())
            found += 1
            if limit is not None and found >= limit:
                send(("done", i + 1, index, starts, ends, False))
                return
    send(("done", len(texts), index, starts, ends, False))


def serve(request_fd: int, reply_fd: int, slot_fd: int) -> None:
    """The worker's loop: one request, its replies, until the caller closes its end."""
    requests = Connection(request_fd, writable=False)
    replies = Connection(reply_fd, readable=False)
    slot = mmap.mmap(slot_fd, _SLOT.size)
    while True:
        try:
            source, flags, limit, seconds = requests.recv()
            offsets = array("q")
            offsets.frombytes(requests.recv_bytes())
            texts = Batch(offsets, requests.recv_bytes())
        except EOFError:
            return
        finditer_batch(source, flags, texts, limit, seconds, slot, replies.send)


class Worker:
    """One worker process and its pipes."""

    def __init__(self) -> None:
        request_r, request_w = os.pipe()
        reply_r, reply_w = os.pipe()
        slot_fd, slot_path = tempfile.mkstemp(prefix="rte-search-")
        os.unlink(slot_path)  # only the two processes' descriptors keep it
        os.ftruncate(slot_fd, _SLOT.size)
        self._slot_fd = slot_fd
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, env.get("PYTHONPATH")) if p)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "analysis.search.worker",
                *map(str, (request_r, reply_w, slot_fd)),
            ],
            pass_fds=(request_r, reply_w, slot_fd),
            stdin=subprocess.DEVNULL,
            env=env,
        )
        os.close(request_r)
        os.close(reply_w)
        for fd in (request_w, reply_r):  # fewer exchanges per request (Linux; else as is)
            with contextlib.suppress(OSError):
                fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_SIZE)
        self._requests = Connection(request_w, readable=False)
        self._replies = Connection(reply_r, writable=False)
        self._slot = mmap.mmap(slot_fd, _SLOT.size)

    def run(
        self, pattern: re.Pattern[str], texts: Batch, limit: int | None, deadline: float
    ) -> Found:
        out = Found()
        done = 0  # rows the worker has reported on
        _SLOT.pack_into(self._slot, 0, 0)
        try:
            seconds = max(0.0, deadline - time.monotonic())
            self._requests.send((pattern.pattern, pattern.flags, limit, seconds))
            self._requests.send_bytes(texts.offsets)
            self._requests.send_bytes(texts.data)
            while self._replies.poll(max(0.0, deadline + GRACE - time.monotonic())):
                kind, done, index, starts, ends, *last = self._replies.recv()
                out.index += index
                out.starts += starts
                out.ends += ends
                if kind == "done":
                    out.timed_out = last[0]
                    return out
        except (OSError, EOFError):  # the worker died on a row: as if it were stuck there
            pass
        stuck = min(max(done, _SLOT.unpack_from(self._slot, 0)[0]), len(texts) - 1)
        self.close()
        # the rows between its last part and the stuck one ran within FLUSH seconds: again here
        for i in range(done, stuck):
            for m in pattern.finditer(texts.text(i)):
                out.index.append(i)
                out.starts.append(m.start())
                out.ends.append(m.end())
                if limit is not None and len(out.index) >= limit:
                    return out  # the hits wanted all come before the stuck row
        out.timed_out, out.stuck = True, stuck
        return out

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None and not self._requests.closed

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self._requests.close()
        self._replies.close()
        self._slot.close()
        os.close(self._slot_fd)


_idle: list[Worker] = []
_lock = threading.Lock()


def warm() -> None:
    """Start a worker now (it imports while the caller goes on), unless one is idle."""
    with _lock:
        if not _idle:
            _idle.append(Worker())


def run(
    pattern: re.Pattern[str], texts: Batch | list[str], limit: int | None, deadline: float
) -> Found:
    """`re.finditer` of `pattern` over `texts` in a worker: the hits as (index, start, end), at
    most `limit`, stopped between rows at `deadline` and killed on a row that outlasts it."""
    with _lock:
        while _idle and not _idle[-1].alive:
            _idle.pop()
        worker = _idle.pop() if _idle else None
    if worker is None:
        worker = Worker()
    batch = texts if isinstance(texts, Batch) else batch_of(texts)
    found = worker.run(pattern, batch, limit, deadline)
    if found.stuck is not None:
        warm()  # the killed worker's successor starts now, ready for the next search
        return found
    with _lock:
        keep = len(_idle) < MAX_IDLE
        if keep:
            _idle.append(worker)
    if not keep:
        worker.close()
    return found


if __name__ == "__main__":
    serve(*map(int, sys.argv[1:4]))
