"""Pluggable token counters for parsed trajectories; every count says which counter made it.

Why pluggable: the reference metrics use the Qwen3 tokenizer, which is usually not available
offline. Counters:

- ``qwen``: exact Qwen3 counts with the ``tokenizers`` library, when a Qwen3 ``tokenizer.json``
  is in the local HF cache (``Qwen/Qwen3-8B``; never downloads) or given by ``$RTE_QWEN_TOKENIZER``.
- ``estimate``: reserved tags and chat markers are one special token each; the rest of the
  trajectory's ``num_qwen_tokens`` is spread over the text parts by character share. Without a
  total, the documented ratio ``CHARS_PER_TOKEN`` is used. The bundled sample computes
  ``num_qwen_tokens`` with the same rule (``estimate_total_tokens``), so both agree there.
- ``words``: whitespace-separated words (the reference code's fallback), for comparison.

A counter maps the parser's parts to per-part counts (floats for the estimate).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol

from huggingface_hub import hf_hub_download, try_to_load_from_cache
from tokenizers import Tokenizer

from analysis.parason.parse import SPECIAL_ROLES, TAG_RE, Trajectory
from cache.errors import DataError
from cache.sources import hub_offline, hub_reachable

CHARS_PER_TOKEN = 3.6  # documented estimate for English+LaTeX maths text with the Qwen3 BPE
QWEN_REPO = "Qwen/Qwen3-8B"
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
    name = "whitespace words"

    def count_parts(self, traj: Trajectory, total_tokens: float | None = None) -> list[float]:
        text = traj.text
        return [
            1.0 if r in SPECIAL_ROLES else float(len(text[s:e].split()))
            for s, e, r in zip(traj.part_start, traj.part_end, traj.part_role, strict=True)
        ]


class QwenCounter:
    key = "qwen"
    name = "exact (Qwen3 tokenizer)"

    def __init__(self, tokenizer_path: str) -> None:
        self.path = tokenizer_path
        self.tok = Tokenizer.from_file(tokenizer_path)

    def count_parts(self, traj: Trajectory, total_tokens: float | None = None) -> list[float]:
        text = traj.text
        pieces = [text[s:e] for s, e in zip(traj.part_start, traj.part_end, strict=True)]
        encs = self.tok.encode_batch(pieces, add_special_tokens=False)
        return [float(len(enc.ids)) for enc in encs]


def fetch_qwen_tokenizer() -> str | None:
    """Download Qwen3's tokenizer.json (a few MB) into the HF cache when the Hub is reachable and
    offline mode is off; None otherwise. Only called on an explicit request (the CLI's --counter qwen)."""
    if hub_offline() or not hub_reachable():
        return None
    try:
        return hf_hub_download(QWEN_REPO, "tokenizer.json")
    except Exception:  # gated, renamed, network trouble: the caller says what to do
        return None


def find_qwen_tokenizer() -> str | None:
    """Path of a local Qwen3 tokenizer.json (env override, then the HF cache), never downloading."""
    explicit = os.environ.get("RTE_QWEN_TOKENIZER")
    if explicit and os.path.isfile(explicit):
        return explicit
    try:
        found = try_to_load_from_cache(QWEN_REPO, "tokenizer.json")
    except Exception:  # no hub library or a broken cache: just not available
        return None
    return found if isinstance(found, str) and os.path.isfile(found) else None


@lru_cache(maxsize=4)
def get_counter(key: str = "estimate") -> TokenCounter:
    """The counter named `key`; raises DataError when `qwen` is asked for but not available."""
    if key == "estimate":
        return EstimateCounter()
    if key == "words":
        return WordCounter()
    if key == "qwen":
        path = find_qwen_tokenizer() or fetch_qwen_tokenizer()
        if path is None:
            raise DataError(
                f"no Qwen3 tokenizer in the local Hugging Face cache ({QWEN_REPO}) and the Hub is not reachable",
                "download it once with `hf download Qwen/Qwen3-8B tokenizer.json`, "
                "set RTE_QWEN_TOKENIZER=/path/to/tokenizer.json, or use --counter estimate",
            )
        return QwenCounter(path)
    raise DataError(f"unknown token counter {key!r}", f"choose one of {', '.join(COUNTER_NAMES)}")


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
