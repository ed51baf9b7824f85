"""A deterministic, realistic MARS sample (and a full-size file for the ingest benchmark).

Same layout and schema as the Hub repo `wenbochen111/MARS` (docs/formats/datasets.md, "MARS"):
9 files, 30 questions each, one row per trace, one row group per question. Statistics follow
docs/formats/datasets.md: heavy-tailed lengths (median ~10k tokens, 64k cap), per-question difficulty from 0% to
100%, several wrong answers with skewed popularity, some null and some long-text
`extracted_answer`, float16 confidences with dips (lower and more volatile on wrong traces),
probes at every multiple of 2048 below the length plus the end, `avg_conf` = mean of the 2048
stored confidences before the position, early probe answers often garbage and converging to the
final answer. A few files miss some rows. Everything is vectorised with numpy.

The files of one benchmark share its questions (`Questions`: ground truths with their spellings
and difficulties, drawn once with the benchmark's first file), as on the Hub, where the models
answered the same problems; each model's traces are its own draw.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from cache.progress import ProgressFn

N_QUESTIONS = 30
PROBE_STEP = 2048
LENGTH_CAP = 64_000

# the published simulator's summaries on this sample (see mars_reference/NOTE.md), shipped as the
# sample's repro_reference so the playground's reference diff works offline
REFERENCE_DIR = Path(__file__).resolve().parent / "mars_reference"

# (relative path, benchmark kind, traces per question, rows to drop)
FILES: list[tuple[str, str, int, int]] = [
    ("DeepSeek-8B/aime25_deepseek.parquet", "aime", 128, 0),
    ("DeepSeek-8B/brumo25_deepseek.parquet", "brumo", 32, 0),
    ("DeepSeek-8B/hmmt25_deepseek.parquet", "hmmt", 32, 1),
    ("Qwen3-32B/aime25.parquet", "aime", 32, 0),
    ("Qwen3-32B/brumo25.parquet", "brumo", 32, 2),
    ("Qwen3-32B/hmmt.parquet", "hmmt", 32, 0),
    ("Qwen3-next/aime25_thinking.parquet", "aime", 32, 0),
    ("Qwen3-next/brumo25_thinking.parquet", "brumo", 32, 0),
    ("Qwen3-next/hmmt_thinking.parquet", "hmmt", 32, 4),
]

# LaTeX ground truths and equivalent spellings a model might write
LATEX_ANSWERS: list[tuple[str, list[str]]] = [
    ("\\frac{1}{9}", ["\\dfrac{1}{9}", "1/9"]),
    ("2^{99}", ["2^{99}"]),
    ("\\sqrt{3}", ["\\sqrt3"]),
    ("8\\sqrt{2}", ["8 \\sqrt{2}"]),
    ("\\frac{\\pi}{4}", ["\\dfrac{\\pi}{4}", "\\pi/4"]),
    ("\\frac{3}{8}", ["\\dfrac{3}{8}", "3/8", "0.375"]),
    ("2\\sqrt{6}", ["2 \\sqrt{6}"]),
    ("\\frac{7}{2}", ["\\dfrac72", "3.5"]),
    ("1 + \\sqrt{5}", ["\\sqrt{5}+1"]),
    ("\\frac{9\\sqrt{3}}{4}", ["\\dfrac{9\\sqrt{3}}{4}"]),
    ("3^{12}", ["3^{12}"]),
    ("\\binom{10}{3}", ["120"]),
    ("\\frac{1}{2^{10}}", ["2^{-10}"]),
]
GARBAGE = ["", "?", "\\ldots", "x", "answer", "0", "\\text{TBD}", "n", "<b>3</b>", "N/A", "1"]
PHRASES = [
    "Thus the final answer is as boxed above.",
    " Let me double-check the computation once more.",
    " Wait, the case n = 2 needs separate treatment.",
    " So the configuration count is consistent with symmetry.",
    " Hmm, but we assumed the roots are distinct & real <here>.",
    " Therefore the minimum is attained at the boundary.",
    " I should verify with a small example: n=3 gives 7.",
    " The answer should be an integer between 0 and 999.",
]
# What real probes hold when the model had not reached an answer yet: the extractor's text with
# its spaces stripped (prose cut mid-sentence), stray numbers and half-finished LaTeX. The
# realistic benchmark pool (`garbage="realistic"`) draws its early-probe garbage from these;
# the bundled sample keeps GARBAGE (its published-simulator reference depends on it).
_PROSE = [
    "Let me re-examine the problem statement",
    "Wait, the case n = 2 needs separate treatment",
    "So the total number of configurations is",
    "Hmm, maybe I made an arithmetic error in step three",
    "Therefore the minimum value is attained when",
    "First, let's compute the discriminant of the quadratic",
    "Alternatively, consider the complementary count",
    "I think the answer might be the sum of the divisors",
    "Now substitute back into the original equation",
    "Let's check small cases: for n=1 we get 3",
    "The probability that both events happen is",
    "By symmetry, the area of each region equals",
    "We need the remainder when divided by 1000",
    "This contradicts our assumption, so",
    "Using Vieta's formulas, the product of the roots is",
    "But wait, we double counted the diagonal cases",
    "Let me set up coordinates with the origin at A",
    "The recurrence gives a_{n+1} = 2a_n + 1",
    "Counting the lattice points inside the triangle",
    "Okay, so the key insight is the invariant",
]
_LATEX_GARBAGE = [
    "\\frac{3}{4}",
    "\\sqrt{2}",
    "2^{10}",
    "x^2+1",
    "\\pi",
    "(1, 2)",
    "a+b",
    "\\frac{a}{b}",
    "\\frac{1}{",
    "\\sqrt{",
    "n(n+1)/2",
    "\\binom{n}{2}",
    "3\\sqrt{5}",
    "\\frac{\\pi}{6}",
    "2^{n}-1",
    "\\infty",
    "x=\\frac{-b}{2a}",
    "\\{1, 2, 3\\}",
    "\\le 5",
    "k^2",
    "\\log_2 8",
    "e^{i\\pi}",
    "0.5",
    "-7",
    "\\sqrt{3}/2",
    "12\\%",
]


def realistic_garbage(n_prose: int = 180, n_numbers: int = 60, seed: int = 99) -> list[str]:
    """The realistic early-probe garbage list (deterministic): prose fragments cut at a word
    and stripped of their spaces (`Letmere-examinetheproblemstatement`), numbers, LaTeX."""
    rng = np.random.default_rng(seed)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n_prose:
        words = _PROSE[int(rng.integers(len(_PROSE)))].split()
        start = int(rng.integers(0, max(len(words) - 2, 1)))
        stop = int(rng.integers(start + 2, len(words) + 1))
        frag = "".join(words[start:stop])
        if frag not in seen:
            seen.add(frag)
            out.append(frag)
    out += [str(int(v)) for v in rng.integers(0, 5000, n_numbers)]
    out += _LATEX_GARBAGE
    return [out[i] for i in rng.permutation(len(out)).tolist()]


LONG_SPANS = [
    "the number of ordered pairs is obtained by summing over all divisors d of n the value "
    "phi(d) times the number of solutions modulo n/d, which after simplification and checking "
    "the small cases by hand leaves the expression we computed before the last step",
    "we have not yet determined the answer; considering the symmetric case first and then the "
    "general case, the area of the region bounded by the three circles equals the sum of the "
    "sector areas minus the triangle, which requires the angle computed in step four",
]


def _schema() -> pa.Schema:
    probe = pa.struct(
        [
            ("position", pa.int64()),
            ("answer", pa.string()),
            ("is_correct", pa.bool_()),
            ("raw_text", pa.string()),
            ("avg_conf", pa.float64()),
        ]
    )
    return pa.schema(
        [
            ("qid", pa.int64()),
            ("trace_idx", pa.int64()),
            ("ground_truth", pa.string()),
            ("extracted_answer", pa.string()),
            ("confs", pa.list_(pa.float16())),
            ("probes", pa.list_(probe)),
        ]
    )


SCHEMA = _schema()


def _ground_truths(kind: str, rng: np.random.Generator) -> list[tuple[str, list[str]]]:
    """30 ground truths with their alternative spellings."""
    if kind == "aime":
        vals = rng.choice(1000, size=N_QUESTIONS, replace=False)
        return [(str(int(v)), []) for v in vals]
    out: list[tuple[str, list[str]]] = []
    latex_order = rng.permutation(len(LATEX_ANSWERS)).tolist()
    for q in range(N_QUESTIONS):
        if q % 2 == 0 and latex_order:
            out.append(LATEX_ANSWERS[latex_order.pop()])
        else:
            out.append((str(int(rng.integers(2, 5000))), []))
    return out


def _wrong_answers(gt: str, rng: np.random.Generator, k: int) -> list[str]:
    """k distinct plausible wrong answers of the same flavour as the ground truth."""
    out: list[str] = []
    if gt.lstrip("-").isdigit():
        base = int(gt)
        while len(out) < k:
            cand = str(int(abs(base + rng.integers(-60, 61) * rng.choice([1, 1, 2, 7]))))
            if cand != gt and cand not in out:
                out.append(cand)
        return out
    pool = [
        "\\frac{1}{3}",
        "2^{98}",
        "\\sqrt{2}",
        "4\\sqrt{2}",
        "\\frac{\\pi}{2}",
        "\\frac{5}{8}",
        "3\\sqrt{6}",
        "\\frac{5}{2}",
        "\\sqrt{5}",
        "12",
        "7",
        "\\frac{1}{2}",
        "2^{100}",
    ]
    for c in rng.permutation(pool).tolist():
        if c != gt and len(out) < k:
            out.append(c)
    return out


CONF_CHUNK = 512
# overlapping style: spread of the per-trace confidence level, and the per-question right/wrong gap
# in units of it (normal; a negative gap is a question where confidence points the wrong way)
LEVEL_SD = 1.0
GAP_MEAN, GAP_SD = 0.55, 0.45
LATE_SHARE = 0.25  # traces whose probes reach the final answer only at the very end
FLIP_BACK = 0.1  # chance a settled (non-final) probe holds another answer


def _confs(rng: np.random.Generator, lengths: np.ndarray, correct: np.ndarray) -> np.ndarray:
    """float16 confidences of some traces, flat: level + slow wander (knots every 256 tokens) +
    token noise - dips; wrong traces sit lower and wander more; right ones rise at the end."""
    n = lengths.shape[0]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    owner = np.repeat(np.arange(n), lengths)
    pos = np.arange(total, dtype=np.int64) - offsets[:-1][owner]
    level = np.where(correct, rng.uniform(14.0, 17.0, n), rng.uniform(10.5, 14.0, n))
    vol = np.where(correct, 1.0, 1.8)
    knots_per = (lengths + 255) // 256
    ko = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(knots_per, out=ko[1:])
    kn32 = rng.standard_normal(int(ko[-1])).astype(np.float32)
    kowner = np.repeat(np.arange(n), knots_per)
    episode = rng.random(int(ko[-1])) < np.where(correct, 0.04, 0.12)[kowner]
    kn = kn32 * vol[kowner].astype(np.float32) - episode * rng.uniform(2.0, 6.0, int(ko[-1]))
    slow = kn[ko[:-1][owner] + pos // 256]
    rise = (pos / lengths[owner]).astype(np.float32) * np.where(correct, 1.5, 0.0)[owner]
    c = (level[owner] + rise).astype(np.float32) + slow
    del slow, rise, pos
    c += rng.standard_normal(total, dtype=np.float32) * (1.2 * vol[owner]).astype(np.float32)
    dip = rng.random(total, dtype=np.float32) < np.where(correct, 0.04, 0.08)[owner]
    c[dip] -= rng.exponential(5.0, int(dip.sum())).astype(np.float32)
    np.clip(c, 0.0, 24.9, out=c)
    return (np.round(c * 16) / 16).astype(np.float16)


def _confs_overlapping(
    rng: np.random.Generator, lengths: np.ndarray, correct: np.ndarray, base: float, gap: float
) -> np.ndarray:
    """float16 confidences whose right/wrong split overlaps as in real pools: every trace has its
    own level, volatility, dip and episode rates and end rise; right traces sit higher by `gap`
    level standard deviations on average (the question's own gap, negative on a few questions),
    so a confidence signal ranks right above wrong only part of the time."""
    n = lengths.shape[0]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    owner = np.repeat(np.arange(n), lengths)
    pos = np.arange(total, dtype=np.int64) - offsets[:-1][owner]
    level = base + LEVEL_SD * (rng.normal(0.0, 1.0, n) + gap * correct)
    vol = np.exp(rng.normal(0.0, 0.25, n)) * np.where(correct, 1.0, 1.1)
    ep_rate = np.asarray(rng.uniform(0.03, 0.1, n))
    dip_rate = np.asarray(rng.uniform(0.03, 0.08, n))
    rise_end = rng.uniform(0.0, 1.5, n) + 0.2 * correct
    knots_per = (lengths + 255) // 256
    ko = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(knots_per, out=ko[1:])
    kn32 = rng.standard_normal(int(ko[-1])).astype(np.float32)
    kowner = np.repeat(np.arange(n), knots_per)
    episode = rng.random(int(ko[-1])) < ep_rate[kowner]
    kn = kn32 * vol[kowner].astype(np.float32) - episode * rng.uniform(2.0, 6.0, int(ko[-1]))
    slow = kn[ko[:-1][owner] + pos // 256]
    rise = (pos / lengths[owner]).astype(np.float32) * rise_end[owner].astype(np.float32)
    c = (level[owner] + rise).astype(np.float32) + slow
    del slow, rise, pos
    c += rng.standard_normal(total, dtype=np.float32) * (1.2 * vol[owner]).astype(np.float32)
    dip = rng.random(total, dtype=np.float32) < dip_rate[owner].astype(np.float32)
    c[dip] -= rng.exponential(5.0, int(dip.sum())).astype(np.float32)
    np.clip(c, 0.0, 24.9, out=c)
    return (np.round(c * 16) / 16).astype(np.float16)


def _question(
    rng: np.random.Generator,
    qid: int,
    n_traces: int,
    gt: str,
    variants: list[str],
    p_correct: float,
    median_len: float,
    drop: int = 0,
    garbage: list[str] = GARBAGE,
    overlap: bool = False,
) -> pa.Table:
    """All traces of one question as an arrow table (rows in trace_idx order); early probes
    that have no answer yet hold strings of `garbage`. `overlap` draws the realistic style
    (`_confs_overlapping`, late convergence, answer flips after settling), as all 9 sample
    files are; without it the original style (confidence separates right from wrong), kept for
    the full-size ingest benchmark file."""
    n = n_traces
    correct = rng.random(n) < p_correct
    # lengths: wrong traces run longer; a few hit the 64k cap (then no final answer)
    if overlap:
        mu = np.where(correct, np.log(median_len * 0.9), np.log(median_len * 1.15))
        sd = np.where(correct, 0.55, 0.6)
    else:
        mu = np.where(correct, np.log(median_len * 0.85), np.log(median_len * 1.25))
        sd = np.where(correct, 0.5, 0.62)
    lengths = np.exp(mu + rng.standard_normal(n) * sd)
    lengths = np.clip(lengths, 350, LENGTH_CAP).astype(np.int64)
    capped = lengths >= LENGTH_CAP

    # answers: wrong ones with skewed (Zipf-like) popularity
    n_wrong = int(rng.integers(3, 9))
    wrong = _wrong_answers(gt, rng, n_wrong)
    wp = 1.0 / np.arange(1, n_wrong + 1) ** 1.4
    wp /= wp.sum()
    wrong_pick = rng.choice(n_wrong, size=n, p=wp)
    finals: list[str | None] = []
    spellings = [gt, *variants]
    for j in range(n):
        if capped[j] or rng.random() < 0.025:
            finals.append(None)
        elif rng.random() < 0.002:
            finals.append(LONG_SPANS[j % len(LONG_SPANS)])
            correct[j] = False
        elif correct[j]:
            finals.append(
                spellings[int(rng.integers(len(spellings)))] if rng.random() < 0.3 else gt
            )
        else:
            finals.append(wrong[wrong_pick[j]])
    correct &= np.array([f is not None for f in finals])

    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    # generated in chunks of traces so a 4,096-trace question stays at a few hundred MB
    if overlap:
        base, gap = float(rng.uniform(12.5, 15.5)), float(rng.normal(GAP_MEAN, GAP_SD))
        c16 = np.concatenate(
            [
                _confs_overlapping(
                    rng, lengths[i : i + CONF_CHUNK], correct[i : i + CONF_CHUNK], base, gap
                )
                for i in range(0, n, CONF_CHUNK)
            ]
        )
    else:
        c16 = np.concatenate(
            [
                _confs(rng, lengths[i : i + CONF_CHUNK], correct[i : i + CONF_CHUNK])
                for i in range(0, n, CONF_CHUNK)
            ]
        )
    c32 = c16.astype(np.float32)
    cs = np.zeros(total + 1, dtype=np.float64)
    np.cumsum(c32, dtype=np.float64, out=cs[1:])

    # probes at every multiple of 2048 below the length, plus the end
    nk = (lengths - 1) // PROBE_STEP
    po = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(nk + 1, out=po[1:])
    powner = np.repeat(np.arange(n), nk + 1)
    rank = np.arange(int(po[-1])) - po[:-1][powner]
    ppos = np.where(rank < nk[powner], (rank + 1) * PROBE_STEP, lengths[powner])
    lo = np.maximum(ppos - PROBE_STEP, 0)
    gstart = offsets[:-1][powner]
    avg = (cs[gstart + ppos] - cs[gstart + lo]) / np.maximum(ppos - lo, 1)
    frac = ppos / lengths[powner]
    if overlap:
        # a quarter of the traces settle only at the very end (late convergence)
        late = rng.random(n) < LATE_SHARE
        settle = np.where(late, rng.uniform(0.9, 1.1, n), rng.uniform(0.3, 0.8, n))[powner]
        p_final = 1.0 / (1.0 + np.exp(-25.0 * (frac - settle)))
        # once settled, a probe still leaves the final answer now and then (flips back)
        p_final = p_final * (1.0 - FLIP_BACK)
    else:
        settle = rng.uniform(0.3, 0.8, n)[powner]
        p_final = 1.0 / (1.0 + np.exp(-10.0 * (frac - settle)))
    n_probes = int(ppos.shape[0])
    u = rng.random(n_probes)
    u2 = rng.random(n_probes)
    is_end = rank == nk[powner]
    answers: list[str] = []
    is_corr = np.zeros(ppos.shape[0], dtype=bool)
    gt_forms = {gt, *variants}
    for i in range(ppos.shape[0]):
        j = int(powner[i])
        fin = finals[j]
        if fin is not None and len(fin) > 100:
            fin = wrong[0]
        if fin is not None and (is_end[i] or u[i] < p_final[i]):
            a = fin
        elif u2[i] < 0.6 * (1.0 - frac[i]):
            a = garbage[(i * 7 + j) % len(garbage)]
        elif u2[i] < 0.75:
            a = gt
        else:
            a = wrong[int(wrong_pick[(i + j) % n])]
        answers.append(a)
        is_corr[i] = a in gt_forms
    ph = rng.integers(0, len(PHRASES), size=(ppos.shape[0], 3))
    cut = rng.integers(20, 300, size=n_probes)
    raw = [
        ("\\boxed{" + a + "}" + "".join(PHRASES[k] for k in ph[i]))[: len(a) + 8 + int(cut[i])]
        for i, a in enumerate(answers)
    ]
    probe_struct = pa.StructArray.from_arrays(
        [
            pa.array(ppos, type=pa.int64()),
            pa.array(answers, type=pa.string()),
            pa.array(is_corr),
            pa.array(raw, type=pa.string()),
            pa.array(avg, type=pa.float64()),
        ],
        fields=list(SCHEMA.field("probes").type.value_type),
    )
    probes = pa.ListArray.from_arrays(pa.array(po.astype(np.int32)), probe_struct)
    confs = pa.ListArray.from_arrays(
        pa.array(offsets.astype(np.int32)), pa.array(c16, type=pa.float16())
    )
    table = pa.Table.from_arrays(
        [
            pa.array(np.full(n, qid, dtype=np.int64)),
            pa.array(np.arange(n, dtype=np.int64)),
            pa.array([gt] * n, type=pa.string()),
            pa.array(finals, type=pa.string()),
            confs,
            probes,
        ],
        schema=SCHEMA,
    )
    if drop:
        keep = np.ones(n, dtype=bool)
        keep[rng.choice(np.arange(1, n), size=min(drop, n - 1), replace=False)] = False
        table = table.filter(pa.array(keep))
    return table


def _difficulties(rng: np.random.Generator) -> np.ndarray:
    """Per-question success rates from 0% to 100% (a few exactly 0 and 1)."""
    p = rng.beta(0.7, 0.6, N_QUESTIONS)
    idx = rng.permutation(N_QUESTIONS)
    p[idx[:2]] = 0.0
    p[idx[2:5]] = 1.0
    return p


@dataclass(frozen=True)
class Questions:
    """What a benchmark's files share per question (index = qid mod 30): the ground truth with
    its equivalent spellings, and the success rate every model's traces are drawn with."""

    truths: list[tuple[str, list[str]]]
    difficulty: np.ndarray


def draw_questions(kind: str, rng: np.random.Generator) -> Questions:
    """A benchmark's 30 questions, drawn from `rng` (the draws a file made on its own before
    files shared them, so the benchmark's first file stays as it was)."""
    truths = _ground_truths(kind, rng)
    return Questions(truths, _difficulties(rng))


# how the generated files are written: zstd, dictionaries only for the short answer columns, the
# float16 confidences byte-stream split (a copy of a generated file must keep these, or it decodes
# at another speed: dictionary-encoded float16 reads markedly slower than the split)
WRITER_OPTIONS: dict[str, object] = {
    "compression": "zstd",
    "compression_level": 3,
    "use_dictionary": ["ground_truth", "extracted_answer"],
    "use_byte_stream_split": ["confs.list.element"],
}


def _writer(path: Path) -> pq.ParquetWriter:
    path.parent.mkdir(parents=True, exist_ok=True)
    return pq.ParquetWriter(path, SCHEMA, **WRITER_OPTIONS)


def write_file(
    path: Path,
    kind: str,
    n_traces: int,
    *,
    seed: int,
    drop: int = 0,
    median_len: float = 10_000,
    n_questions: int = N_QUESTIONS,
    progress: ProgressFn | None = None,
    garbage: str = "sample",
    row_group_rows: int | None = None,
    overlap: bool = False,
    questions: Questions | None = None,
) -> Questions:
    """Write one MARS file, one row group per question (or `row_group_rows` rows each, across
    questions), streaming (bounded memory), and return its questions. `questions` are another
    file's of the same benchmark (drawn here when None); `garbage="realistic"` fills early probes
    with `realistic_garbage()` instead of the sample's short list; `overlap` draws right and
    wrong traces that overlap in confidence as real pools do (`_question`)."""
    rng = np.random.default_rng(seed)
    junk = realistic_garbage() if garbage == "realistic" else GARBAGE
    qs = questions if questions is not None else draw_questions(kind, rng)
    gts, diff = qs.truths, qs.difficulty
    drops = np.zeros(n_questions, dtype=np.int64)
    if drop:
        for q in rng.choice(n_questions, size=drop, replace=True).tolist():
            drops[q] += 1
    tmp = path.with_suffix(".parquet.tmp")
    with _writer(tmp) as w:
        for q in range(n_questions):
            gt, variants = gts[q % N_QUESTIONS]
            t = _question(
                rng,
                q,
                n_traces,
                gt,
                variants,
                float(diff[q % N_QUESTIONS]),
                median_len,
                int(drops[q]),
                junk,
                overlap,
            )
            w.write_table(t, row_group_size=max(row_group_rows or t.num_rows, 1))
            if progress:
                progress((q + 1) / n_questions, f"{path.name} q{q}")
    tmp.replace(path)
    return qs


def write_sample(root: Path, progress: ProgressFn | None = None) -> None:
    """Write all 9 MARS files under `root` with the Hub repo's relative paths, plus the
    repro_reference summaries of the DeepSeek-8B AIME 2025 file. A benchmark's first file draws
    its questions, the others reuse them (same qids, ground truths, difficulties); every file
    keeps its own seed for its traces and dropped rows."""
    root = Path(root)
    weights = np.array([n for _, _, n, _ in FILES], dtype=float)
    shared: dict[str, Questions] = {}
    done = 0.0
    for i, (rel, kind, n_traces, drop) in enumerate(FILES):
        share = weights[i] / weights.sum()

        def sub(f: float, m: str = "", _d=done, _s=share) -> None:
            if progress:
                progress(_d + _s * f, m)

        shared[kind] = write_file(
            root / rel,
            kind,
            n_traces,
            seed=1000 + i,
            drop=drop,
            progress=sub,
            overlap=True,
            questions=shared.get(kind),
        )
        done += share
    write_reference(root)
    if progress:
        progress(1.0, "MARS sample written")


def write_reference(root: Path) -> None:
    """Copy the bundled published-simulator summaries to `root/repro_reference/{Model}/{dataset}/
    {method}/` (the Hub repo's layout, `cache.datasets.mars_reference_dir`). Only CSVs are copied:
    the note stays with the source tree."""
    dest = Path(root) / "repro_reference"
    for src in sorted(REFERENCE_DIR.rglob("summary_*.csv")):
        out = dest / src.relative_to(REFERENCE_DIR)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, out)


def write_full_size_file(
    path: Path,
    n_questions: int = 30,
    n_traces: int = 4096,
    median_len: float = 10_000,
    seed: int = 7,
    progress: ProgressFn | None = None,
    garbage: str = "sample",
    row_group_rows: int | None = None,
) -> Path:
    """A full-size MARS file (30 x 4,096 traces, ~1.2-1.5 billion values) for bench/mars_ingest.py,
    written question by question so memory stays bounded."""
    path = Path(path)
    write_file(
        path,
        "aime",
        n_traces,
        seed=seed,
        drop=3,
        median_len=median_len,
        n_questions=n_questions,
        progress=progress,
        garbage=garbage,
        row_group_rows=row_group_rows,
    )
    return path
