"""Deterministic FineProofs sample (and a large generated table for the benchmark).

Why a generator: the Hub repo's column names are not published, so the sample picks plausible
names from the role table of docs/formats/datasets.md ("FineProofs") and exercises what the view must get right: grades
k/7 (comb-shaped 20-bin histograms), fewer than 32 graded continuations, realistic value shapes
(steady, one-step collapse, gradual decline, drop then recovery, bimodal prefixes) and proof text
with characters above U+FFFF and CRLF line endings, with UTF-16 step offsets.

Layout written under `root` (the Hub repo's relative paths):

- `data/prefix_values.parquet`, one row per collected prefix:
  `problem_id` str (16 hex), `sample_index` i32, `source` str, `step_idx` i32 (1-based: the
  prefix holds steps 1..step_idx), `num_steps` i32, `prefix_end_utf16` i32, `mean_grade` f64,
  `std_grade` f64 (population std, ddof=0), `min_grade` f64, `max_grade` f64, `n_graded` i32 (<= 32),
  `grade_hist` list<i32>[20], `base_grade` f64 (nullable: endpoint from the base grading log),
  `branch_id` str (nullable branch metadata; an "unknown" extra column).
- `data/traces/<xx>.json.gz`, gzip JSON, `xx` = first two hex chars of `problem_id`:
  `{"format": "fineproofs-traces/1", "shard": "xx", "traces": [trace, ...]}` with
  `trace = {"problem_id", "sample_index", "source", "problem", "num_steps", "text",
  "steps": [{"step_idx", "utf16_start", "utf16_end"}, ...]}` (one entry per collected prefix;
  the span is that step's own text, offsets in UTF-16 code units, end exclusive).
- `data/summary.json`, `data/trace_manifest.json`: collection-wide accounting.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from cache.progress import ProgressFn, no_progress

RUN = "fineproofs_all_qwen35_9b_direct2phase_m32_20260730"
N_CONT = 32
N_BINS = 20
# 20-bin index of grade k/7: min(19, floor(k/7 * 20 + 1e-9)) -> 0, 2, 5, 8, 11, 14, 17, 19
GRADE_BINS = np.minimum(19, np.floor(np.arange(8) / 7 * 20 + 1e-9)).astype(np.int64)
WOBBLE_SEED, WOBBLE_SD = 7, 0.07  # per-prefix noise on the shape's target value
SHAPES = ("steady_high", "collapse", "gradual", "recovery", "bimodal", "steady_low", "noisy_mid")

# ---------------------------------------------------------------- hand-written proof material
# Each problem: (source, statement, steps). Steps are written as a model would; some use
# mathematical italic letters (U+1D465 𝑥, U+1D466 𝑦, U+1D45B 𝑛: astral, two UTF-16 units),
# `$...$` maths, HTML-like characters and an emoji, so offsets and escaping are exercised.
PROBLEMS: list[tuple[str, str, list[str]]] = [
    (
        "olympiads",
        "Prove that for all positive reals 𝑥, 𝑦 we have 𝑥² + 𝑦² ≥ 2𝑥𝑦, with equality iff 𝑥 = 𝑦.",
        [
            "We want to show 𝑥² + 𝑦² − 2𝑥𝑦 ≥ 0 for positive reals 𝑥, 𝑦.",
            "Rewrite the left side: 𝑥² − 2𝑥𝑦 + 𝑦² = (𝑥 − 𝑦)².",
            "A square of a real number is non-negative, so (𝑥 − 𝑦)² ≥ 0.",
            "Hence 𝑥² + 𝑦² ≥ 2𝑥𝑦 for all reals, in particular for positive ones.",
            "For equality we need (𝑥 − 𝑦)² = 0, i.e. 𝑥 − 𝑦 = 0.",
            "So equality holds iff 𝑥 = 𝑦. ∎ 🎯",
        ],
    ),
    (
        "aops",
        "Find all functions $f:\\mathbb{R}\\to\\mathbb{R}$ with $f(x+y)=f(x)+f(y)$ that are monotone.",
        [
            "Setting $x=y=0$ gives $f(0)=2f(0)$, so $f(0)=0$.",
            "Setting $y=-x$ gives $f(-x)=-f(x)$, so $f$ is odd.",
            "By induction $f(nx)=nf(x)$ for every positive integer $n$.",
            "Then $f(q)=qf(1)$ for every rational $q$; write $c=f(1)$.",
            "Wait, I should check the negative rationals too: oddness gives $f(-q)=-qc$. OK.",
            "Suppose $f$ is increasing and $x$ is real; pick rationals $q_1<x<q_2$.",
            "Then $cq_1=f(q_1)\\le f(x)\\le f(q_2)=cq_2$.",
            "Letting $q_1,q_2\\to x$ squeezes $f(x)=cx$.",
            "The decreasing case is the same with the inequalities reversed.",
            "Conversely every $f(x)=cx$ works, so the answer is $f(x)=cx$, $c\\in\\mathbb{R}$.",
        ],
    ),
    (
        "imo-shortlist",
        "Show that 𝑛⁵ − 𝑛 is divisible by 30 for every integer 𝑛.",
        [
            "Since 30 = 2·3·5 with pairwise coprime factors, it suffices to show 2, 3 and 5 divide 𝑛⁵ − 𝑛.",
            "Factor: 𝑛⁵ − 𝑛 = 𝑛(𝑛⁴ − 1) = 𝑛(𝑛 − 1)(𝑛 + 1)(𝑛² + 1).",
            "Among 𝑛 − 1, 𝑛, 𝑛 + 1 one is even and one is divisible by 3.",
            "For 5, Fermat's little theorem gives 𝑛⁵ ≡ 𝑛 (mod 5).",
            "Alternatively check residues: if 𝑛 ≡ ±2 (mod 5) then 𝑛² + 1 ≡ 0 (mod 5).",
            "So 2 | 𝑛⁵ − 𝑛, 3 | 𝑛⁵ − 𝑛 and 5 | 𝑛⁵ − 𝑛.",
            "Therefore 30 | 𝑛⁵ − 𝑛. ∎",
        ],
    ),
    (
        "usamo",
        "Let a, b, c > 0 with abc = 1. Prove that a + b + c ≥ 3.",
        [
            "By AM-GM, (a + b + c)/3 ≥ (abc)^(1/3).",
            "Since abc = 1, the right side equals 1.",
            "Multiplying by 3 gives a + b + c ≥ 3.",
            "Equality in AM-GM needs a = b = c, which with abc = 1 means a = b = c = 1.",
            "Sanity check: a = 4, b = 1/2, c = 1/2 gives 5 ≥ 3. Fine.",
            "Hence a + b + c ≥ 3 with equality iff a = b = c = 1. ∎",
        ],
    ),
    (
        "putnam",
        "Prove that √2 is irrational.",
        [
            "Suppose for contradiction that √2 = p/q with integers p, q > 0 and gcd(p, q) = 1.",
            "Squaring gives p² = 2q², so p² is even.",
            "If p were odd then p² would be odd, so p is even; write p = 2k.",
            "Then 4k² = 2q², so q² = 2k² and q is even as well.",
            "Both p and q even contradicts gcd(p, q) = 1.",
            "Therefore no such fraction exists and √2 is irrational. ∎",
        ],
    ),
    (
        "olympiads",
        "Among any 5 points in a unit square, show that two are at distance at most √2/2.",
        [
            "Split the unit square into four squares of side 1/2.",
            "By pigeonhole, two of the 5 points lie in the same small square (boundary points assigned to either).",
            "The diameter of a square of side 1/2 is its diagonal, √2/2.",
            "So those two points are at distance ≤ √2/2.",
            "Hmm, points on a shared edge belong to two squares, but that only helps: pick either one.",
            "This proves the claim. ∎",
        ],
    ),
    (
        "aops",
        "Prove that there are infinitely many primes of the form 4k + 3.",
        [
            "Suppose there are finitely many: p₁, …, pₘ, all ≡ 3 (mod 4).",
            "Let N = 4p₁p₂⋯pₘ − 1. Then N ≡ 3 (mod 4) and N > 1.",
            "N is odd, so all its prime factors are odd, i.e. ≡ 1 or 3 (mod 4).",
            "A product of numbers ≡ 1 (mod 4) is ≡ 1 (mod 4), so some prime factor q ≡ 3 (mod 4).",
            "Then q is one of the pᵢ, but pᵢ divides 4p₁⋯pₘ and so pᵢ | 1, impossible.",
            "Hence there are infinitely many such primes. ∎",
        ],
    ),
    (
        "hmmt",
        "Prove that 1 + 3 + 5 + … + (2n − 1) = n² for every positive integer n.",
        [
            "Base case n = 1: the sum is 1 = 1².",
            "Inductive step: assume 1 + 3 + … + (2n − 1) = n².",
            "Adding the next odd number 2n + 1 gives n² + 2n + 1.",
            "And n² + 2n + 1 = (n + 1)², which is the claim for n + 1.",
            "By induction the identity holds for all n ≥ 1. ∎",
        ],
    ),
    (
        "olympiads",
        "Let 𝑥 be real with 𝑥 + 1/𝑥 = 3. Find 𝑥³ + 1/𝑥³ and justify each step.",
        [
            "Cube the relation: (𝑥 + 1/𝑥)³ = 𝑥³ + 3𝑥 + 3/𝑥 + 1/𝑥³.",
            "So 27 = 𝑥³ + 1/𝑥³ + 3(𝑥 + 1/𝑥) = 𝑥³ + 1/𝑥³ + 9.",
            "Therefore 𝑥³ + 1/𝑥³ = 18.",
            "Check that such 𝑥 exists: 𝑥² − 3𝑥 + 1 = 0 has discriminant 5 > 0.",
            "So the value 18 is attained. ∎",
        ],
    ),
    (
        "aops",
        "Prove that if a < b and c > 0 then ac < bc; deduce that 0 < a < b implies a² < b².",
        [
            "From a < b we get b − a > 0.",
            "A product of positive reals is positive, so (b − a)c > 0, i.e. bc − ac > 0 & ac < bc.",
            "For the corollary apply it twice: a·a < b·a (c = a > 0) and a·b < b·b (c = b > 0).",
            "Chaining: a² < ab < b², so a² < b². ∎",
        ],
    ),
]

# generic "thinking" steps interleaved in model output (some in Windows line endings)
FILLERS = [
    "Let me double-check the previous step before moving on.",
    "Wait, I need to be careful about the edge cases here.",
    "Alternatively, we could try a direct computation, but the argument above is cleaner.",
    "Let me re-read the problem statement to make sure nothing is missed.",
    "This is the key step, so let me verify it numerically for a small case.",
    "Hmm, that seems too quick.\r\nLet me redo it slowly.",
    "OK, the computation checks out. ✅",
    "Now, to conclude, I need to combine the pieces.",
]
# steps a model writes when it goes wrong (used where values collapse)
WRONG = [
    "Actually, dividing both sides by (a − b) we get a = b + 1, which simplifies everything.",
    "So the claim follows because every odd number is prime.",
    "Hence 0 = 1, which means the assumption was unnecessary.",
    "Therefore it suffices to check the case n = 2, which is immediate.",
]


def problem_id_for(statement: str) -> str:
    """16-hex id, like the real export (derived from the statement so the sample is stable)."""
    return hashlib.sha256(statement.encode()).hexdigest()[:16]


def grade_bin(x: np.ndarray | float) -> np.ndarray:
    """Binning (docs/formats/prefix-values.md): `min(19, floor(x*20 + 1e-9))` (not floor(x/0.05), which puts 0.15 in bin 2)."""
    return np.minimum(19, np.floor(np.asarray(x, dtype=np.float64) * 20 + 1e-9)).astype(np.int64)


def _utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


# ---------------------------------------------------------------- values and grades (vectorised)
def _shape_values(
    shape: np.ndarray, t: np.ndarray, knee: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Target value per prefix for its trace's shape at relative depth t (all arrays length N)."""
    v = np.empty_like(t)
    s = shape
    hi = 0.78 + 0.12 * rng.random(t.shape)
    v[:] = hi
    m = s == SHAPES.index("collapse")
    v[m] = np.where(t[m] + 1e-9 < knee[m], 0.85, 0.08)
    m = s == SHAPES.index("gradual")
    v[m] = 0.9 - 0.75 * t[m]
    m = s == SHAPES.index("recovery")
    v[m] = np.where(t[m] + 1e-9 < knee[m], 0.8, np.where(t[m] < knee[m] + 0.3, 0.12, 0.75))
    m = s == SHAPES.index("bimodal")
    v[m] = 0.5
    m = s == SHAPES.index("steady_low")
    v[m] = 0.1
    m = s == SHAPES.index("noisy_mid")
    v[m] = 0.45 + 0.1 * np.sin(9 * t[m])
    return np.clip(v, 0.0, 1.0)


def _sample_grades(
    p: np.ndarray, extreme: np.ndarray, n: np.ndarray, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """Draw up to 32 integer grades 0..7 per prefix and summarise them like the export does.

    A grader mostly gives 0 or 7 on proofs (`extreme` = probability of an all-or-nothing grade),
    otherwise a binomial partial-credit grade around `p`.
    """
    rows = p.shape[0]
    ext = rng.random((rows, N_CONT)) < extreme[:, None]
    allin = rng.random((rows, N_CONT)) < p[:, None]
    partial = rng.binomial(7, np.clip(p, 0, 1)[:, None], size=(rows, N_CONT))
    g = np.where(ext, np.where(allin, 7, 0), partial)
    mask = np.arange(N_CONT)[None, :] < n[:, None]
    counts8 = np.stack([((g == k) & mask).sum(1) for k in range(8)], axis=1)  # (rows, 8)
    hist = np.zeros((rows, N_BINS), dtype=np.int32)
    for k in range(8):
        hist[:, GRADE_BINS[k]] += counts8[:, k]
    levels = np.arange(8) / 7.0
    nn = n.astype(np.float64)
    mean = (counts8 * levels).sum(1) / nn
    ss = (counts8 * levels**2).sum(1) - nn * mean**2
    std = np.sqrt(np.clip(ss, 0, None) / np.maximum(nn, 1))  # population std (ddof=0)
    present = counts8 > 0
    kmin = np.argmax(present, axis=1)
    kmax = 7 - np.argmax(present[:, ::-1], axis=1)
    return {
        "mean_grade": mean,
        "std_grade": std,
        "min_grade": kmin / 7.0,
        "max_grade": kmax / 7.0,
        "grade_hist": hist,
    }


def _collect_steps(num_steps: int, target: int = 8) -> list[int]:
    """Collected prefixes: every few steps plus the last (1-based step indices)."""
    stride = max(1, round(num_steps / target))
    steps = list(range(stride, num_steps, stride))[: target - 1]
    if not steps or steps[-1] != num_steps:
        steps.append(num_steps)
    return steps


# ---------------------------------------------------------------- writing
def _write_table(path: Path, cols: dict[str, object]) -> None:
    hist = np.asarray(cols["grade_hist"], dtype=np.int32)
    arrays = {}
    for name, val in cols.items():
        if name == "grade_hist":
            offsets = pa.array(np.arange(0, hist.size + 1, N_BINS, dtype=np.int32))
            arrays[name] = pa.ListArray.from_arrays(offsets, pa.array(hist.reshape(-1)))
        else:
            arrays[name] = val if isinstance(val, pa.Array) else pa.array(val)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table(arrays), path, compression="zstd")


def _write_shards(
    traces_dir: Path, traces: list[dict], level: int = 6, progress: ProgressFn | None = None
) -> dict[str, dict[str, int]]:
    traces_dir.mkdir(parents=True, exist_ok=True)
    by_shard: dict[str, list[dict]] = {}
    for tr in traces:
        by_shard.setdefault(tr["problem_id"][:2], []).append(tr)
    info: dict[str, dict[str, int]] = {}
    hook = progress or no_progress
    for i, (shard, items) in enumerate(sorted(by_shard.items())):
        doc = {"format": "fineproofs-traces/1", "shard": shard, "traces": items}
        blob = gzip.compress(
            json.dumps(doc, ensure_ascii=False).encode("utf-8"), compresslevel=level, mtime=0
        )
        (traces_dir / f"{shard}.json.gz").write_bytes(blob)
        info[shard] = {"traces": len(items), "bytes": len(blob)}
        hook((i + 1) / len(by_shard), f"shard {shard}")
    return info


def _summary_docs(
    mean: np.ndarray,
    rel: np.ndarray,
    per_trace: np.ndarray,
    num_steps: np.ndarray,
    n_graded: np.ndarray,
    sources: list[str],
    shard_info: dict[str, dict[str, int]],
    n_traces: int,
    missing: list[dict],
) -> tuple[dict, dict]:
    counts = np.bincount(grade_bin(mean), minlength=N_BINS)
    src, src_n = np.unique(np.asarray(sources), return_counts=True)
    summary = {
        "run": RUN,
        "continuation_model": "Qwen3.5-9B",
        "grader": "GPT-OSS-120B",
        "continuations_per_prefix": N_CONT,
        "n_prefixes": int(mean.size),
        "n_traces": int(n_traces),
        "mean_grade_distribution": {
            "bin_edges": [round(i / N_BINS, 2) for i in range(N_BINS + 1)],
            "counts": counts.tolist(),
            "mean": round(float(mean.mean()), 4),
            "median": round(float(np.median(mean)), 4),
        },
        "depth_summary": {
            "prefixes_per_trace": {
                "min": int(per_trace.min()),
                "median": float(np.median(per_trace)),
                "mean": round(float(per_trace.mean()), 3),
                "max": int(per_trace.max()),
            },
            "num_steps": {
                "min": int(num_steps.min()),
                "median": float(np.median(num_steps)),
                "max": int(num_steps.max()),
            },
            "rel_depth_deciles": np.round(np.quantile(rel, np.linspace(0, 1, 11)), 3).tolist(),
        },
        "prm_construction": {
            "traces_selected": int(n_traces),
            "prefixes_collected": int(mean.size),
            "continuations_requested": int(mean.size * N_CONT),
            "continuations_graded": int(n_graded.sum()),
            "grading_failures": int(mean.size * N_CONT - n_graded.sum()),
            "selection_rule": "every ceil(num_steps/8) steps plus the last step",
            "branch_metadata_used_as_label": False,
        },
        "sources": {str(s): int(c) for s, c in zip(src, src_n, strict=True)},
    }
    n_written = sum(v["traces"] for v in shard_info.values())
    manifest = {
        "run": RUN,
        "offset_unit": "utf16_code_units",
        "shard_key": "problem_id[:2]",
        "n_traces_expected": int(n_traces),
        "n_traces_written": int(n_written),
        "n_shards": len(shard_info),
        "shards": shard_info,
        "missing_traces": missing,
        "coverage": {"traces_with_all_prefix_offsets": int(n_written), "fraction": 1.0},
    }
    return summary, manifest


def _write_json(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")


def _build_trace_text(
    rng: np.random.Generator, steps: list[str], shape: str, crlf: bool
) -> tuple[list[str], int]:
    """Interleave the problem's steps with thinking fillers (and a wrong step for failing shapes).

    Returns the steps and the 1-based index of the wrong step (0 when there is none).
    """
    out: list[str] = []
    n = len(steps)
    wrong_at, wrong_step = int(rng.integers(max(1, n // 3), max(2, 2 * n // 3 + 1))), 0
    for i, step in enumerate(steps):
        if shape in ("collapse", "gradual", "recovery", "steady_low") and i == wrong_at:
            out.append(WRONG[int(rng.integers(len(WRONG)))])
            wrong_step = len(out)
        out.append(step)
        for _ in range(int(rng.integers(0, 3))):
            out.append(FILLERS[int(rng.integers(len(FILLERS)))])
    if crlf:
        out = [s.replace("\n", "\r\n").replace("\r\r\n", "\r\n") for s in out]
    return out, wrong_step


def write_sample(root: Path, progress: ProgressFn | None = None) -> None:
    """Write the FineProofs sample (48 traces, ~8 prefixes each) under `root` (Hub layout)."""
    hook = progress or no_progress
    root = Path(root)
    rng = np.random.default_rng(20260730)
    shape_plan = list(SHAPES) * 7  # each shape several times, over different problems
    traces: list[dict] = []
    rows: dict[str, list] = {
        k: []
        for k in (
            "problem_id",
            "sample_index",
            "source",
            "step_idx",
            "num_steps",
            "prefix_end_utf16",
            "shape",
            "t",
            "knee",
            "trace_no",
        )
    }
    n_traces = 48
    for j in range(n_traces):
        source, statement, steps = PROBLEMS[j % len(PROBLEMS)]
        pid = problem_id_for(statement)
        sample_index = int(j // len(PROBLEMS) * 3 + rng.integers(0, 3))
        shape = shape_plan[(j * 3) % len(shape_plan)]
        crlf = j % 6 == 5
        parts, wrong_step = _build_trace_text(rng, steps, shape, crlf)
        sep = "\r\n\r\n" if crlf else "\n\n"
        text = sep.join(parts)
        # UTF-16 span of every step
        starts, pos = [], 0
        for part in parts:
            starts.append(pos)
            pos += _utf16_units(part) + _utf16_units(sep)
        num_steps = len(parts)
        collected = _collect_steps(num_steps)
        # the value collapses at the prefix that first contains the wrong step
        knee = wrong_step / num_steps if wrong_step else 0.3 + 0.4 * rng.random()
        step_docs = []
        for s in collected:
            a = starts[s - 1]
            b = a + _utf16_units(parts[s - 1])
            step_docs.append({"step_idx": s, "utf16_start": a, "utf16_end": b})
            rows["problem_id"].append(pid)
            rows["sample_index"].append(sample_index)
            rows["source"].append(source)
            rows["step_idx"].append(s)
            rows["num_steps"].append(num_steps)
            rows["prefix_end_utf16"].append(b)
            rows["shape"].append(SHAPES.index(shape))
            rows["t"].append(s / num_steps)
            rows["knee"].append(knee)
            rows["trace_no"].append(j)
        traces.append(
            {
                "problem_id": pid,
                "sample_index": sample_index,
                "source": source,
                "problem": statement,
                "num_steps": num_steps,
                "text": text,
                "steps": step_docs,
            }
        )
    hook(0.3, "fineproofs: traces built")
    shape_arr = np.asarray(rows["shape"])
    t = np.asarray(rows["t"], dtype=np.float64)
    p = _shape_values(shape_arr, t, np.asarray(rows["knee"]), rng)
    # real prefix values wander around their shape (own stream: the other draws stay the same)
    wobble = np.random.default_rng(WOBBLE_SEED).normal(0.0, WOBBLE_SD, p.size)
    p = np.clip(p + wobble, 0.02, 0.98)
    extreme = np.where(shape_arr == SHAPES.index("bimodal"), 1.0, 0.55)
    n = np.where(rng.random(p.size) < 0.2, rng.integers(24, 32, p.size), N_CONT)
    stats = _sample_grades(p, extreme, n, rng)
    trace_no = np.asarray(rows["trace_no"])
    last = np.r_[trace_no[1:] != trace_no[:-1], True]
    last_value = stats["mean_grade"][last]
    base = np.clip(np.round(7 * last_value + rng.normal(0, 0.8, last_value.size)), 0, 7) / 7
    base_grade = base[np.cumsum(np.r_[0, last[:-1]])] + 0.0  # no -0.0
    base_col = pa.array(base_grade, mask=trace_no == 7)  # one trace missing from the grading log
    branch = [f"b{k:03d}" if k % 5 == 0 else None for k in range(p.size)]
    cols = {
        "problem_id": rows["problem_id"],
        "sample_index": pa.array(rows["sample_index"], pa.int32()),
        "source": rows["source"],
        "step_idx": pa.array(rows["step_idx"], pa.int32()),
        "num_steps": pa.array(rows["num_steps"], pa.int32()),
        "prefix_end_utf16": pa.array(rows["prefix_end_utf16"], pa.int32()),
        "mean_grade": stats["mean_grade"],
        "std_grade": stats["std_grade"],
        "min_grade": stats["min_grade"],
        "max_grade": stats["max_grade"],
        "n_graded": pa.array(n, pa.int32()),
        "grade_hist": stats["grade_hist"],
        "base_grade": base_col,
        "branch_id": pa.array(branch, pa.string()),
    }
    data = root / "data"
    _write_table(data / "prefix_values.parquet", cols)
    hook(0.6, "fineproofs: prefix table written")
    info = _write_shards(data / "traces", traces)
    per_trace = np.bincount(trace_no)
    summary, manifest = _summary_docs(
        stats["mean_grade"],
        t,
        per_trace,
        np.asarray([tr["num_steps"] for tr in traces]),
        n,
        rows["source"],
        info,
        n_traces,
        [],
    )
    _write_json(data / "summary.json", summary)
    _write_json(data / "trace_manifest.json", manifest)
    hook(1.0, "fineproofs: done")


# ---------------------------------------------------------------- large generated table (bench)
def write_large(
    root: Path,
    n_prefixes: int = 86_156,
    n_traces: int = 10_454,
    seed: int = 7,
    with_traces: bool = True,
    progress: ProgressFn | None = None,
) -> None:
    """Full-size generated collection for the benchmark (vectorised; same layout as the sample).

    Texts are long (tens of thousands of characters, like 10k-token proofs) so shard loading
    is measured realistically.
    """
    hook = progress or no_progress
    rng = np.random.default_rng(seed)
    root = Path(root)
    # prefixes per trace: ~8, summing exactly to n_prefixes
    per = np.full(n_traces, n_prefixes // n_traces, dtype=np.int64)
    per[rng.choice(n_traces, n_prefixes - per.sum(), replace=False)] += 1
    num_steps = np.maximum(per + 2, rng.lognormal(np.log(40), 0.5, n_traces).astype(np.int64))
    trace_of = np.repeat(np.arange(n_traces), per)
    first = np.r_[0, np.cumsum(per)[:-1]]
    ordinal = np.arange(n_prefixes) - first[trace_of]
    # step of ordinal k: evenly spaced, the last prefix at the last step
    step = np.maximum(1, np.round((ordinal + 1) / per[trace_of] * num_steps[trace_of])).astype(
        np.int64
    )
    t = step / num_steps[trace_of]
    shape = rng.integers(0, len(SHAPES), n_traces)
    knee = 0.25 + 0.5 * rng.random(n_traces)
    p = _shape_values(shape[trace_of], t, knee[trace_of], rng)
    extreme = np.where(shape[trace_of] == SHAPES.index("bimodal"), 1.0, 0.55)
    n = np.where(rng.random(n_prefixes) < 0.15, rng.integers(20, 32, n_prefixes), N_CONT)
    stats = _sample_grades(p, extreme, n, rng)
    hook(0.2, "fineproofs-large: grades")
    ids = np.array(
        [hashlib.blake2b(str(i).encode(), digest_size=8).hexdigest() for i in range(n_traces)]
    )
    srcs = np.array(["olympiads", "aops", "imo-shortlist", "usamo", "putnam", "hmmt"])
    src = srcs[rng.choice(len(srcs), n_traces, p=[0.35, 0.3, 0.1, 0.1, 0.05, 0.1])]
    sample_index = rng.integers(0, 16, n_traces)
    last = ordinal == per[trace_of] - 1
    base = np.clip(np.round(7 * stats["mean_grade"][last] + rng.normal(0, 0.8, n_traces)), 0, 7) / 7
    base = base + 0.0  # no -0.0

    # texts: a pool of steps (some astral, some CRLF); per trace a random sequence of them
    pool = [s for _, _, steps in PROBLEMS for s in steps] + FILLERS + WRONG
    pool = [" ".join(pool[i : i + 14]) for i in range(len(pool) - 14)]
    pool_units = np.array([_utf16_units(s) for s in pool], dtype=np.int64)
    sep = "\n\n"
    picks = rng.integers(0, len(pool), int(num_steps.sum()))
    step_first = np.r_[0, np.cumsum(num_steps)[:-1]]
    units = pool_units[picks] + len(sep)
    ends_all = np.cumsum(units)  # global, per-trace offsets subtract the trace's start
    pref_idx = step_first[trace_of] + step - 1
    trace_base = np.r_[0, ends_all[step_first[1:] - 1]]
    u_end = ends_all[pref_idx] - len(sep) - trace_base[trace_of]
    u_start = u_end - pool_units[picks[pref_idx]]
    cols = {
        "problem_id": ids[trace_of],
        "sample_index": pa.array(sample_index[trace_of], pa.int32()),
        "source": src[trace_of],
        "step_idx": pa.array(step, pa.int32()),
        "num_steps": pa.array(num_steps[trace_of], pa.int32()),
        "prefix_end_utf16": pa.array(u_end, pa.int32()),
        "mean_grade": stats["mean_grade"],
        "std_grade": stats["std_grade"],
        "min_grade": stats["min_grade"],
        "max_grade": stats["max_grade"],
        "n_graded": pa.array(n, pa.int32()),
        "grade_hist": stats["grade_hist"],
        "base_grade": base[trace_of],
    }
    data = root / "data"
    _write_table(data / "prefix_values.parquet", cols)
    hook(0.4, "fineproofs-large: table written")
    info: dict[str, dict[str, int]] = {}
    if with_traces:
        traces = []
        for j in range(n_traces):
            a, b = step_first[j], step_first[j] + num_steps[j]
            lo, hi = first[j], first[j] + per[j]
            traces.append(
                {
                    "problem_id": str(ids[j]),
                    "sample_index": int(sample_index[j]),
                    "source": str(src[j]),
                    "problem": "",
                    "num_steps": int(num_steps[j]),
                    "text": sep.join(pool[k] for k in picks[a:b]),
                    "steps": [
                        {"step_idx": int(s), "utf16_start": int(x), "utf16_end": int(y)}
                        for s, x, y in zip(step[lo:hi], u_start[lo:hi], u_end[lo:hi], strict=True)
                    ],
                }
            )
        info = _write_shards(
            data / "traces",
            traces,
            level=1,
            progress=lambda f, m: hook(0.4 + 0.55 * f, m),
        )
    summary, manifest = _summary_docs(
        stats["mean_grade"], t, per, num_steps, n, list(src[trace_of]), info, n_traces, []
    )
    _write_json(data / "summary.json", summary)
    _write_json(data / "trace_manifest.json", manifest)
    hook(1.0, "fineproofs-large: done")
