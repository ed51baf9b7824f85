"""`python -m analysis <command>`: parason-stats, simulate, diff, fineproofs-trace."""

from __future__ import annotations

import argparse
import importlib
import sys

from cache.errors import run_command

# each module exposes `register(subparsers)` adding its commands with `set_defaults(func=...)`
_COMMAND_MODULES = ("analysis.parason.cli", "analysis.stopping.cli", "analysis.fineproofs.cli")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in _COMMAND_MODULES:
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
