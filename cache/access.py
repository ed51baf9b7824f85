"""What a server lets its visitors open: allowed folders and Hub repos, and the locked profile.

A laptop sets nothing and may open any folder or repo. A shared server sets
- `RTE_ALLOWED_ROOTS`: folders (separated by `os.pathsep`) that local sources must lie inside,
  judged on the real path (symlinks, `..` and `~` resolved first);
- `RTE_ALLOWED_REPOS`: Hub dataset repo ids, glob patterns allowed (`my-org/*`), comma- or
  whitespace-separated;
- `RTE_PROFILE=locked`: the sources come only from the environment presets; the sidebar shows
  them read-only and ignores the URL's `src_*` keys.

A refusal is one message whatever the reason (outside the roots, a path that does not exist, too
long, a NUL byte), so a visitor cannot learn from it whether a path exists.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from cache.errors import SourceRefused

ROOTS_ENV = "RTE_ALLOWED_ROOTS"
REPOS_ENV = "RTE_ALLOWED_REPOS"
PROFILE_ENV = "RTE_PROFILE"
MAX_PATH_CHARS = 1024  # longer text is refused before it reaches the file system

_REFUSED_PATH = SourceRefused(
    "this server does not open that local folder",
    "local sources are limited to the folders its operator allowed (RTE_ALLOWED_ROOTS); "
    "pick another source, or ask whoever runs the server",
)
# Hub repo ids: "name" or "owner/name" with the Hub's characters; revisions: git ref characters
_REPO_ID = re.compile(r"^(?:[A-Za-z0-9][\w.-]{0,95}/)?[A-Za-z0-9][\w.-]{0,95}$")
_REVISION = re.compile(r"^[\w.][\w./-]{0,199}$")


def locked(environ: dict[str, str] | None = None) -> bool:
    """`RTE_PROFILE=locked`: sources only from configuration, shown read-only."""
    env = os.environ if environ is None else environ
    return env.get(PROFILE_ENV, "").strip().lower() == "locked"


def allowed_roots(environ: dict[str, str] | None = None) -> list[Path] | None:
    """The real paths of the allowed folders; None when unrestricted."""
    env = os.environ if environ is None else environ
    raw = env.get(ROOTS_ENV, "").strip()
    if not raw:
        return None
    roots = [Path(os.path.realpath(Path(p.strip()).expanduser())) for p in raw.split(os.pathsep)]
    return [r for r in roots if str(r) not in ("", ".")]


def allowed_repo_patterns(environ: dict[str, str] | None = None) -> list[str] | None:
    """Glob patterns of allowed Hub repo ids; None when unrestricted."""
    env = os.environ if environ is None else environ
    raw = env.get(REPOS_ENV, "").strip()
    if not raw:
        return None
    return [p for p in re.split(r"[,\s]+", raw) if p]


def refused_path() -> SourceRefused:
    """The one refusal for a local folder (identical for every reason)."""
    return SourceRefused(_REFUSED_PATH.message, _REFUSED_PATH.hint)


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def check_local_path(text: str, environ: dict[str, str] | None = None) -> Path:
    """The folder a local source names, as the path to open.

    Unrestricted: `~` expanded, as before. Restricted: the real path (symlinks and `..`
    resolved, a relative path taken from the working folder) must lie inside an allowed root,
    else `SourceRefused`, raised before anything reveals whether the path exists."""
    roots = allowed_roots(environ)
    if roots is None:
        return Path(text).expanduser()
    if not text or len(text) > MAX_PATH_CHARS or "\x00" in text:
        raise refused_path()
    try:
        real = Path(os.path.realpath(Path(text).expanduser()))
    except (OSError, RuntimeError, ValueError):  # symlink loops, unknown ~user, odd bytes
        raise refused_path() from None
    if not _inside(real, roots):
        raise refused_path()
    return real


def check_inside_roots(path: Path, environ: dict[str, str] | None = None) -> Path:
    """A file found under an allowed folder must still be inside one after its own symlinks."""
    roots = allowed_roots(environ)
    if roots is None:
        return path
    try:
        real = Path(os.path.realpath(path))
    except (OSError, RuntimeError, ValueError):
        raise refused_path() from None
    if not _inside(real, roots):
        raise refused_path()
    return path


def is_inside_roots(path: Path, environ: dict[str, str] | None = None) -> bool:
    """`check_inside_roots` as a test (for listings)."""
    try:
        check_inside_roots(path, environ)
    except SourceRefused:
        return False
    return True


def check_repo(repo_id: str, revision: str, environ: dict[str, str] | None = None) -> None:
    """A Hub repo id and revision must be well formed, and the repo allowed when a list is set."""
    if not _REPO_ID.match(repo_id):
        raise SourceRefused(
            "that is not a Hub dataset repo id", "write it as owner/name, e.g. wenbochen111/MARS"
        )
    if not _REVISION.match(revision) or ".." in revision or "//" in revision:
        raise SourceRefused(
            "that is not a branch, tag or commit name", "use 'main', a tag or a commit hash"
        )
    patterns = allowed_repo_patterns(environ)
    if patterns is not None and not any(fnmatch.fnmatchcase(repo_id, p) for p in patterns):
        raise SourceRefused(
            "this server does not open that Hub repo",
            "Hub sources are limited to the repos its operator allowed (RTE_ALLOWED_REPOS); "
            "pick another source, or ask whoever runs the server",
        )
