"""The casebook's data model: a case (one finding, captured from a view) and a collection (an
ordered list of cases). Plain frozen dataclasses of JSON-able values, so the store, the exports
and the UI all pass the same objects around.

`make_case` builds a new case and `validate_case` normalises and checks one (tags trimmed and
deduplicated, a default title, size limits, a view of the explorer's own); the store and the
importer call `validate_case` on everything they write. Rows already stored are read as they are
(a stored view that is not ours is shown as plain text, never as a link).
"""

from __future__ import annotations

import functools
import json
import math
import re
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote

from cache.casebook.errors import InvalidCase
from cache.casebook.links import case_path, case_views, is_case_view
from cache.datasets import load_declared, views

MAX_TAGS = 1000
MAX_TAG_CHARS = 200
MAX_TITLE_CHARS = 1000
MAX_NOTE_BYTES = 2 * 1024 * 1024
MAX_SNAPSHOT_BYTES = 256 * 1024
MAX_SHORT_CHARS = 2000  # author, verdict, view, query/source/item keys and values
_ID_RE = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
_BAD_CHARS = re.compile("[\x00\ud800-\udfff]")


@dataclass(frozen=True)
class Case:
    """One finding: where it was seen (dataset, view, deep-link query, source, item keys), what
    was concluded (title, tags, verdict, Markdown note) and the key figures at capture time."""

    id: str
    dataset: str
    view: str
    query: tuple[tuple[str, str], ...] = ()
    source: dict[str, str] = field(default_factory=dict)
    item: dict[str, str] = field(default_factory=dict)
    title: str = ""
    tags: tuple[str, ...] = ()
    verdict: str | None = None
    note: str = ""
    author: str = ""
    created_at: float = 0.0
    updated_at: float = 0.0
    snapshot: dict[str, Any] = field(default_factory=dict)
    version: int = 1
    deleted_at: float | None = None

    @property
    def deleted(self) -> bool:
        return self.deleted_at is not None


@dataclass(frozen=True)
class Collection:
    """An ordered list of case ids with a name: what gets presented and exported together."""

    id: str
    name: str
    description: str = ""
    case_ids: tuple[str, ...] = ()
    created_at: float = 0.0
    updated_at: float = 0.0
    version: int = 1


@dataclass(frozen=True)
class ImportReport:
    """What an import did. `kept` (`collections_kept`) lists case (collection) ids counted as
    unchanged although the file's copy differs: the stored copy was edited later, so it won."""

    added: int
    updated: int
    unchanged: int
    kept: tuple[str, ...] = ()
    collections_added: int = 0
    collections_updated: int = 0
    collections_unchanged: int = 0
    collections_kept: tuple[str, ...] = ()


CASE_FIELDS: tuple[str, ...] = tuple(Case.__dataclass_fields__)


def case_datasets() -> tuple[str, ...]:
    """A case's `dataset`: the view it was captured in (each dataset's views, `cache.datasets`)."""
    return case_views()


def new_id() -> str:
    return uuid.uuid4().hex


def deep_link(case: Case) -> str:
    """`<view>?<urlencoded query>`: the link that reopens the view where the case was seen ("" when
    the case's view is not one of the explorer's own, see `cache.casebook.links`)."""
    return case_path(case.view, case.query) or ""


def item_key(item: Mapping[str, str]) -> str:
    """A canonical `k=v&k=v` string of the item keys (sorted, percent-encoded), for lookups."""
    return "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in sorted(item.items()))


def shown_value(key: str, value: str, view: str) -> str:
    """An item key's value as the case's view writes it (its declared `shown_item`: a Parason
    stage stored as 0 reads "1", a node "b1t1" reads "2.2"); else as stored."""
    spec = next((v.shown_item for v in views() if v.name == view), "")
    shown = _declared(spec)(key, value) if spec else None
    return value if shown is None else str(shown)


@functools.lru_cache(maxsize=32)
def _declared(spec: str) -> Any:
    """A declared function, imported once (a case list writes every case's keys)."""
    return load_declared(spec)


def default_title(dataset: str, item: Mapping[str, str]) -> str:
    """`fineproofs: problem P1 · sample 2 · prefix 5`, used when a case has no title."""
    parts = [f"{k} {v if len(v) <= 24 else v[:12] + '…'}" for k, v in item.items()]
    return f"{dataset}: {' · '.join(parts)}" if parts else f"{dataset} case"


def normalize_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """Trimmed, empty ones dropped, duplicates dropped (first occurrence kept)."""
    seen: dict[str, None] = {}
    for t in tags:
        t = t.strip()
        if t and t not in seen:
            seen[t] = None
    return tuple(seen)


def _finite(value: Any) -> Any:
    """Snapshot values as plain JSON: tuples as lists, NaN/inf as None (JSON has neither)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _check_text(name: str, value: Any, limit: int = MAX_SHORT_CHARS) -> None:
    if not isinstance(value, str):
        raise InvalidCase(f"{name} must be text, not {type(value).__name__}")
    if len(value) > limit:
        raise InvalidCase(f"{name} is {len(value):,} characters long (at most {limit:,})")
    if _BAD_CHARS.search(value):
        raise InvalidCase(
            f"{name} contains a NUL character or a lone surrogate",
            "only the note may hold such characters; remove them from this field",
        )


def _check_id(kind: str, value: Any) -> None:
    if not isinstance(value, str) or not _ID_RE.match(value):
        raise InvalidCase(
            f"{kind} id {value!r} is not valid",
            "use 1-64 letters, digits, '.', '_', ':' or '-' (new ids are uuid4 hex)",
        )


def _check_time(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidCase(f"{name} must be a number of unix seconds")


def _check_str_map(name: str, value: Any) -> None:
    if not isinstance(value, Mapping):
        raise InvalidCase(f"{name} must be a mapping of text to text")
    for k, v in value.items():
        _check_text(f"{name} key", k)
        _check_text(f"{name}[{k}]", v)


def _check_view(view: Any, dataset: str) -> None:
    """Only the explorer's own views are written: a view is where the case's link points, so
    an imported `javascript:` or `//host` must not get in (even though links are rebuilt)."""
    _check_text("view", view)
    if not is_case_view(view):
        shown = view if len(view) <= 80 else view[:80] + "…"
        raise InvalidCase(
            f"view {shown!r} is not one of the explorer's views",
            f"a case's view is the page it was captured in: one of {', '.join(case_views())}",
        )
    if view != dataset:
        raise InvalidCase(
            f"a {dataset} case cannot come from the {view} view",
            f"set its view to {dataset!r}, the view of that dataset",
        )


def validate_case(case: Case) -> Case:
    """The case normalised (tags, default title, JSON-clean snapshot), or InvalidCase saying what
    is wrong."""
    _check_id("case", case.id)
    known = case_datasets()
    if case.dataset not in known:
        raise InvalidCase(f"unknown dataset {case.dataset!r}", f"use one of {', '.join(known)}")
    _check_view(case.view, case.dataset)
    if not isinstance(case.query, tuple | list) or not all(
        isinstance(p, tuple | list) and len(p) == 2 for p in case.query
    ):
        raise InvalidCase("query must be a list of (key, value) pairs")
    for k, v in case.query:
        _check_text("query key", k)
        _check_text(f"query value of {k}", v)
    _check_str_map("source", case.source)
    _check_str_map("item", case.item)
    if isinstance(case.tags, str) or not isinstance(case.tags, tuple | list):
        raise InvalidCase("tags must be a list of text")
    for t in case.tags:
        _check_text("a tag", t, MAX_TAG_CHARS)
    tags = normalize_tags(case.tags)
    if len(tags) > MAX_TAGS:
        raise InvalidCase(f"{len(tags):,} tags (at most {MAX_TAGS:,})", "merge or drop some tags")
    _check_text("title", case.title, MAX_TITLE_CHARS)
    title = case.title.strip() or default_title(case.dataset, case.item)
    verdict = case.verdict
    if verdict is not None:
        _check_text("verdict", verdict)
        verdict = verdict.strip() or None
    _check_text("author", case.author)
    if not isinstance(case.note, str):
        raise InvalidCase("note must be text")
    size = len(case.note.encode("utf-8", "surrogatepass"))
    if size > MAX_NOTE_BYTES:
        raise InvalidCase(
            f"the note is {size / 2**20:.1f} MB (at most 2 MB)", "shorten it or link to a file"
        )
    _check_time("created_at", case.created_at)
    _check_time("updated_at", case.updated_at)
    if case.deleted_at is not None and (
        isinstance(case.deleted_at, bool) or not isinstance(case.deleted_at, int | float)
    ):
        raise InvalidCase("deleted_at must be unix seconds or empty")
    if isinstance(case.version, bool) or not isinstance(case.version, int) or case.version < 1:
        raise InvalidCase("version must be a whole number >= 1")
    if not isinstance(case.snapshot, Mapping):
        raise InvalidCase("snapshot must be a JSON object")
    try:
        snap_text = json.dumps(_finite(case.snapshot), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidCase(f"snapshot is not JSON-able: {exc}") from exc
    if len(snap_text) > MAX_SNAPSHOT_BYTES:
        raise InvalidCase(
            f"snapshot is {len(snap_text):,} bytes of JSON (at most {MAX_SNAPSHOT_BYTES:,})",
            "keep key figures only",
        )
    return replace(
        case,
        query=tuple((str(k), str(v)) for k, v in case.query),
        source=dict(case.source),
        item=dict(case.item),
        title=title,
        tags=tags,
        verdict=verdict,
        created_at=float(case.created_at),
        updated_at=float(case.updated_at),
        deleted_at=None if case.deleted_at is None else float(case.deleted_at),
        snapshot=json.loads(snap_text),
    )


def make_case(
    dataset: str,
    view: str,
    *,
    query: Iterable[tuple[str, str]] = (),
    source: Mapping[str, str] | None = None,
    item: Mapping[str, str] | None = None,
    title: str = "",
    tags: Iterable[str] = (),
    verdict: str | None = None,
    note: str = "",
    author: str = "",
    snapshot: Mapping[str, Any] | None = None,
    id: str | None = None,
    now: float | None = None,
) -> Case:
    """A new, validated case stamped with the current time (version 1)."""
    t = time.time() if now is None else now
    return validate_case(
        Case(
            id=id or new_id(),
            dataset=dataset,
            view=view,
            query=tuple(query),
            source=dict(source or {}),
            item=dict(item or {}),
            title=title,
            tags=tuple(tags),
            verdict=verdict,
            note=note,
            author=author,
            created_at=t,
            updated_at=t,
            snapshot=dict(snapshot or {}),
        )
    )


def same_content(a: Case, b: Case) -> bool:
    """Equal in everything but the version counter (what an import compares)."""
    return replace(a, version=0) == replace(b, version=0)


def case_to_dict(case: Case) -> dict[str, Any]:
    """Plain JSON-able dict (query pairs as lists, tags as a list)."""
    return {
        "id": case.id,
        "dataset": case.dataset,
        "view": case.view,
        "query": [list(p) for p in case.query],
        "source": dict(case.source),
        "item": dict(case.item),
        "title": case.title,
        "tags": list(case.tags),
        "verdict": case.verdict,
        "note": case.note,
        "author": case.author,
        "created_at": case.created_at,
        "updated_at": case.updated_at,
        "snapshot": case.snapshot,
        "version": case.version,
        "deleted_at": case.deleted_at,
    }


def _typed(d: Mapping[str, Any], name: str, kinds: tuple[type, ...], optional: bool = False) -> Any:
    if name not in d:
        raise ValueError(f"missing field {name!r}")
    v = d[name]
    if v is None and optional:
        return None
    if isinstance(v, bool) and bool not in kinds:
        raise ValueError(f"field {name!r} has the wrong type (bool)")
    if not isinstance(v, kinds):
        want = " or ".join(k.__name__ for k in kinds)
        raise ValueError(f"field {name!r} must be {want}, not {type(v).__name__}")
    return v


def case_from_dict(d: Mapping[str, Any]) -> Case:
    """The inverse of `case_to_dict`, strict about fields and types (ValueError naming the field);
    then validated (InvalidCase)."""
    if not isinstance(d, Mapping):
        raise ValueError(f"a case must be a JSON object, not {type(d).__name__}")
    query = _typed(d, "query", (list, tuple))
    for pair in query:
        if not (isinstance(pair, list | tuple) and len(pair) == 2):
            raise ValueError("field 'query' must be a list of [key, value] pairs")
        if not all(isinstance(x, str) for x in pair):
            raise ValueError("field 'query' pairs must hold text")
    tags = _typed(d, "tags", (list, tuple))
    if not all(isinstance(t, str) for t in tags):
        raise ValueError("field 'tags' must be a list of text")
    maps = {}
    for name in ("source", "item"):
        m = _typed(d, name, (dict,))
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in m.items()):
            raise ValueError(f"field {name!r} must map text to text")
        maps[name] = m
    return validate_case(
        Case(
            id=_typed(d, "id", (str,)),
            dataset=_typed(d, "dataset", (str,)),
            view=_typed(d, "view", (str,)),
            query=tuple((k, v) for k, v in query),
            source=maps["source"],
            item=maps["item"],
            title=_typed(d, "title", (str,)),
            tags=tuple(tags),
            verdict=_typed(d, "verdict", (str,), optional=True),
            note=_typed(d, "note", (str,)),
            author=_typed(d, "author", (str,)),
            created_at=_typed(d, "created_at", (int, float)),
            updated_at=_typed(d, "updated_at", (int, float)),
            snapshot=_typed(d, "snapshot", (dict,)),
            version=_typed(d, "version", (int,)),
            deleted_at=_typed(d, "deleted_at", (int, float), optional=True),
        )
    )


# ---------------------------------------------------------------------------- collections

COLLECTION_TYPE = "collection"  # the `type` of a collection line in a JSONL export
MAX_NAME_CHARS = 200


def check_collection_name(name: Any) -> str:
    """The name trimmed, or InvalidCase (1-200 characters, no NUL or lone surrogate)."""
    if (
        not isinstance(name, str)
        or not name.strip()
        or len(name.strip()) > MAX_NAME_CHARS
        or _BAD_CHARS.search(name)
    ):
        raise InvalidCase("a collection needs a name of 1-200 characters", "type a short name")
    return name.strip()


def validate_collection(col: Collection) -> Collection:
    """The collection normalised (name trimmed, times as floats), or InvalidCase saying what is
    wrong: the store calls this on every collection an import writes."""
    _check_id("collection", col.id)
    name = check_collection_name(col.name)
    _check_text("description", col.description)
    if isinstance(col.case_ids, str) or not isinstance(col.case_ids, tuple | list):
        raise InvalidCase("case_ids must be a list of case ids")
    seen: set[str] = set()
    for cid in col.case_ids:
        _check_id("case", cid)
        if cid in seen:
            raise InvalidCase(f"case {cid} is listed twice", "list each case once")
        seen.add(cid)
    _check_time("created_at", col.created_at)
    _check_time("updated_at", col.updated_at)
    if isinstance(col.version, bool) or not isinstance(col.version, int) or col.version < 1:
        raise InvalidCase("version must be a whole number >= 1")
    return replace(
        col,
        name=name,
        case_ids=tuple(col.case_ids),
        created_at=float(col.created_at),
        updated_at=float(col.updated_at),
    )


def same_collection(a: Collection, b: Collection) -> bool:
    """Equal in everything but the version counter (what an import compares)."""
    return replace(a, version=0) == replace(b, version=0)


def collection_to_dict(col: Collection) -> dict[str, Any]:
    """A collection line of the JSONL export (`type` tells it from a case line)."""
    return {
        "type": COLLECTION_TYPE,
        "id": col.id,
        "name": col.name,
        "description": col.description,
        "case_ids": list(col.case_ids),
        "created_at": col.created_at,
        "updated_at": col.updated_at,
        "version": col.version,
    }


def collection_from_dict(d: Mapping[str, Any]) -> Collection:
    """The inverse of `collection_to_dict` (`description` and `version` may be left out),
    strict about types (ValueError naming the field); then validated (InvalidCase)."""
    case_ids = _typed(d, "case_ids", (list,))
    if not all(isinstance(c, str) for c in case_ids):
        raise ValueError("field 'case_ids' must be a list of case ids (text)")
    return validate_collection(
        Collection(
            id=_typed(d, "id", (str,)),
            name=_typed(d, "name", (str,)),
            description=_typed({"description": "", **d}, "description", (str,)),
            case_ids=tuple(case_ids),
            created_at=_typed(d, "created_at", (int, float)),
            updated_at=_typed(d, "updated_at", (int, float)),
            version=_typed({"version": 1, **d}, "version", (int,)),
        )
    )
