"""`python -m cache {sample,fetch,warm,info,clear}`: the data chores, each with a progress bar.

Sources follow the same presets as the app (RTE_<DATASET>_SOURCE / _REPO / _REVISION / _PATH).
"""

from __future__ import annotations

import argparse
import shutil
import sys

from cache.datasets import DATASETS
from cache.errors import run_command
from cache.inventory import human_size
from cache.paths import cache_root, derived_dir, sample_dir
from cache.progress import tqdm_progress
from cache.sample import build_all, folder_size, sample_root
from cache.sources import default_source, fetch_files, hf_cache_usage
from cache.warmers import warmer


def _datasets(arg: str) -> list[str]:
    return list(DATASETS) if arg == "all" else [arg]


def cmd_sample(args: argparse.Namespace) -> int:
    with tqdm_progress("sample") as bar:
        timings = build_all(progress=bar, force=args.force)
    for name, secs in timings.items():
        print(
            f"{name:<11} {secs:6.1f} s  {human_size(folder_size(sample_root(name)))}  {sample_root(name)}"
        )
    return 0


def cmd_fetch(args: argparse.Namespace) -> int:
    for name in _datasets(args.dataset):
        src = default_source(name)
        if args.repo:
            src = type(src)(kind="hub", repo_id=args.repo, revision=args.revision or src.revision)
        patterns = args.include or None
        with tqdm_progress(f"fetch {name}") as bar:
            path = fetch_files(name, src, patterns, progress=bar)
        print(f"{name}: {path}")
    return 0


def cmd_warm(args: argparse.Namespace) -> int:
    for name in _datasets(args.dataset):
        warm = warmer(name)
        with tqdm_progress(f"warm {name}") as bar:
            paths = warm(default_source(name), progress=bar)
        for p in paths:
            size = human_size(p.stat().st_size) if p.exists() else "removed meanwhile"
            print(f"{name}: {p.name} ({size})")
    return 0


def cmd_info(_args: argparse.Namespace) -> int:
    root = cache_root()
    print(f"cache folder: {root}  (set RTE_CACHE_DIR to move it)")
    for name in DATASETS:
        print(f"{name:<11} source: {default_source(name).describe()}")
    samples = sample_dir()
    size = (
        sum(p.stat().st_size for p in samples.rglob("*") if p.is_file()) if samples.exists() else 0
    )
    print(f"sample:  {human_size(size)}  {samples}")
    repos = sorted({default_source(n).repo_id for n in DATASETS})
    usage = hf_cache_usage(repos)
    print(f"HF cache: {len(usage)} of the configured repos present")
    for repo, files, size in usage:
        print(f"  {human_size(size):>10}  {repo} ({files} files)")
    tables = sorted(derived_dir().glob("*.parquet"))
    total = sum(p.stat().st_size for p in tables)
    print(f"derived: {len(tables)} tables, {human_size(total)}")
    for p in tables:
        print(f"  {human_size(p.stat().st_size):>10}  {p.name}")
    return 0


def cmd_clear(args: argparse.Namespace) -> int:
    targets = [derived_dir()] + ([sample_dir()] if args.all else [])
    for t in targets:
        if t.exists():
            shutil.rmtree(t)
            print(f"removed {t}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cache", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("sample", help="build the bundled sample")
    p.add_argument("--force", action="store_true", help="rebuild even if present")
    p.set_defaults(func=cmd_sample)
    p = sub.add_parser("fetch", help="download from the Hub into the HF cache")
    p.add_argument("dataset", choices=[*DATASETS, "all"])
    p.add_argument("--repo", help="override the repo id")
    p.add_argument("--revision", help="branch, tag or commit")
    p.add_argument("--include", action="append", help="glob of files to fetch (repeatable)")
    p.set_defaults(func=cmd_fetch)
    p = sub.add_parser("warm", help="build the derived tables")
    p.add_argument("dataset", nargs="?", default="all", choices=[*DATASETS, "all"])
    p.set_defaults(func=cmd_warm)
    p = sub.add_parser("info", help="what is cached, and how big")
    p.set_defaults(func=cmd_info)
    p = sub.add_parser("clear", help="delete derived tables (--all: and the sample)")
    p.add_argument("--all", action="store_true")
    p.set_defaults(func=cmd_clear)
    args = parser.parse_args(argv)
    return run_command(args.func, args)


if __name__ == "__main__":
    sys.exit(main())
