"""The stopping rules' arithmetic, policy-free: what each policy's methods call.

Why apart from `params.py`: the policies (params.py) own *which* rule they run and with what
parameters; the numpy here only sees arrays and numbers, so the engine, the policies and the
tests share it without import cycles. Checkpoint rules see one block of checkpoints of the
still-running iterations (`Block`); sequential-arrival rules see the prefix counts of the
sample's final answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike

from analysis.stopping.prepare import PreparedQuestion


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
        """[A, B, kb] answer group of each sampled trace at each checkpoint."""
        return self.prep.groups[:, self.k0 : self.k1][self.sub]

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


def pp_fires(blk: Block, st: RuleState, conv: int, warmup: int, prune_patience: int) -> np.ndarray:
    """Parallel-Probe decisions [A, kb] for the block's checkpoints; updates `st`."""
    answers = blk.answers()
    elig = blk.eligible(answers)
    g = blk.n_groups
    n_a, _b, kb = answers.shape
    fires = np.zeros((n_a, kb), dtype=bool)
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
        if p >= warmup:
            fires[:, c] = (st.stable >= conv) & has
    return fires


def stability_fires(blk: Block, st: RuleState, k_needed: int) -> np.ndarray:
    """Probe stability: the leader unchanged for `k_needed` checkpoints with votes."""
    lead, has = blk.lead, blk.has
    n_a, kb = lead.shape
    fires = np.zeros((n_a, kb), dtype=bool)
    for c in range(kb):
        same = has[:, c] & (st.run > 0) & (lead[:, c] == st.last)
        st.run = np.where(same, st.run + 1, has[:, c].astype(np.int64))
        st.last = np.where(has[:, c], lead[:, c], -1)
        fires[:, c] = st.run >= max(1, k_needed)
    return fires


# ------------------------------------------------------------------ sequential arrival


def beta_prob(a: ArrayLike, b: ArrayLike) -> np.ndarray:
    """P(p > 0.5) for p ~ Beta(a + 1, b + 1) (top-two counts a >= b)."""
    # why here: scipy.special costs ~0.3 s to import, and only Adaptive-Consistency needs it
    from scipy.special import betainc

    return betainc(
        np.asarray(b, dtype=np.float64) + 1.0, np.asarray(a, dtype=np.float64) + 1.0, 0.5
    )


@lru_cache(maxsize=100_000)
def dirichlet_prob(counts: tuple[int, ...], draws: int = 20_000) -> float:
    """P(the first class has the largest share) under Dirichlet(counts + 1), Monte Carlo with a
    seed fixed by the counts (deterministic)."""
    rng = np.random.default_rng(list(counts))
    x = rng.gamma(np.asarray(counts, dtype=np.float64) + 1.0, size=(draws, len(counts)))
    return float(np.mean(x[:, 0] > x[:, 1:].max(axis=1)))


def prefix_counts(final: np.ndarray, n_groups: int) -> np.ndarray:
    """[I, B, G] counts of each final answer among the first j+1 arrivals."""
    n_i, b = final.shape
    onehot = np.zeros((n_i, b, n_groups), dtype=np.int32)
    ii, jj = np.nonzero(final >= 0)
    onehot[ii, jj, final[ii, jj]] = 1
    return np.cumsum(onehot, axis=1, dtype=np.int32)


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


def ac_fires(counts: np.ndarray, criterion: str, threshold: float, top_k: int) -> np.ndarray:
    """Adaptive-Consistency [I, B] from the prefix counts (see `AdaptiveConsistency`)."""
    n_i, b, g = counts.shape
    srt = np.sort(counts, axis=-1)
    top = srt[..., -1]
    second = srt[..., -2] if g > 1 else np.zeros_like(top)
    n = np.arange(1, b + 1)[None, :]
    if criterion == "beta":
        return beta_prob(top, second) >= threshold
    if criterion == "majority":
        return (n >= 2) & (top / n >= threshold)
    if criterion == "entropy":
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
        fires = beta_prob(top, second) >= threshold
        distinct = (counts > 0).sum(axis=-1)
        multi = distinct >= 3
        out = np.where(multi, False, fires)
        k = max(2, top_k)
        # P(top is the largest) <= P(top beats the runner-up) = the Beta criterion's value,
        # so only prefixes that pass the Beta test need the Monte Carlo estimate
        first_plain = np.where(out.any(axis=1), np.argmax(out, axis=1), b)
        for i in range(n_i):
            for j in np.nonzero(multi[i] & fires[i])[0]:
                if j >= first_plain[i]:
                    break
                tup = tuple(int(v) for v in srt[i, j, ::-1][:k] if v > 0)
                if dirichlet_prob(tup) >= threshold:
                    out[i, j] = True
                    break
        return out
    raise ValueError(f"unknown Adaptive-Consistency criterion {criterion!r}")
