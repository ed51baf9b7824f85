"""Simulation settings and the typed parameter set of every stopping policy.

Each policy is a frozen dataclass with the published defaults (github Wenbo11/MARS,
`examples/run_experiment.py`, `mars/voting.py`, `mars/simulation.py`) or, for our additions,
the defaults of the paper that introduced the rule. Exact semantics: `shared/spec/stopping.md`
and the docstrings below.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Literal

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
class SelfConsistency:
    """`offline`: majority vote of the sampled traces' final answers at full budget; never stops.
    Also reports the seven DeepConf offline votes (majority; weighted by mean/tail/bottom-10/min
    group confidence; top-10% filtered by tail conf resp. bottom-10, weighted by it).
    Source: Wang et al. 2023 (self-consistency); Fu et al. 2025 (DeepConf); `mars/simulation.py`."""

    kind: Literal["offline"] = "offline"

    @property
    def method(self) -> str:
        return "offline"


@dataclass(frozen=True)
class DeepConfOnline:
    """`dco`: DeepConf online filtering and truncation (see `Voting`), confidence-weighted vote of
    final answers at full budget; never stops early (its savings come from truncation).
    Source: Fu et al. 2025 "Deep Think with Confidence"; `mars/simulation.py` (method `dco`)."""

    percentile: float = 90.0

    @property
    def method(self) -> str:
        return "dco"

    @property
    def voting(self) -> Voting:
        return Voting(filter=True, weighted=True, percentile=self.percentile)


@dataclass(frozen=True)
class Mars:
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

    @property
    def method(self) -> str:
        base = "dco-mars" if self.voting.filter else "sc-mars"
        return base + ("-cal" if self.calibration_q == "oracle" else "")


@dataclass(frozen=True)
class ParallelProbe:
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

    @property
    def method(self) -> str:
        return "sc-pp" if not self.voting.filter else "dco-pp"


@dataclass(frozen=True)
class Consensus:
    """Consensus tau (our addition; `mars/voting.py::ConsensusStopping`, not used in published
    runs): stop at the first checkpoint where the leader holds `>= tau` of the snapshot vote
    weight (and there are votes). Label `consensus`."""

    voting: Voting = SC
    tau: float = 0.95

    @property
    def method(self) -> str:
        return f"{self.voting.name}-consensus"


@dataclass(frozen=True)
class ProbeStability:
    """Probe stability (our addition, Dynasor-style: Fu et al. 2024 "Efficiently Serving LLM
    Reasoning Programs with Certaindex", probe-in-the-middle consistency): stop at the first
    checkpoint where the snapshot leader has been the same answer for `k` consecutive
    checkpoints (each with votes), counting the current one. Label `stability`."""

    voting: Voting = SC
    k: int = 3

    @property
    def method(self) -> str:
        return f"{self.voting.name}-stability"


@dataclass(frozen=True)
class EarlyStoppingSC:
    """ESC (our addition; Li et al. 2024, "Escape Sky-high Cost: Early-stopping Self-Consistency
    for Multi-step Reasoning"), sequential arrival: the bootstrap sample's traces are generated
    one after another, whole, in sample order, in windows of `window` traces; stop after the
    first full window whose `window` final answers are all the same. Cost = sum of the lengths
    of the traces generated; answer = majority of their final answers (lowest id on ties).
    A trailing partial window is never tested. `position` = number of traces generated."""

    window: int = 5

    @property
    def method(self) -> str:
        return "esc"


@dataclass(frozen=True)
class AdaptiveConsistency:
    """Adaptive-Consistency (our addition; Aggarwal et al. 2023, "Let's Sample Step by Step"),
    sequential arrival as ESC, the rule decides after each arrival:
    - `beta`: top-two counts a, b: stop when P(p > 0.5 | Beta(a+1, b+1)) >= threshold (0.95);
    - `dirichlet`: with >= 3 distinct answers, P(leader has the largest share) under
      Dirichlet(counts+1) over the `top_k` (5) most common answers >= threshold, estimated by
      Monte Carlo (20,000 draws, fixed seed); with < 3 distinct answers it is the Beta rule;
    - `entropy`: after >= 2 arrivals, normalised base-2 entropy of the answer counts (a single
      answer gets a pseudo-count 1 of a second) <= threshold (source default 0.75);
    - `majority`: after >= 2 arrivals, leader share >= threshold (source default 0.8).
    `position` = number of traces generated."""

    criterion: ACCriterion = "beta"
    threshold: float = 0.95
    top_k: int = 5

    @property
    def method(self) -> str:
        return f"ac-{self.criterion}"


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
        return AdaptiveConsistency(criterion=crit, threshold=thr, top_k=int(ac_top_k))  # type: ignore[arg-type]
    raise ValueError(f"unknown method {method!r}; known: {', '.join(ALL_METHODS)}")


# main parameter of each policy, swept by the frontier: (field, label, default sweep values)
MAIN_PARAM: dict[type, tuple[str, str, tuple[float, ...]]] = {
    SelfConsistency: ("", "", ()),
    DeepConfOnline: ("percentile", "DeepConf threshold percentile", tuple(range(0, 101, 10))),
    Mars: ("gamma", "gamma", tuple(round(0.5 + 0.05 * i, 2) for i in range(11))),
    ParallelProbe: ("conv", "stable checkpoints (conv)", tuple(range(1, 12))),
    Consensus: ("tau", "consensus tau", tuple(round(0.5 + 0.05 * i, 2) for i in range(11))),
    ProbeStability: ("k", "stable checkpoints k", tuple(range(1, 12))),
    EarlyStoppingSC: ("window", "ESC window", tuple(range(2, 13))),
    AdaptiveConsistency: (
        "threshold",
        "threshold",
        tuple(round(0.5 + 0.05 * i, 2) for i in range(11)),
    ),
}


def main_param(policy: Policy) -> tuple[str, str, tuple[float, ...]]:
    return MAIN_PARAM[type(policy)]


def with_main_param(policy: Policy, value: float) -> Policy:
    """The same policy with its main parameter set (a Mars with a fixed gamma stops calibrating)."""
    name, _label, _values = main_param(policy)
    if not name:
        return policy
    if isinstance(policy, DeepConfOnline):
        return replace(policy, percentile=float(value))
    if isinstance(policy, Mars):
        return replace(policy, gamma=float(value), calibrate=False)
    typ = {f.name: f.type for f in fields(policy)}[name]
    cast = int if typ in (int, "int") else float
    return replace(policy, **{name: cast(value)})
