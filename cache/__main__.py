"""`python -m cache {sample,fetch,warm,info,clear,casebook}`: the data chores, each with a progress
bar, and the casebook (list; export as JSONL with collections, CSV, Parquet, the HTML report or
FineProofs step labels; import).

Sources follow the same presets as the app (RTE_<DATASET>_SOURCE / _REPO / _REVISION / _PATH).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Literal

from cache.casebook import (
    Case,
    Collection,
    NotFound,
    case_datasets,
    case_to_dict,
    deep_link,
    open_store,
)
from cache.casebook.io import (
    export_casebook,
    export_cases,
    format_of,
    import_cases,
    labels_bytes,
    step_labels,
)
from cache.casebook.report import report_html
from cache.datasets import DATASETS
from cache.derived_tables import describe
from cache.errors import DataError, SourceNotFound, run_command
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
        absent = list(getattr(paths, "absent", []))
        if absent:
            shown = ", ".join(absent[:9]) + (
                f" and {len(absent) - 9} more" if len(absent) > 9 else ""
            )
            print(
                f"note: {name}: {len(absent)} file(s) not in {default_source(name).describe()}, "
                f"skipped: {shown}",
                file=sys.stderr,
            )
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
    print("derived tables (cache.derived_tables: name, version, dataset, inputs, builder):")
    for line in describe():
        print(line)
    print(f"derived: {len(tables)} tables, {human_size(total)}")
    for p in tables:
        print(f"  {human_size(p.stat().st_size):>10}  {p.name}")
    memos = [*derived_dir().glob("*.json"), *derived_dir().glob("*.sqlite")]
    for p in sorted(memos):  # memos of the builders (e.g. the MARS answer memo)
        print(f"memo: {human_size(p.stat().st_size):>10}  {p.name}")
    return 0


def cmd_clear(args: argparse.Namespace) -> int:
    targets = [derived_dir()] + ([sample_dir()] if args.all else [])
    for t in targets:
        if t.exists():
            shutil.rmtree(t)
            print(f"removed {t}")
    return 0


def _selected(args: argparse.Namespace) -> list[Case]:
    store = open_store()
    try:
        return store.list_cases(dataset=args.dataset, tags=args.tag or ())
    finally:
        store.close()


def cmd_casebook_list(args: argparse.Namespace) -> int:
    cases = _selected(args)
    if args.json:
        print(json.dumps([{**case_to_dict(c), "deep_link": deep_link(c)} for c in cases]))
        return 0
    for c in cases:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(c.updated_at))
        tags = f"  [{', '.join(c.tags)}]" if c.tags else ""
        verdict = f"  ({c.verdict})" if c.verdict else ""
        print(f"{c.id[:8]}  {c.dataset:<10}  {when}  {c.title}{verdict}{tags}")
    print(f"{len(cases)} case(s)", file=sys.stderr)
    return 0


ExportFormat = Literal["jsonl", "csv", "parquet", "html"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("jsonl", "csv", "parquet", "html")
_EXPORT_EXT: dict[str, ExportFormat] = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".html": "html",
    ".htm": "html",
}


def _export_format(args: argparse.Namespace) -> ExportFormat:
    """--format, else the output file's extension."""
    fmt: ExportFormat | None = args.format or _EXPORT_EXT.get(args.out.suffix.lower())
    if fmt is None:
        raise DataError(
            f"cannot tell the format of {args.out} from its extension",
            "name it .jsonl, .csv, .parquet or .html, or pass --format",
        )
    if args.labels and fmt == "html":
        raise DataError(
            "step labels are a table: --labels writes csv, jsonl or parquet, not html",
            "pass --format csv, jsonl or parquet (or name the file .csv, .jsonl, .parquet)",
        )
    return fmt


def _export_set(args: argparse.Namespace) -> tuple[list[Case], list[Collection], str, str]:
    """(cases, collections, title, description): a collection's live cases in its order, or
    the filtered cases with every collection that holds one of them (all when unfiltered)."""
    store = open_store()
    try:
        if not args.collection:
            cases = store.list_cases(dataset=args.dataset, tags=args.tag or ())
            ids = {c.id for c in cases}
            every = not (args.dataset or args.tag)
            cols = [c for c in store.collections() if every or ids.intersection(c.case_ids)]
            return cases, cols, f"Casebook: {len(cases)} case(s)", ""
        col = store.find_collection(args.collection)
        if col is None:
            raise NotFound(
                f"no collection named {args.collection!r}",
                "`python -m cache casebook list` shows the cases; pass a collection name or id",
            )
        cases = [c for c in map(store.get, col.case_ids) if c is not None and not c.deleted]
        return cases, [col], col.name, col.description
    finally:
        store.close()


def _export_bytes(args: argparse.Namespace, fmt: ExportFormat) -> tuple[bytes, str]:
    """The file's bytes and what it holds, in words."""
    cases, cols, title, description = _export_set(args)
    if fmt == "html":
        html = report_html(cases, title, description, maths=args.maths)
        return html.encode("utf-8"), f"{len(cases)} case(s)"
    if args.labels:
        labels = step_labels(cases)
        if labels.no_step_index:
            print(f"note: {labels.no_step_index} case(s) skipped: no step index", file=sys.stderr)
        return labels_bytes(labels.frame, fmt), f"{labels.frame.height} step label(s)"
    if fmt == "jsonl":
        return export_casebook(cases, cols), f"{len(cases)} case(s), {len(cols)} collection(s)"
    return export_cases(cases, fmt), f"{len(cases)} case(s)"


def cmd_casebook_export(args: argparse.Namespace) -> int:
    fmt = _export_format(args)  # before the casebook is opened: a usage error says so first
    data, what = _export_bytes(args, fmt)
    try:
        args.out.write_bytes(data)
    except OSError as exc:
        raise SourceNotFound(
            f"cannot write {args.out}: {exc.strerror}",
            "check that the folder exists and is writable",
        ) from exc
    print(f"{what} -> {args.out} ({fmt}, {human_size(len(data))})")
    return 0


def cmd_casebook_import(args: argparse.Namespace) -> int:
    fmt = args.format or format_of(str(args.file))
    try:
        data = args.file.read_bytes()
    except OSError as exc:
        raise SourceNotFound(f"cannot read {args.file}: {exc.strerror}", "check the path") from exc
    store = open_store()
    try:
        report = import_cases(store, data, fmt)
    finally:
        store.close()
    print(f"added {report.added}, updated {report.updated}, unchanged {report.unchanged}")
    if report.kept:
        print(f"{len(report.kept)} case(s) kept as stored: edited here after the file's copy")
    cols = (report.collections_added, report.collections_updated, report.collections_unchanged)
    if any(cols):
        print("collections: added {}, updated {}, unchanged {}".format(*cols))
    if report.collections_kept:
        n = len(report.collections_kept)
        print(f"{n} collection(s) kept as stored: the copy here is as recent as the file's or more")
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
    p = sub.add_parser("casebook", help="list, export or import casebook cases (RTE_DB_URL)")
    cb = p.add_subparsers(dest="casebook_command", required=True)
    formats = ("jsonl", "csv", "parquet")
    for name, helptext in (("list", "list the cases"), ("export", "write cases to a file")):
        q = cb.add_parser(name, help=helptext)
        if name == "export":
            q.add_argument("out", type=Path, help="output file")
            q.add_argument(
                "--format",
                choices=EXPORT_FORMATS,
                help="default: from the extension; jsonl also holds the collections, html is "
                "the static report",
            )
            q.add_argument("--collection", help="a collection's cases (name or id), in order")
            q.add_argument(
                "--maths",
                action="store_true",
                help="html: typeset the notes' formulas (Streamlit's KaTeX, embedded inline)",
            )
            q.add_argument(
                "--labels",
                action="store_true",
                help="FineProofs step labels (problem_id, sample_index, step_idx, "
                "prefix_ordinal, label, note, author, updated_at) as csv, jsonl or parquet",
            )
        q.add_argument("--dataset", choices=case_datasets())
        q.add_argument("--tag", action="append", help="only cases with this tag (repeatable)")
        if name == "list":
            q.add_argument("--json", action="store_true", help="JSON with every field")
        q.set_defaults(func=cmd_casebook_list if name == "list" else cmd_casebook_export)
    q = cb.add_parser("import", help="merge cases from a file (by case id)")
    q.add_argument("file", type=Path)
    q.add_argument("--format", choices=formats, help="default: from the extension")
    q.set_defaults(func=cmd_casebook_import)
    args = parser.parse_args(argv)
    return run_command(args.func, args)


if __name__ == "__main__":
    sys.exit(main())
