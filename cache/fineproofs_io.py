"""Reading FineProofs trace shards (`data/traces/<xx>.json.gz`) and the two JSON side files.

Why a module of its own: a trace view needs exactly one shard (the first two hex chars of the
problem id), so the page resolves that one file and this module decompresses and indexes it.
Every failure is a `DataError` subclass with a message naming the file: a missing shard, a
corrupt gzip/JSON payload, a shard without the requested trace, or a trace without text.

The shard layout is not published, so the reader accepts what a plausible export would write:
`{"traces": [...]}` (our sample: `{"format", "shard", "traces"}`), a bare JSON list, a dict keyed
by "<problem_id>/<sample_index>" (or similar), or JSON lines. In each trace object the text may be
`text`/`response`/`trace`/`completion`, the step list `steps`/`prefix_steps`/`prefixes`/`spans`,
and a step's offsets `utf16_start`/`utf16_end` (or `start`/`end`, `char_start`/`char_end`).
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cache.errors import CorruptFile, SchemaError, SourceNotFound
from cache.sources import SourceConfig, available_files

TRACES_DIR = "data/traces"
PREFIX_FILE = "data/prefix_values.parquet"
SUMMARY_FILE = "data/summary.json"
MANIFEST_FILE = "data/trace_manifest.json"

_HEX16 = re.compile(r"^[0-9a-fA-F]{2}")
_TEXT_KEYS = ("text", "response", "trace", "completion", "output")
_STEPS_KEYS = ("steps", "prefix_steps", "prefixes", "spans", "step_offsets")
_PID_KEYS = ("problem_id", "id")
_SAMPLE_KEYS = ("sample_index", "sample_idx", "sample")
_STEP_IDX_KEYS = ("step_idx", "step_index", "prefix_index", "step")
_START_KEYS = ("utf16_start", "start_utf16", "start", "char_start")
_END_KEYS = ("utf16_end", "end_utf16", "prefix_end_utf16", "end", "char_end")


class TraceNotFound(SourceNotFound):
    """The shard exists but does not hold the requested (problem_id, sample_index)."""

    title = "Trace not found"


@dataclass(frozen=True)
class StepSpan:
    """One collected prefix step: its index and UTF-16 [start, end) offsets (raw, unvalidated)."""

    step_idx: int | None
    utf16_start: Any
    utf16_end: Any


@dataclass(frozen=True)
class TraceRecord:
    """One base trace: its text and the spans of its collected prefix steps."""

    problem_id: str
    sample_index: int
    text: str
    steps: tuple[StepSpan, ...]
    meta: dict[str, Any] = field(default_factory=dict)  # every other key, shown as it is

    def step_spans(self) -> list[tuple[int | None, Any, Any]]:
        """(step_idx, utf16_start, utf16_end) per step, the spans the trace view maps to text."""
        return [(s.step_idx, s.utf16_start, s.utf16_end) for s in self.steps]


def shard_key(problem_id: str) -> str:
    """The shard name of a problem id: its first two hex characters, lower-cased."""
    pid = str(problem_id)
    if not _HEX16.match(pid):
        raise SchemaError(
            f"problem id {pid!r} does not start with two hex characters",
            "FineProofs problem ids are 16 hex characters; traces are sharded by the first two.",
        )
    return pid[:2].lower()


def shard_relpath(problem_id: str) -> str:
    """Repo-relative path of the shard holding `problem_id` (what a Hub/local source resolves)."""
    return f"{TRACES_DIR}/{shard_key(problem_id)}.json.gz"


def _first(d: dict, keys: tuple[str, ...]) -> Any:
    for k in keys:
        if k in d:
            return d[k]
    return None


def read_json(path: Path) -> Any:
    """Read a (possibly gzipped) JSON file, raising SourceNotFound / CorruptFile."""
    path = Path(path)
    if not path.is_file():
        raise SourceNotFound(f"file not found: {path}", "Check the data source or folder layout.")
    try:
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        text = raw.decode("utf-8")
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise CorruptFile(
            f"cannot decompress {path.name}: {exc}", f"{path} looks truncated or corrupt."
        ) from exc
    except UnicodeDecodeError as exc:
        raise CorruptFile(f"{path.name} is not UTF-8 text: {exc}", str(path)) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        # maybe JSON lines
        try:
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError:
            pass
        raise CorruptFile(
            f"{path.name} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            str(path),
        ) from exc


def _trace_objects(doc: Any, name: str) -> list[dict]:
    if isinstance(doc, dict):
        for key in ("traces", "data", "records", "items"):
            if isinstance(doc.get(key), list):
                return [t for t in doc[key] if isinstance(t, dict)]
        vals = [v for v in doc.values() if isinstance(v, dict)]
        if vals and all(_first(v, _TEXT_KEYS) is not None for v in vals):
            out = []
            for k, v in doc.items():
                if not isinstance(v, dict):
                    continue
                v = dict(v)
                if _first(v, _PID_KEYS) is None or _first(v, _SAMPLE_KEYS) is None:
                    pid, _, sample = str(k).replace(":", "/").partition("/")
                    v.setdefault("problem_id", pid)
                    if sample.isdigit():
                        v.setdefault("sample_index", int(sample))
                out.append(v)
            return out
    if isinstance(doc, list):
        return [t for t in doc if isinstance(t, dict)]
    raise CorruptFile(
        f"{name} holds no list of traces",
        "Expected {'traces': [...]}, a JSON list of trace objects, or JSON lines.",
    )


def _to_record(obj: dict, name: str) -> TraceRecord | None:
    pid = _first(obj, _PID_KEYS)
    sample = _first(obj, _SAMPLE_KEYS)
    if pid is None:
        return None
    try:
        sample_i = int(sample) if sample is not None else 0
    except (TypeError, ValueError):
        return None
    text = _first(obj, _TEXT_KEYS)
    raw_steps = _first(obj, _STEPS_KEYS) or []
    steps: list[StepSpan] = []
    if isinstance(raw_steps, list):
        for s in raw_steps:
            if isinstance(s, dict):
                idx = _first(s, _STEP_IDX_KEYS)
                steps.append(
                    StepSpan(
                        int(idx) if isinstance(idx, int | float) and idx == idx else None,
                        _first(s, _START_KEYS),
                        _first(s, _END_KEYS),
                    )
                )
            elif isinstance(s, list | tuple) and len(s) >= 2:
                if len(s) >= 3:
                    steps.append(StepSpan(int(s[0]), s[1], s[2]))
                else:
                    steps.append(StepSpan(None, s[0], s[1]))
    known = set(_PID_KEYS + _SAMPLE_KEYS + _TEXT_KEYS + _STEPS_KEYS)
    meta = {k: v for k, v in obj.items() if k not in known}
    return TraceRecord(
        str(pid), sample_i, text if isinstance(text, str) else "", tuple(steps), meta
    )


def load_shard(path: Path) -> dict[tuple[str, int], TraceRecord]:
    """All traces of one shard keyed by (problem_id, sample_index)."""
    path = Path(path)
    if not path.is_file():
        raise SourceNotFound(
            f"trace shard {path.name} is missing ({path})",
            "The prefix table refers to traces whose shard was not exported or not downloaded.",
        )
    doc = read_json(path)
    out: dict[tuple[str, int], TraceRecord] = {}
    for obj in _trace_objects(doc, path.name):
        rec = _to_record(obj, path.name)
        if rec is not None:
            out.setdefault((rec.problem_id.lower(), rec.sample_index), rec)
    return out


def find_trace(
    shard: dict[tuple[str, int], TraceRecord], problem_id: str, sample_index: int, name: str = ""
) -> TraceRecord:
    """Pick one trace out of a loaded shard, raising TraceNotFound / SchemaError."""
    rec = shard.get((str(problem_id).lower(), int(sample_index)))
    if rec is None:
        raise TraceNotFound(
            f"trace {problem_id} sample {sample_index} is not in shard {name or '?'}",
            f"The shard holds {len(shard)} traces; the prefix rows have no base trace to show.",
        )
    if not rec.text:
        raise SchemaError(
            f"trace {problem_id} sample {sample_index} in {name or 'its shard'} has no text",
            "Expected a 'text' (or 'response') string in the trace object.",
        )
    return rec


def load_trace(data_root: Path, problem_id: str, sample_index: int) -> TraceRecord:
    """Load one trace from a local copy laid out like the Hub repo (root holds `data/`)."""
    path = Path(data_root) / shard_relpath(problem_id)
    return find_trace(load_shard(path), problem_id, sample_index, path.name)


def read_side_json(path: Path) -> dict[str, Any]:
    """summary.json / trace_manifest.json as a dict (a non-dict document is wrapped)."""
    doc = read_json(path)
    return doc if isinstance(doc, dict) else {"value": doc}


def present_shards(source: SourceConfig) -> set[str]:
    """Shard names (`ab`) whose trace file is already on disk for this source (the HF cache for
    a Hub source), listed without downloading anything."""
    files = available_files("fineproofs", source, f"{TRACES_DIR}/*.json.gz")
    return {Path(f).name.split(".")[0].lower() for f in files}


def data_root(path: Path) -> Path:
    """Accept either the repo root (holding `data/`) or the `data/` folder itself."""
    p = Path(path)
    if (p / PREFIX_FILE).exists() or (p / TRACES_DIR).exists():
        return p
    if p.name == "data" and ((p / "prefix_values.parquet").exists() or (p / "traces").exists()):
        return p.parent
    if not p.exists():
        raise SourceNotFound(f"folder not found: {p}", "Pass the folder that holds data/.")
    raise SourceNotFound(
        f"{p} holds neither {PREFIX_FILE} nor {TRACES_DIR}/",
        "Pass a folder laid out like the FineProofs Hub repo.",
    )


__all__ = [
    "StepSpan",
    "TraceNotFound",
    "TraceRecord",
    "data_root",
    "find_trace",
    "load_shard",
    "load_trace",
    "present_shards",
    "read_json",
    "read_side_json",
    "shard_key",
    "shard_relpath",
]
