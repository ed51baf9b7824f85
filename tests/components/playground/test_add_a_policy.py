"""The "Add a policy" checklist (docs/ARCHITECTURE.md), checked: a toy policy declared in this
file and registered appears in the CLI (help and parsing), the simulator and the reference
loop, the playground's method menu and widgets, the URL registry and a deep link's round trip,
and the docs table; unregistered, it is gone again."""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import numpy as np
import pytest

from analysis.playground import SimSettings, prepare, simulate
from analysis.playground import cli as playground_cli
from analysis.playground.engine import simulate_question
from analysis.playground.policies import (
    all_methods,
    declarations,
    method_family,
    method_label,
    methods_table,
    policy_for_method,
    register,
    registered,
    url_keys,
)
from analysis.playground.policy_base import (
    Family,
    Option,
    ParamSpec,
    PolicyDecl,
    PolicyRules,
    RefRule,
)
from analysis.playground.reference_loop import reference_question
from analysis.playground.rules import Block, RuleSetup, RuleState
from analysis.playground.synthetic import hand_pool, synthetic_pool
from cache.sample.mars import write_file
from components.common.links import view_params
from components.common.safe_text import md_text
from components.common.url_keys import PlaygroundKeys, keys_of
from components.playground import figures
from tests.pages.conftest import run_page
from tests.pages.controls import choose, chosen, light_control, light_select
from tests.pages.test_playground import REL

ROOT = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class LeaderVotes(PolicyRules):
    """Toy rule: stop once the leader holds `need` votes."""

    need: int = 3
    stop_label = "toy"
    widgets = (ParamSpec("need", "toyneed", "votes the leader needs", 3, 1, 9),)

    @property
    def method(self) -> str:
        return "toy-votes"

    def block_scores(
        self, blk: Block, setup: RuleSetup, st: RuleState
    ) -> tuple[np.ndarray, np.ndarray] | None:
        return blk.v_l, blk.has

    def fires_from(self, score: np.ndarray, ok: np.ndarray) -> np.ndarray:
        return ok & (score >= self.need)


class _Ref(RefRule):
    def __init__(self, need: int) -> None:
        self.need = need

    def fires(self, p, a, e, w, v, lead) -> bool:  # type: ignore[no-untyped-def]
        return bool(v.sum() > 0 and v[lead] >= self.need)


def _build(method: str, o: Mapping[str, Any]) -> LeaderVotes:
    return LeaderVotes(need=int(o["toy_need"]))


TOY = PolicyDecl(
    name="toy",
    policy_type=LeaderVotes,
    family="checkpoint",
    methods=(("toy-votes", "Toy: leader votes (test)"),),
    build=_build,
    options=(Option("toy_need", int, 3, "toy-votes: votes the leader needs", published=False),),
    reference=lambda pol, prep, settings: _Ref(pol.need),
    source="this test",
)


@pytest.fixture
def toy() -> Iterator[PolicyDecl]:
    with registered(TOY) as decl:
        yield decl


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m analysis")
    playground_cli.register(parser.add_subparsers(dest="command"))
    return parser


def test_the_cli_offers_and_parses_the_toy(toy: PolicyDecl, capsys) -> None:
    parser = _parser()
    args = parser.parse_args(
        ["simulate", "--data", "x", "--out", "y", "--method", "toy-votes", "--toy-need", "5"]
    )
    assert playground_cli._policy(args) == LeaderVotes(need=5)
    with pytest.raises(SystemExit):
        parser.parse_args(["simulate", "--help"])
    out = capsys.readouterr().out
    assert "toy-votes" in out and "--toy-need" in out and "votes the leader needs" in out


def test_the_cli_forgets_an_unregistered_policy(capsys) -> None:
    with pytest.raises(SystemExit):
        _parser().parse_args(["simulate", "--data", "x", "--out", "y", "--method", "toy-votes"])
    assert "invalid choice: 'toy-votes'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown method 'toy-votes'"):
        policy_for_method("toy-votes")


def test_the_registry_lists_the_toy_after_the_built_ins(toy: PolicyDecl) -> None:
    assert all_methods()[-1] == "toy-votes"
    assert method_label("toy-votes") == "Toy: leader votes (test)"
    assert method_family("toy-votes") == "checkpoint"
    assert "toyneed" in url_keys()
    assert policy_for_method("toy-votes", toy_need=2) == LeaderVotes(need=2)
    assert "| `toy-votes` | LeaderVotes | ours, checkpoint rule | `--toy-need` | `toyneed` |" in (
        methods_table()
    )
    with pytest.raises(ValueError, match="already registered"):
        register(TOY)
    with pytest.raises(TypeError, match="unknown option"):
        policy_for_method("toy-votes", toy_nede=2)


def test_the_simulator_and_the_reference_loop_run_the_toy(toy: PolicyDecl) -> None:
    """Hand-built: answers 0,0,1,0 at one checkpoint; with weight 1 the leader (0) has 3 votes
    in a sample holding all four traces, so `need` 3 stops there and `need` 4 does not."""
    pool = hand_pool(final=[0, 0, 1, 0], groups=[[0], [0], [1], [0]], lengths=[10, 20, 30, 40])
    prep = prepare(pool)
    st = SimSettings(budget=4, iterations=5, warmup=4)
    for need in (1, 3, 4):
        pol = policy_for_method("toy-votes", toy_need=need)
        fast = simulate_question(prep, pol, st)
        slow = reference_question(prep, pol, st)
        assert np.array_equal(fast.stop_index, slow.stop_index)
        assert np.array_equal(fast.tokens, slow.tokens)
        assert list(fast.stopped_by) == list(slow.stopped_by)
    never = simulate_question(prep, policy_for_method("toy-votes", toy_need=5), st)
    assert set(never.stopped_by) == {"budget"}  # 4 traces can never give 5 votes
    always = simulate_question(prep, policy_for_method("toy-votes", toy_need=1), st)
    assert set(always.stopped_by) == {"toy"}  # a single vote is enough
    preps = [prepare(synthetic_pool(q, n=60, seed=q)) for q in range(3)]
    pol = policy_for_method("toy-votes", toy_need=12)
    st = SimSettings(budget=32, iterations=4, warmup=8)
    for p in preps:
        a, b = simulate_question(p, pol, st), reference_question(p, pol, st)
        assert np.array_equal(a.answers, b.answers) and np.array_equal(a.tokens, b.tokens)
    assert simulate(preps, pol, st).policy is pol


def test_the_url_registry_knows_the_toy_keys(toy: PolicyDecl) -> None:
    assert {"policy", "toyneed"} <= keys_of("playground")
    assert "toyneed" in PlaygroundKeys.policy_keys()


def test_the_url_registry_forgets_an_unregistered_policy() -> None:
    assert "toyneed" not in keys_of("playground")


def test_the_playground_offers_the_toy_and_a_link_round_trips(
    toy: PolicyDecl, tmp_path: Path, monkeypatch
) -> None:
    """A deep link `?policy=toy-votes&toyneed=5` opens the toy with its widget at 5; a move of
    the widget runs the toy with the new value, and the link to that state (`view_params`,
    checked against the URL registry) opens it again."""
    write_file(tmp_path / REL, "aime", 24, seed=5, drop=0, n_questions=3)
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(tmp_path))
    app = run_page("pages/playground.py", file=REL, policy="toy-votes", toyneed="5", budget="16")
    assert not app.exception, app.exception
    assert not app.error, [e.value for e in app.error]
    menu = light_select(app, "Stopping policy (method id)")
    assert chosen(app, "policy") == "toy-votes" and "toy-votes" in menu.options
    assert md_text("Toy: leader votes (test)") in [c.value for c in app.caption]
    assert light_control(app, "votes the leader needs").value == 5
    choose(app, "toyneed", 7)
    assert not app.exception, app.exception
    assert chosen(app, "toyneed") == 7
    link = view_params("playground", file=REL, policy="toy-votes", toyneed=7, budget=16)
    again = run_page("pages/playground.py", **link)
    assert not again.exception, again.exception
    assert light_control(again, "votes the leader needs").value == 7
    assert chosen(again, "policy") == "toy-votes"
    again.session_state["pg_others_open"] = True  # the markers' expander draws when open
    again.run()
    others = next(m for m in again.multiselect if m.key == "others")
    assert "toy-votes" in others.options  # a frontier marker, on offer like the built-ins


def test_a_link_to_an_unregistered_policy_key_is_refused() -> None:
    with pytest.raises(KeyError, match="toyneed"):
        view_params("playground", policy="toy-votes", toyneed=7)


def test_the_frontier_groups_the_toy_by_its_declared_family(toy: PolicyDecl) -> None:
    assert figures.family("toy-votes") == "checkpoint"
    assert set(get_args(Family)) | {"baseline"} == set(figures.GROUP_TITLES)


POLICY_CLASSES = {d.policy_type.__name__ for d in declarations()}
READERS = (
    "analysis/playground/params.py",
    "analysis/playground/reference_loop.py",
    "analysis/playground/cli.py",
    "analysis/playground/engine.py",
    "components/playground/controls.py",
    "components/playground/figures.py",
    "components/common/url_keys.py",
)


@pytest.mark.parametrize("path", READERS)
def test_no_reader_dispatches_on_a_policy_class(path: str) -> None:
    """The readers of the registry never name a policy class in an isinstance check."""
    tree = ast.parse((ROOT / path).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "isinstance":
            names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
            assert not names & POLICY_CLASSES, (path, node.lineno, names)


def test_the_docs_table_is_the_registry() -> None:
    """docs/formats/stopping.md holds the methods table the registry writes."""
    assert methods_table() in (ROOT / "docs/formats/stopping.md").read_text()


# the method ids a reader may name: the frontier's two baselines (SC at full budget, DeepConf
# online), which the playground always runs beside the chosen policy
BASELINE_METHODS = {"offline", "dco"}


def _py_files(*folders: str) -> list[Path]:
    return [f for d in folders for f in sorted((ROOT / d).rglob("*.py"))]


@pytest.mark.parametrize(
    "path",
    [
        *(str(f.relative_to(ROOT)) for f in _py_files("components/playground")),
        "analysis/playground/cli.py",
        "analysis/playground/params.py",
        "analysis/playground/reference_loop.py",
        "components/common/url_keys.py",
        "pages/playground.py",
    ],
)
def test_no_reader_names_a_method_but_the_baselines(path: str) -> None:
    """Per-policy facts (method ids, labels, defaults) live in the policy modules: a reader
    names no method id as a string, except the two baselines."""
    methods = set(all_methods())
    tree = ast.parse((ROOT / path).read_text())
    named = {
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in methods
    }
    assert named <= BASELINE_METHODS, (path, sorted(named - BASELINE_METHODS))
