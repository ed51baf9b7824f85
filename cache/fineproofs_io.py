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

An unpaired UTF-16 surrogate in the JSON (a lone `\\ud835` escape) decodes to a Python string
that cannot be encoded as UTF-8, so Streamlit, polars, a terminal and a CSV file all reject it.
The reader replaces each one with U+FFFD: one code unit for one code unit, so every UTF-16 offset
of the trace stays exact, and the record carries a note saying where this happened.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cache.datasets import FINEPROOFS
from cache.errors import CorruptFile, DataError, SchemaError, SourceNotFound
from cache.schemas import FINEPROOFS_PREFIX_FILE
from cache.sources import SourceConfig, available_files

TRACES_DIR = "data/traces"
PREFIX_FILE = FINEPROOFS_PREFIX_FILE
SUMMARY_FILE = "data/summary.json"
MANIFEST_FILE = "data/trace_manifest.json"

_HEX16 = re.compile(r"^[0-9a-fA-F]{2}")
# a surrogate code point left in a decoded str is unpaired (JSON pairs `\\ud835\\udc65` itself)
_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"
_SHOWN_SURROGATES = 3  # positions named in the note
_TEXT_KEYS = ("text", "response", "trace", "completion", "output")
_STEPS_KEYS = ("steps", "prefix_steps", "prefixes", "spans", "step_offsets")
_PID_KEYS = ("problem_id", "id")
_SAMPLE_KEYS = ("sample_index", "sample_idx", "sample")
_STEP_IDX_KEYS = ("step_idx", "step_index", "prefix_index", "step")
_START_KEYS = ("utf16_start", "start_utf16", "start", "char_start")
_END_KEYS = ("utf16_end", "end_utf16", "prefix_end_utf16", "end", "char_end")


class TraceTextUnavailable(DataError):
    """A trace's prefix rows exist but its text does not; the values still show without it.

    Not a `SourceNotFound`: the source is fine, so the views offer no switch to the sample."""

    title = "Trace text unavailable"


class ShardMissing(TraceTextUnavailable):
    """The shard file that should hold a trace is not in the source."""

    title = "Trace shard missing"


class TraceNotFound(TraceTextUnavailable):
    """The shard exists but does not hold the requested (problem_id, sample_index)."""

    title = "Trace not in the export"


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
    notes: tuple[str, ...] = ()  # what the reader changed (unpaired surrogates), for the views

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


def scrub_surrogates(text: str) -> tuple[str, list[int]]:
    """(text with every unpaired surrogate replaced by U+FFFD, the UTF-16 offsets replaced).

    A lone surrogate is one UTF-16 code unit and one Python character, and so is U+FFFD, so the
    replacement moves no offset."""
    found = [m.start() for m in _SURROGATE.finditer(text)]
    if not found:
        return text, []
    units = []
    for i in found[:_SHOWN_SURROGATES]:
        units.append(len(text[:i].encode("utf-16-le", "surrogatepass")) // 2)
    return _SURROGATE.sub(REPLACEMENT, text), units + [-1] * (len(found) - len(units))


def _scrub_value(v: Any) -> tuple[Any, int]:
    """A JSON value with unpaired surrogates replaced in every string, and how many there were."""
    if isinstance(v, str):
        clean, where = scrub_surrogates(v)
        return clean, len(where)
    if isinstance(v, list):
        pairs = [_scrub_value(x) for x in v]
        return [x for x, _ in pairs], sum(n for _, n in pairs)
    if isinstance(v, dict):
        out, total = {}, 0
        for k, x in v.items():
            out[k], n = _scrub_value(x)
            total += n
        return out, total
    return v, 0


def _surrogate_note(where: list[int], what: str) -> str:
    """Say how many unpaired surrogates were replaced, where, and that offsets are unchanged."""
    named = [f"{u:,}" for u in where if u >= 0]
    at = f" (UTF-16 offset {', '.join(named)}{', …' if len(where) > len(named) else ''})"
    n = len(where)
    return (
        f"{what} holds {n} unpaired UTF-16 surrogate{'s' if n != 1 else ''}{at}, not a "
        f"character; shown as {REPLACEMENT} (U+FFFD), one code unit for one, so every step "
        "offset stays exact."
    )


def _first(d: dict, keys: tuple[str, ...]) -> Any:
    for k in keys:
        if k in d:
            return d[k]
    return None


def read_json(path: Path) -> Any:
    """Read a JSON file (gzip-compressed when its name ends in .gz), raising SourceNotFound /
    CorruptFile with the file's name and what to do."""
    path = Path(path)
    if not path.is_file():
        raise SourceNotFound(
            f"{path.name} is missing ({path})",
            f"copy {path.name} from the export into {path.parent}, or pick another source",
        )
    redo = f"re-download or re-export {path.name}"
    try:
        raw = path.read_bytes()
        if path.name.endswith(".gz"):
            if raw[:2] != b"\x1f\x8b":
                raise CorruptFile(
                    f"{path.name} is not gzip (it starts with {raw[:8]!r}, not the gzip "
                    "signature 1f 8b)",
                    f"trace shards are gzip-compressed JSON: {redo}, or compress a plain JSON "
                    f"copy with `gzip -c file.json > {path.name}`",
                )
            raw = gzip.decompress(raw)
        text = raw.decode("utf-8")
    except (OSError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise CorruptFile(
            f"cannot decompress {path.name}: {exc}",
            f"{path.name} looks truncated or corrupt: {redo}",
        ) from exc
    except UnicodeDecodeError as exc:
        raise CorruptFile(
            f"{path.name} is not UTF-8 text: {exc}", f"{redo}; JSON must be UTF-8 ({path})"
        ) from exc
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
            f"re-download or re-export {path.name} ({path})",
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
    meta, n_meta = _scrub_value({k: v for k, v in obj.items() if k not in known})
    clean, where = scrub_surrogates(text if isinstance(text, str) else "")
    notes = []
    if where:
        notes.append(_surrogate_note(where, "The trace text"))
    if n_meta:
        notes.append(
            f"Other fields of the trace (e.g. the problem statement) hold {n_meta} unpaired "
            f"UTF-16 surrogate{'s' if n_meta != 1 else ''}; shown as {REPLACEMENT} (U+FFFD)."
        )
    return TraceRecord(str(pid), sample_i, clean, tuple(steps), meta, tuple(notes))


def load_shard(path: Path) -> dict[tuple[str, int], TraceRecord]:
    """All traces of one shard keyed by (problem_id, sample_index)."""
    path = Path(path)
    if not path.is_file():
        raise ShardMissing(
            f"trace shard {path.name} is missing ({path})",
            f"the prefix table refers to traces in {path.name}: copy it from the export into "
            f"{path.parent}; the values do not need it",
        )
    doc = read_json(path)
    out: dict[tuple[str, int], TraceRecord] = {}
    for obj in _trace_objects(doc, path.name):
        rec = _to_record(obj, path.name)
        if rec is not None:
            out.setdefault((rec.problem_id.lower(), rec.sample_index), rec)
    return out


def manifest_says(manifest: dict[str, Any] | None, problem_id: str, sample_index: int) -> str:
    """What trace_manifest.json says about one trace ("" when nothing): listed as missing from
    the export, or the export's written/expected counts. Its layout is not published, so only
    the keys our sample writes are read (`missing_traces`, `n_traces_written/expected`)."""
    if not isinstance(manifest, dict):
        return ""
    pid = str(problem_id).lower()
    for entry in manifest.get("missing_traces") or []:
        if isinstance(entry, dict):
            e_pid, e_sample = _first(entry, _PID_KEYS), _first(entry, _SAMPLE_KEYS)
        elif isinstance(entry, str):
            e_pid, _, e_sample = entry.replace(":", "/").partition("/")
        else:
            continue
        if str(e_pid).lower() == pid and str(e_sample) == str(int(sample_index)):
            return f"{Path(MANIFEST_FILE).name} lists it among the traces missing from the export"
    done, want = manifest.get("n_traces_written"), manifest.get("n_traces_expected")
    if isinstance(done, int) and isinstance(want, int):
        return f"{Path(MANIFEST_FILE).name} reports {done:,} of {want:,} traces written"
    return ""


def find_trace(
    shard: dict[tuple[str, int], TraceRecord],
    problem_id: str,
    sample_index: int,
    name: str = "",
    manifest: dict[str, Any] | None = None,
) -> TraceRecord:
    """Pick one trace out of a loaded shard, raising TraceNotFound / SchemaError."""
    rec = shard.get((str(problem_id).lower(), int(sample_index)))
    if rec is None:
        said = manifest_says(manifest, problem_id, sample_index)
        raise TraceNotFound(
            f"trace {problem_id} sample {sample_index} is not in the export: shard "
            f"{name or '?'} holds {len(shard)} other traces" + (f"; {said}" if said else ""),
            "its values, curve and step statistics come from the prefix table and are shown "
            "without the text; pick another trace to read its text",
        )
    if not rec.text:
        raise SchemaError(
            f"trace {problem_id} sample {sample_index} in {name or 'its shard'} has no text",
            f"expected a 'text' (or 'response') string in the trace object; fix the export of "
            f"{name or 'the shard'}",
        )
    return rec


def load_trace(data_root: Path, problem_id: str, sample_index: int) -> TraceRecord:
    """Load one trace from a local copy laid out like the Hub repo (root holds `data/`)."""
    path = Path(data_root) / shard_relpath(problem_id)
    shard = load_shard(path)
    manifest = None
    if (Path(data_root) / MANIFEST_FILE).is_file():
        try:
            manifest = read_side_json(Path(data_root) / MANIFEST_FILE)
        except DataError:
            manifest = None  # the manifest only adds a fact to the message
    return find_trace(shard, problem_id, sample_index, path.name, manifest)


def read_side_json(path: Path) -> dict[str, Any]:
    """summary.json / trace_manifest.json as a dict (a non-dict document is wrapped)."""
    doc = read_json(path)
    return doc if isinstance(doc, dict) else {"value": doc}


def present_shards(source: SourceConfig) -> set[str]:
    """Shard names (`ab`) whose trace file is already on disk for this source (the HF cache for
    a Hub source), listed without downloading anything."""
    files = available_files(FINEPROOFS.name, source, f"{TRACES_DIR}/*.json.gz")
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
    "ShardMissing",
    "StepSpan",
    "TraceNotFound",
    "TraceTextUnavailable",
    "TraceRecord",
    "data_root",
    "find_trace",
    "load_shard",
    "load_trace",
    "manifest_says",
    "present_shards",
    "read_json",
    "read_side_json",
    "scrub_surrogates",
    "shard_key",
    "shard_relpath",
]
