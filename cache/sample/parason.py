"""Deterministic Parason sample: sft-1x, sft-8x and rl, with the card's exact schema.

What is in it (all seeded, quick to build):

- the hand-written trajectories of `parason_texts` (competition maths, correct where
  ``correctness`` is True; Subtask-only, Trial-only, mixed and untyped blocks; 1-4 stages;
  2-12 branches; ``<Conclusion>``; open item tags), one 45-branch stage, and three malformed
  rows (unclosed thread, numbering gap + stray text + unnumbered thread, HTML/script text);
- programmatic variants for volume (modular powers, divisor counts, inclusion-exclusion sums,
  two-modulus CRT searches, triangular numbers), with realistic filler so lengths vary between
  ~2k and ~25k characters; about a fifth are incorrect (a visible final slip);
- 60 RL prompts in veRL format.

sft-8x holds the same uuids in the same order. Every *pure-Trial* stage with fewer than 8
branches is expanded to 8: the extra items/threads are appended *after* the originals, numbered
n+1..8, with goals from `parason_texts.EXTRA_TRIALS`. On two in five variants the 8x row's
sequential reasoning is also shorter (`CONCISE_8X`), so some 8x rows have a longer critical path C
than their 1x row and some do not. Nothing in the text marks the extra Trials (as in the
real data); the UI detects them with `analysis.parason.metrics.added_branches(traj_1x,
traj_8x)`, which compares each 8x stage with the same stage of the 1x row of the same uuid
(thread text match, falling back to position: threads past the 1x count are added).

``num_qwen_tokens`` = `sample_token_count(qwen_text)`, this generator's own documented rule (there
is no tokenizer offline): each reserved tag / chat marker counts 1, the other characters /
CHARS_PER_TOKEN (3.6), rounded. It is the rule of the app's `estimate` counter
(`analysis.parason.tokens.estimate_total_tokens`), so both agree on the sample; the data layer
states it here rather than importing analysis, and tests/cache/test_sample_parason.py checks the
agreement on every row.
"""

from __future__ import annotations

import random
import re
import uuid
from math import gcd
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from cache.progress import ProgressFn, no_progress
from cache.sample.parason_texts import HAND, MALFORMED, B, Traj, digit_sum_45, render

SEED = 20260731
N_VARIANTS = 280
N_RL = 60
# 8x rows of the variants k with k % 5 in CONCISE_8X keep only CONCISE_SHARE of their sequential
# filler: their extra Trials still lengthen the Trial stages, but the critical path C can end up
# no longer than the 1x row's (real 8x rows are separate generations, not 1x rows plus Trials)
CONCISE_8X = (1, 3)
CONCISE_SHARE = 0.3
# the 8x rows of the variants k with k % 9 == FLIP_8X reach the other verdict than their 1x row
# (right -> wrong or wrong -> right), as paired rows of real data sometimes do
FLIP_8X = 4
RL_SUFFIX = "\n\nLet's think step by step and output the final answer within \\boxed{}."
CHARS_PER_TOKEN = 3.6  # the documented chars/token ratio of the stored num_qwen_tokens
# the reserved tags and chat markers, one special token each in the stored count
SPECIAL_TOKEN_RE = re.compile(
    r"</?(?:Parallel|Outlines|Outline|Trial|Subtask|Thread|Conclusion|(?i:think))>"
    r"|<\|(?:im_start|im_end)\|>"
)

MESSAGE = pa.struct([("role", pa.string()), ("content", pa.string())])
SFT_SCHEMA = pa.schema(
    [
        ("uuid", pa.string()),
        ("question", pa.string()),
        ("response_reasoning", pa.string()),
        ("response_content", pa.string()),
        ("correctness", pa.bool_()),
        ("raw_messages", pa.list_(MESSAGE)),
        ("qwen_text", pa.string()),
        ("num_qwen_tokens", pa.int64()),
    ]
)
RL_SCHEMA = pa.schema(
    [
        ("prompt", pa.list_(MESSAGE)),
        ("data_source", pa.string()),
        ("ability", pa.string()),
        ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
        ("extra_info", pa.struct([("index", pa.int64()), ("split", pa.string())])),
    ]
)


def qwen_chat(question: str, reasoning: str, content: str) -> str:
    """Qwen3 chat template as in the card (user turn, assistant turn with the think block)."""
    return (
        f"<|im_start|>user\n{question}<|im_end|>\n<|im_start|>assistant\n"
        f"<think>\n{reasoning}\n</think>\n\n{content}<|im_end|>"
    )


def sample_token_count(text: str) -> int:
    """The stored `num_qwen_tokens` of a sample row: special tags count 1, the other characters
    CHARS_PER_TOKEN each. Why a rule: the sample is built offline, without the Qwen3 tokenizer."""
    spans = [m.end() - m.start() for m in SPECIAL_TOKEN_RE.finditer(text)]
    return len(spans) + round((len(text) - sum(spans)) / CHARS_PER_TOKEN)


def make_uuid(key: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"parason-sample/{key}"))


# ----------------------------------------------------------------------------- filler text
_FILLER = [
    "Let me re-read the problem to make sure I use the right numbers: {fact}.",
    "Wait, before going on, let me double-check the previous line. {fact}, so that is fine.",
    "Hmm, is there a case I am missing? I do not think so: {fact}.",
    "Let me write the key fact once more so I do not lose track: {fact}.",
    "Okay. So far everything is consistent. {fact}.",
    "Actually, let me slow down and verify this step by step, since arithmetic slips are easy here. {fact}.",
    "I should be careful with off-by-one errors at the boundary. {fact}.",
]


def filler(rng: random.Random, facts: list[str], n_chars: int) -> str:
    """Reflective sentences (restating correct facts) until about n_chars characters."""
    out: list[str] = []
    size = 0
    while size < n_chars:
        s = rng.choice(_FILLER).format(fact=rng.choice(facts))
        out.append(s)
        size += len(s) + 1
        if rng.random() < 0.2:
            out.append("\n\n")
    return " ".join(out).replace(" \n\n ", "\n\n")


# ----------------------------------------------------------------------------- variants
def _powmod(rng: random.Random, k: int) -> tuple[str, str, list, str, list[str]]:
    while True:
        m = rng.choice([7, 9, 11, 13, 17, 19, 100])
        a = rng.randint(2, 12)
        if gcd(a, m) == 1:
            break
    n = rng.randint(50, 3000)
    ans = pow(a, n, m)
    powers = [a % m]
    while powers[-1] != 1:
        powers.append(powers[-1] * a % m)
    d = len(powers)
    q, r = divmod(n, d)
    cyc = ", ".join(f"{a}^{i + 1} = {p}" for i, p in enumerate(powers[:12]))
    t1 = (
        f"Powers of {a} mod {m}: {cyc}{' ...' if d > 12 else ''}. The order is {d}. "
        f"{n} = {d} * {q} + {r}, so {a}^{n} = {a}^{r} = {pow(a, r, m)} (mod {m})."
    )
    bits = bin(n)[2:]
    sq = []
    v = a % m
    for i in range(len(bits)):
        sq.append(f"{a}^{2**i} = {v}")
        v = v * v % m
    t2 = (
        f"{n} in binary is {bits}. Repeated squaring mod {m}: {', '.join(sq[:10])}"
        f"{' ...' if len(sq) > 10 else ''}. Multiplying the squares for the 1 bits gives {ans}."
    )
    facts = [
        f"we need {a}^{n} modulo {m}",
        f"the order of {a} modulo {m} is {d}",
        f"{n} = {d} * {q} + {r}",
    ]
    body = [
        f"We want {a}^{n} mod {m}. Two standard routes: find the period of the powers, or "
        "repeated squaring.",
        B(
            [
                ("T", f"Find the period of {a}^k mod {m}."),
                ("T", "Use repeated squaring on the binary expansion."),
            ],
            [t1, t2],
            result=f"{a}^{n} = {ans} (mod {m})",
        ),
    ]
    return (
        f"Find the remainder when ${a}^{{{n}}}$ is divided by ${m}$.",
        str(ans),
        body,
        f"{a}^{n} = {ans} (mod {m})",
        facts,
    )


def _divisors(rng: random.Random, k: int) -> tuple[str, str, list, str, list[str]]:
    primes = sorted(rng.sample([2, 3, 5, 7, 11, 13], rng.randint(2, 4)))
    exps = [rng.randint(1, 4) for _ in primes]
    n = 1
    for p, e in zip(primes, exps, strict=True):
        n *= p**e
    ans = 1
    for e in exps:
        ans *= e + 1
    threads = []
    for p, e in zip(primes, exps, strict=True):
        chain = []
        v = n
        for _ in range(e):
            chain.append(f"{v} / {p} = {v // p}")
            v //= p
        threads.append(
            f"{'; '.join(chain)}; {v} is not divisible by {p}. The exponent of {p} is {e}."
        )
    fact = " * ".join(f"{p}^{e}" for p, e in zip(primes, exps, strict=True))
    facts = [f"{n} = {fact}", f"d(n) is the product of (exponent + 1) over the primes of {n}"]
    body = [
        f"Factor {n}; the number of divisors is the product of (e + 1).",
        B(
            [("S", f"Find the exponent of {p} in {n}.") for p in primes],
            threads,
            conclusion=f"{n} = {fact}.",
        ),
        f"So d({n}) = {' * '.join(str(e + 1) for e in exps)} = {ans}.",
    ]
    return (
        f"How many positive divisors does ${n}$ have?",
        str(ans),
        body,
        f"d({n}) = {ans}",
        facts,
    )


def _multiples(rng: random.Random, k: int) -> tuple[str, str, list, str, list[str]]:
    p, q = rng.choice([(2, 3), (3, 5), (2, 5), (3, 7), (5, 7), (2, 7), (4, 9)])
    N = rng.randint(50, 500)

    def s(d: int) -> int:
        c = N // d
        return d * c * (c + 1) // 2

    ans = s(p) + s(q) - s(p * q)
    ths = [
        f"There are {N // d} multiples of {d}: {d} * {N // d} * {N // d + 1} / 2 = {s(d)}."
        for d in (p, q, p * q)
    ]
    facts = [
        f"S = S({p}) + S({q}) - S({p * q})",
        f"S({p}) = {s(p)}",
        f"S({q}) = {s(q)}",
        f"S({p * q}) = {s(p * q)}",
    ]
    body = [
        f"Inclusion-exclusion with multiples of {p}, {q} and {p * q} up to {N}.",
        B([("S", f"Sum of the multiples of {d} up to {N}.") for d in (p, q, p * q)], ths),
        f"S = {s(p)} + {s(q)} - {s(p * q)} = {ans}.",
    ]
    return (
        f"Find the sum of all integers $n$ with $1 \\le n \\le {N}$ divisible by ${p}$ or ${q}$.",
        str(ans),
        body,
        f"the sum is {ans}",
        facts,
    )


def _crt(rng: random.Random, k: int) -> tuple[str, str, list, str, list[str]]:
    while True:
        m1, m2 = rng.randint(3, 12), rng.randint(2, 11)
        if gcd(m1, m2) == 1:
            break
    r1, r2 = rng.randint(1, m1 - 1), rng.randint(0, m2 - 1)
    cands = [r1 + m1 * j for j in range(m2)]
    ans = next(c for c in cands if c % m2 == r2)
    ths = [
        f"{c} = {c // m2} * {m2} + {c % m2}, remainder {c % m2}: "
        + ("this is the one." if c % m2 == r2 else f"not {r2}, rejected.")
        for c in cands
    ]
    facts = [
        f"the candidates are {r1} + {m1}j",
        f"we need remainder {r2} modulo {m2}",
        f"{ans} mod {m2} = {r2}",
    ]
    body = [
        f"Candidates with n = {r1} (mod {m1}) are {', '.join(map(str, cands))}; test each mod {m2}.",
        B([("T", f"Test n = {c}.") for c in cands], ths, result=f"n = {ans}"),
    ]
    return (
        f"Find the smallest positive integer $n$ with $n \\equiv {r1} \\pmod{{{m1}}}$ and "
        f"$n \\equiv {r2} \\pmod{{{m2}}}$.",
        str(ans),
        body,
        f"n = {ans}",
        facts,
    )


def _triangular(rng: random.Random, k: int) -> tuple[str, str, list, str, list[str]]:
    N = rng.randint(100, 9999)
    M = rng.choice([7, 11, 100, 1000])
    tot = N * (N + 1) // 2
    ans = tot % M
    body = [
        "Use the triangular number formula.",
        B(
            [("T", f"Compute {N} * {N + 1} / 2 exactly."), ("T", f"Reduce modulo {M} first.")],
            [
                f"{N} * {N + 1} / 2 = {tot}, and {tot} mod {M} = {ans}.",
                f"{N} = {N % (2 * M)} and {N + 1} = {(N + 1) % (2 * M)} (mod {2 * M}); half their "
                f"product mod {M} is {ans}.",
            ],
            result=str(ans),
        ),
    ]
    facts = [f"1 + ... + {N} = {N} * {N + 1} / 2", f"the sum is {tot}"]
    return (
        f"Find the remainder when $1 + 2 + \\cdots + {N}$ is divided by ${M}$.",
        str(ans),
        body,
        f"the remainder is {ans}",
        facts,
    )


_TEMPLATES = (_powmod, _divisors, _multiples, _crt, _triangular)


def _trim(text: str, share: float) -> str:
    """The first `share` of `text`, cut back to the end of a sentence (may be empty)."""
    cut = text[: int(len(text) * share)]
    end = cut.rfind(". ")
    return cut[: end + 1] if end >= 0 else ""


def make_variant(
    k: int,
    target_chars: int | None = None,
    seed: int = SEED,
    concise: bool = False,
    flip: bool = False,
) -> tuple[Traj, bool]:
    """Variant number k as (Traj, correct). `target_chars` pads it with filler to about that
    length (the benchmark asks for 20-60k characters); default: 2k-25k. `concise` keeps only
    CONCISE_SHARE of the reflective filler of the sequential parts (the threads stay the same:
    the same random draws are made), as an 8x row whose sequential reasoning is shorter. `flip`
    reaches the other verdict than the unflipped draw (an 8x row whose outcome changed)."""
    rng = random.Random(seed * 1000003 + k)
    template = _TEMPLATES[k % len(_TEMPLATES)]
    question, answer, body, result, facts = template(rng, k)
    body = list(body)
    # extra stages for structure variety (1-4 stages in total)
    n_extra = rng.choice([0, 0, 1, 1, 2, 3])
    for j in range(n_extra):
        style = rng.choice(["S", "T", "O", "mixed"])
        nb = rng.randint(2, 6)
        if style == "mixed":
            items = [
                ("S" if i % 2 == 0 else "T", f"Re-check part {i + 1} of the argument.")
                for i in range(nb)
            ]
        else:
            items = [(style, f"Re-check part {i + 1} of the argument.") for i in range(nb)]
        ths = [
            f"Going over part {i + 1} again: {rng.choice(facts)}. Nothing changes."
            for i in range(nb)
        ]
        body.append(
            f"Let me verify the result ({result}) once more in pieces."
            if j == 0
            else "More checks:"
        )
        body.append(
            B(
                items,
                ths,
                conclusion=f"Checks passed: {result}." if rng.random() < 0.5 else None,
                result=result,
            )
        )
    correct = rng.random() >= 0.2
    shown = answer
    if not correct:
        shown = (
            str(int(answer) + rng.choice([-2, -1, 1, 2, 10]))
            if answer.lstrip("-").isdigit()
            else answer + "+1"
        )
        body.append(
            f"Hmm, I think I dropped a term somewhere; correcting, the final value should be {shown}."
        )
    # filler, spread over sequential parts and threads
    target = target_chars if target_chars is not None else int(rng.uniform(2_000, 25_000))
    base = len(render(Traj("", question, answer, body, "")))
    extra = max(0, target - base)
    n_slots = sum(len(p.threads) if isinstance(p, B) else 1 for p in body)
    per = extra // max(n_slots, 1)
    padded: list[str | B] = []
    for p in body:
        if isinstance(p, B):
            p = B(
                p.items,
                [f"{t} {filler(rng, facts, int(per * rng.uniform(0.3, 1.7)))}" for t in p.threads],
                p.conclusion,
                p.result,
                p.tight,
            )
        else:
            if per > 40:
                fill = filler(rng, facts, per)
                p = f"{p} {_trim(fill, CONCISE_SHARE)}".rstrip() if concise else f"{p} {fill}"
        padded.append(p)
    if flip:  # the other verdict, added after the padding so every draw above stays the same
        if correct:
            shown = str(int(answer) + 1) if answer.lstrip("-").isdigit() else answer + "+1"
            padded.append(f"Hmm, one more adjustment: the final value should be {shown}.")
        else:
            shown = answer
            padded.append(f"Wait, that correction was itself wrong; the value is {answer}.")
        correct = not correct
    content = f"Therefore the answer is $\\boxed{{{shown}}}$."
    key = f"variant-{k:04d}-{template.__name__.strip('_')}"
    return Traj(key, question, answer, padded, content, correct=correct), correct


def all_trajectories() -> list[Traj]:
    return [*HAND, digit_sum_45()]


def _sft_rows(expand_to: int) -> dict[str, list]:
    cols: dict[str, list] = {f.name: [] for f in SFT_SCHEMA}

    def add(key: str, question: str, reasoning: str, content: str, correct: bool) -> None:
        qt = qwen_chat(question, reasoning, content)
        cols["uuid"].append(make_uuid(key))
        cols["question"].append(question)
        cols["response_reasoning"].append(reasoning)
        cols["response_content"].append(content)
        cols["correctness"].append(correct)
        cols["raw_messages"].append(
            [
                {"role": "user", "content": question},
                {"role": "assistant", "content": f"<think>\n{reasoning}\n</think>\n\n{content}"},
            ]
        )
        cols["qwen_text"].append(qt)
        cols["num_qwen_tokens"].append(sample_token_count(qt))

    for t in all_trajectories():
        add(t.key, t.question, render(t, expand_to), t.content, t.correct)
    for key, q, reasoning, content, correct in MALFORMED:
        add(key, q, reasoning, content, correct)
    for k in range(N_VARIANTS):
        t, correct = make_variant(
            k,
            concise=bool(expand_to) and k % 5 in CONCISE_8X,
            flip=bool(expand_to) and k % 9 == FLIP_8X,
        )
        add(t.key, t.question, render(t, expand_to), t.content, correct)
    return cols


def _rl_rows() -> dict[str, list]:
    qa: list[tuple[str, str]] = [(t.question, t.answer) for t in all_trajectories()]
    k = 0
    while len(qa) < N_RL:
        t, _ = make_variant(10_000 + k, target_chars=0)
        qa.append((t.question, t.answer))
        k += 1
    rows: dict[str, list] = {f.name: [] for f in RL_SCHEMA}
    for i, (q, a) in enumerate(qa[:N_RL]):
        rows["prompt"].append([{"role": "user", "content": q + RL_SUFFIX}])
        rows["data_source"].append("polaris-53k" if i % 7 else "deepscaler")
        rows["ability"].append("math")
        rows["reward_model"].append({"style": "rule", "ground_truth": a})
        rows["extra_info"].append({"index": i, "split": "train"})
    return rows


def write_sample(root: Path, progress: ProgressFn | None = None) -> None:
    """Write root/sft-1x/train.parquet, root/sft-8x/train.parquet, root/rl/train.parquet."""
    hook = progress or no_progress
    root = Path(root)
    for i, (sub, expand) in enumerate((("sft-1x", 0), ("sft-8x", 8))):
        hook(i / 3, f"parason {sub}")
        table = pa.table(_sft_rows(expand), schema=SFT_SCHEMA)
        (root / sub).mkdir(parents=True, exist_ok=True)
        pq.write_table(table, root / sub / "train.parquet", compression="zstd")
    hook(2 / 3, "parason rl")
    (root / "rl").mkdir(parents=True, exist_ok=True)
    pq.write_table(
        pa.table(_rl_rows(), schema=RL_SCHEMA), root / "rl" / "train.parquet", compression="zstd"
    )
    hook(1.0, "parason done")


def long_trajectories(
    n: int, min_chars: int = 20_000, max_chars: int = 60_000, seed: int = 7
) -> list[tuple[str, int]]:
    """(qwen_text, num_qwen_tokens) of n realistic 20-60k character trajectories (benchmark)."""
    rng = random.Random(seed)
    out: list[tuple[str, int]] = []
    k = 0
    while len(out) < n:
        t, _ = make_variant(k, target_chars=rng.randint(min_chars, max_chars), seed=seed)
        k += 1
        qt = qwen_chat(t.question, render(t), t.content)
        if min_chars <= len(qt) <= max_chars:  # padding is spread randomly; keep the range strict
            out.append((qt, sample_token_count(qt)))
    return out
