"""The stopping rules' arithmetic, policy-free: what each policy's methods call.

Why apart from `params.py`: the policies (params.py) own *which* rule they run and with what
parameters; the numpy here only sees arrays and numbers, so the engine, the policies and the
tests share it without import cycles. Checkpoint rules see one block of checkpoints of the
still-running iterations (`Block`); sequential-arrival rules see the prefix counts of the
sample's final answers.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from analysis.playground.prepare import PreparedQuestion


@dataclass
class RuleState:
    """Per-iteration state carried across checkpoint blocks (Parallel-Probe, stability)."""

    stable: np.ndarray
    prev: np.ndarray
    pruned: np.ndarray
    off: np.ndarray
    run: np.ndarray
    last: np.ndarray

    @classmethod
    def start(cls, n_i: int, b: int) -> RuleState:
        return cls(
            stable=np.zeros(n_i, np.int64),
            prev=np.full(n_i, -1, np.int64),
            pruned=np.zeros((n_i, b), bool),
            off=np.zeros((n_i, b), np.int64),
            run=np.zeros(n_i, np.int64),
            last=np.full(n_i, -1, np.int64),
        )

    def take(self, keep: np.ndarray) -> RuleState:
        return RuleState(
            *(getattr(self, f)[keep] for f in ("stable", "prev", "pruned", "off", "run", "last"))
        )


@dataclass
class RuleSetup:
    """What a checkpoint rule fixed for one question before its loop (MARS: gamma, q, the
    warmup majority for the first-checkpoint guard)."""

    gamma: float | None = None
    q_all: np.ndarray | None = None  # float32 [n_pool, K]
    ref: int = -1


@dataclass
class Block:
    """Checkpoints k0..k1 of the still-running iterations: the snapshot votes and what a rule
    needs to decide at each of them ([A, kb] unless noted)."""

    prep: PreparedQuestion
    sub: np.ndarray  # [A, B] pool rows of the running iterations
    k0: int
    k1: int
    gi: np.ndarray  # [A, B, kb] gidx
    mask: np.ndarray | None  # [A, B, kb] DeepConf eligibility, None without filter
    weights: np.ndarray | None  # [A, B, kb] vote weights, None for weight 1
    votes: np.ndarray  # [A, kb, G]
    lead: np.ndarray
    v_l: np.ndarray
    has: np.ndarray

    @property
    def n_groups(self) -> int:
        return self.prep.n_groups

    def answers(self) -> np.ndarray:
        """[A, B, kb] answer group of each sampled trace at each checkpoint (np.take: the
        same gather as `[sub]` on the column slice, several times faster)."""
        return np.take(self.prep.groups[:, self.k0 : self.k1], self.sub, axis=0)

    def eligible(self, answers: np.ndarray) -> np.ndarray:
        return answers >= 0 if self.mask is None else (answers >= 0) & self.mask

    def share(self) -> np.ndarray:
        """Leader share of the snapshot vote (0 without votes)."""
        tot = self.votes.sum(axis=-1)
        share = np.zeros_like(tot)
        np.divide(self.v_l, tot, out=share, where=self.has)
        return share


@dataclass
class Fires:
    """A rule's decision at each checkpoint of a block, with MARS's binding check."""

    fires: np.ndarray  # bool [A, kb]
    margin: np.ndarray | None = None
    threshold: np.ndarray | None = None
    q_votes: np.ndarray | None = None  # MARS: S_a = sum of q_j e_j w_j per answer [A, kb, G]
    q_all: np.ndarray | None = None  # MARS: S_all [A, kb]


def pp_scores(
    blk: Block, st: RuleState, warmup: int, prune_patience: int
) -> tuple[np.ndarray, np.ndarray]:
    """Parallel-Probe's (stable count, may stop) [A, kb] at the block's checkpoints; updates
    `st`. It stops where it may and the count reaches `conv` (`pp_fires`); neither array
    depends on `conv`, which a sweep over it uses (`analysis.playground.sharing`)."""
    answers = blk.answers()
    elig = blk.eligible(answers)
    g = blk.n_groups
    n_a, _b, kb = answers.shape
    stable = np.zeros((n_a, kb), dtype=np.int64)
    ok = np.zeros((n_a, kb), dtype=bool)
    base = np.arange(n_a, dtype=np.int64)[:, None] * g
    for c in range(kb):
        p = blk.k0 + c
        a = answers[:, :, c]
        e = elig[:, :, c] & ~st.pruned
        valid = e & (a >= 0)
        counts = np.bincount((base + a)[valid], minlength=n_a * g).reshape(n_a, g)
        has = counts.sum(axis=1) > 0
        win = np.where(has, np.argmax(counts, axis=1), -1)
        same = (win == st.prev) & (win >= 0)
        st.stable = np.where(same, st.stable + 1, 1)
        st.prev = win
        if p >= warmup and prune_patience > 0:
            agrees = (a == win[:, None]) | ~e
            st.off = np.where(agrees, 0, st.off + 1)
            st.pruned |= st.off >= prune_patience
        stable[:, c] = st.stable
        if p >= warmup:
            ok[:, c] = has
    return stable, ok


def pp_fires(blk: Block, st: RuleState, conv: int, warmup: int, prune_patience: int) -> np.ndarray:
    """Parallel-Probe decisions [A, kb] for the block's checkpoints; updates `st`."""
    stable, ok = pp_scores(blk, st, warmup, prune_patience)
    return ok & (stable >= conv)


def stability_runs(blk: Block, st: RuleState) -> np.ndarray:
    """[A, kb] how many checkpoints in a row (each with votes) the leader has held, counting
    this one; updates `st`."""
    lead, has = blk.lead, blk.has
    n_a, kb = lead.shape
    runs = np.zeros((n_a, kb), dtype=np.int64)
    for c in range(kb):
        same = has[:, c] & (st.run > 0) & (lead[:, c] == st.last)
        st.run = np.where(same, st.run + 1, has[:, c].astype(np.int64))
        st.last = np.where(has[:, c], lead[:, c], -1)
        runs[:, c] = st.run
    return runs


def stability_fires(blk: Block, st: RuleState, k_needed: int) -> np.ndarray:
    """Probe stability: the leader unchanged for `k_needed` checkpoints with votes."""
    return stability_runs(blk, st) >= max(1, k_needed)


# ------------------------------------------------------------------ sequential arrival


def beta_prob(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """P(p > 0.5) for p ~ Beta(a + 1, b + 1) (top-two counts a >= b)."""
    # why here: scipy.special is slow to import, and only Adaptive-Consistency needs it
    from scipy.special import betainc

    return betainc(
        np.asarray(b, dtype=np.float64) + 1.0, np.asarray(a, dtype=np.float64) + 1.0, 0.5
    )


@lru_cache(maxsize=4)
def _beta_table(n: int) -> np.ndarray:
    """`beta_prob(a, b)` for every a, b in 0..n: T[a, b] (each value is the same betainc of
    the same two numbers, computed once)."""
    ab = np.arange(n + 1, dtype=np.float64)
    out = beta_prob(ab[:, None], ab[None, :])
    out.setflags(write=False)
    return out


def beta_prob_counts(top: np.ndarray, second: np.ndarray) -> np.ndarray:
    """`beta_prob(top, second)` for integer counts >= 0, looked up in a table: a run evaluates
    it for every prefix of every iteration ([I, B] values, most of them repeated)."""
    hi = int(max(top.max(initial=0), second.max(initial=0)))
    size = 64
    while size < hi:
        size *= 2
    return _beta_table(size)[top, second]


# The Dirichlet criterion's probability, exact up to a fixed quadrature (no Monte Carlo).
#
# With independent G_i ~ Gamma(a_i, 1), a_i = count_i + 1, the Dirichlet(a) shares are
# G_i / sum(G), so P(share_0 is the largest) = P(G_0 > max_{i>=1} G_i)
#   = integral_0^inf f_{a_0}(x) prod_{i>=1} F_{a_i}(x) dx,
# f_a the Gamma(a) density, F_a its CDF; for an integer a, F_a(x) = P(Poisson(x) >= a).
# In y = sqrt(x) every Gamma density and Poisson tail involved has a width of about 1/2
# whatever the counts (the square root stabilises the variance), so one Gauss-Legendre rule on
# sqrt(a_0) +- 6.5 (about +-13 standard deviations of sqrt(G_0)) resolves the integrand for
# counts from 0 to thousands; the mass left outside is below 1e-30. The Poisson lower tails
# P(Gamma(a) > x) = P(Poisson(x) < a) are cumulative sums of the pmf at each node (accurate
# relative to their own size), and the complement 1 - P is integrated from them as a sum of
# positive terms and returned as 1 - that when it is the smaller: a probability a hair below 1
# is resolved as finely as the float allows (it matters for a threshold of 1.0). Measured error
# against mpmath at 40 digits: < 1e-12 (tests/analysis/playground/test_dirichlet_exact.py).
# Why not scipy: the warm CLI never imports it; numpy and math.lgamma are enough.

_QUAD_POINTS = 20  # Gauss-Legendre points per panel
_QUAD_PANELS = 6
_QUAD_HALF_WIDTH = 6.5  # in sqrt(x), each side of sqrt(a_0 - 1/4)
_TABLE_BUDGET = 64 << 20  # bytes of per-shape node tables kept (an LRU by size)


@lru_cache(maxsize=1)
def _legendre() -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(_QUAD_POINTS)


_STIRLING = np.zeros(1)  # lgamma(k + 1) - (k log k - k), k = 0 .. len - 1, grown on demand
_LOCK = threading.Lock()


def _stirling_rest(n: int) -> np.ndarray:
    """lgamma(k + 1) - (k log k - k) for k = 0..n: small numbers, each to about 1e-16 (the
    Stirling series from k = 20, where its first omitted term is below 1e-15)."""
    global _STIRLING
    with _LOCK:
        if len(_STIRLING) <= n:
            size = max(n + 1, 2 * len(_STIRLING), 1024)
            k = np.arange(size, dtype=np.float64)
            out = np.empty(size)
            small = [math.lgamma(j + 1.0) - (j * math.log(j) - j) if j else 0.0 for j in range(20)]
            out[:20] = small
            kk = k[20:]
            out[20:] = (
                0.5 * np.log(2 * math.pi * kk)
                + (1 / 12 - (1 / 360 - (1 / 1260 - 1 / (1680 * kk * kk)) / (kk * kk)) / (kk * kk))
                / kk
            )
            _STIRLING = out
        return _STIRLING[: n + 1]


def _log_poisson(k: np.ndarray, x: np.ndarray) -> np.ndarray:
    """log P(Poisson(x) = k) for integer k >= 0 (float array) and x > 0, broadcast.

    Why not k log x - x - lgamma(k + 1): for counts in the thousands those terms are ~2e4 each
    and cancel, leaving ~4e-12 of rounding; here the large parts cancel exactly first,
    k (log1p(u) - u) with u = (x - k) / k, which costs only ~|x - k| ulps."""
    kk = np.maximum(k, 1.0)
    u = (x - kk) / kk
    out = kk * (np.log1p(u) - u) - _stirling_rest(int(k.max()))[k.astype(np.int64)]
    return np.where(k == 0, -x, out)


@dataclass(frozen=True)
class _ShapeTable:
    """The quadrature for one leader shape a_0: the weights (Gauss-Legendre times the Gamma(a_0)
    density) and, at every node x, lower[a - 1] = P(Poisson(x) < a) = P(Gamma(a) > x) for every
    shape a <= `width` ([width, N])."""

    weights: np.ndarray
    lower: np.ndarray

    @property
    def nbytes(self) -> int:
        return self.weights.nbytes + self.lower.nbytes


def _shape_table(a0: int, width: int) -> _ShapeTable:
    t, w = _legendre()
    r = math.sqrt(a0 - 0.25)
    edges = np.linspace(max(0.0, r - _QUAD_HALF_WIDTH), r + _QUAD_HALF_WIDTH, _QUAD_PANELS + 1)
    half = (edges[1:] - edges[:-1])[:, None] / 2
    y = ((edges[1:] + edges[:-1])[:, None] / 2 + half * t[None, :]).ravel()  # all > 0
    x = y * y
    # f_{a0}(x) dx = P(Poisson(x) = a0 - 1) * 2y dy: nothing overflows for shapes in the thousands
    f = np.exp(_log_poisson(np.array([a0 - 1.0]), x))
    weights = (half * w[None, :]).ravel() * 2.0 * y * f
    k = np.arange(width, dtype=np.float64)
    pmf = np.exp(_log_poisson(k[:, None], x[None, :]))
    # a sum of positive terms: each lower tail is accurate relative to its own size
    return _ShapeTable(weights, np.cumsum(pmf, axis=0))


class _TableCache:
    """The per-shape tables, least recently used first out, within `_TABLE_BUDGET` bytes (a
    sweep asks for a few hundred leader counts; a table is N x a_0 floats)."""

    def __init__(self) -> None:
        self.tables: OrderedDict[tuple[int, int], _ShapeTable] = OrderedDict()
        self.size = 0
        self.lock = threading.Lock()

    def get(self, a0: int, width: int) -> _ShapeTable:
        key = (a0, width)
        with self.lock:
            hit = self.tables.get(key)
            if hit is not None:
                self.tables.move_to_end(key)
                return hit
        table = _shape_table(a0, width)
        with self.lock:
            if key not in self.tables:
                self.tables[key] = table
                self.size += table.nbytes
                while self.size > _TABLE_BUDGET and len(self.tables) > 1:
                    self.size -= self.tables.popitem(last=False)[1].nbytes
        return table

    def clear(self) -> None:
        with self.lock:
            self.tables.clear()
            self.size = 0


_TABLES = _TableCache()


@lru_cache(maxsize=100_000)
def dirichlet_prob(counts: tuple[int, ...]) -> float:
    """P(the first class has the largest share) under Dirichlet(counts + 1), counts >= 0 in any
    order: exact up to the quadrature (absolute error < 1e-12 measured), remembered per tuple."""
    if len(counts) < 2:
        return 1.0
    a0 = int(counts[0]) + 1
    rest = np.asarray(counts[1:], dtype=np.int64) + 1
    width = max(a0, int(rest.max()))
    tab = _TABLES.get(a0, width)
    low = tab.lower[rest - 1]  # [C - 1, N] P(G_i > x)
    run = np.cumprod(1.0 - low, axis=0)  # P(G_1..G_i <= x)
    p = float(tab.weights @ run[-1])
    # P(some G_i > G_0) as a sum of positive terms, sum_i P(G_i > x, G_j <= x for j < i), so
    # it keeps its relative precision when tiny (a probability a hair below 1)
    q = float(tab.weights @ (low[0] + (low[1:] * run[:-1]).sum(axis=0)))
    return 1.0 - q if q < p else p


def dirichlet_at_least(counts: tuple[int, ...], threshold: float) -> bool:
    """`dirichlet_prob(counts) >= threshold` (the decision the vectorised rule and the loop
    oracle share)."""
    return dirichlet_prob(counts) >= threshold


def clear_dirichlet_memo() -> None:
    """Forget every remembered probability and table (a benchmark's cold start)."""
    dirichlet_prob.cache_clear()
    _TABLES.clear()


def prefix_counts(final: np.ndarray, n_groups: int) -> np.ndarray:
    """[I, B, G] counts of each final answer among the first j+1 arrivals."""
    n_i, b = final.shape
    onehot = np.zeros((n_i, b, n_groups), dtype=np.int32)
    ii, jj = np.nonzero(final >= 0)
    onehot[ii, jj, final[ii, jj]] = 1
    return np.cumsum(onehot, axis=1, dtype=np.int32)


@dataclass
class PrefixStats:
    """What Beta, Dirichlet and majority read of the prefix counts ([I, B] unless noted)."""

    top: np.ndarray  # count of the most common answer
    second: np.ndarray  # of the runner-up (0 with one answer)
    distinct: np.ndarray  # answers seen
    top_counts: np.ndarray  # [I, B, k] the k largest counts, largest first
    beta: np.ndarray  # beta_prob(top, second)


class Prefixes:
    """The final answers of a sample as they arrive: their prefix counts on demand (not kept:
    [I, B, G] is large) and the small summaries the rules read, kept (a sweep shares them,
    `analysis.playground.sharing`)."""

    def __init__(self, final: np.ndarray, n_groups: int) -> None:
        self.final = final
        self.n_groups = n_groups
        self._stats: dict[int, PrefixStats] = {}

    def counts(self) -> np.ndarray:
        return prefix_counts(self.final, self.n_groups)

    def stats(self, top_k: int) -> PrefixStats:
        k = max(2, top_k)
        if k not in self._stats:
            srt = np.sort(self.counts(), axis=-1)
            top = srt[..., -1]
            second = srt[..., -2] if srt.shape[-1] > 1 else np.zeros_like(top)
            distinct = (srt > 0).sum(axis=-1)
            top_counts = np.ascontiguousarray(srt[..., ::-1][..., :k])
            beta = beta_prob_counts(top, second)
            self._stats[k] = PrefixStats(top, second, distinct, top_counts, beta)
        return self._stats[k]


def esc_fires(final: np.ndarray, window: int) -> np.ndarray:
    """ESC [I, B]: fires after each full window whose final answers are all the same."""
    n_i, b = final.shape
    w = max(1, int(window))
    n_win = b // w
    fires = np.zeros((n_i, b), dtype=bool)
    if n_win:
        fw = final[:, : n_win * w].reshape(n_i, n_win, w)
        same = (fw == fw[:, :, :1]).all(axis=-1)
        fires[:, w - 1 : n_win * w : w] = same
    return fires


def ac_fires(prefixes: Prefixes, criterion: str, threshold: float, top_k: int) -> np.ndarray:
    """Adaptive-Consistency [I, B] from the prefix counts (see `AdaptiveConsistency`)."""
    n_i, b = prefixes.final.shape
    n = np.arange(1, b + 1)[None, :]
    if criterion == "beta":
        return prefixes.stats(top_k).beta >= threshold
    if criterion == "majority":
        return (n >= 2) & (prefixes.stats(top_k).top / n >= threshold)
    if criterion == "entropy":
        counts = prefixes.counts()
        distinct = (counts > 0).sum(axis=-1)
        c = counts.astype(np.float64)
        tot = c.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = c / tot
            h = -np.where(c > 0, p * np.log2(p), 0.0).sum(axis=-1)
            one = distinct <= 1
            pn = n / (n + 1.0)
            h_one = -(pn * np.log2(pn) + (1 - pn) * np.log2(1 - pn))
            h = np.where(one, h_one, h)
            norm = np.where(one, 1.0, np.log2(np.maximum(distinct, 2)))
        return (n >= 2) & (h / norm <= threshold)
    if criterion == "dirichlet":
        st = prefixes.stats(top_k)
        fires = st.beta >= threshold
        multi = st.distinct >= 3
        out = np.where(multi, False, fires)
        # P(top is the largest) <= P(top beats the runner-up) = the Beta criterion's value,
        # so only prefixes that pass the Beta test need the Dirichlet probability
        first_plain = np.where(out.any(axis=1), np.argmax(out, axis=1), b)
        for i in range(n_i):
            for j in np.nonzero(multi[i] & fires[i])[0]:
                if j >= first_plain[i]:
                    break
                tup = tuple(int(v) for v in st.top_counts[i, j] if v > 0)
                if dirichlet_at_least(tup, threshold):
                    out[i, j] = True
                    break
        return out
    raise ValueError(f"unknown Adaptive-Consistency criterion {criterion!r}")
