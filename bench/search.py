"""Search benchmark: every dataset's text table at the real datasets' size, then a search over all
of them.

    python bench/search.py               # full size (several minutes: it generates the data)
    python bench/search.py --scale 0.05  # a quick check

Generated into a temp folder (removed after; `--keep DIR` keeps it there): Parason 964
trajectories per SFT subset at realistic lengths (20-60k characters) + 53,000 RL prompts;
FineProofs 86,156 prefixes over 10,454 traces (`cache.sample.fineproofs.write_large`); MARS 9
files, one at 30 x 4,096 traces and the others at 30 x `--rest` (probes every 2,048 tokens of a
trace, their raw_text drawn from the sample's; the per-token confidences, which the text table
never reads, are 8 values a trace). Prints each text table's build time, rows and size on disk,
then the engine's time (what the /search page's run spends on it) for the first page of results
and for the full counts, for a few queries, best of 3.

Target (issue 32): <= 1 s for the first page of a search over all datasets.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

PROBE_TEXTS = (
    "\\boxed{{{a}}} Wait, the case n = 2 needs separate treatment. Therefore the minimum is "
    "attained at the boundary.",
    "\\boxed{{{a}}} So the configuration count is consistent with symmetry. I should verify with "
    "a small example: n = {a}.",
    "\\boxed{{{a}}}Thus the final answer is as boxed above. Hmm, but we assumed the roots are "
    "distinct & real.",
    "Let me double-check the previous step before moving on: {a} = {a}, so the answer is {a}.",
)
QUERIES = (
    ("plain, common", "double-check", False, False),
    ("plain, rare", "roots are distinct & real", False, False),
    ("plain, match case", "Therefore", False, True),
    ("non-ASCII", "𝑛⁵ − 𝑛", False, False),
    ("regex", r"\\boxed\{\d{3}\}", True, False),
    ("regex, no literal", r"\b(?:wait|hmm)\b", True, False),
)


def _parason(root: Path, n: int, n_rl: int) -> None:
    from cache.sample.parason import long_trajectories  # why here: only when generating

    for sub, seed in (("sft-1x", 7), ("sft-8x", 8)):
        rows = long_trajectories(n, seed=seed)
        texts = [t for t, _ in rows]
        questions = [t.split("<|im_start|>user\n", 1)[-1].split("<|im_end|>", 1)[0] for t in texts]
        table = pa.table(
            {
                "uuid": [f"{sub}-{i:06d}" for i in range(n)],
                "question": questions,
                "correctness": [i % 3 != 0 for i in range(n)],
                "qwen_text": texts,
                "num_qwen_tokens": [k for _, k in rows],
            }
        )
        (root / sub).mkdir(parents=True, exist_ok=True)
        pq.write_table(table, root / sub / "train.parquet")
    rng = random.Random(3)
    words = [
        "find",
        "the",
        "number",
        "of",
        "integers",
        "between",
        "modulo",
        "prime",
        "sum",
        "of",
        "all",
        "real",
        "roots",
        "such",
        "that",
    ]
    prompts = [
        [
            {
                "role": "user",
                "content": " ".join(rng.choices(words, k=rng.randint(20, 90)))
                + f" {i}?\n\nLet's think step by step and output the final answer within \\boxed{{}}.",
            }
        ]
        for i in range(n_rl)
    ]
    rl = pa.table(
        {
            "prompt": prompts,
            "data_source": [rng.choice(("deepscaler", "polaris-53k")) for _ in range(n_rl)],
            "ability": ["math"] * n_rl,
            "reward_model": [{"style": "rule", "ground_truth": str(i % 997)} for i in range(n_rl)],
            "extra_info": [{"index": i, "split": "train"} for i in range(n_rl)],
        }
    )
    (root / "rl").mkdir(parents=True, exist_ok=True)
    pq.write_table(rl, root / "rl" / "train.parquet")


def _mars_file(path: Path, n_q: int, n_t: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    probe_t = pa.struct(
        [
            ("position", pa.int64()),
            ("answer", pa.string()),
            ("is_correct", pa.bool_()),
            ("raw_text", pa.string()),
            ("avg_conf", pa.float64()),
        ]
    )
    schema = pa.schema(
        [
            ("qid", pa.int64()),
            ("trace_idx", pa.int64()),
            ("ground_truth", pa.string()),
            ("extracted_answer", pa.string()),
            ("confs", pa.list_(pa.float16())),
            ("probes", pa.list_(probe_t)),
        ]
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with pq.ParquetWriter(path, schema) as w:
        for q in range(n_q):
            gt = str(int(rng.integers(0, 1000)))
            lengths = rng.lognormal(np.log(10_000), 0.5, n_t).astype(int)
            answers = [
                gt if rng.random() < 0.5 else str(int(rng.integers(0, 1000))) for _ in range(n_t)
            ]
            probes = []
            for length, ans in zip(lengths.tolist(), answers, strict=True):
                ps = []
                for pos in [*range(2048, length, 2048), length]:
                    a = ans if rng.random() < 0.6 else str(int(rng.integers(0, 1000)))
                    text = PROBE_TEXTS[int(rng.integers(0, len(PROBE_TEXTS)))].format(a=a)
                    ps.append(
                        {
                            "position": pos,
                            "answer": a,
                            "is_correct": a == gt,
                            "raw_text": text,
                            "avg_conf": 12.0,
                        }  # fmt: skip
                    )
                probes.append(ps)
            table = pa.table(
                {
                    "qid": [q] * n_t,
                    "trace_idx": list(range(n_t)),
                    "ground_truth": [gt] * n_t,
                    "extracted_answer": answers,
                    "confs": [np.full(8, 12.0, dtype=np.float16)] * n_t,
                    "probes": probes,
                },
                schema=schema,
            )
            w.write_table(table)


def _mars(root: Path, n_q: int, big: int, rest: int) -> None:
    from cache.datasets import MARS_FILES  # why here: after RTE_CACHE_DIR is set (main)

    for i, rel in enumerate(MARS_FILES):
        _mars_file(root / rel, n_q, big if i == 0 else rest, seed=i)


def _best(fn, repeat: int = 3) -> tuple[float, object]:  # type: ignore[no-untyped-def]  # any callable
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _first_page(corpus, compiled):  # type: ignore[no-untyped-def]  # imported late (main)
    """What the page computes before it draws its hits: the page and its items' counts."""
    from analysis.search.results import item_hits, page  # why here: after RTE_CACHE_DIR is set

    shown = page(corpus, compiled, size=25)
    return shown, item_hits(corpus, compiled, shown.hits)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--scale", type=float, default=1.0, help="shrink every size by this factor")
    ap.add_argument(
        "--rest", type=int, default=512, help="traces per question of the 8 other MARS files"
    )
    ap.add_argument("--keep", type=Path, help="generate into (and keep) this folder")
    args = ap.parse_args(argv)
    s = args.scale
    work = args.keep or Path(tempfile.mkdtemp(prefix="rte-bench-search-"))
    os.environ["RTE_CACHE_DIR"] = str(work / "cache")
    # imported after RTE_CACHE_DIR is set: the store reads it
    from analysis.search.corpus import builder, builders, load_corpus
    from analysis.search.query import Query, compile_query
    from analysis.search.results import counts
    from cache.sample.fineproofs import write_large
    from cache.sources import SourceConfig

    data = work / "data"
    n_par, n_rl = max(4, round(964 * s)), max(10, round(53_000 * s))
    n_fp, n_tr = max(80, round(86_156 * s)), max(10, round(10_454 * s))
    n_q, big, rest = 30, max(8, round(4096 * s)), max(8, round(args.rest * s))
    t = time.perf_counter()
    if not (data / "parason").exists():
        _parason(data / "parason", n_par, n_rl)
        write_large(data / "fineproofs", n_prefixes=n_fp, n_traces=n_tr)
        _mars(data / "mars", n_q, big, rest)
    print(f"data: Parason {n_par:,} x 2 SFT + {n_rl:,} RL; FineProofs {n_fp:,} prefixes / "
          f"{n_tr:,} traces; MARS 9 files, 30 x {big:,} and 8 x 30 x {rest:,} traces "
          f"(generated in {time.perf_counter() - t:.0f} s)")  # fmt: skip
    sources = {n: SourceConfig(kind="local", local_path=str(data / n)) for n in builders()}
    total_rows, total_bytes = 0, 0
    for name, spec in builders().items():
        t = time.perf_counter()
        paths = builder(spec)(sources[name])
        took = time.perf_counter() - t
        rows = sum(pq.ParquetFile(p).metadata.num_rows for p in paths)
        size = sum(p.stat().st_size for p in paths)
        total_rows, total_bytes = total_rows + rows, total_bytes + size
        print(
            f"text table {name:<11} built in {took:6.1f} s: {rows:>10,} rows, {size / 1e6:7.1f} MB"
        )
    print(f"text tables, all: {total_rows:,} rows, {total_bytes / 1e6:.1f} MB on disk")
    t = time.perf_counter()
    corpus = load_corpus(sources, cases=[])
    print(f"corpus read in {time.perf_counter() - t:.2f} s ({corpus.height:,} rows, "
          f"{corpus.frame['text'].str.len_bytes().sum() / 1e6:.0f} MB of text)")  # fmt: skip
    print(f"{'query':<20} {'first page (25 hits)':>21} {'full count':>12} {'hits':>12}")
    for label, text, regex, case in QUERIES:
        compiled = compile_query(Query(text, regex=regex, case_sensitive=case))
        first_s, _ = _best(lambda c=compiled: _first_page(corpus, c))
        t = time.perf_counter()
        found = counts(corpus, compiled)
        count_s = time.perf_counter() - t
        note = " (time limit)" if found.timed_out else ""
        print(f"{label:<20} {first_s:>19.3f} s {count_s:>10.2f} s {found.total:>12,}{note}")
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
