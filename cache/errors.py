"""One family of typed data errors, each carrying a message for a person and a hint.

Pages render these with `components.common.guards.show_error`; anything else is a programming error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable


class DataError(Exception):
    """A problem with the data a user pointed us at (not a bug in the explorer)."""

    title = "Data problem"

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class SourceNotFound(DataError):
    """A folder or file that a source should provide is missing."""

    title = "File not found"


class SourceRefused(SourceNotFound):
    """The server's allowlist (RTE_ALLOWED_ROOTS / RTE_ALLOWED_REPOS) does not include a source.

    A `SourceNotFound` so the views offer the same way back; its message never says whether the
    refused path exists."""

    title = "Source not allowed"


class HubFileMissing(SourceNotFound):
    """The Hub repo answered, and the file is not in it (at that revision): a file missing from
    the source, as in a folder, not an outage."""

    title = "File not in the Hub repo"


class CacheUnwritable(DataError):
    """The cache folder (or the HF cache) is read-only or full: nothing new can be stored."""

    title = "Cache not writable"


class BuildFailed(DataError):
    """A derived-table build stopped part-way (a worker was killed, another build never ended)."""

    title = "Build interrupted"


class HubUnavailable(DataError):
    """The Hugging Face Hub could not be reached, or the repo/revision does not exist."""

    title = "Hub unavailable"


class CorruptFile(DataError):
    """A file exists but cannot be read (truncated parquet, bad gzip, bad JSON)."""

    title = "Unreadable file"


class SchemaError(DataError):
    """A required column (role) is missing or has the wrong type."""

    title = "Unexpected columns"


def run_command(func: Callable[[argparse.Namespace], int | None], args: argparse.Namespace) -> int:
    """Run a CLI sub-command: a DataError becomes `error:`/`hint:` lines and exit code 2."""
    try:
        return int(func(args) or 0)
    except BrokenPipeError:  # `... | head` closed the pipe: not an error worth a traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except DataError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"hint: {exc.hint}", file=sys.stderr)
        return 2
