"""MARS switch-probability model (q-model) and the per-question gamma calibration.

Semantics follow the published simulator (`mars/q_model.py`, `mars/voting.py::
calibrate_gamma_warmup`, `mars/simulation.py::_calibrate_gamma`); the code is ours.

q-model: logistic regression on the warmup traces' (trace, checkpoint) pairs with features
[position, conf_at_pos, flips so far, streak, conf_trend], standardised by mean and population
std (floored at 1e-10); label `a(t, p) != final(t)`; loss = NLL + 0.01 |beta|^2 (intercept free),
scipy L-BFGS-B from zeros, 200 iterations; then Platt scaling sigmoid(a logit(q) + b) fitted on
the same rows (q clipped to [1e-7, 1 - 1e-7], from a=1, b=0, 100 iterations). q is stored float32.
The minimiser is scipy's compiled L-BFGS-B driven as `scipy.optimize.minimize` drives it, without
importing scipy.optimize (`lbfgsb.py`: bit-identical iterates, a much shorter start-up).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from analysis.playground.blas import single_thread_blas
from analysis.playground.lbfgsb import minimize_lbfgsb
from analysis.playground.prepare import PreparedQuestion
from analysis.playground.voting import leaders


def flips_and_streaks(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per trace and checkpoint: answer changes so far (to/from "none" count) and the number of
    consecutive checkpoints ending here with the same answer (>= 1; "none" == "none")."""
    n, k = groups.shape
    flips = np.zeros((n, k), dtype=np.int16)
    streaks = np.ones((n, k), dtype=np.int16)
    if k > 1:
        same = groups[:, 1:] == groups[:, :-1]
        flips[:, 1:] = np.cumsum(~same, axis=1)
        for p in range(1, k):
            streaks[:, p] = np.where(same[:, p - 1], streaks[:, p - 1] + 1, 1)
    return flips, streaks


def switch_features(grid: np.ndarray, groups: np.ndarray, conf: np.ndarray) -> np.ndarray:
    """Feature matrix [n*K, 5] float64, rows trace-major (trace 0's checkpoints first)."""
    n, k = groups.shape
    flips, streaks = flips_and_streaks(groups)
    c64 = conf.astype(np.float64)
    trend = np.zeros((n, k), dtype=np.float64)
    if k > 1:
        trend[:, 1:] = np.diff(c64, axis=1)
    x = np.empty((n * k, 5), dtype=np.float64)
    x[:, 0] = np.broadcast_to(grid.astype(np.float64)[None, :], (n, k)).ravel()
    x[:, 1] = c64.ravel()
    x[:, 2] = flips.ravel()
    x[:, 3] = streaks.ravel()
    x[:, 4] = trend.ravel()
    return x


@dataclass(frozen=True)
class QModel:
    """Fitted logistic switch model + Platt calibrator."""

    coef: np.ndarray  # [6] intercept, betas
    mean: np.ndarray  # [5]
    std: np.ndarray  # [5] floored at 1e-10
    platt_a: float
    platt_b: float
    n_rows: int
    n_positive: int

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Calibrated q for feature rows (float64; callers store float32)."""
        xs = (x - self.mean) / np.maximum(self.std, 1e-10)
        z = self.coef[0] + xs @ self.coef[1:]
        with np.errstate(over="ignore"):
            q = 1.0 / (1.0 + np.exp(-z))
            qc = np.clip(q, 1e-7, 1.0 - 1e-7)
            zz = self.platt_a * np.log(qc / (1.0 - qc)) + self.platt_b
            return 1.0 / (1.0 + np.exp(-zz))


def fit_q_model(x: np.ndarray, y: np.ndarray) -> QModel:
    """Fit the q-model on rows x [m, 5] with binary labels y [m] (see module docstring)."""
    mean = x.mean(axis=0)
    std = np.maximum(x.std(axis=0), 1e-10)
    xs = (x - mean) / std
    yf = y.astype(np.float64)

    def loss(params: np.ndarray) -> float:
        z = params[0] + xs @ params[1:]
        return float(-(np.sum(yf * z - np.logaddexp(0, z)) - 0.01 * np.sum(params[1:] ** 2)))

    def grad(params: np.ndarray) -> np.ndarray:
        z = params[0] + xs @ params[1:]
        resid = yf - 1.0 / (1.0 + np.exp(-z))
        g = np.empty_like(params)
        g[0] = -resid.sum()
        g[1:] = -(xs.T @ resid) + 0.02 * params[1:]
        return g

    with single_thread_blas(), np.errstate(over="ignore", invalid="ignore"):
        res = minimize_lbfgsb(loss, grad, np.zeros(x.shape[1] + 1), maxiter=200)
        coef = np.asarray(res.x, dtype=np.float64)
        z = coef[0] + xs @ coef[1:]
        q_raw = 1.0 / (1.0 + np.exp(-z))
        qc = np.clip(q_raw, 1e-7, 1.0 - 1e-7)
        lq = np.log(qc / (1.0 - qc))

        def ploss(p: np.ndarray) -> float:
            zz = p[0] * lq + p[1]
            return float(-np.sum(yf * zz - np.logaddexp(0, zz)))

        def pgrad(p: np.ndarray) -> np.ndarray:
            zz = p[0] * lq + p[1]
            r = yf - 1.0 / (1.0 + np.exp(-zz))
            return np.array([-np.sum(r * lq), -np.sum(r)])

        pres = minimize_lbfgsb(ploss, pgrad, [1.0, 0.0], maxiter=100)
    return QModel(
        coef=coef,
        mean=mean,
        std=std,
        platt_a=float(pres.x[0]),
        platt_b=float(pres.x[1]),
        n_rows=int(x.shape[0]),
        n_positive=int(yf.sum()),
    )


def learned_q(prep: PreparedQuestion, warmup: int) -> tuple[np.ndarray, QModel | None]:
    """q [n_pool, K] float32 for every pool trace from the model fitted on the warmup set
    (cached on the prepared question). Empty grid or empty warmup: no model, q = NaN."""
    key = ("q", warmup)
    if key in prep.cache:
        return prep.cache[key]
    n_w = min(warmup, prep.n)
    k = prep.n_checkpoints
    out: tuple[np.ndarray, QModel | None]
    if n_w == 0 or k == 0:
        out = (np.full((prep.n, k), np.nan, dtype=np.float32), None)
    else:
        xw = switch_features(prep.grid, prep.groups[:n_w], prep.conf[:n_w])
        yw = (prep.groups[:n_w] != prep.final[:n_w, None]).ravel()
        model = fit_q_model(xw, yw)
        fkey = ("features",)
        if fkey not in prep.cache:
            prep.cache[fkey] = switch_features(prep.grid, prep.groups, prep.conf)
        with single_thread_blas():
            q = model.predict(prep.cache[fkey]).reshape(prep.n, k).astype(np.float32)
        out = (q, model)
    prep.cache[key] = out
    return out


GAMMA_GRID = np.arange(0.0, 1.05, 0.1)  # unrounded, as published; keyed rounded to 2 decimals


@dataclass(frozen=True)
class Calibration:
    gamma: float
    gamma_band: float
    answers: dict[float, int]  # rounded gamma -> answer of the warmup-only run
    stop_index: dict[float, int]  # rounded gamma -> checkpoint index (K-1 when it never fired)
    n_elig: int
    note: str = ""


def calibrate_gamma(
    groups: np.ndarray,
    q: np.ndarray,
    weights: np.ndarray | None,
    elig: np.ndarray,
    final: np.ndarray,
    n_groups: int,
    ucb_z: float,
    gamma_min: float,
) -> Calibration:
    """Warmup gamma calibration (inputs are the warmup traces' [n_w, K] arrays).

    For each gamma of 0.0, 0.1, ..., 1.0: the first checkpoint where the margin rule fires on
    the warmup traces alone (no first-checkpoint guard) gives the answer; if it never fires, the
    weighted vote of the final answers (weights of the last checkpoint). Walk down from 1.0
    while the answer equals gamma=1's: `gamma_band`. Then `min(1, band + z/sqrt(n_elig))` (only
    when z > 0; n_elig = eligible warmup traces at gamma=1's stop checkpoint, >= 1), floored at
    `gamma_min`, rounded to 2 decimals. Element-wise arithmetic and dtypes (float32 for
    confidence weights) mirror the published code so the boundary decisions are bit-identical.
    """
    n_w, k = groups.shape
    w_all = np.ones((n_w, k), dtype=np.float64) if weights is None else weights
    w_budget = w_all[:, -1]
    vote_final = np.zeros(n_groups, dtype=np.float64)
    valid_f = final >= 0
    np.add.at(vote_final, final[valid_f], w_budget[valid_f])
    budget_ref = int(np.argmax(vote_final))

    gam = GAMMA_GRID.astype(w_all.dtype)[:, None]  # [G, 1]; python-float * array keeps dtype
    gam2 = (GAMMA_GRID * 2.0).astype(w_all.dtype)[:, None]
    n_g = GAMMA_GRID.shape[0]
    stop_at = np.full(n_g, -1, dtype=np.int64)
    answer = np.full(n_g, budget_ref, dtype=np.int64)
    for p in range(k):
        open_ = stop_at < 0
        if not open_.any():
            break
        ans = groups[:, p]
        e = elig[:, p]
        w = w_all[:, p]
        valid = (ans >= 0) & e
        if not valid.any():
            continue
        votes = np.zeros(n_groups, dtype=np.float64)
        np.add.at(votes, ans[valid], w[valid])
        lead = int(np.argmax(votes))
        v_l = votes[lead]
        if v_l <= 0:
            continue
        qp = q[:, p]
        for_l = (ans == lead) & e
        c_worst = gam * np.where(for_l, 2.0 * w, w) * e  # [G, n_w]
        thr = np.ascontiguousarray(qp * c_worst).sum(axis=1)
        ok = ~(v_l <= thr)
        for a in np.nonzero(votes > 0)[0]:
            if a == lead:
                continue
            m_a = v_l - votes[a]
            for_a = (ans == a) & e
            c_t = np.where(for_l, gam2 * w, np.where(for_a, -w, gam * w)) * e
            t_a = np.ascontiguousarray(qp * c_t).sum(axis=1)
            ok &= ~(m_a <= t_a)
        fire = ok & open_
        stop_at[fire] = p
        answer[fire] = lead
    stop_at[stop_at < 0] = k - 1
    keys = [round(float(g), 2) for g in GAMMA_GRID]
    answers = dict(zip(keys, answer.tolist(), strict=True))
    stops = dict(zip(keys, stop_at.tolist(), strict=True))
    ref = answers[1.0]
    band = 1.0
    for g in sorted(keys, reverse=True):
        if answers[g] == ref:
            band = g
        else:
            break
    gamma = band
    n_elig = max(int(elig[:, stops[1.0]].sum()), 1)
    if ucb_z > 0:
        gamma = min(1.0, gamma + ucb_z / np.sqrt(n_elig))
    gamma = max(gamma, gamma_min)
    return Calibration(round(float(gamma), 2), band, answers, stops, n_elig)


def _at(a: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """a[..., idx[...]]: `take_along_axis` on the last axis as one flat gather (the same values;
    without its per-call index building, which cost more than the gather on a rule's blocks)."""
    g = a.shape[-1]
    flat = np.arange(idx.size, dtype=np.intp).reshape(idx.shape) * g + idx
    return a.reshape(-1)[flat] if a.flags.c_contiguous else np.take(a, flat)


def margin_rule(
    votes: np.ndarray, qg: np.ndarray, s_all: np.ndarray, gamma: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The MARS margin rule on snapshot votes (no first-checkpoint guard).

    votes [..., G] = V_a; qg [..., G] = sum of q_j e_j w_j over the voters of each answer;
    s_all [...] = sum of q_j e_j w_j over all traces (NaN if any q is NaN). With the per-trace
    costs summed by answer, the worst case reads `V_L > gamma (S_all + S_L)` and challenger a
    `V_L - V_a > gamma (S_all + S_L) - (1 + gamma) Q_a` (same sums as the spec's c_j, grouped).
    Returns (fires, leader, margin, threshold) where margin/threshold are the binding check's
    two sides (the one with the least slack)."""
    g = votes.shape[-1]
    lead, v_l, has = leaders(votes)
    s_l = _at(qg, lead)
    t0 = gamma * (s_all + s_l)
    lhs = v_l[..., None] - votes
    rhs = t0[..., None] - (1.0 + gamma) * qg
    rel = (votes > 0) & (np.arange(g) != lead[..., None])
    fires = has & (v_l > t0) & np.all(~rel | (lhs > rhs), axis=-1)
    with np.errstate(invalid="ignore"):
        gap = np.where(rel, lhs - rhs, np.inf)
        worst = np.argmin(gap, axis=-1)
        gap_a = _at(gap, worst)
        use_a = gap_a < (v_l - t0)
    margin = np.where(use_a, _at(lhs, worst), v_l)
    threshold = np.where(use_a, _at(rhs, worst), t0)
    return fires, lead, margin, threshold
