"""Allowed roots and repos: every way out of a root is refused with one message; unset, as before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cache import access
from cache.errors import SourceNotFound, SourceRefused
from cache.sources import SourceConfig, available_files, dataset_root, resolve_file

REL = "Qwen3-32B/aime25.parquet"


@pytest.fixture()
def roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """An allowed root holding a MARS-like folder, and a sibling folder outside it."""
    allowed = tmp_path / "allowed"
    inside = allowed / "mars"
    (inside / "Qwen3-32B").mkdir(parents=True)
    (inside / REL).write_bytes(b"x")
    outside = tmp_path / "secret"
    (outside / "Qwen3-32B").mkdir(parents=True)
    (outside / REL).write_bytes(b"y")
    other = tmp_path / "other-root"
    other.mkdir()
    monkeypatch.setenv(access.ROOTS_ENV, os.pathsep.join([str(allowed), str(other)]))
    monkeypatch.delenv(access.REPOS_ENV, raising=False)
    return {"allowed": allowed, "inside": inside, "outside": outside, "other": other}


def _local(path: str | Path) -> SourceConfig:
    return SourceConfig(kind="local", local_path=str(path))


def _refusal(path: str | Path) -> tuple[str, str]:
    with pytest.raises(SourceRefused) as err:
        resolve_file("mars", REL, _local(path))
    return err.value.message, err.value.hint


def test_inside_an_allowed_root_resolves(roots: dict[str, Path]) -> None:
    assert resolve_file("mars", REL, _local(roots["inside"])).read_bytes() == b"x"
    assert available_files("mars", _local(roots["inside"])) == [REL]


def test_second_root_is_allowed_too(roots: dict[str, Path]) -> None:
    assert dataset_root("mars", _local(roots["other"])) == roots["other"].resolve()


@pytest.mark.parametrize(
    "how",
    [
        "absolute",
        "dotdot",
        "dotdot-trailing",
        "symlink-dir",
        "relative",
        "percent-encoded",
        "prefix-sibling",
        "root-of-fs",
        "etc",
    ],
)
def test_ways_out_of_a_root_are_refused(
    roots: dict[str, Path], tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    allowed, outside = roots["allowed"], roots["outside"]
    if how == "symlink-dir":
        (allowed / "link").symlink_to(outside, target_is_directory=True)
    if how == "prefix-sibling":  # /x/allowed-evil is not inside /x/allowed
        (tmp_path / "allowed-evil").mkdir()
    monkeypatch.chdir(tmp_path)
    path = {
        "absolute": str(outside),
        "dotdot": f"{allowed}/../secret",
        "dotdot-trailing": f"{allowed}/mars/../../secret/",
        "symlink-dir": str(allowed / "link"),
        "relative": "secret",
        "percent-encoded": "%2Fetc",  # never decoded again: a relative name, outside any root
        "prefix-sibling": str(tmp_path / "allowed-evil"),
        "root-of-fs": "/",
        "etc": "/etc",
    }[how]
    _refusal(path)


def test_home_folder_shortcut_is_resolved_first(
    roots: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(roots["allowed"]))
    assert resolve_file("mars", REL, _local("~/mars")).read_bytes() == b"x"
    monkeypatch.setenv("HOME", str(roots["outside"].parent))
    _refusal("~/secret")


def test_symlinked_file_leaving_the_root_is_refused(roots: dict[str, Path]) -> None:
    target = roots["inside"] / "Qwen3-32B" / "hmmt.parquet"
    target.symlink_to(roots["outside"] / REL)
    with pytest.raises(SourceRefused):
        resolve_file("mars", "Qwen3-32B/hmmt.parquet", _local(roots["inside"]))
    assert "Qwen3-32B/hmmt.parquet" not in available_files("mars", _local(roots["inside"]))


def test_symlink_staying_inside_is_fine(roots: dict[str, Path]) -> None:
    (roots["allowed"] / "alias").symlink_to(roots["inside"], target_is_directory=True)
    assert resolve_file("mars", REL, _local(roots["allowed"] / "alias")).read_bytes() == b"x"


def test_one_message_whether_or_not_the_path_exists(roots: dict[str, Path]) -> None:
    existing = _refusal(roots["outside"])
    missing = _refusal(roots["outside"] / "no-such-folder")
    a_file = _refusal(roots["outside"] / REL)
    long = _refusal("/" + "a" * 5000)
    nul = _refusal(f"{roots['outside']}\x00")
    loop = roots["outside"] / "loop"
    loop.symlink_to(loop)
    looped = _refusal(loop)
    assert existing == missing == a_file == long == nul == looped
    assert str(roots["outside"]) not in existing[0] + existing[1]


def test_very_long_path_inside_a_root_is_refused_not_crashed(roots: dict[str, Path]) -> None:
    _refusal(str(roots["allowed"]) + "/x" * 3000)
    deep = str(roots["allowed"]) + "/" + "b" * 300  # one name longer than NAME_MAX
    with pytest.raises(SourceNotFound):
        resolve_file("mars", REL, _local(deep))


def test_unset_behaves_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(access.ROOTS_ENV, raising=False)
    (tmp_path / "Qwen3-32B").mkdir()
    (tmp_path / REL).write_bytes(b"z")
    link = tmp_path / "dir-link"
    link.symlink_to(tmp_path, target_is_directory=True)
    assert resolve_file("mars", REL, _local(link)).read_bytes() == b"z"
    with pytest.raises(SourceNotFound) as err:
        resolve_file("mars", REL, _local(tmp_path / "nope"))
    assert "does not exist" in err.value.message and not isinstance(err.value, SourceRefused)


@pytest.mark.parametrize(
    ("repo", "ok"),
    [
        ("wenbochen111/MARS", True),
        ("my-org/anything", True),
        ("my-org-evil/x", False),
        ("someone/else", False),
        ("MY-ORG/x", False),  # matching is case-sensitive, as repo ids are
    ],
)
def test_hub_repos_must_match_a_pattern(
    monkeypatch: pytest.MonkeyPatch, repo: str, ok: bool
) -> None:
    monkeypatch.setenv(access.REPOS_ENV, "wenbochen111/MARS, my-org/*")
    if ok:
        access.check_repo(repo, "main")
    else:
        with pytest.raises(SourceRefused):
            access.check_repo(repo, "main")


def test_refused_repo_never_reaches_the_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    monkeypatch.setenv(access.REPOS_ENV, "wenbochen111/*")

    def boom(*a: object, **k: object) -> None:
        raise AssertionError("the Hub was asked")

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", boom)
    with pytest.raises(SourceRefused):
        resolve_file("mars", REL, SourceConfig(kind="hub", repo_id="evil/exfil"))
    with pytest.raises(SourceRefused):  # nor is the HF cache looked at for it
        dataset_root("mars", SourceConfig(kind="hub", repo_id="evil/exfil"))


@pytest.mark.parametrize("rev", ["../../../../etc", "a/../b", "/abs", "x y", ""])
def test_revisions_cannot_walk_the_hf_cache(rev: str) -> None:
    with pytest.raises(SourceRefused):
        access.check_repo("wenbochen111/MARS", rev)


@pytest.mark.parametrize("repo", ["../x", "a/b/c", "/etc", "a b/c", "x" * 300])
def test_malformed_repo_ids_are_refused(repo: str) -> None:
    with pytest.raises(SourceRefused):
        access.check_repo(repo, "main")


def test_locked_profile_switch() -> None:
    assert access.locked({"RTE_PROFILE": "locked"}) and access.locked({"RTE_PROFILE": " Locked "})
    assert not access.locked({}) and not access.locked({"RTE_PROFILE": "dev"})
