"""The casebook: findings ("cases") captured from any view, gathered into ordered collections,
presented and exported. Storage only; the pages build on this.

    store = open_store()                      # RTE_DB_URL, else SQLite in the cache folder
    case = store.add(make_case("mars", "mars", query=[("file", f), ("qid", "3")], item={...}))
    store.update(replace(case, note="..."), expected_version=case.version)
"""

from typing import TYPE_CHECKING, Any

from cache.casebook.errors import (
    AlreadyExists,
    CasebookReadOnly,
    CasebookSchemaTooNew,
    CasebookUnavailable,
    EditConflict,
    ImportRejected,
    InvalidCase,
    NotFound,
)
from cache.casebook.model import (
    Case,
    Collection,
    ImportReport,
    case_datasets,
    case_from_dict,
    case_to_dict,
    collection_from_dict,
    collection_to_dict,
    deep_link,
    default_title,
    make_case,
    normalize_tags,
    validate_case,
    validate_collection,
)
from cache.casebook.store import SCHEMA_VERSION, CaseStore, open_store

if TYPE_CHECKING:  # the real signatures for type checkers; at run time see __getattr__
    from cache.casebook.io import (
        export_casebook,
        export_cases,
        export_collection,
        format_of,
        import_cases,
        labels_bytes,
        parse_cases,
        parse_file,
        prm_labels,
        step_labels,
    )

_IO_NAMES = (
    "export_casebook",
    "export_cases",
    "export_collection",
    "format_of",
    "import_cases",
    "labels_bytes",
    "parse_cases",
    "parse_file",
    "prm_labels",
    "step_labels",
)


def __getattr__(name: str) -> Any:
    """The import/export functions of `cache.casebook.io`, loaded on first use."""
    if name in _IO_NAMES:
        # why here: start-up time; io needs polars, which a store-only process never loads
        from cache.casebook import io

        return getattr(io, name)
    raise AttributeError(f"module 'cache.casebook' has no attribute {name!r}")


__all__ = [
    "case_datasets",
    "SCHEMA_VERSION",
    "AlreadyExists",
    "Case",
    "CaseStore",
    "CasebookReadOnly",
    "CasebookSchemaTooNew",
    "CasebookUnavailable",
    "Collection",
    "EditConflict",
    "ImportRejected",
    "ImportReport",
    "InvalidCase",
    "NotFound",
    "case_from_dict",
    "case_to_dict",
    "collection_from_dict",
    "collection_to_dict",
    "deep_link",
    "default_title",
    "export_casebook",
    "export_cases",
    "export_collection",
    "format_of",
    "import_cases",
    "labels_bytes",
    "make_case",
    "normalize_tags",
    "open_store",
    "parse_cases",
    "parse_file",
    "prm_labels",
    "step_labels",
    "validate_case",
    "validate_collection",
]
