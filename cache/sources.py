"""The one place that turns "dataset + Hub-relative file" into a local path, for any source.

Sources:
- ``sample``: the deterministic generated sample (built on first use into the cache folder);
- ``hub``: the Hugging Face Hub through ``huggingface_hub`` into the standard HF cache
  (respects ``HF_HUB_OFFLINE``; downloads only the file asked for);
- ``local``: a folder laid out exactly like the Hub repo (e.g. a mounted copy).

Presets come from the environment so a deployment can point at mounted data:
``RTE_<DATASET>_SOURCE`` (sample|hub|local), ``RTE_<DATASET>_REPO``, ``RTE_<DATASET>_REVISION``,
``RTE_<DATASET>_PATH``; e.g. ``RTE_MARS_SOURCE=local RTE_MARS_PATH=/mnt/mars``.

A shared server limits what visitors may open with ``RTE_ALLOWED_ROOTS`` and
``RTE_ALLOWED_REPOS`` (`cache.access`); every local folder, file and Hub repo is checked here, the
one place that opens them, before anything says whether it exists.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Literal
from urllib.parse import urlparse

from cache.access import check_inside_roots, check_local_path, check_repo, is_inside_roots
from cache.datasets import DATASETS, DatasetInfo
from cache.errors import CacheUnwritable, HubFileMissing, HubUnavailable, SourceNotFound
from cache.paths import cache_root
from cache.progress import ProgressFn
from cache.sample import ensure_sample

SourceKind = Literal["sample", "hub", "local"]
SOURCE_KINDS: tuple[SourceKind, ...] = ("sample", "hub", "local")
SOURCE_LABELS = {"sample": "Bundled sample", "hub": "Hugging Face Hub", "local": "Local folder"}


@dataclass(frozen=True)
class SourceConfig:
    """Where one dataset comes from. Hashable: usable as a cache key."""

    kind: SourceKind = "sample"
    repo_id: str = ""
    revision: str = "main"
    local_path: str = ""

    def describe(self) -> str:
        if self.kind == "hub":
            return f"Hugging Face Hub · {self.repo_id}@{self.revision}"
        if self.kind == "local":
            return f"Local folder · {self.local_path}"
        return "Bundled sample (generated, offline)"


def dataset_info(dataset: str) -> DatasetInfo:
    try:
        return DATASETS[dataset]
    except KeyError:
        raise SourceNotFound(
            f"unknown dataset {dataset!r}", f"known datasets: {', '.join(DATASETS)}"
        ) from None


def default_source(dataset: str, environ: dict[str, str] | None = None) -> SourceConfig:
    """The preset for a dataset: environment variables, else the bundled sample."""
    env = os.environ if environ is None else environ
    info = dataset_info(dataset)
    prefix = f"RTE_{dataset.upper()}_"
    kind = env.get(prefix + "SOURCE", "").strip().lower()
    path = env.get(prefix + "PATH", "").strip()
    if kind not in SOURCE_KINDS:
        kind = "local" if path else "sample"
    return SourceConfig(
        kind=kind,  # type: ignore[arg-type]  # checked against SOURCE_KINDS just above
        repo_id=env.get(prefix + "REPO", "").strip() or info.default_repo,
        revision=env.get(prefix + "REVISION", "").strip() or "main",
        local_path=path,
    )


# ---------------------------------------------------------------------------------- resolution


def resolve_file(
    dataset: str, relpath: str, source: SourceConfig, progress: ProgressFn | None = None
) -> Path:
    """Local path of `relpath` (Hub-relative) of `dataset` under `source`; raises DataError."""
    info = dataset_info(dataset)
    relpath = _clean_relpath(relpath)
    if source.kind == "sample":
        root = _sample(dataset, progress)
        return _existing(root, relpath, info, "the bundled sample", hint_rebuild=True)
    if source.kind == "local":
        root = _local_root(source)
        return _existing(root, relpath, info, f"folder {source.local_path}", checked=True)
    if source.kind == "hub":
        return _hub_download(info, relpath, source)
    raise SourceNotFound(f"unknown source kind {source.kind!r}", "choose sample, hub or local")


def dataset_root(dataset: str, source: SourceConfig) -> Path | None:
    """The local folder that mirrors the repo, when there is one (sample, local, cached Hub)."""
    if source.kind == "sample":
        return _sample(dataset, None)
    if source.kind == "local":
        return _local_root(source)
    return _hub_snapshot_dir(dataset_info(dataset), source)


def _sample(dataset: str, progress: ProgressFn | None) -> Path:
    """The bundled sample, built on first use; a read-only or full cache folder says so."""
    try:
        return ensure_sample(dataset, progress=progress)
    except OSError as exc:
        raise CacheUnwritable(
            f"the {dataset} sample cannot be generated in {cache_root()}: "
            f"{exc.strerror or type(exc).__name__}",
            "point RTE_CACHE_DIR at a writable folder with ~100 MB free, "
            "or run `python -m cache sample` once where it is writable",
        ) from None


def available_files(dataset: str, source: SourceConfig, pattern: str = "*") -> list[str]:
    """Hub-relative files present locally for this source that match a glob (no download)."""
    root = dataset_root(dataset, source)
    if root is None or not root.exists():
        return []
    found = []
    confined = source.kind == "local"
    for p in root.rglob("*"):
        if (p.is_file() or p.is_symlink()) and (not confined or is_inside_roots(p)):
            rel = p.relative_to(root).as_posix()
            if fnmatch.fnmatch(rel, pattern):
                found.append(rel)
    return sorted(found)


def _clean_relpath(relpath: str) -> str:
    rel = relpath.replace("\\", "/").lstrip("/")
    if not rel or any(part in ("..", "") for part in rel.split("/")):
        raise SourceNotFound(
            f"invalid file path {relpath!r}", "use a path relative to the repo root"
        )
    return rel


def _local_root(source: SourceConfig) -> Path:
    if not source.local_path:
        raise SourceNotFound(
            "no local folder given", "enter the folder that mirrors the Hub repo in the sidebar"
        )
    root = check_local_path(source.local_path)  # refused before any existence check
    try:
        exists, is_dir = root.exists(), root.is_dir()
    except OSError as exc:  # a name too long for the file system, a permission denied, ...
        raise SourceNotFound(
            f"folder {source.local_path[:200]} cannot be opened ({exc.strerror})",
            "check the path, or switch back to the bundled sample in the sidebar",
        ) from None
    if not exists:
        raise SourceNotFound(
            f"folder {source.local_path} does not exist",
            "check the path, or switch back to the bundled sample in the sidebar",
        )
    if not is_dir:
        raise SourceNotFound(
            f"{source.local_path} is a file, not a folder", "give the repo's root folder"
        )
    return root


def _existing(
    root: Path,
    relpath: str,
    info: DatasetInfo,
    where: str,
    hint_rebuild: bool = False,
    checked: bool = False,
) -> Path:
    path = root / relpath
    if checked:  # a symlink inside an allowed folder may still point out of it
        check_inside_roots(path)
    if path.is_file():
        return path
    expected = ", ".join(info.files)
    hint = (
        "run `python -m cache sample` to rebuild the sample"
        if hint_rebuild
        else f"the folder must be laid out like the Hub repo {info.default_repo} ({expected})"
    )
    raise SourceNotFound(f"{relpath} is missing in {where}", hint)


def _hub() -> ModuleType:
    """`huggingface_hub` with its `constants` and `errors` submodules loaded, on first use: it is
    a slow import (httpx) that reads the HF_* settings once, and the sample and local sources
    never need it. Attributes are looked up at call time (tests replace `hf_hub_download`)."""
    from huggingface_hub import constants, errors  # noqa: F401  # why here: slow, reads HF_* once

    return sys.modules["huggingface_hub"]


def _hub_download(info: DatasetInfo, relpath: str, source: SourceConfig) -> Path:
    hub = _hub()

    repo = source.repo_id or info.default_repo
    rev = source.revision or "main"
    check_repo(repo, rev)
    back = "switch to the bundled sample in the sidebar"
    # huggingface_hub retries a refused connection for ~20 s; probe once, then use the cache only
    local_only = not hub_offline() and not hub_reachable()
    try:
        return Path(
            hub.hf_hub_download(
                repo, relpath, repo_type="dataset", revision=rev, local_files_only=local_only
            )
        )
    except hub.errors.RepositoryNotFoundError:
        raise HubUnavailable(
            f"dataset repo {repo} was not found on the Hub", f"check the repo id, or {back}"
        ) from None
    except hub.errors.RevisionNotFoundError:
        raise HubUnavailable(
            f"revision {rev!r} does not exist in {repo}", f"use 'main' or a valid commit, or {back}"
        ) from None
    except hub.errors.RemoteEntryNotFoundError:
        raise HubFileMissing(
            f"{relpath} does not exist in {repo}@{rev}", f"is this the right repo? Or {back}"
        ) from None
    except hub.errors.LocalEntryNotFoundError:
        offline = hub_offline()
        why = (
            "HF_HUB_OFFLINE is set and the file is not in the HF cache"
            if offline
            else "the Hub could not be reached and the file is not in the HF cache"
        )
        raise HubUnavailable(
            f"cannot get {relpath} from {repo}@{rev}: {why}",
            f"run `python -m cache fetch` where there is network, or {back}",
        ) from None
    except hub.errors.GatedRepoError:
        raise HubUnavailable(
            f"{repo} is gated", f"log in with `hf auth login` after accepting its terms, or {back}"
        ) from None
    except OSError as exc:
        if exc.errno in _UNWRITABLE:
            raise _hf_cache_unwritable(exc) from None
        raise HubUnavailable(
            f"the Hub could not serve {relpath} from {repo}@{rev}: {type(exc).__name__}", back
        ) from None
    except (hub.errors.HfHubHTTPError, ValueError) as exc:
        raise HubUnavailable(
            f"the Hub could not serve {relpath} from {repo}@{rev}: {type(exc).__name__}", back
        ) from None
    except Exception as exc:  # network stacks raise their own families (httpx, ssl, ...)
        raise HubUnavailable(f"the Hub is unreachable ({type(exc).__name__})", back) from None


_UNWRITABLE = (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT)


def _hf_cache_unwritable(exc: OSError) -> CacheUnwritable:
    hub = _hub()

    why = "is full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "is not writable"
    return CacheUnwritable(
        f"the Hugging Face cache {hub.constants.HF_HUB_CACHE} {why}, so nothing can be downloaded",
        "set HF_HOME (or HF_HUB_CACHE) to a writable folder with space; files already in the "
        "cache and the bundled sample keep working",
    )


# endpoint -> (checked at, reachable). Process-wide on purpose: reachability is a fact about the
# server's network, the same for every session; a lock keeps concurrent sessions consistent.
_REACHABLE: dict[str, tuple[float, bool]] = {}
_REACHABLE_LOCK = threading.Lock()


def hub_reachable(timeout: float = 3.0, ttl: float = 30.0) -> bool:
    """Can we open a TCP connection to the Hub endpoint? (cached for `ttl` seconds)"""
    hub = _hub()

    url = urlparse(hub.constants.ENDPOINT)
    host = url.hostname or "huggingface.co"
    port = url.port or (443 if url.scheme == "https" else 80)
    key = f"{host}:{port}"
    now = time.monotonic()
    with _REACHABLE_LOCK:
        seen = _REACHABLE.get(key)
    if seen is not None and now - seen[0] < ttl:
        return seen[1]
    try:
        with socket.create_connection((host, port), timeout=timeout):
            ok = True
    except OSError:
        ok = False
    with _REACHABLE_LOCK:
        _REACHABLE[key] = (now, ok)
    return ok


def hub_offline() -> bool:
    """True when HF_HUB_OFFLINE (or huggingface_hub's own switch) forbids network access."""
    hub = _hub()

    return bool(hub.is_offline_mode())


def _hub_snapshot_dir(info: DatasetInfo, source: SourceConfig) -> Path | None:
    """The HF-cache snapshot folder of repo@revision, if anything of it is cached (no network)."""
    hub = _hub()

    repo = source.repo_id or info.default_repo
    check_repo(repo, source.revision or "main")
    repo_dir = Path(hub.constants.HF_HUB_CACHE) / f"datasets--{repo.replace('/', '--')}"
    rev = source.revision or "main"
    ref = repo_dir / "refs" / rev
    commit = ref.read_text().strip() if ref.is_file() else rev
    snap = repo_dir / "snapshots" / commit
    return snap if snap.is_dir() else None


def fetch_files(
    dataset: str,
    source: SourceConfig,
    patterns: list[str] | None = None,
    progress: ProgressFn | None = None,
) -> Path:
    """Download (a subset of) a dataset repo into the HF cache, one file at a time so the bar
    moves per file (`python -m cache fetch`). Returns the snapshot folder."""
    hub = _hub()

    info = dataset_info(dataset)
    repo = source.repo_id or info.default_repo
    rev = source.revision or "main"
    check_repo(repo, rev)
    hint = "check the network, the repo id and HF_HUB_OFFLINE; the bundled sample always works"
    if hub_offline() or not hub_reachable():
        why = "HF_HUB_OFFLINE is set" if hub_offline() else "the Hub is unreachable"
        raise HubUnavailable(f"could not fetch {repo}@{rev}: {why}", hint)
    try:
        names = hub.HfApi().list_repo_files(repo, repo_type="dataset", revision=rev)
        wanted = [n for n in names if not patterns or any(fnmatch.fnmatch(n, g) for g in patterns)]
        last = None
        for i, name in enumerate(wanted):
            if progress:
                progress(i / max(len(wanted), 1), name)
            last = Path(hub.hf_hub_download(repo, name, repo_type="dataset", revision=rev))
    except OSError as exc:
        if exc.errno in _UNWRITABLE:
            raise _hf_cache_unwritable(exc) from None
        raise HubUnavailable(f"could not fetch {repo}@{rev}: {type(exc).__name__}", hint) from None
    except Exception as exc:
        raise HubUnavailable(f"could not fetch {repo}@{rev}: {type(exc).__name__}", hint) from None
    if progress:
        progress(1.0, f"{len(wanted)} files")
    if last is None:
        raise HubUnavailable(
            f"no file of {repo}@{rev} matches {patterns}", "check the --include globs"
        )
    return last.parents[len(Path(wanted[-1]).parts) - 1]


def hf_cache_usage(repos: list[str]) -> list[tuple[str, int, int]]:
    """(repo id, files, bytes) of the given dataset repos in the local HF cache (no network)."""
    hub = _hub()

    try:
        scanned = hub.scan_cache_dir()
    except Exception:  # no cache folder yet, or an unreadable one: nothing cached
        return []
    return [
        (r.repo_id, r.nb_files, r.size_on_disk)
        for r in scanned.repos
        if r.repo_type == "dataset" and r.repo_id in repos
    ]
