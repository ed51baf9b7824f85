"""Answer equivalence groups of one question: a cheap normaliser first, math-verify only between
distinct normalised strings.

Why this shape: a MARS question has ~4,096 final answers and ~25,000 probe answers but only a
few dozen distinct strings, most of them plain integers. Normalising and keying integers and
simple fractions exactly handles almost everything; math-verify (slow, sympy-based) is asked
only whether two *distinct* keys are the same value, and its results are kept in bounded
LRU caches (pure functions of the two strings, so sharing them between sessions is safe).

Group ids are deterministic: numbered 0, 1, ... in order of first appearance of the answers as
they are added (the feature builder adds final answers in `trace_idx` order, then probe answers),
as docs/formats/stopping.md ("Checkpoints and answers") requires for tie-breaks. A null or
empty answer has no group (-1). An
answer the normaliser empties (a probe cut after `n=`, a lone `.` or `$`) is still an answer,
as in the published simulator, where only null and "" are no answer: it gets a group of its own
(keyed by its raw text, equal only to itself), so it votes and its switch probability counts.

The published simulator's cap: a question with more than SYMBOLIC_PAIRWISE_MAX distinct
non-numeric answers (`max_symbolic_pairwise` there; realistic probe garbage gives 139-183) has
them compared with nothing but the ground truth: each stays a group of its own, unless its
normal form or numeric value matches. `compares_symbolic` decides it for a whole question
(answers with a numeric value still merge; bare words, prose and text spans count as
non-numeric, as does anything math-verify reads only with free symbols). Why: it is the published
grouping, and those comparisons were half the cold cost of a realistic pool.

Timeout-safe path: math-verify's own timeouts use `signal.alarm`, which only works on the main
thread. On the main thread we pass short timeouts; elsewhere (Streamlit runs scripts in worker
threads) we disable them and instead never hand math-verify a string longer than
`VERIFY_MAX_CHARS`, or one with deep nesting or large exponents (the usual sympy blow-ups).
Any error or timeout counts as "not equivalent".

The normal forms and keys are `analysis.mars.answer_text`; the shortcuts installed into
math-verify, `analysis.mars.verify_shortcuts`.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
from collections import Counter
from collections.abc import Iterable
from types import ModuleType
from typing import Any

import numpy as np

from analysis.mars.answer_text import (
    LONG_ANSWER_CHARS,
    _cheap_only,
    _normalize_str,
    answer_key,
    exact_value,
    is_plain,
    is_prose,
    normalize,
)
from analysis.mars.verdict_memo import VerdictMemo

__all__ = [  # the normal forms and keys are answer_text's, read from here too
    "LONG_ANSWER_CHARS",
    "AnswerGrouper",
    "answer_key",
    "compares_symbolic",
    "equivalent",
    "exact_value",
    "is_plain",
    "is_prose",
    "normalize",
]
RAW_KEY = "r:"  # grouping key prefix of an answer the normaliser empties (`n=`): its raw text
VERIFY_MAX_CHARS = 60
SYMBOLIC_PAIRWISE_MAX = 50  # the published simulator's `max_symbolic_pairwise`
LABEL_MAX_CHARS = 80
_CACHE_MAX = 50_000  # distinct normalised answers (a file has a few thousand)
_BIG_POW_RE = re.compile(r"\^\{?\s*\d{4,}")
# the math-verify shortcuts (Why: `analysis.mars.verify_shortcuts`); False: math-verify's own
# code alone, and no persistent memo (tests/analysis/mars/test_answers.py compares the two)
FAST_VERIFY = True
_SHORTCUTS: ModuleType | None = None  # verify_shortcuts, once math-verify is imported


# ---------------------------------------------------------------------------------------------
# math-verify, cached and guarded


def _mv_allowed(norm: str) -> bool:
    if len(norm) > VERIFY_MAX_CHARS or _BIG_POW_RE.search(norm):
        return False
    return norm.count("{") <= 12


@functools.lru_cache(maxsize=1)
def _math_verify() -> Any:
    """The math-verify module, imported on first need, its log notices silenced: it warns once
    that timeouts are off (we run it off the main thread on purpose, with our own guards) and
    once per timeout (a timeout already counts as "not equivalent"), which only cluttered the
    terminal."""
    global _SHORTCUTS
    # why here: math-verify imports sympy (slow), and most files never need it
    import math_verify

    # why here: it imports sympy (as above)
    from analysis.mars import verify_shortcuts

    logging.getLogger("math_verify").setLevel(logging.CRITICAL)
    verify_shortcuts.install(math_verify, lambda: FAST_VERIFY)
    _SHORTCUTS = verify_shortcuts
    return math_verify


def preload() -> None:
    """Import math-verify now (`_math_verify`), in a process that is sure to need it."""
    _math_verify()


def _timeouts() -> int | None:
    return 2 if threading.current_thread() is threading.main_thread() else None


@functools.lru_cache(maxsize=_CACHE_MAX)
def _parse(norm: str) -> Any:
    """math-verify parse of a normalised answer; [] when refused or failed. Cached (bounded,
    least recently used out): the same few answers recur across questions and files."""
    if not _mv_allowed(norm):
        return []
    try:
        return _math_verify().parse("$" + norm + "$", parsing_timeout=_timeouts())
    except Exception:  # noqa: BLE001 - any parser failure means "not comparable"
        return []


# the persistent memo of the current build (`use_memo`), consulted before math-verify
_MEMO: VerdictMemo | None = None


def use_memo(memo: VerdictMemo | None) -> VerdictMemo | None:
    """Let grouping read and record its math-verify facts in `memo` (None: stop); returns the
    memo used before. Why: see `analysis.mars.verdict_memo`. Not with FAST_VERIFY off (the test
    comparing the shortcuts with math-verify's own code must run math-verify)."""
    global _MEMO
    before, _MEMO = _MEMO, memo
    return before


def current_memo() -> VerdictMemo | None:
    return _MEMO


def asks_math_verify(norm: str | None) -> bool:
    """Could grouping ask math-verify about this normalised answer? (not for empty answers,
    exact rationals, long text spans, bare words, placeholders and prose)."""
    key = answer_key(norm)
    return key is not None and key[0] == "s" and norm is not None and not _cheap_only(norm)


def memo_knows(memo: VerdictMemo, norm: str) -> bool:
    """Does the memo hold the fact grouping asks first about `norm` (its fingerprint)?"""
    return norm in memo.fingerprints


def clear_caches() -> None:
    """Forget every in-process fact (tests and the cold benchmark start from nothing)."""
    for f in (
        _parse,
        _parses,
        _fingerprint,
        _verified,
        _cheap_only,
        _normalize_str,
        answer_key,
    ):
        f.cache_clear()
    if _SHORTCUTS is not None:
        _SHORTCUTS.clear_caches()


def _memo() -> VerdictMemo | None:
    return _MEMO if FAST_VERIFY else None


@functools.lru_cache(maxsize=_CACHE_MAX)
def _parses(norm: str) -> bool:
    """Does math-verify parse `norm` to anything (memoised like `_fingerprint`)?"""
    memo = _memo()
    if memo is not None:
        hit = memo.parses.get(norm)
        if hit is not None:
            return hit
    t = time.perf_counter()
    ok = bool(_parse(norm))
    if memo is not None:
        memo.add_parse(norm, ok, time.perf_counter() - t)
    return ok


@functools.lru_cache(maxsize=_CACHE_MAX)
def _fingerprint(norm: str) -> str | None:
    """`_numeric_fingerprint` of a normalised answer, cached like `_parse` (evalf is slow) and
    kept in the persistent memo when one is in use."""
    memo = _memo()
    if memo is not None and norm in memo.fingerprints:
        return memo.fingerprints[norm]
    t = time.perf_counter()
    fp = _numeric_fingerprint(_parse(norm))
    if memo is not None:
        memo.add_fingerprint(norm, fp, time.perf_counter() - t)
    return fp


def _numeric_fingerprint(parsed: Any) -> str | None:
    """A rounded numeric value of a parsed, symbol-free expression (for candidate matching)."""
    if not parsed:
        return None
    expr = parsed[0]
    try:
        if getattr(expr, "free_symbols", None):
            return None
        val = complex(expr.evalf(15))
    except Exception:  # noqa: BLE001
        return None
    if not (np.isfinite(val.real) and np.isfinite(val.imag)):
        return None
    return f"{val.real:.9g},{val.imag:.9g}"


def equivalent(a: str, b: str, *, cheap_reject: bool = True) -> bool:
    """Are two normalised answers the same value? (exact keys, then cached math-verify).

    `cheap_reject=False` sends prose to math-verify too: only the test proving that the
    shortcut changes no grouping uses it."""
    if a == b:
        return True
    ka, kb = answer_key(a), answer_key(b)
    if ka == kb:
        return True
    if ka is None or kb is None or ka[0] == "t" or kb[0] == "t":
        return False
    if ka[0] == "n" and kb[0] == "n":
        return False
    if is_plain(a) or is_plain(b):
        return False
    if cheap_reject and (is_prose(a) or is_prose(b)):
        return False
    return _verified(a, b) if a <= b else _verified(b, a)


@functools.lru_cache(maxsize=_CACHE_MAX)
def _verified(a: str, b: str) -> bool:
    """math-verify's verdict on two normalised answers (`a <= b`), cached like `_parse` and
    kept in the persistent memo when one is in use; any error or timeout is "not
    equivalent"."""
    memo = _memo()
    if memo is not None:
        hit = memo.verdicts.get((a, b))
        if hit is not None:
            return hit
    t = time.perf_counter()
    same = _verify(a, b)
    if memo is not None:
        memo.add_verdict(a, b, same, time.perf_counter() - t)
    return same


def _verify(a: str, b: str) -> bool:
    pa_, pb_ = _parse(a), _parse(b)
    if not (pa_ and pb_):
        return False
    try:
        return bool(_math_verify().verify(pa_, pb_, timeout_seconds=_timeouts()))
    except Exception:  # noqa: BLE001
        return False


def compares_symbolic(answers: Iterable[object], limit: int = SYMBOLIC_PAIRWISE_MAX) -> bool:
    """May a question's non-numeric answers be compared pairwise (the published cap, see the
    module docstring)? Counts its distinct answers (null and "" are none) that have no numeric
    value: no exact rational, no symbol-free math-verify reading. Bare words, prose, text spans
    and answers the normaliser empties are counted without asking math-verify, and counting
    stops as soon as it passes `limit`."""
    distinct = {a for a in answers if a is not None and a != ""}
    count = 0
    maybe_numeric: list[str] = []
    for a in distinct:
        norm = normalize(a)
        if norm is not None and asks_math_verify(norm):
            maybe_numeric.append(norm)
        elif (key := answer_key(norm)) is None or key[0] != "n":
            count += 1  # text, prose, a bare word, an emptied `n=`: never numeric
    if count > limit:
        return False
    for norm in sorted(maybe_numeric):
        count += _fingerprint(norm) is None
        if count > limit:
            return False
    return True


class AnswerGrouper:
    """Assigns group ids to the answers of one question in order of first appearance.

    A group's label is its most common member (normal form; first seen wins a tie), so a group
    reads `116` rather than the rare full-width `１１６` that happened to come first.

    `symbolic_pairwise=False` (a question over the published cap, `compares_symbolic`): an
    answer without a numeric value is compared with no other group, only with the ground
    truth."""

    def __init__(
        self, ground_truth: object, *, cheap_reject: bool = True, symbolic_pairwise: bool = True
    ) -> None:
        self.ground_truth = "" if ground_truth is None else str(ground_truth)
        self._cheap = cheap_reject
        self._pairwise = symbolic_pairwise
        self._gt_norm = normalize(self.ground_truth)
        self._key_to_group: dict[str, int] = {}
        self._raw_to_group: dict[object, tuple[int, str | None]] = {}
        self._members: list[dict[str, int]] = []  # per group: display form -> occurrences
        self._norms: list[str] = []
        self._fps: list[str | None] = []
        self._symbolic: list[int] = []  # groups without a numeric fingerprint (math-verify only)
        self.long_groups: set[int] = set()
        self._correct: list[bool] = []

    def add(self, answer: object, times: int = 1) -> int:
        """Group id of `answer` (new id if unseen), -1 for null and ""; it counts `times`
        towards its group's label."""
        if answer is None:
            return -1
        hit = self._raw_to_group.get(answer)
        if hit is None:
            norm = normalize(answer)
            if norm is None and str(answer) != "":
                g = self._raw_group(str(answer))
                shown: str | None = " ".join(str(answer).split()) or "(blank)"
            else:
                g = self._group_of(norm, answer)
                shown = self._display(norm, g, answer)
            hit = (g, shown)
            self._raw_to_group[answer] = hit
        g, shown = hit
        if g >= 0 and shown is not None:
            counts = self._members[g]
            counts[shown] = counts.get(shown, 0) + times
        return g

    def add_many(self, answers: list[object]) -> np.ndarray:
        """`add` of each answer in turn, done once per distinct answer with its count (a
        realistic question has ~3,700 answers, ~230 distinct): the same ids, in order of first
        appearance, and the same label counts."""
        ids = {a: self.add(a, n) for a, n in Counter(answers).items()}
        return np.fromiter(map(ids.__getitem__, answers), dtype=np.int32, count=len(answers))

    def _display(self, norm: str | None, g: int, raw: object) -> str | None:
        """How a member shows in a label: text spans keep their words (the normaliser drops
        spaces), maths shows its normal form; cut to LABEL_MAX_CHARS."""
        if g < 0 or norm is None:
            return None
        label = " ".join(str(raw).split()) if g in self.long_groups else norm
        if len(label) > LABEL_MAX_CHARS:
            label = label[: LABEL_MAX_CHARS - 1] + "…"
        return label

    @property
    def labels(self) -> list[str]:
        """The label of each group id: its most common member (dicts keep first-seen order,
        and `max` keeps the first of equal counts)."""
        return [max(m, key=m.__getitem__) for m in self._members]

    def _group_of(self, norm: str | None, raw: object = None) -> int:
        key = answer_key(norm)
        if key is None or norm is None:
            return -1
        g = self._key_to_group.get(key)
        if g is not None:
            return g
        g = self._match_existing(norm, key)
        if g is None:
            g = self._new_group(norm, key)
        self._key_to_group[key] = g
        return g

    def _raw_group(self, raw: str) -> int:
        """The group of an answer with an empty normal form: its own, by its exact text (a wrong
        answer: it never matches the ground truth)."""
        key = RAW_KEY + raw
        g = self._key_to_group.get(key)
        if g is None:
            g = self._key_to_group[key] = self._new_group(key, key)
        return g

    def _equivalent(self, a: str, b: str) -> bool:
        return equivalent(a, b, cheap_reject=self._cheap)

    def _only_itself(self, norm: str) -> bool:
        return _cheap_only(norm) if self._cheap else is_plain(norm)

    def _match_existing(self, norm: str, key: str) -> int | None:
        if key[0] == "t":
            return None
        if key[0] == "n":
            v = exact_value(norm)
            fp = f"{float(v):.9g},0" if v is not None else None
        elif self._only_itself(norm):
            return None  # distinct keys, and a bare word or prose equals only itself
        else:
            fp = _fingerprint(norm)
        if fp is not None:
            for g, gfp in enumerate(self._fps):
                if gfp != fp:
                    continue
                if key[0] == "n" and self._norm_key(g)[0] == "n":
                    continue  # two distinct exact rationals are never equal
                if self._equivalent(self._norms[g], norm):
                    return g
            return None
        if self._pairwise and key[0] == "s" and _parses(norm):
            for g in self._symbolic[:20]:
                if self._equivalent(self._norms[g], norm):
                    return g
        return None

    def _norm_key(self, g: int) -> str:
        return answer_key(self._norms[g]) or ""

    def _new_group(self, norm: str, key: str) -> int:
        g = len(self._members)
        self._members.append({})
        self._norms.append(norm)
        if key[0] == "n":
            v = exact_value(norm)
            fp = f"{float(v):.9g},0" if v is not None else None
        elif key[0] == "s" and not self._only_itself(norm):
            fp = _fingerprint(norm)
        else:
            fp = None
        self._fps.append(fp)
        if fp is None and key[0] == "s" and not self._only_itself(norm):
            self._symbolic.append(g)
        if key[0] == "t":
            self.long_groups.add(g)
        self._correct.append(self._is_gt(norm, key))
        return g

    def _is_gt(self, norm: str, key: str) -> bool:
        gt = self._gt_norm
        if gt is None or key[0] in ("t", RAW_KEY[0]):
            return False
        gt_key = answer_key(gt)
        if gt_key == key:
            return True
        if self._cheap and gt_key is not None and gt_key[0] != "t":
            # two numeric values that differ are not the same answer (the rule
            # `_match_existing` already applies between groups): no math-verify call per
            # question for every LaTeX form among the probe answers
            fp = self._fps[-1] if self._norms and self._norms[-1] == norm else None
            gt_fp = self._value_fp(gt, gt_key)
            if fp is not None and gt_fp is not None and fp != gt_fp:
                return False
        return self._equivalent(gt, norm)

    def _value_fp(self, norm: str, key: str) -> str | None:
        if key[0] == "n":
            v = exact_value(norm)
            return f"{float(v):.9g},0" if v is not None else None
        if key[0] == "s" and not self._only_itself(norm):
            return _fingerprint(norm)
        return None

    @property
    def n_groups(self) -> int:
        return len(self._members)

    @property
    def group_correct(self) -> np.ndarray:
        return np.array(self._correct, dtype=bool)
