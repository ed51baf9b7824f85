"""`python -m analysis search QUERY`: the search of the `/search` page as JSON: the counts per
dataset, subset/file and item, and the first hits with where each opens.

Each dataset is read from its default source (the `RTE_<DATASET>_*` presets, else the bundled
sample); the casebook is the default one (`RTE_DB_URL`, else the cache folder's).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from analysis.search.corpus import builders, load_corpus
from analysis.search.engine import TIME_LIMIT, Filters
from analysis.search.query import Query, QueryError, compile_query
from analysis.search.results import counts, no_correctness, page
from cache.casebook.store import open_store


def run(args: argparse.Namespace) -> int:
    query = Query(args.query, regex=args.regex, case_sensitive=args.case_sensitive)
    try:
        compiled = compile_query(query)
    except QueryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    wanted = args.dataset or None
    cases = None
    if wanted is None or "casebook" in wanted:
        cases = open_store(readonly=True).list_cases()
    corpus = load_corpus(cases=cases, datasets=wanted, grade=args.grade)
    correct = None if args.correct is None else args.correct == "correct"
    filters = Filters(datasets=tuple(wanted or ()), correct=correct)
    first = page(corpus, compiled, filters, size=args.limit)
    # a regex stopped on a row would stop there again: no second wait for the count
    total = counts(corpus, compiled, filters, time_limit=0.0 if first.stuck else TIME_LIMIT)
    stuck = first.stuck or total.stuck
    out = {
        "query": asdict(query),
        "total_hits": total.total,
        "rows_with_hits": total.rows,
        "timed_out": total.timed_out,
        "too_slow": stuck.message() if stuck else None,
        "unreadable": corpus.problems,
        "left_out_no_correctness": {
            name: asdict(out) for name, out in no_correctness(corpus, filters).items()
        },
        "per_dataset": total.per_dataset.to_dicts(),
        "per_group": total.per_group.to_dicts(),
        "per_item": total.per_item.head(args.limit).to_dicts(),
        "hits": [{**asdict(h), "query": dict(h.query), "keys": dict(h.keys)} for h in first.hits],
    }
    json.dump(out, sys.stdout, ensure_ascii=False, indent=1)
    sys.stdout.write("\n")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `search` to `python -m analysis`."""
    p = subparsers.add_parser(
        "search",
        help="search every text of the datasets and the casebook; JSON out",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("query", metavar="QUERY", help="text (or a Python regular expression)")
    p.add_argument("--regex", action="store_true", help="QUERY is a Python regular expression")
    p.add_argument("--case-sensitive", action="store_true", help="match case (default: ignore)")
    p.add_argument(
        "--dataset",
        action="append",
        choices=[*builders(), "casebook"],
        help="search only this dataset (repeatable; default: all and the casebook)",
    )
    p.add_argument(
        "--correct",
        choices=("correct", "wrong"),
        help="only texts the data marks so (texts without a correctness are left out and "
        "counted in left_out_no_correctness)",
    )
    p.add_argument(
        "--grade",
        action="store_true",
        help="grade what waits for a build first (MARS extracted answers: the feature build, "
        "minutes per file at full size)",
    )
    p.add_argument("--limit", type=int, default=50, help="hits and items listed (default 50)")
    p.set_defaults(func=run)
