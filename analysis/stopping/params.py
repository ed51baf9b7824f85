"""Simulation settings and the typed parameter set of every stopping policy.

Each policy is a frozen dataclass with the published defaults (github Wenbo11/MARS,
`examples/run_experiment.py`, `mars/voting.py`, `mars/simulation.py`) or, for our additions,
the defaults of the paper that introduced the rule. Exact semantics: `shared/spec/stopping.md`
and the docstrings below.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar, Literal, TypeVar

import numpy as np

from analysis.stopping.mars import calibrate_gamma, learned_q, margin_rule
from analysis.stopping.notes import Note, NoteCode
from analysis.stopping.prepare import PreparedQuestion
from analysis.stopping.rules import (
    Block,
    Fires,
    Prefixes,
    RuleSetup,
    RuleState,
    ac_fires,
    esc_fires,
    pp_scores,
    stability_runs,
)
from analysis.stopping.voting import checkpoint_votes

Calibration = Literal["oracle", "learned"]
ACCriterion = Literal["beta", "dirichlet", "entropy", "majority"]


@dataclass(frozen=True)
class SimSettings:
    """Bootstrap settings; the published runs use budget 512, 64 iterations, warmup 16,
    window 2048, seed 42. `window` must equal the window the pool's features were built with."""

    budget: int = 512
    iterations: int = 64
    warmup: int = 16
    window: int = 2048
    seed: int = 42


@dataclass(frozen=True)
class Voting:
    """How traces vote at a checkpoint (the two published pipelines).

    - SC (`Voting()`): every trace with an answer votes with weight 1, nothing is truncated.
    - DCO (`Voting(filter=True, weighted=True)`, DeepConf online, Fu et al. 2025 as implemented
      in `mars/simulation.py`): threshold `thr` = `percentile` (numpy linear) of `min_group` over
      the first `warmup` sampled traces of the iteration; a trace is eligible at checkpoint p while
      the running minimum of `conf_at_pos` up to p is `>= thr`; it is truncated (stops generating)
      at the first window whose group confidence is `< thr`, plus W, and cannot vote once
      `p >= trunc`. `weighted` weights votes by `conf_at_pos(p)` (`dco-mars` keeps weight 1).
    """

    filter: bool = False
    weighted: bool = False
    percentile: float = 90.0

    @property
    def name(self) -> str:
        return "dco" if self.filter else "sc"


DEFAULT_SETTINGS = SimSettings()
SC = Voting()
DCO = Voting(filter=True, weighted=True)
DCO_UNIFORM = Voting(filter=True, weighted=False)


@dataclass(frozen=True)
class MainParam:
    """The parameter a frontier sweeps: policy field, label, default sweep values."""

    name: str
    label: str
    values: tuple[float, ...]
    note: str = ""  # what the sweep changes besides the parameter (the frontier's caption)


NO_PARAM = MainParam("", "", ())


@dataclass(frozen=True)
class ParamSpec:
    """One parameter widget of a policy, as plain data (components/stopping/controls renders
    it): the policy field it sets (`voting.percentile` for the voting's), its URL key, label and
    range. `enabled_when` = (field of an earlier toggle, the value that enables this one)."""

    field: str
    key: str
    label: str
    default: float | int | bool
    lo: float | int | None = None
    hi: float | int | None = None
    step: float | int | None = None
    toggle: bool = False
    help: str | None = None
    enabled_when: tuple[str, bool] | None = None
    new_row: bool = False  # first widget of a new row (the DeepConf percentile of a composition)


P = TypeVar("P", bound="PolicyRules")


class PolicyRules:
    """What differs between policies, owned by each policy (engine, sweep and controls call
    these instead of dispatching on the type). Defaults: a checkpoint rule on SC voting."""

    stop_label: ClassVar[str] = "budget"  # `stopped_by` of an early stop
    never_stops: ClassVar[bool] = False  # SC / DeepConf online: the final vote only
    sequential: ClassVar[bool] = False  # ESC / Adaptive-Consistency: traces arrive one by one
    offline_votes: ClassVar[bool] = False  # also report the seven DeepConf offline votes
    main: ClassVar[MainParam] = NO_PARAM
    replay_signal: ClassVar[str] = "leader share of the vote (%)"  # the replay's middle panel
    method: Any  # every policy names its published method id (a property)

    @property
    def voting(self) -> Voting:
        return SC

    def with_main(self: P, value: float) -> P:
        """The same policy with its main parameter set to `value` (cast to the field's type)."""
        if not self.main.name:
            return self
        cast = type(getattr(self, self.main.name))
        return replace(self, **{self.main.name: cast(value)})  # type: ignore[type-var]  # replace() on the concrete policy dataclass

    def ui_params(self) -> tuple[ParamSpec, ...]:
        """The playground's parameter widgets for this policy, defaults from this instance."""
        return ()

    def with_params(self: P, values: dict[str, Any]) -> P:
        """The policy with the widget values of `ui_params` (keyed by field) applied."""
        own = {k: v for k, v in values.items() if "." not in k}
        pol = replace(self, **{k: type(getattr(self, k))(v) for k, v in own.items()})  # type: ignore[type-var]  # replace() on the concrete policy dataclass
        if "voting.percentile" in values:
            voting = replace(self.voting, percentile=float(values["voting.percentile"]))
            pol = replace(pol, voting=voting)  # type: ignore[type-var]  # replace() on the concrete policy dataclass
        return pol

    def _percentile_spec(self) -> tuple[ParamSpec, ...]:
        """The DeepConf percentile of a rule composed with DeepConf voting (own row)."""
        if not self.voting.filter:
            return ()
        spec = ParamSpec(
            "voting.percentile", "pct", "DeepConf threshold percentile", 90, 0, 100, 5, new_row=True
        )
        return (spec,)

    def rule_setup(
        self, prep: PreparedQuestion, settings: SimSettings, notes: list[Note]
    ) -> RuleSetup:
        """What the rule fixes per question before its checkpoint loop (notes appended)."""
        return RuleSetup()

    def block_fires(self, blk: Block, setup: RuleSetup, st: RuleState) -> Fires:
        """The rule on one block of the [I, K] grid (checkpoint rules only)."""
        scores = self.block_scores(blk, setup, st)
        if scores is None:
            raise TypeError(f"{type(self).__name__} has no checkpoint rule")
        return Fires(self.fires_from(*scores))

    def block_scores(
        self, blk: Block, setup: RuleSetup, st: RuleState
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """For a rule that stops where it may (`ok`) once a per-checkpoint score reaches its
        main parameter: (score, ok) [A, kb], which do not depend on that parameter, so a sweep
        computes them once (`analysis.stopping.sharing`); `block_fires` is then
        `fires_from(score, ok)`. None for the other rules."""
        return None

    def fires_from(self, score: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Where the rule fires, from `block_scores`."""
        raise TypeError(f"{type(self).__name__} has no score rule")

    @property
    def scores_rule(self) -> bool:
        """Whether the rule is a score rule (`block_scores` gives its scores)."""
        return type(self).block_scores is not PolicyRules.block_scores

    def family_key(self) -> Hashable:
        """The policy with its main parameter left out: the runs of one sweep share it."""
        own = tuple((f.name, getattr(self, f.name)) for f in fields(self))  # type: ignore[arg-type]  # every policy is a dataclass
        return (type(self).__name__, tuple(kv for kv in own if kv[0] != self.main.name))

    def sequential_fires(self, final: np.ndarray, prefixes: Prefixes) -> np.ndarray:
        """The rule after each arrival [I, B] (sequential rules only)."""
        raise TypeError(f"{type(self).__name__} is not a sequential rule")

    def share_threshold(self) -> float | None:
        """The leader share the rule stops at, drawn in the replay (None: no such line)."""
        return None

    def replay_proxy(self) -> Policy | None:
        """A policy that never stops records no per-checkpoint internals; a consensus rule with
        the same voting and tau = 2 (a share never reaches it) replays exactly its snapshot
        votes, tokens and leader shares, and never fires. None: the policy has its own."""
        return None


@dataclass(frozen=True)
class SelfConsistency(PolicyRules):
    """`offline`: majority vote of the sampled traces' final answers at full budget; never stops.
    Also reports the seven DeepConf offline votes (majority; weighted by mean/tail/bottom-10/min
    group confidence; top-10% filtered by tail conf resp. bottom-10, weighted by it).
    Source: Wang et al. 2023 (self-consistency); Fu et al. 2025 (DeepConf); `mars/simulation.py`."""

    kind: Literal["offline"] = "offline"
    never_stops = True
    offline_votes = True

    @property
    def method(self) -> str:
        return "offline"

    def replay_proxy(self) -> Policy | None:
        return Consensus(voting=SC, tau=2.0)


@dataclass(frozen=True)
class DeepConfOnline(PolicyRules):
    """`dco`: DeepConf online filtering and truncation (see `Voting`), confidence-weighted vote of
    final answers at full budget; never stops early (its savings come from truncation).
    Source: Fu et al. 2025 "Deep Think with Confidence"; `mars/simulation.py` (method `dco`)."""

    percentile: float = 90.0
    never_stops = True
    main = MainParam("percentile", "DeepConf threshold percentile", tuple(range(0, 101, 10)))

    @property
    def method(self) -> str:
        return "dco"

    @property
    def voting(self) -> Voting:
        return Voting(filter=True, weighted=True, percentile=self.percentile)

    def ui_params(self) -> tuple[ParamSpec, ...]:
        return (ParamSpec("percentile", "pct", "threshold percentile", 90, 0, 100, 5),)

    def replay_proxy(self) -> Policy | None:
        return Consensus(voting=self.voting, tau=2.0)


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
        note="gamma is fixed (no calibration)",
    )
    replay_signal = "MARS margin vs threshold"

    @property
    def method(self) -> str:
        base = "dco-mars" if self.voting.filter else "sc-mars"
        return base + ("-cal" if self.calibration_q == "oracle" else "")

    def with_main(self, value: float) -> Mars:
        """A fixed gamma: the swept policy stops calibrating."""
        return replace(self, gamma=float(value), calibrate=False)

    def ui_params(self) -> tuple[ParamSpec, ...]:
        return (
            ParamSpec(
                "calibrate", "cal", "Calibrate gamma per question", self.calibrate, toggle=True
            ),
            ParamSpec(
                "gamma",
                "gamma",
                "gamma (cost shrinkage)",
                float(self.gamma),
                0.0,
                1.0,
                0.05,
                help="fixed gamma when calibration is off",
                enabled_when=("calibrate", False),
            ),
            ParamSpec(
                "ucb_z",
                "z",
                "UCB z",
                float(self.ucb_z),
                0.0,
                3.0,
                0.1,
                enabled_when=("calibrate", True),
            ),
            ParamSpec(
                "gamma_min",
                "gmin",
                "gamma min",
                float(self.gamma_min),
                0.0,
                1.0,
                0.05,
                enabled_when=("calibrate", True),
            ),
            *self._percentile_spec(),
        )

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
        return Fires(fires, margin, threshold)


@dataclass(frozen=True)
class ParallelProbe(PolicyRules):
    """`sc-pp`: Parallel-Probe (Zheng et al. 2026, "Parallel-Probe: Towards Efficient Parallel
    Thinking via 2D Probing"; `mars/voting.py::ParallelProbeStopping`). At each checkpoint the
    unpruned traces vote (weight 1); the winner's stability count grows while it is unchanged
    (reset to 1 otherwise). From checkpoint index `warmup` on, a trace that disagrees with the
    winner `prune_patience` checkpoints in a row is pruned (no token saving: it still costs).
    Stops when the count reaches `conv` and at least `warmup` checkpoints have passed; the
    reported answer is the *unpruned* snapshot vote."""

    voting: Voting = SC
    conv: int = 3
    warmup: int = 4
    prune_patience: int = 2
    stop_label = "pp_consensus"
    main = MainParam("conv", "stable checkpoints (conv)", tuple(range(1, 12)))

    @property
    def method(self) -> str:
        return "sc-pp" if not self.voting.filter else "dco-pp"

    def ui_params(self) -> tuple[ParamSpec, ...]:
        return (
            ParamSpec("conv", "conv", "stable checkpoints to stop (conv)", self.conv, 1, 12),
            ParamSpec("warmup", "ppw", "warm-up checkpoints", self.warmup, 0, 8),
            ParamSpec("prune_patience", "prune", "prune patience", self.prune_patience, 0, 6),
        )

    def block_scores(
        self, blk: Block, setup: RuleSetup, st: RuleState
    ) -> tuple[np.ndarray, np.ndarray] | None:
        return pp_scores(blk, st, self.warmup, self.prune_patience)

    def fires_from(self, score: np.ndarray, ok: np.ndarray) -> np.ndarray:
        return ok & (score >= self.conv)


@dataclass(frozen=True)
class Consensus(PolicyRules):
    """Consensus tau (our addition; `mars/voting.py::ConsensusStopping`, not used in published
    runs): stop at the first checkpoint where the leader holds `>= tau` of the snapshot vote
    weight (and there are votes). Label `consensus`."""

    voting: Voting = SC
    tau: float = 0.95
    stop_label = "consensus"
    main = MainParam("tau", "consensus tau", tuple(round(0.5 + 0.05 * i, 2) for i in range(11)))

    @property
    def method(self) -> str:
        return f"{self.voting.name}-consensus"

    def ui_params(self) -> tuple[ParamSpec, ...]:
        tau = ParamSpec("tau", "tau", "tau (leader share)", self.tau, 0.5, 1.0, 0.01)
        return (tau, *self._percentile_spec())

    def block_scores(
        self, blk: Block, setup: RuleSetup, st: RuleState
    ) -> tuple[np.ndarray, np.ndarray] | None:
        return blk.share(), blk.has

    def fires_from(self, score: np.ndarray, ok: np.ndarray) -> np.ndarray:
        return ok & (score >= self.tau)

    def share_threshold(self) -> float | None:
        return self.tau


@dataclass(frozen=True)
class ProbeStability(PolicyRules):
    """Probe stability (our addition, Dynasor-style: Fu et al. 2024 "Efficiently Serving LLM
    Reasoning Programs with Certaindex", probe-in-the-middle consistency): stop at the first
    checkpoint where the snapshot leader has been the same answer for `k` consecutive
    checkpoints (each with votes), counting the current one. Label `stability`."""

    voting: Voting = SC
    k: int = 3
    stop_label = "stability"
    main = MainParam("k", "stable checkpoints k", tuple(range(1, 12)))

    @property
    def method(self) -> str:
        return f"{self.voting.name}-stability"

    def ui_params(self) -> tuple[ParamSpec, ...]:
        k = ParamSpec("k", "k", "stable checkpoints k", self.k, 1, 12)
        return (k, *self._percentile_spec())

    def block_scores(
        self, blk: Block, setup: RuleSetup, st: RuleState
    ) -> tuple[np.ndarray, np.ndarray] | None:
        runs = stability_runs(blk, st)
        return runs, np.ones(runs.shape, dtype=bool)

    def fires_from(self, score: np.ndarray, ok: np.ndarray) -> np.ndarray:
        return ok & (score >= max(1, self.k))


@dataclass(frozen=True)
class EarlyStoppingSC(PolicyRules):
    """ESC (our addition; Li et al. 2024, "Escape Sky-high Cost: Early-stopping Self-Consistency
    for Multi-step Reasoning"), sequential arrival: the bootstrap sample's traces are generated
    one after another, whole, in sample order, in windows of `window` traces; stop after the
    first full window whose `window` final answers are all the same. Cost = sum of the lengths
    of the traces generated; answer = majority of their final answers (lowest id on ties).
    A trailing partial window is never tested. `position` = number of traces generated."""

    window: int = 5
    sequential = True
    stop_label = "esc"
    main = MainParam("window", "ESC window", tuple(range(2, 13)))

    @property
    def method(self) -> str:
        return "esc"

    def ui_params(self) -> tuple[ParamSpec, ...]:
        return (ParamSpec("window", "win", "ESC window (traces)", self.window, 2, 16),)

    def sequential_fires(self, final: np.ndarray, prefixes: Prefixes) -> np.ndarray:
        return esc_fires(final, self.window)


@dataclass(frozen=True)
class AdaptiveConsistency(PolicyRules):
    """Adaptive-Consistency (our addition; Aggarwal et al. 2023, "Let's Sample Step by Step"),
    sequential arrival as ESC, the rule decides after each arrival:
    - `beta`: top-two counts a, b: stop when P(p > 0.5 | Beta(a+1, b+1)) >= threshold (0.95);
    - `dirichlet`: with >= 3 distinct answers, P(leader has the largest share) under
      Dirichlet(counts+1) over the `top_k` (5) most common answers >= threshold, computed
      exactly (a one-dimensional integral over Gamma variables, fixed quadrature, error
      < 1e-12: `rules.dirichlet_prob`); with < 3 distinct answers it is the Beta rule;
    - `entropy`: after >= 2 arrivals, normalised base-2 entropy of the answer counts (a single
      answer gets a pseudo-count 1 of a second) <= threshold (source default 0.75);
    - `majority`: after >= 2 arrivals, leader share >= threshold (source default 0.8).
    `position` = number of traces generated."""

    criterion: ACCriterion = "beta"
    threshold: float = 0.95
    top_k: int = 5
    sequential = True
    stop_label = "adaptive"
    main = MainParam("threshold", "threshold", tuple(round(0.5 + 0.05 * i, 2) for i in range(11)))

    @property
    def method(self) -> str:
        return f"ac-{self.criterion}"

    def ui_params(self) -> tuple[ParamSpec, ...]:
        return (ParamSpec("threshold", "thr", "threshold", float(self.threshold), 0.5, 0.99, 0.01),)

    def sequential_fires(self, final: np.ndarray, prefixes: Prefixes) -> np.ndarray:
        return ac_fires(prefixes, self.criterion, self.threshold, self.top_k)


Policy = (
    SelfConsistency
    | DeepConfOnline
    | Mars
    | ParallelProbe
    | Consensus
    | ProbeStability
    | EarlyStoppingSC
    | AdaptiveConsistency
)

PUBLISHED_METHODS = (
    "offline",
    "dco",
    "sc-mars",
    "dco-mars",
    "sc-mars-cal",
    "dco-mars-cal",
    "sc-pp",
)
EXTRA_METHODS = (
    "sc-consensus",
    "dco-consensus",
    "sc-stability",
    "dco-stability",
    "esc",
    "ac-beta",
    "ac-dirichlet",
    "ac-entropy",
    "ac-majority",
)
ALL_METHODS = PUBLISHED_METHODS + EXTRA_METHODS

AC_DEFAULT_THRESHOLD = {"beta": 0.95, "dirichlet": 0.95, "entropy": 0.75, "majority": 0.8}


def policy_for_method(
    method: str,
    *,
    gamma: float = 1.0,
    warmup_gamma: bool = False,
    ucb_z: float = 0.0,
    gamma_min: float = 0.5,
    pp_conv: int = 3,
    pp_warmup: int = 4,
    pp_prune_patience: int = 2,
    dco_percentile: float = 90.0,
    tau: float = 0.95,
    stability_k: int = 3,
    esc_window: int = 5,
    ac_threshold: float | None = None,
    ac_top_k: int = 5,
) -> Policy:
    """The policy the published CLI (`examples/run_experiment.py`) runs for `--method`.

    As there, the `-cal` methods calibrate gamma only with `--warmup-gamma` (use the published
    `--warmup-gamma --ucb-z 1 --gamma-min 0.5` to reproduce the paper's calibrated rows);
    `dco-mars-cal` weights votes by confidence while `dco-mars` votes with weight 1.

    Our additions take their parameters here too (each keyword names the policy field it
    sets): `dco_percentile` -> the DeepConf threshold percentile of every `dco*` method
    (`DeepConfOnline.percentile` / `Voting.percentile`), `tau` -> `Consensus.tau`,
    `stability_k` -> `ProbeStability.k`, `esc_window` -> `EarlyStoppingSC.window`,
    `ac_threshold` / `ac_top_k` -> `AdaptiveConsistency.threshold` / `.top_k` (None: the
    criterion's source default, `AC_DEFAULT_THRESHOLD`). The defaults are the published ones."""
    pct = float(dco_percentile)
    dco_w = replace(DCO, percentile=pct)
    dco_u = replace(DCO_UNIFORM, percentile=pct)
    if method == "offline":
        return SelfConsistency()
    if method == "dco":
        return DeepConfOnline(percentile=pct)
    if method in ("sc-mars", "dco-mars", "sc-mars-cal", "dco-mars-cal"):
        cal = method.endswith("-cal")
        voting = (dco_w if cal else dco_u) if method.startswith("dco") else SC
        return Mars(
            voting=voting,
            gamma=gamma,
            calibrate=warmup_gamma,
            calibration_q="oracle" if cal else "learned",
            ucb_z=ucb_z,
            gamma_min=gamma_min,
        )
    if method in ("sc-pp", "dco-pp"):
        return ParallelProbe(
            voting=SC if method == "sc-pp" else dco_u,
            conv=pp_conv,
            warmup=pp_warmup,
            prune_patience=pp_prune_patience,
        )
    if method in ("sc-consensus", "dco-consensus"):
        return Consensus(voting=SC if method.startswith("sc") else dco_w, tau=float(tau))
    if method in ("sc-stability", "dco-stability"):
        return ProbeStability(voting=SC if method.startswith("sc") else dco_w, k=int(stability_k))
    if method == "esc":
        return EarlyStoppingSC(window=int(esc_window))
    if method.startswith("ac-") and method[3:] in AC_DEFAULT_THRESHOLD:
        crit = method[3:]
        thr = AC_DEFAULT_THRESHOLD[crit] if ac_threshold is None else float(ac_threshold)
        return AdaptiveConsistency(criterion=crit, threshold=thr, top_k=int(ac_top_k))  # type: ignore[arg-type]  # crit is validated against the criteria above
    raise ValueError(f"unknown method {method!r}; known: {', '.join(ALL_METHODS)}")


def main_param(policy: Policy) -> tuple[str, str, tuple[float, ...]]:
    """(field, label, default sweep values) of the parameter the frontier sweeps."""
    m = policy.main
    return m.name, m.label, m.values


def with_main_param(policy: Policy, value: float) -> Policy:
    """The same policy with its main parameter set (a Mars with a fixed gamma stops calibrating)."""
    return policy.with_main(value)
