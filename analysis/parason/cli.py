"""`python -m analysis parason-stats PATH [--counter qwen|estimate|words] [--json]`.

PATH is a Parason ``train.parquet``, a subset folder holding one (``sft-1x/``), or the dataset
folder (every ``sft-*/train.parquet`` below it; ``rl/`` has no trajectories and is skipped).
One record per trajectory: uuid, stages, branches per stage, item kinds, block kinds, T, C,
speedup and warning codes, plus the counter that made the token figures.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from analysis.parason.store import iter_rows, record
from analysis.parason.tokens import get_counter
from cache.errors import SourceNotFound


def resolve_files(path: Path) -> list[tuple[str, Path]]:
    """(subset label, parquet path) pairs for a file, a subset folder or a dataset folder."""
    path = Path(path)
    if path.is_file():
        return [(path.parent.name, path)]
    if path.is_dir():
        if (path / "train.parquet").is_file():
            return [(path.name, path / "train.parquet")]
        found = sorted(p for p in path.glob("*/train.parquet") if p.parent.name.startswith("sft"))
        if found:
            return [(p.parent.name, p) for p in found]
        raise SourceNotFound(
            f"no train.parquet under {path}",
            "point at a Parason train.parquet, a subset folder (sft-1x) or the dataset folder",
        )
    raise SourceNotFound(
        f"{path} does not exist", "check the path (python -m cache sample builds the sample)"
    )


def _fmt(x: float) -> str:
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.2f}"


def run(args: argparse.Namespace) -> int:
    counter = get_counter(args.counter)
    out = sys.stdout
    files = resolve_files(Path(args.path))
    if not args.json:
        print(f"# token counter: {counter.name}", file=out)
    n = 0
    for subset, path in files:
        for start, rows in iter_rows(path):
            for i, row in enumerate(rows):
                if args.limit is not None and n >= args.limit:
                    return 0
                rec = record(start + i, row, counter, item_kinds=True)
                item_kinds = rec["item_kinds"]
                if args.json:
                    doc = {
                        "subset": subset,
                        "uuid": rec["uuid"],
                        "stages": rec["stages"],
                        "branches": rec["branches"],
                        "item_kinds": item_kinds,
                        "block_kinds": rec["block_kinds"],
                        "T": rec["T"],
                        "C": rec["C"],
                        "speedup": rec["speedup"],
                        "acceleration_ratio": rec["acceleration_ratio"],
                        "warnings": rec["warning_codes"],
                        "valid": rec["valid"],
                        "counter": counter.key,
                    }
                    out.write(json.dumps(doc) + "\n")
                else:
                    kinds = " ".join(
                        f"{bk}[{''.join(k[0].upper() for k in ik)}]"
                        for bk, ik in zip(rec["block_kinds"], item_kinds, strict=False)
                    )
                    out.write(
                        f"{subset}\t{rec['uuid']}\tstages={rec['stages']}\tbranches={rec['branches']}"
                        f"\tkinds={kinds or '-'}\tT={_fmt(rec['T'])}\tC={_fmt(rec['C'])}"
                        f"\tspeedup={_speedup(rec['speedup'])}\twarnings={','.join(rec['warning_codes']) or '-'}\n"
                    )
                n += 1
    return 0


def _speedup(value: float | None) -> str:
    """T/C with two decimals, or "undefined" (T = 0: no response, or empty reasoning)."""
    return "undefined" if value is None else f"{value:.2f}"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "parason-stats",
        help="per-trajectory parallelism metrics of a Parason SFT file",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", help="train.parquet, a subset folder, or the dataset folder")
    p.add_argument("--counter", choices=("qwen", "estimate", "words"), default="estimate")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--limit", type=int, default=None, help="stop after N trajectories")
    p.set_defaults(func=run)
