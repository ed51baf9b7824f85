"""The pieces every stopping policy is made of: simulation settings, voting, the parameter and
CLI-option declarations, the `PolicyRules` base class and the `PolicyDecl` a policy module
registers (`analysis.playground.policies`). Semantics: `docs/formats/stopping.md`."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, Literal, TypeAlias, TypeVar

import numpy as np

from analysis.playground.notes import Note
from analysis.playground.prepare import PreparedQuestion
from analysis.playground.rules import Block, Fires, Prefixes, RuleSetup, RuleState


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
    """One parameter widget of a policy, as plain data (components/playground/controls renders
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
    from_instance: bool = True  # the default is the policy's own field value


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
    widgets: ClassVar[tuple[ParamSpec, ...]] = ()  # the playground's parameter widgets
    voting_widget: ClassVar[bool] = False  # composed with DeepConf: its percentile widget too
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
        """The playground's parameter widgets for this policy (`widgets`), each default read
        from this instance (cast to the declared default's type); the DeepConf percentile of a
        rule composed with DeepConf voting last (`voting_widget`)."""
        own = tuple(
            replace(s, default=type(s.default)(getattr(self, s.field))) if s.from_instance else s
            for s in self.widgets
        )
        return own + self._percentile_spec()

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
        if not (self.voting_widget and self.voting.filter):
            return ()
        return (VOTING_PERCENTILE,)

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
        computes them once (`analysis.playground.sharing`); `block_fires` is then
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

    def sweep_name(self, label: str, span: str) -> str:
        """What a frontier sweep line of this policy holds (`span`: the swept range)."""
        return f"{self.method}: {label} swept{span}"

    def replay_proxy(self) -> Policy | None:
        """A policy that never stops records no per-checkpoint internals; a consensus rule with
        the same voting and tau = 2 (a share never reaches it) replays exactly its snapshot
        votes, tokens and leader shares, and never fires. None: the policy has its own."""
        return None


Policy: TypeAlias = PolicyRules  # any registered policy (`analysis.playground.policies`)

VOTING_PERCENTILE = ParamSpec(
    "voting.percentile",
    "pct",
    "DeepConf threshold percentile",
    90,
    0,
    100,
    5,
    new_row=True,
    from_instance=False,
)


@dataclass(frozen=True)
class Option:
    """One `python -m analysis simulate` option a policy's `build` reads: keyword `name`,
    flag `--name-with-dashes`; a `bool` is a switch (store_true). `published`: the published
    simulator has it too (else it is listed under "our additions")."""

    name: str
    type: type
    default: Any
    help: str | None = None
    published: bool = True

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


DCO_PERCENTILE = Option(
    "dco_percentile",
    float,
    90.0,
    "DeepConf threshold percentile of min_group over the first warmup sampled traces, "
    "for every dco* method (Voting.percentile; published: 90)",
    published=False,
)


def voting_for(method: str, options: Mapping[str, Any]) -> Voting:
    """The vote an `sc-*` / `dco-*` method id names, DeepConf at the chosen percentile."""
    if method.startswith("sc"):
        return SC
    return replace(DCO, percentile=float(options["dco_percentile"]))


def ref_votes(ans: np.ndarray, elig: np.ndarray, w: np.ndarray, g: int) -> np.ndarray:
    """Vote weight per answer id (0..g-1) of the eligible traces with an answer (the reference
    loop's plain count)."""
    v = np.zeros(g, dtype=np.float64)
    ok = elig & (ans >= 0)
    np.add.at(v, ans[ok], w[ok])
    return v


class RefRule:
    """One policy's decision written out again as a plain loop, for the reference loop
    (`reference_loop.py`); a separate implementation on purpose, so the oracle does not test
    the engine against itself. Default: never fires. `gamma` is the per-question gamma a
    MARS rule reports (None for the others)."""

    gamma: float | None = None

    def start(self, rows: np.ndarray) -> None:
        """A new bootstrap iteration begins; `rows`: its sampled traces (pool rows)."""

    def fires(
        self, p: int, a: np.ndarray, e: np.ndarray, w: np.ndarray, v: np.ndarray, lead: int
    ) -> bool:
        """Checkpoint rules: whether the rule stops at checkpoint `p` (answers `a`, eligible
        `e`, weights `w`, votes per answer `v`, leader `lead`)."""
        return False

    def fires_seq(self, seen: list[int]) -> bool:
        """Sequential rules: whether the rule stops after the traces `seen` (final answers)."""
        return False


def no_reference(policy: Any, prep: PreparedQuestion, settings: SimSettings) -> RefRule:
    """The reference rule of a policy that never stops early."""
    return RefRule()


Family = Literal["published", "checkpoint", "sequential"]


@dataclass(frozen=True)
class PolicyDecl:
    """A stopping policy, declared once in its own module and registered with
    `analysis.playground.policies.register`: the CLI, the simulator, the reference loop, the
    playground controls, the URL registry and the docs table read it.

    - `methods`: (method id, label) pairs, in menu order; `hidden`: ids `build` also accepts;
    - `family`: "published" (the paper's) or ours, "checkpoint" / "sequential";
    - `options`: the CLI options `build(method, options)` reads (all registered options are
      passed, defaults filled in);
    - `published_options`: per method, the options the paper's rows use (the playground's
      starting point);
    - `reference`: (policy, prepared question, settings) -> its `RefRule`.
    The parameter widgets (type, range, default, help, URL key) are the class's `widgets`."""

    name: str
    policy_type: type[PolicyRules]
    family: Family
    methods: tuple[tuple[str, str], ...]
    build: Callable[[str, Mapping[str, Any]], PolicyRules]
    options: tuple[Option, ...] = ()
    reference: Callable[[Any, PreparedQuestion, SimSettings], RefRule] = no_reference
    published_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    hidden: tuple[str, ...] = ()
    source: str = ""  # where the rule comes from (the docs table)

    @property
    def method_ids(self) -> tuple[str, ...]:
        return tuple(m for m, _ in self.methods)

    @property
    def url_keys(self) -> tuple[str, ...]:
        keys = tuple(s.key for s in self.policy_type.widgets)
        return keys + ((VOTING_PERCENTILE.key,) if self.policy_type.voting_widget else ())
