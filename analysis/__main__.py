"""`python -m analysis <command>`: parason-stats, simulate, diff, fineproofs-trace, search."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from cache.datasets import cli_commands
from cache.errors import run_command

# commands over every dataset (no view of one declares them): command -> its module
CROSS_DATASET = {"search": "analysis.search.cli"}


def _modules_for(argv: list[str]) -> tuple[str, ...]:
    """The command modules to register: the named command's own, else all (help, typos).

    Each view declares its commands and the module of each (`cache.datasets.ViewInfo.commands`;
    the module exposes `register(subparsers)` adding them with `set_defaults(func=...)`). A
    command imports only its own module (start-up time: the FineProofs and Parason CLIs pull in
    polars and their stores, and `diff` pandas, which `simulate` never needs)."""
    commands = {**cli_commands(), **CROSS_DATASET}
    first = next((a for a in argv if not a.startswith("-")), None)
    own = commands.get(first or "")
    return (own,) if own is not None else tuple(dict.fromkeys(commands.values()))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if "numpy" not in sys.modules:
        # one OpenBLAS thread, set before numpy loads (it reads this once): a command's matrix
        # products are tiny, and the spinning pool cost a warm `simulate` ~25 % of its CPU
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    parser = argparse.ArgumentParser(prog="python -m analysis", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in _modules_for(argv):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        module.register(sub)
    args = parser.parse_args(argv)
    return run_command(args.func, args)


if __name__ == "__main__":
    sys.exit(main())
