"""The MARS margin rule (`sc-mars`, `dco-mars`, `sc-mars-cal`, `dco-mars-cal`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from analysis.playground.mars import GAMMA_GRID, calibrate_gamma, learned_q, margin_rule
from analysis.playground.notes import Note, NoteCode
from analysis.playground.policy_base import (
    DCO,
    DCO_PERCENTILE,
    DCO_UNIFORM,
    SC,
    MainParam,
    Option,
    ParamSpec,
    PolicyDecl,
    PolicyRules,
    PreparedQuestion,
    RefRule,
    SimSettings,
    Voting,
    ref_votes,
)
from analysis.playground.rules import Block, Fires, RuleSetup, RuleState
from analysis.playground.voting import checkpoint_votes

Calibration = Literal["oracle", "learned"]


@dataclass(frozen=True)
class Mars(PolicyRules):
    """MARS margin rule (Margin-Adversarial Risk-controlled Stopping, arXiv 2606.12935;
    `mars/voting.py::MarsStopping`, Hoeffding term off as in all published runs).

    At checkpoint p with leader L: stop iff there are votes, `V_L > gamma * sum_j q_j e_j
    (2 w_j if a_j = L else w_j)`, and for every other answer a with `V_a > 0`:
    `V_L - V_a > sum_j q_j e_j c_j` with `c_j = 2 gamma w_j` (a_j = L), `-w_j` (a_j = a), else
    `gamma w_j`; at the first checkpoint the leader must also be the warmup set's majority final
    answer. `q_j` = 5-feature logistic switch model fitted on the warmup traces + Platt scaling.
    `calibrate` (the published `--warmup-gamma`) replaces gamma per question by the warmup
    calibration (`calibration_q` = "oracle" for the `-cal` methods, "learned" otherwise) with
    UCB term `ucb_z / sqrt(n_elig)` and floor `gamma_min`.
    """

    voting: Voting = SC
    gamma: float = 1.0
    calibrate: bool = False
    calibration_q: Calibration = "learned"
    ucb_z: float = 0.0
    gamma_min: float = 0.5
    first_checkpoint_guard: bool = True
    stop_label = "margin"
    main = MainParam(
        "gamma",
        "gamma",
        tuple(round(0.5 + 0.05 * i, 2) for i in range(11)),
        note="each point fixes gamma and turns calibration off (the ring keeps the current setting)",
    )
    replay_signal = "MARS margin vs threshold"
    widgets = (
        ParamSpec("calibrate", "cal", "Calibrate gamma per question", False, toggle=True),
        ParamSpec(
            "gamma",
            "gamma",
            "gamma (cost shrinkage)",
            1.0,
            0.0,
            1.0,
            0.05,
            help="fixed gamma when calibration is off",
            enabled_when=("calibrate", False),
        ),
        ParamSpec("ucb_z", "z", "UCB z", 0.0, 0.0, 3.0, 0.1, enabled_when=("calibrate", True)),
        ParamSpec(
            "gamma_min",
            "gmin",
            "gamma min",
            0.5,
            0.0,
            1.0,
            0.05,
            enabled_when=("calibrate", True),
        ),
    )
    voting_widget = True

    @property
    def method(self) -> str:
        base = "dco-mars" if self.voting.filter else "sc-mars"
        return base + ("-cal" if self.calibration_q == "oracle" else "")

    def with_main(self, value: float) -> Mars:
        """A fixed gamma: the swept policy stops calibrating."""
        return replace(self, gamma=float(value), calibrate=False)

    def sweep_name(self, label: str, span: str) -> str:
        """A sweep fixes gamma, so calibration is off along it: the line of `sc-mars-cal` is
        the uncalibrated rule (`sc-mars`), and says so."""
        base = self.method.removesuffix("-cal")
        return f"{base}: fixed gamma swept{span} (no calibration)"

    def question_gamma(
        self, prep: PreparedQuestion, settings: SimSettings
    ) -> tuple[float, Note | None]:
        """The gamma MARS uses on this question (calibrated when asked), with a note."""
        if not self.calibrate:
            return float(self.gamma), None
        n_w = min(settings.warmup, prep.n)
        if n_w < 4:
            return 1.0, Note(
                NoteCode.GAMMA_FEW_WARMUP,
                f"gamma = 1 (only {n_w} warmup traces; calibration needs 4)",
            )
        if prep.n_checkpoints == 0:
            return float(self.gamma), Note(
                NoteCode.GAMMA_EMPTY_GRID, "gamma not calibrated (empty checkpoint grid)"
            )
        key = (
            "cal",
            settings.warmup,
            self.voting.filter,
            self.voting.percentile,
            self.calibration_q,
            self.ucb_z,
            self.gamma_min,
        )
        if key not in prep.cache:
            groups = prep.groups[:n_w]
            final = prep.final[:n_w]
            if self.calibration_q == "oracle":
                q = (groups != final[:, None]).astype(np.float32)
            else:
                q = learned_q(prep, settings.warmup)[0][:n_w]
            elig = groups >= 0
            weights = None
            if self.voting.filter:
                thr = np.percentile(prep.min_group[:n_w], self.voting.percentile)
                elig = elig & (prep.conf_cummin[:n_w] >= thr)
                weights = prep.conf[:n_w]  # published: every dco* method calibrates conf-weighted
            prep.cache[key] = calibrate_gamma(
                groups, q, weights, elig, final, prep.n_groups, self.ucb_z, self.gamma_min
            )
        cal = prep.cache[key]
        return cal.gamma, Note(
            NoteCode.GAMMA_CALIBRATED,
            f"calibrated gamma = {cal.gamma:.2f} (band {cal.gamma_band:.1f}, n_elig {cal.n_elig})",
        )

    def rule_setup(
        self, prep: PreparedQuestion, settings: SimSettings, notes: list[Note]
    ) -> RuleSetup:
        gamma, note = self.question_gamma(prep, settings)
        if note is not None:
            notes.append(note)
        q_all, model = learned_q(prep, settings.warmup)
        if model is None:
            notes.append(
                Note(NoteCode.NO_Q_MODEL, "no q-model (empty warmup or grid): MARS cannot stop")
            )
        ref = -1
        if self.first_checkpoint_guard:
            wf0 = prep.final[: min(settings.warmup, prep.n)]
            ref = int(np.bincount(wf0, minlength=prep.n_groups).argmax()) if wf0.size else -1
        return RuleSetup(gamma, q_all, ref)

    def block_fires(self, blk: Block, setup: RuleSetup, st: RuleState) -> Fires:
        """The margin rule with q_j e_j w_j summed per answer by the same bincount as the votes;
        at the first checkpoint the leader must be the warmup majority."""
        assert setup.q_all is not None and setup.gamma is not None
        g = blk.n_groups
        answers = blk.answers()
        elig = blk.eligible(answers)
        qew = setup.q_all[:, blk.k0 : blk.k1][blk.sub].astype(np.float64) * elig
        if blk.weights is not None:
            qew *= blk.weights
        qfull = checkpoint_votes(blk.gi, blk.mask, qew, g, k0=blk.k0)
        fires, _l, margin, threshold = margin_rule(
            blk.votes, qfull[..., :g], qfull.sum(axis=-1), setup.gamma
        )
        if blk.k0 == 0 and setup.ref >= 0:
            fires[:, 0] &= blk.lead[:, 0] == setup.ref
        return Fires(fires, margin, threshold, qfull[..., :g], qfull.sum(axis=-1))


def _ref_calibrate(groups, q, weights, elig, final, g, ucb_z, gamma_min) -> float:
    n_w, k = groups.shape
    w_all = np.ones((n_w, k)) if weights is None else weights
    vote_final = ref_votes(final, final >= 0, w_all[:, -1], g)
    budget_ref = int(np.argmax(vote_final))
    res = {}
    for gamma in GAMMA_GRID:
        gamma = float(gamma)
        out = (budget_ref, k - 1)
        for p in range(k):
            ans, e, w = groups[:, p], elig[:, p], w_all[:, p]
            if not ((ans >= 0) & e).any():
                continue
            v = ref_votes(ans, e, w, g)
            lead = int(np.argmax(v))
            if v[lead] <= 0:
                continue
            for_l = (ans == lead) & e
            thr = (q[:, p] * (gamma * np.where(for_l, 2.0 * w, w) * e)).sum()
            if v[lead] <= thr:
                continue
            safe = True
            for a in range(g):
                if a == lead or v[a] <= 0:
                    continue
                c = np.where(for_l, gamma * 2.0 * w, np.where((ans == a) & e, -w, gamma * w)) * e
                if v[lead] - v[a] <= (q[:, p] * c).sum():
                    safe = False
                    break
            if safe:
                out = (lead, p)
                break
        res[round(gamma, 2)] = out
    ref = res[1.0][0]
    band = 1.0
    for key in sorted(res, reverse=True):
        if res[key][0] != ref:
            break
        band = key
    if ucb_z > 0:
        n_elig = max(int(elig[:, res[1.0][1]].sum()), 1)
        band = min(1.0, band + ucb_z / np.sqrt(n_elig))
    return round(max(band, gamma_min), 2)


class _Ref(RefRule):
    """The margin rule with direct per-challenger sums; gamma calibrated by a plain grid loop."""

    def __init__(self, pol: Mars, prep: PreparedQuestion, settings: SimSettings) -> None:
        self.pol, self.prep = pol, prep
        self.q_all = learned_q(prep, settings.warmup)[0]
        self.gamma = float(pol.gamma)
        n_w = min(settings.warmup, prep.n)
        if pol.calibrate:
            if n_w < 4:
                self.gamma = 1.0
            else:
                wg, wf = prep.groups[:n_w], prep.final[:n_w]
                q_cal = (
                    (wg != wf[:, None]).astype(np.float32)
                    if pol.calibration_q == "oracle"
                    else self.q_all[:n_w]
                )
                el = wg >= 0
                wts = None
                if pol.voting.filter:
                    t = np.percentile(prep.min_group[:n_w], pol.voting.percentile)
                    el = el & (np.minimum.accumulate(prep.conf[:n_w], axis=1) >= t)
                    wts = prep.conf[:n_w]
                g = prep.n_groups
                self.gamma = _ref_calibrate(wg, q_cal, wts, el, wf, g, pol.ucb_z, pol.gamma_min)
        counts = Counter(prep.final[:n_w].tolist())
        self.ref_answer = min(counts, key=lambda a: (-counts[a], a)) if counts else -1

    def start(self, rows: np.ndarray) -> None:
        self.rows = rows

    def fires(
        self, p: int, a: np.ndarray, e: np.ndarray, w: np.ndarray, v: np.ndarray, lead: int
    ) -> bool:
        gamma = self.gamma
        assert gamma is not None
        q = self.q_all[self.rows, p]
        for_l = a == lead
        fire = v.sum() > 0 and v[lead] > (q * (gamma * np.where(for_l, 2.0 * w, w) * e)).sum()
        if fire:
            for b in range(len(v)):
                if b == lead or v[b] <= 0:
                    continue
                c = np.where(for_l, gamma * 2.0 * w, np.where(a == b, -w, gamma * w)) * e
                if not (v[lead] - v[b] > (q * c).sum()):
                    fire = False
                    break
        if fire and p == 0 and self.pol.first_checkpoint_guard and self.ref_answer >= 0:
            fire = lead == self.ref_answer
        return bool(fire)


def _reference(pol: Mars, prep: PreparedQuestion, settings: SimSettings) -> RefRule:
    return _Ref(pol, prep, settings) if prep.n_checkpoints else RefRule()


def _build(method: str, o: Mapping[str, Any]) -> Mars:
    pct = float(o["dco_percentile"])
    cal = method.endswith("-cal")
    dco = replace(DCO if cal else DCO_UNIFORM, percentile=pct)
    return Mars(
        voting=dco if method.startswith("dco") else SC,
        gamma=o["gamma"],
        calibrate=o["warmup_gamma"],
        calibration_q="oracle" if cal else "learned",
        ucb_z=o["ucb_z"],
        gamma_min=o["gamma_min"],
    )


_PAPER_CAL = {"warmup_gamma": True, "ucb_z": 1.0, "gamma_min": 0.5}

DECL = PolicyDecl(
    name="mars",
    policy_type=Mars,
    family="published",
    methods=(
        ("sc-mars", "MARS on SC, gamma fixed (sc-mars)"),
        ("dco-mars", "MARS on DeepConf, gamma fixed (dco-mars)"),
        ("sc-mars-cal", "MARS on SC, calibrated gamma (sc-mars-cal)"),
        ("dco-mars-cal", "MARS on DeepConf, calibrated gamma (dco-mars-cal)"),
    ),
    build=_build,
    options=(
        Option("gamma", float, 1.0),
        Option("warmup_gamma", bool, False, "calibrate gamma per question"),
        Option("ucb_z", float, 0.0),
        Option("gamma_min", float, 0.5),
        DCO_PERCENTILE,
    ),
    reference=_reference,
    published_options={"sc-mars-cal": _PAPER_CAL, "dco-mars-cal": _PAPER_CAL},
    source="arXiv 2606.12935; `mars/voting.py::MarsStopping`",
)
