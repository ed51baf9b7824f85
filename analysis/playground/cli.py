"""`python -m analysis simulate ...` (`diff` is in `analysis.playground.diff`).

simulate reproduces the published workflow (github Wenbo11/MARS `examples/run_experiment.py`):
  python -m analysis simulate --data PATH --model deepseek-8b --dataset aime-2025 \
      --method sc-mars-cal --warmup-gamma --ucb-z 1.0 --gamma-min 0.5 --out DIR
PATH is a folder laid out like the Hub repo (the model/dataset pick the file) or one parquet
file. Writes results.csv, summary_per_question.csv, summary_overall.csv (the published columns;
`offline` also writes results_<vote>.csv for the DeepConf offline votes).

Start-up time: a warm simulate imports numpy and pyarrow.parquet and reads only the pool columns of
the cached feature table (`pools.cached_pools`); polars, pandas, tqdm and the feature builder
load only when the table has to be built (the MARS facade imports them on first use).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from analysis.mars import for_playground as mars_tables
from analysis.playground import (
    Policy,
    PreparedQuestion,
    SimSettings,
    policy_for_method,
    prepare,
    simulate,
)
from analysis.playground.policies import DEFAULT_METHOD, all_methods, options
from analysis.playground.policy_base import Option
from analysis.playground.pools import cached_pools
from cache.datasets import mars_file_for
from cache.errors import SchemaError, SourceNotFound

if TYPE_CHECKING:
    from cache.progress import ProgressFn

MODELS = ("deepseek-8b", "qwen3-32b", "qwen3-next")
DATASETS = ("aime-2025", "brumo-2025", "hmmt")


def resolve_mars_file(data: Path, model: str, dataset: str) -> Path:
    """The parquet file for `--data` (a file, or a Hub-layout folder + model/dataset)."""
    data = Path(data)
    if data.is_file():
        return data
    if data.is_dir():
        rel = mars_file_for(model, dataset)
        path = data / rel
        if path.is_file():
            return path
        raise SourceNotFound(
            f"{rel} not found under {data}",
            "point --data at a folder laid out like the Hub repo, or at one MARS parquet file",
        )
    raise SourceNotFound(
        f"{data} does not exist", "check --data (python -m cache sample builds the sample)"
    )


def load_prepared(
    path: Path, window: int, progress: ProgressFn | None = None, *, with_lows: bool = True
) -> list[PreparedQuestion]:
    """Prepared questions of a MARS file through the feature store (built once, cached).

    Only the columns a pool is built from are read; the record lows (the biggest of them) only
    with `with_lows`, which the DeepConf-filtered methods need for truncation. Without them a
    pool has no lows, which no other method reads. A built table is read with pyarrow alone
    (`pools.cached_pools`); otherwise the feature store builds it (polars, the builder) and the
    same fast read serves the built table (and leaves its flat copy for the next run)."""
    pools = cached_pools(path, window, with_lows=with_lows)
    if pools is not None:
        return [prepare(p) for p in pools]
    # the feature store loads only here, when the fast read cannot serve (start-up time)
    mars_tables.feature_paths(path, window=window, progress=progress)  # builds the tables
    pools = cached_pools(path, window, with_lows=with_lows)  # and leaves the flat copy
    if pools is not None:
        return [prepare(p) for p in pools]
    store = mars_tables.load_features(
        path,
        window=window,
        progress=progress,
        with_lows=with_lows,
        columns=mars_tables.POOL_COLUMNS,
    )
    return [prepare(store.pool(q)) for q in store.qids]


def _policy(args: argparse.Namespace) -> Policy:
    """The policy of `--method`, from every registered policy option (`policies.options`)."""
    return policy_for_method(args.method, **{o.name: getattr(args, o.name) for o in options()})


def cmd_simulate(args: argparse.Namespace) -> int:

    path = resolve_mars_file(Path(args.data), args.model, args.dataset)
    settings = SimSettings(args.budget, args.iterations, args.warmup, args.window, args.seed)
    policy = _policy(args)
    pools = cached_pools(path, args.window, with_lows=policy.voting.filter)
    if pools is not None:
        preps = [prepare(p) for p in pools]
    else:
        from cache.progress import tqdm_progress  # why here: tqdm only for a build (start-up)

        # only a cold build starts the fact helper, and before the builder's imports
        mars_tables.start_early(path)

        with tqdm_progress(f"features {path.name}") as bar:
            preps = load_prepared(path, args.window, bar, with_lows=policy.voting.filter)
    if not preps:
        raise SchemaError(f"{path} holds no questions", "is this a MARS file?")
    t0 = time.perf_counter()
    run = simulate(preps, policy, settings)  # the q-model fit switches BLAS threads itself
    elapsed = time.perf_counter() - t0
    paths = run.write(Path(args.out))
    overall = run.overall()
    print(f"method {policy.method} on {path.name}: {len(preps)} questions, {elapsed:.2f} s")
    print(
        f"accuracy {overall['accuracy_pct']:.2f}%  savings {overall['mean_token_savings_pct']:.2f}%  "
        f"tokens {overall['total_tokens_mean']:.0f}"
    )
    print(f"policy {policy!r}")
    by_note: dict[str, list[int]] = {}
    for r in run.questions:
        for note in r.notes:
            by_note.setdefault(note.message, []).append(r.qid)
    for text, qids in by_note.items():  # one line per distinct note, not per question
        where = ", ".join(f"Q{q:02d}" for q in qids[:8]) + (
            f" and {len(qids) - 8} more" if len(qids) > 8 else ""
        )
        print(f"  note {where}: {text}", file=sys.stderr)
    for p in paths:
        print(f"wrote {p}")
    return 0


def _add_option(group: argparse._ActionsContainer, o: Option) -> None:
    """One policy option as a flag: a bool is a switch, the rest take a value of its type."""
    if o.type is bool:
        group.add_argument(o.flag, action="store_true", help=o.help)
    else:
        group.add_argument(o.flag, type=o.type, default=o.default, help=o.help)


def register(subparsers: argparse._SubParsersAction) -> None:

    p = subparsers.add_parser("simulate", help="simulate an early-stopping policy on a MARS file")
    p.add_argument("--data", required=True, help="Hub-layout folder or one MARS parquet file")
    p.add_argument("--model", choices=MODELS, default="deepseek-8b")
    p.add_argument("--dataset", choices=DATASETS, default="aime-2025")
    p.add_argument("--method", choices=all_methods(), default=DEFAULT_METHOD)
    p.add_argument("--budget", type=int, default=512)
    p.add_argument("--iterations", type=int, default=64)
    p.add_argument("--warmup", type=int, default=16)
    p.add_argument("--window", type=int, default=2048)
    p.add_argument("--seed", type=int, default=42)
    ours = p.add_argument_group(
        "our additions (not in the published simulator; each flag sets the policy field named)"
    )
    for o in options():  # every registered policy's options (`PolicyDecl.options`)
        _add_option(p if o.published else ours, o)
    p.add_argument("--out", required=True, help="output folder for the three CSVs")
    p.set_defaults(func=cmd_simulate)
