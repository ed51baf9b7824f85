"""The casebook's errors: each a `cache.errors.DataError` with a message and what to do."""

from __future__ import annotations

from typing import Any

from cache.errors import DataError


class CasebookUnavailable(DataError):
    """The database cannot be used: unreachable, locked, read-only file, corrupt file."""

    title = "Casebook unavailable"


class CasebookSchemaTooNew(DataError):
    """The database was written by a newer version of the explorer; we refuse to touch it."""

    title = "Casebook from a newer version"


class CasebookReadOnly(DataError):
    """This casebook is opened read-only (RTE_CASEBOOK=readonly): writes are refused."""

    title = "Casebook is read-only"

    def __init__(
        self,
        message: str = "the casebook is read-only here",
        hint: str = "it was opened read-only (RTE_CASEBOOK=readonly); unset it to capture and edit",
    ) -> None:
        super().__init__(message, hint)


class EditConflict(DataError):
    """Someone saved the case (or collection) since it was loaded; `current` is what is stored."""

    title = "Edited elsewhere"

    def __init__(self, current: Any, message: str = "", hint: str = "") -> None:
        """`current`: the stored `Case` or `Collection` (typed loosely: model imports this module)."""
        super().__init__(
            message
            or f"it was changed elsewhere meanwhile (now at version {current.version}); "
            "your edit was not saved",
            hint or "reload it, then apply your change again",
        )
        self.current = current


class NotFound(DataError):
    """A case or collection id that is not in the casebook."""

    title = "Not in the casebook"


class AlreadyExists(DataError):
    """A case id or a collection name that is already taken."""

    title = "Already in the casebook"


class ImportRejected(DataError):
    """An import file that is malformed; nothing was written."""

    title = "Import rejected"


class InvalidCase(DataError):
    """A case that cannot be saved as it is (bad dataset, too many tags, a note over 2 MB...)."""

    title = "Invalid case"
