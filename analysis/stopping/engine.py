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
note (`budget_note`). Each case adds a note to the question's result, which the playground shows.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from analysis.stopping.bootstrap import bootstrap_rows
from analysis.stopping.dco import dco_thresholds
from analysis.stopping.mars import calibrate_gamma, learned_q, margin_rule
from analysis.stopping.params import (
    DEFAULT_SETTINGS,
    AdaptiveConsistency,
    Consensus,
    DeepConfOnline,
    EarlyStoppingSC,
    Mars,
    ParallelProbe,
    Policy,
    ProbeStability,
    SelfConsistency,
    SimSettings,
    Voting,
)
from analysis.stopping.prepare import PreparedQuestion
from analysis.stopping.voting import checkpoint_votes, group_votes, leaders

STOP_LABEL = {
    Mars: "margin",
    ParallelProbe: "pp_consensus",
    Consensus: "consensus",
    ProbeStability: "stability",
    EarlyStoppingSC: "esc",
    AdaptiveConsistency: "adaptive",
}


@dataclass
class QuestionResult:
    """One question's simulated iterations (answers are compact group ids of `prep`)."""

    qid: int
    ground_truth: str
    iterations: np.ndarray  # int64 [I] iteration indices
    answers: np.ndarray  # int64 [I] compact group id, -1 = no answer
    correct: np.ndarray  # bool [I]
    tokens: np.ndarray  # int64 [I]
    baseline: np.ndarray  # int64 [I]
    position: np.ndarray  # int64 [I] stop position (tokens), or traces generated (sequential)
    stop_index: np.ndarray  # int64 [I] checkpoint index / traces, -1 = by budget
    stopped_by: np.ndarray  # object [I]
    labels: list[str]
    n_pool: int
    gamma: float | None = None
    notes: list[str] = field(default_factory=list)
    extra_votes: dict[str, np.ndarray] = field(default_factory=dict)  # offline DeepConf votes
    group_correct: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=bool))

    def is_correct(self, answers: np.ndarray) -> np.ndarray:
        """Correctness of compact group ids (-1 = no answer = wrong)."""
        a = np.asarray(answers, dtype=np.int64)
        return (a >= 0) & self.group_correct[np.maximum(a, 0)]

    def answer_text(self, i: int) -> str:
        a = int(self.answers[i])
        return self.labels[a] if a >= 0 else ""

    @property
    def savings(self) -> np.ndarray:
        """Per-iteration token savings fraction (0 where the baseline is 0)."""
        base = self.baseline.astype(np.float64)
        out = np.zeros_like(base)
        np.divide(self.tokens, base, out=out, where=base > 0)
        return np.where(base > 0, 1.0 - out, 0.0)


@dataclass
class Diagnostics:
    """Per-checkpoint internals of a run, for the replay view ([I, K] unless noted)."""

    grid: np.ndarray
    votes: np.ndarray  # [I, K, G]
    leader: np.ndarray
    has_votes: np.ndarray
    fires: np.ndarray  # rule fired at k
    tokens_at: np.ndarray  # [I, K] sum_j min(len, trunc, p_k)
    n_eligible: np.ndarray
    margin: np.ndarray | None = None  # MARS: lhs of the binding check
    threshold: np.ndarray | None = None  # MARS: its rhs
    share: np.ndarray | None = None  # leader share of the vote


def _empty_result(prep: PreparedQuestion, iters: np.ndarray, notes: list[str]) -> QuestionResult:
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


def _voting_of(policy: Policy) -> Voting:
    if isinstance(policy, SelfConsistency):
        return Voting()
    if isinstance(policy, DeepConfOnline):
        return policy.voting
    return policy.voting  # type: ignore[union-attr]


def mars_gamma(prep: PreparedQuestion, policy: Mars, settings: SimSettings) -> tuple[float, str]:
    """The gamma MARS uses on this question (calibrated when asked), with a note."""
    if not policy.calibrate:
        return float(policy.gamma), ""
    n_w = min(settings.warmup, prep.n)
    if n_w < 4:
        return 1.0, f"gamma = 1 (only {n_w} warmup traces; calibration needs 4)"
    if prep.n_checkpoints == 0:
        return float(policy.gamma), "gamma not calibrated (empty checkpoint grid)"
    key = (
        "cal",
        settings.warmup,
        policy.voting.filter,
        policy.voting.percentile,
        policy.calibration_q,
        policy.ucb_z,
        policy.gamma_min,
    )
    if key not in prep.cache:
        groups = prep.groups[:n_w]
        final = prep.final[:n_w]
        if policy.calibration_q == "oracle":
            q = (groups != final[:, None]).astype(np.float32)
        else:
            q = learned_q(prep, settings.warmup)[0][:n_w]
        elig = groups >= 0
        weights = None
        if policy.voting.filter:
            thr = np.percentile(prep.min_group[:n_w], policy.voting.percentile)
            elig = elig & (prep.conf_cummin[:n_w] >= thr)
            weights = prep.conf[:n_w]  # published: every dco* method calibrates conf-weighted
        prep.cache[key] = calibrate_gamma(
            groups, q, weights, elig, final, prep.n_groups, policy.ucb_z, policy.gamma_min
        )
    cal = prep.cache[key]
    return (
        cal.gamma,
        f"calibrated gamma = {cal.gamma:.2f} (band {cal.gamma_band:.1f}, n_elig {cal.n_elig})",
    )


BUDGET_NOTE = "sampled with replacement"


def budget_note(budget: int, n_pool: int) -> str:
    """The note of a budget larger than the pool. Not an error: the bootstrap samples with
    replacement (as the published simulator does), so some traces are drawn several times and
    the run cannot be read as "budget distinct traces"."""
    return f"budget {budget} > pool of {n_pool} traces: {BUDGET_NOTE}"


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


@dataclass
class _State:
    """Per-iteration state carried across checkpoint blocks (Parallel-Probe, stability)."""

    stable: np.ndarray
    prev: np.ndarray
    pruned: np.ndarray
    off: np.ndarray
    run: np.ndarray
    last: np.ndarray

    def take(self, keep: np.ndarray) -> _State:
        return _State(
            *(getattr(self, f)[keep] for f in ("stable", "prev", "pruned", "off", "run", "last"))
        )


def _pp_block(
    policy: ParallelProbe, answers: np.ndarray, elig: np.ndarray, k0: int, g: int, st: _State
) -> np.ndarray:
    """Parallel-Probe decisions [A, kb] for checkpoints k0.. of the block; updates `st`."""
    n_a, _b, kb = answers.shape
    fires = np.zeros((n_a, kb), dtype=bool)
    base = np.arange(n_a, dtype=np.int64)[:, None] * g
    for c in range(kb):
        p = k0 + c
        a = answers[:, :, c]
        e = elig[:, :, c] & ~st.pruned
        valid = e & (a >= 0)
        counts = np.bincount((base + a)[valid], minlength=n_a * g).reshape(n_a, g)
        has = counts.sum(axis=1) > 0
        win = np.where(has, np.argmax(counts, axis=1), -1)
        same = (win == st.prev) & (win >= 0)
        st.stable = np.where(same, st.stable + 1, 1)
        st.prev = win
        if p >= policy.warmup and policy.prune_patience > 0:
            agrees = (a == win[:, None]) | ~e
            st.off = np.where(agrees, 0, st.off + 1)
            st.pruned |= st.off >= policy.prune_patience
        if p >= policy.warmup:
            fires[:, c] = (st.stable >= policy.conv) & has
    return fires


def _stability_block(k_needed: int, lead: np.ndarray, has: np.ndarray, st: _State) -> np.ndarray:
    n_a, kb = lead.shape
    fires = np.zeros((n_a, kb), dtype=bool)
    for c in range(kb):
        same = has[:, c] & (st.run > 0) & (lead[:, c] == st.last)
        st.run = np.where(same, st.run + 1, has[:, c].astype(np.int64))
        st.last = np.where(has[:, c], lead[:, c], -1)
        fires[:, c] = st.run >= max(1, k_needed)
    return fires


def _deepconf_offline_votes(prep: PreparedQuestion, rows: np.ndarray) -> dict[str, np.ndarray]:
    """The seven DeepConf offline votes on final answers (published `compute_deepconf_votes`)."""
    g = prep.n_groups
    final = prep.final[rows]
    elig = final >= 0
    feats = {
        "mean_conf_weighted": prep.mean_conf[rows],
        "tail_conf_weighted": prep.tail_conf[rows],
        "bottom_window_weighted": prep.bottom_10[rows],
        "min_window_weighted": prep.min_group[rows],
    }
    out = {"majority": np.argmax(group_votes(final, elig, None, g, axis=1), axis=1)}
    for name, w in feats.items():
        out[name] = np.argmax(group_votes(final, elig, w, g, axis=1), axis=1)
    for name, w in (
        ("top10_tail_filtered", feats["tail_conf_weighted"]),
        ("top10_bottom_window_filtered", feats["bottom_window_weighted"]),
    ):
        if np.isfinite(w).all():  # every pool trace is eligible: plain percentile is the same
            pct = np.percentile(w, 90, axis=1)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                pct = np.nan_to_num(
                    np.nanpercentile(np.where(elig, w, np.nan), 90, axis=1), nan=-np.inf
                )
        keep = elig & (np.where(elig, w, -np.inf) >= pct[:, None])
        out[name] = np.argmax(group_votes(final, keep, w, g, axis=1), axis=1)
    return {k: v.astype(np.int64) for k, v in out.items()}


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
            f"features were built with window {prep.window}, not {settings.window}: using {prep.window}"
        )
    if prep.n == 0 or settings.budget <= 0:
        extra = [] if prep.n == 0 else ["budget 0: nothing sampled"]
        res = _empty_result(prep, iters, notes + extra)
        return (res, None) if diagnostics else res
    if prep.n < settings.warmup:
        notes.append(
            f"pool has {prep.n} traces with an answer, fewer than warmup {settings.warmup}: "
            "the warmup set is the whole pool"
        )
    if settings.budget > prep.n:
        notes.append(budget_note(settings.budget, prep.n))
    rows = bootstrap_rows(prep.n, settings.budget, iters, settings.seed, prep.qid)

    if isinstance(policy, EarlyStoppingSC | AdaptiveConsistency):
        from analysis.stopping.sequential import simulate_sequential

        res = simulate_sequential(prep, policy, rows, iters, notes)
        return (res, None) if diagnostics else res

    voting = _voting_of(policy)
    n_i, _b = rows.shape
    k = prep.n_checkpoints
    g = prep.n_groups
    lens = prep.lengths[rows]
    never_stops = isinstance(policy, SelfConsistency | DeepConfOnline)

    thr = None
    if voting.filter:
        thr = dco_thresholds(prep, rows, settings.warmup, voting.percentile)
        if not np.isfinite(thr).all():
            notes.append(
                "non-finite DeepConf threshold in some iterations: no trace is eligible there"
            )
        trunc = prep.truncation(rows, thr)
    else:
        trunc = lens
    cap = np.minimum(lens, trunc)
    baseline = cap.sum(axis=1)
    last_p = int(prep.grid[-1]) if k else 0

    stop_k = np.full(n_i, -1, dtype=np.int64)
    lead_s = np.full(n_i, -1, dtype=np.int64)
    gamma = None
    diag = None
    if not never_stops and k:
        gamma, diag = _run_rule(
            prep, policy, voting, settings, rows, thr, trunc, diagnostics, notes, stop_k, lead_s
        )

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
    label = STOP_LABEL.get(type(policy), "budget")
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
        stopped_by=np.where(stopped, label, "budget").astype(object),
        labels=prep.group_labels,
        n_pool=prep.n,
        gamma=gamma,
        notes=notes,
        group_correct=prep.group_correct,
    )
    if isinstance(policy, SelfConsistency):
        res.extra_votes = _deepconf_offline_votes(prep, rows)
    if diag is not None:
        diag.tokens_at = np.minimum(cap[:, :, None], prep.grid[None, None, :]).sum(axis=1)
    return (res, diag) if diagnostics else res


def _run_rule(prep, policy, voting, settings, rows, thr, trunc, diagnostics, notes, stop_k, lead_s):
    """Evaluate the checkpoint rule block by block; fills stop_k / lead_s in place."""
    n_i, b = rows.shape
    k = prep.n_checkpoints
    g = prep.n_groups
    gamma = None
    q_all = None
    ref = -1
    if isinstance(policy, Mars):
        gamma, note = mars_gamma(prep, policy, settings)
        if note:
            notes.append(note)
        q_all, model = learned_q(prep, settings.warmup)
        if model is None:
            notes.append("no q-model (empty warmup or grid): MARS cannot stop")
        if policy.first_checkpoint_guard:
            wf0 = prep.final[: min(settings.warmup, prep.n)]
            ref = int(np.bincount(wf0, minlength=g).argmax()) if wf0.size else -1
    lens = prep.lengths[rows]
    st = _State(
        stable=np.zeros(n_i, np.int64),
        prev=np.full(n_i, -1, np.int64),
        pruned=np.zeros((n_i, b), bool),
        off=np.zeros((n_i, b), np.int64),
        run=np.zeros(n_i, np.int64),
        last=np.full(n_i, -1, np.int64),
    )
    active = np.arange(n_i)
    diag = None
    for k0, k1 in _blocks(k, diagnostics):
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
        votes = checkpoint_votes(gi, mask, weights, g, k)[:, k0:k1]  # [A, kb, G+1]
        votes_g = votes[..., :g]
        lead, v_l, has = leaders(votes_g)
        margin = threshold = None
        if isinstance(policy, Mars):
            answers = prep.groups[:, k0:k1][sub]
            elig = answers >= 0 if mask is None else (answers >= 0) & mask
            qew = q_all[:, k0:k1][sub].astype(np.float64) * elig
            if weights is not None:
                qew *= weights
            qfull = checkpoint_votes(gi, mask, qew, g, k)[:, k0:k1]
            fires, _l, margin, threshold = margin_rule(
                votes_g, qfull[..., :g], qfull.sum(axis=-1), gamma
            )
            if k0 == 0 and ref >= 0:
                fires[:, 0] &= lead[:, 0] == ref
        elif isinstance(policy, ParallelProbe):
            answers = prep.groups[:, k0:k1][sub]
            elig = answers >= 0 if mask is None else (answers >= 0) & mask
            fires = _pp_block(policy, answers, elig, k0, g, st)
        elif isinstance(policy, Consensus):
            tot = votes_g.sum(axis=-1)
            share = np.zeros_like(tot)
            np.divide(v_l, tot, out=share, where=has)
            fires = has & (share >= policy.tau)
        elif isinstance(policy, ProbeStability):
            fires = _stability_block(policy.k, lead, has, st)
        else:  # pragma: no cover - exhaustive over the checkpoint policies
            raise TypeError(f"unknown policy {policy!r}")
        first = _first_true(fires)
        hit = first >= 0
        idx = active[hit]
        stop_k[idx] = k0 + first[hit]
        fk = first[hit]
        lead_s[idx] = np.where(has[hit, fk], lead[hit, fk], -1)
        if diagnostics:
            tot = votes_g.sum(axis=-1)
            share = np.zeros_like(tot)
            np.divide(v_l, tot, out=share, where=has)
            n_el = (gi % (g + 1) != g) if mask is None else ((gi % (g + 1) != g) & mask)
            diag = Diagnostics(
                prep.grid,
                votes_g,
                lead,
                has,
                fires,
                None,
                n_el.sum(axis=1),
                margin,
                threshold,
                share,
            )
        keep = ~hit
        active = active[keep]
        st = st.take(keep)
        if not active.size:
            break
    return gamma, diag
