"""The simulation loop, vectorised over iterations, traces and checkpoints.

One call gathers a question's bootstrap sample once ([I, B] rows -> [I, B, K] answers,
confidences), computes the snapshot votes of every checkpoint of every iteration with one
`bincount`, evaluates the stopping rule on the whole [I, K] grid, and takes the first firing
checkpoint per iteration. This is equivalent to the published loop (`mars/simulation.py::
simulate_with_stopping`), which stops iterations one checkpoint at a time, because a rule's
decision at checkpoint k depends only on checkpoints <= k (Parallel-Probe's state is carried
along the K axis in a loop over checkpoints, vectorised over iterations and traces).

Semantics (spec `stopping.md`, "The simulation loop"): at checkpoint p the eligible traces with
an answer vote (snapshot); if the rule fires, the answer is the leader (lowest id on ties, none
without votes), the position is p, the cost `sum_j min(len_j, trunc_j, p)`. Otherwise the
final answers vote with the same eligibility and the last checkpoint's weights, at cost
`sum_j min(len_j, trunc_j)` (= `baseline_tokens`).

Documented choices where the published simulator has no answer (it raises or divides by 0):
- no trace with a final answer (empty pool) or budget 0: every iteration answers nothing, at 0
  tokens, 0 % savings, position 0;
- empty checkpoint grid: no rule can fire; the final answers vote (DeepConf: no filter, weights
  `mean_conf` = conf_at_pos beyond the end), position 0;
- warmup 0: the DeepConf threshold uses the first sampled trace.
A budget larger than the pool is allowed (sampling with replacement) and gets an informational
note (`notes.budget_note`). Each case adds a typed note (`notes.Note`) to the question's result,
which the playground shows.

What differs between policies is the policy's own business (`params.PolicyRules`): the engine
asks a policy whether it never stops or is sequential, for its voting and stop label, and lets
it decide on each block of the [I, K] grid (`block_fires`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal, overload

import numpy as np

from analysis.playground.bootstrap import bootstrap_rows
from analysis.playground.dco import dco_thresholds
from analysis.playground.notes import BUDGET_NOTE, Note, NoteCode, budget_note
from analysis.playground.params import DEFAULT_SETTINGS, Policy, SimSettings, Voting
from analysis.playground.prepare import PreparedQuestion
from analysis.playground.quantiles import percentile_last_axis
from analysis.playground.result import Diagnostics, QuestionResult
from analysis.playground.rules import Block, RuleSetup, RuleState
from analysis.playground.sequential import simulate_sequential
from analysis.playground.sharing import active as sharing_active
from analysis.playground.sharing import shared
from analysis.playground.voting import checkpoint_votes, group_votes, leaders

__all__ = [
    "BUDGET_NOTE",
    "Diagnostics",
    "QuestionResult",
    "budget_note",
    "simulate_question",
]


def _empty_result(prep: PreparedQuestion, iters: np.ndarray, notes: list[Note]) -> QuestionResult:
    n_i = iters.shape[0]
    z = np.zeros(n_i, dtype=np.int64)
    return QuestionResult(
        qid=prep.qid,
        ground_truth=prep.ground_truth,
        iterations=iters,
        answers=np.full(n_i, -1, dtype=np.int64),
        correct=np.zeros(n_i, dtype=bool),
        tokens=z.copy(),
        baseline=z.copy(),
        position=z.copy(),
        stop_index=np.full(n_i, -1, dtype=np.int64),
        stopped_by=np.array(["budget"] * n_i, dtype=object),
        labels=prep.group_labels,
        n_pool=0,
        notes=notes,
        group_correct=prep.group_correct,
    )


def _first_true(mask: np.ndarray) -> np.ndarray:
    """Index of the first True along the last axis, -1 if none."""
    if mask.shape[-1] == 0:
        return np.full(mask.shape[:-1], -1, dtype=np.int64)
    first = np.argmax(mask, axis=-1)
    return np.where(mask.any(axis=-1), first, -1).astype(np.int64)


def _blocks(k: int, diagnostics: bool) -> list[tuple[int, int]]:
    """Checkpoint blocks evaluated in turn; iterations that stopped leave the later blocks
    (most rules stop within the first few checkpoints). Diagnostics need every checkpoint."""
    if diagnostics:
        return [(0, k)] if k else []
    edges = [0, 3, 6, 10, 16, k]
    out = []
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        a, b = min(a, k), min(b, k)
        if b > a:
            out.append((a, b))
    if out and out[-1][1] < k:
        out.append((out[-1][1], k))
    return out


def _deepconf_offline_votes(prep: PreparedQuestion, rows: np.ndarray) -> dict[str, np.ndarray]:
    """The seven DeepConf offline votes on final answers (published `compute_deepconf_votes`).

    All seven in one `bincount` over (vote, iteration, group): each bin adds the same traces in
    the same (trace) order as a `group_votes` call per vote would, so the sums are bit-identical
    (majority adds 1.0 per trace: exact counts); one call instead of seven per question."""
    g = prep.n_groups
    final = prep.final[rows]
    elig = final >= 0
    feats = {
        "mean_conf_weighted": prep.mean_conf[rows],
        "tail_conf_weighted": prep.tail_conf[rows],
        "bottom_window_weighted": prep.bottom_10[rows],
        "min_window_weighted": prep.min_group[rows],
    }
    names = ["majority", *feats]
    weights = [np.ones(final.shape, dtype=np.float64), *feats.values()]
    masks = [elig] * len(names)
    for name, w in (
        ("top10_tail_filtered", feats["tail_conf_weighted"]),
        ("top10_bottom_window_filtered", feats["bottom_window_weighted"]),
    ):
        if np.isfinite(w).all():  # every pool trace is eligible: plain percentile is the same
            pct = percentile_last_axis(w, 90)  # np.percentile's bits, without numpy.ma
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                pct = np.nan_to_num(
                    np.nanpercentile(np.where(elig, w, np.nan), 90, axis=1), nan=-np.inf
                )
        names.append(name)
        weights.append(w)
        masks.append(elig & (np.where(elig, w, -np.inf) >= pct[:, None]))
    n_v, (n_i, _b) = len(names), final.shape
    valid = np.stack(masks)  # [V, I, B]
    base = (np.arange(n_v * n_i, dtype=np.int64) * g).reshape(n_v, n_i, 1)
    idx = (base + final)[valid]
    w_all = np.stack(weights).astype(np.float64, copy=False)[valid]
    votes = np.bincount(idx, weights=w_all, minlength=n_v * n_i * g).reshape(n_v, n_i, g)
    lead = np.argmax(votes, axis=2).astype(np.int64)
    return {name: lead[v] for v, name in enumerate(names)}


@overload
def simulate_question(
    prep: PreparedQuestion,
    policy: Policy,
    settings: SimSettings = ...,
    iterations: np.ndarray | None = ...,
    diagnostics: Literal[False] = ...,
) -> QuestionResult: ...


@overload
def simulate_question(
    prep: PreparedQuestion,
    policy: Policy,
    settings: SimSettings,
    iterations: np.ndarray | None,
    diagnostics: Literal[True],
) -> tuple[QuestionResult, Diagnostics | None]: ...


@overload
def simulate_question(
    prep: PreparedQuestion,
    policy: Policy,
    settings: SimSettings = ...,
    iterations: np.ndarray | None = ...,
    *,
    diagnostics: Literal[True],
) -> tuple[QuestionResult, Diagnostics | None]: ...


def simulate_question(
    prep: PreparedQuestion,
    policy: Policy,
    settings: SimSettings = DEFAULT_SETTINGS,
    iterations: np.ndarray | None = None,
    diagnostics: bool = False,
) -> QuestionResult | tuple[QuestionResult, Diagnostics | None]:
    """Simulate `policy` on one prepared question; never raises on odd data (notes instead)."""
    iters = (
        np.arange(settings.iterations, dtype=np.int64)
        if iterations is None
        else np.asarray(iterations, dtype=np.int64)
    )
    notes = list(prep.notes)
    if settings.window != prep.window:
        notes.append(
            Note(
                NoteCode.WINDOW_MISMATCH,
                f"features were built with window {prep.window}, not {settings.window}: "
                f"using {prep.window}",
            )
        )
    if prep.n == 0 or settings.budget <= 0:
        extra = [] if prep.n == 0 else [Note(NoteCode.BUDGET_ZERO, "budget 0: nothing sampled")]
        res = _empty_result(prep, iters, notes + extra)
        return (res, None) if diagnostics else res
    if prep.n < settings.warmup:
        notes.append(
            Note(
                NoteCode.SMALL_POOL,
                f"pool has {prep.n} traces with an answer, fewer than warmup {settings.warmup}: "
                "the warmup set is the whole pool",
            )
        )
    if settings.budget > prep.n:
        notes.append(budget_note(settings.budget, prep.n))
    rows = bootstrap_rows(prep.n, settings.budget, iters, settings.seed, prep.qid)
    # the sample a sweep's runs may share their value-free parts of (`sharing`): whole runs
    sample = (id(prep), settings) if iterations is None and sharing_active() else None

    if policy.sequential:
        res = simulate_sequential(prep, policy, rows, iters, notes, share_key=sample)
        return (res, None) if diagnostics else res

    voting = policy.voting
    n_i, _b = rows.shape
    k = prep.n_checkpoints
    g = prep.n_groups
    lens = prep.lengths[rows]

    thr = np.zeros(0)
    if voting.filter:

        def deepconf() -> tuple[np.ndarray, np.ndarray]:
            t = dco_thresholds(prep, rows, settings.warmup, voting.percentile)
            return t, prep.truncation(rows, t)

        thr, trunc = deepconf() if sample is None else shared(("dco", sample, voting), deepconf)
        if not np.isfinite(thr).all():
            notes.append(
                Note(
                    NoteCode.NONFINITE_THRESHOLD,
                    "non-finite DeepConf threshold in some iterations: no trace is eligible there",
                )
            )
    else:
        trunc = lens
    cap = np.minimum(lens, trunc)
    baseline = cap.sum(axis=1)
    last_p = int(prep.grid[-1]) if k else 0

    stop_k = np.full(n_i, -1, dtype=np.int64)
    lead_s = np.full(n_i, -1, dtype=np.int64)
    gamma = None
    diag = None
    if not policy.never_stops and k:
        gamma, diag = _run_rule(
            prep, policy, voting, settings, rows, thr, trunc, diagnostics, notes, stop_k, lead_s,
            sample,
        )  # fmt: skip

    # final-answer vote for iterations no rule stopped
    final = prep.final[rows]
    elig_f = final >= 0
    w_f = None
    if voting.filter and k:
        elig_f = (
            elig_f
            & (prep.conf_cummin[rows, k - 1] >= thr[:, None])
            & ~((trunc < lens) & (last_p >= trunc))
        )
    if voting.weighted:
        w_f = prep.conf[rows, k - 1] if k else prep.mean_conf[rows]
    votes_f = group_votes(final, elig_f, w_f, g, axis=1)
    lead_f, _vl_f, has_f = leaders(votes_f)

    stopped = stop_k >= 0
    ans = np.where(stopped, lead_s, np.where(has_f, lead_f, -1)).astype(np.int64)
    pos = np.where(stopped, prep.grid[np.maximum(stop_k, 0)] if k else 0, last_p).astype(np.int64)
    tokens = np.where(stopped, np.minimum(cap, pos[:, None]).sum(axis=1), baseline).astype(np.int64)
    correct = (ans >= 0) & prep.group_correct[np.maximum(ans, 0)]
    res = QuestionResult(
        qid=prep.qid,
        ground_truth=prep.ground_truth,
        iterations=iters,
        answers=ans,
        correct=correct,
        tokens=tokens,
        baseline=baseline.astype(np.int64),
        position=pos,
        stop_index=stop_k,
        stopped_by=np.where(stopped, policy.stop_label, "budget").astype(object),
        labels=prep.group_labels,
        n_pool=prep.n,
        gamma=gamma,
        notes=notes,
        group_correct=prep.group_correct,
    )
    if policy.offline_votes:
        res.extra_votes = _deepconf_offline_votes(prep, rows)
    if diag is not None:
        diag.tokens_at = np.minimum(cap[:, :, None], prep.grid[None, None, :]).sum(axis=1)
    return (res, diag) if diagnostics else res


def _block(
    prep: PreparedQuestion,
    voting: Voting,
    rows: np.ndarray,
    active: np.ndarray,
    thr: np.ndarray,
    trunc: np.ndarray,
    lens: np.ndarray,
    k0: int,
    k1: int,
) -> Block:
    """Checkpoints k0..k1 of the iterations `active`: their snapshot votes and leaders."""
    g = prep.n_groups
    sub = rows[active]
    gi = prep.gidx[:, k0:k1][sub]  # [A, B, kb], absolute k inside
    mask = None
    if voting.filter:
        t_a = thr[active]
        filt = prep.conf_cummin[:, k0:k1][sub] >= t_a[:, None, None]
        tr = trunc[active]
        was = tr < lens[active]
        past = was[:, :, None] & (prep.grid[None, None, k0:k1] >= tr[:, :, None])
        mask = filt & ~past
    weights = prep.conf[:, k0:k1][sub] if voting.weighted else None
    votes = checkpoint_votes(gi, mask, weights, g, k0=k0)  # [A, kb, G+1]
    votes_g = votes[..., :g]
    lead, v_l, has = leaders(votes_g)
    return Block(prep, sub, k0, k1, gi, mask, weights, votes_g, lead, v_l, has)


@dataclass
class _ScoreGrid:
    """A score rule's (score, ok) and the snapshot leaders at every checkpoint of every
    iteration ([I, K]): what its runs at every value of the main parameter share."""

    score: np.ndarray
    ok: np.ndarray
    lead: np.ndarray
    has: np.ndarray


def _score_grid(
    prep: PreparedQuestion,
    policy: Policy,
    voting: Voting,
    setup: RuleSetup,
    rows: np.ndarray,
    thr: np.ndarray,
    trunc: np.ndarray,
) -> _ScoreGrid:
    """Every iteration through every checkpoint (none leaves early): the same per-iteration
    arithmetic as `_run_rule`, whose stops are where the scores first fire."""
    n_i, b = rows.shape
    k = prep.n_checkpoints
    lens = prep.lengths[rows]
    st = RuleState.start(n_i, b)
    every = np.arange(n_i)
    parts = []
    for k0, k1 in _blocks(k, False):
        blk = _block(prep, voting, rows, every, thr, trunc, lens, k0, k1)
        scores = policy.block_scores(blk, setup, st)
        assert scores is not None  # only score rules get here
        parts.append((*scores, blk.lead, blk.has))
    score, ok, lead, has = (np.concatenate(x, axis=1) for x in zip(*parts, strict=True))
    return _ScoreGrid(score, ok, lead, has)


def _run_rule(
    prep: PreparedQuestion,
    policy: Policy,
    voting: Voting,
    settings: SimSettings,
    rows: np.ndarray,
    thr: np.ndarray,
    trunc: np.ndarray,
    diagnostics: bool,
    notes: list[Note],
    stop_k: np.ndarray,
    lead_s: np.ndarray,
    sample: object = None,
) -> tuple[float | None, Diagnostics | None]:
    """Evaluate the checkpoint rule block by block; fills stop_k / lead_s in place. In a sweep
    (`sample` given) a score rule reads its full grid of scores, computed once for all values
    of its main parameter."""
    n_i, b = rows.shape
    k = prep.n_checkpoints
    g = prep.n_groups
    setup = policy.rule_setup(prep, settings, notes)
    if sample is not None and not diagnostics and policy.scores_rule:
        grid = shared(
            ("scores", sample, policy.family_key()),
            lambda: _score_grid(prep, policy, voting, setup, rows, thr, trunc),
        )
        first = _first_true(policy.fires_from(grid.score, grid.ok))
        hit = first >= 0
        fk = first[hit]
        stop_k[hit] = fk
        lead_s[hit] = np.where(grid.has[hit, fk], grid.lead[hit, fk], -1)
        return setup.gamma, None
    lens = prep.lengths[rows]
    st = RuleState.start(n_i, b)
    active = np.arange(n_i)
    diag = None
    for k0, k1 in _blocks(k, diagnostics):
        blk = _block(prep, voting, rows, active, thr, trunc, lens, k0, k1)
        gi, mask, votes_g, lead, has = blk.gi, blk.mask, blk.votes, blk.lead, blk.has
        out = policy.block_fires(blk, setup, st)
        fires = out.fires
        first = _first_true(fires)
        hit = first >= 0
        idx = active[hit]
        stop_k[idx] = k0 + first[hit]
        fk = first[hit]
        lead_s[idx] = np.where(has[hit, fk], lead[hit, fk], -1)
        if diagnostics:
            n_el = (gi % (g + 1) != g) if mask is None else ((gi % (g + 1) != g) & mask)
            diag = Diagnostics(
                prep.grid,
                votes_g,
                lead,
                has,
                fires,
                None,
                n_el.sum(axis=1),
                out.margin,
                out.threshold,
                blk.share(),
                out.q_votes,
                out.q_all,
                setup.gamma,
                setup.ref,
            )
        keep = ~hit
        active = active[keep]
        st = st.take(keep)
        if not active.size:
            break
    return setup.gamma, diag
