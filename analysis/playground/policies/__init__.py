"""The registry of stopping policies: each policy module declares one `PolicyDecl` (its
method ids and labels, family, CLI options, parameter widgets with their URL keys, builder and
reference rule); the CLI, the simulator, the reference loop, the playground controls, the URL
registry and the docs table read the declarations here. Adding a policy = one module + its
tests + one line in `BUILT_IN` (see docs/ARCHITECTURE.md, "Add a policy")."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from analysis.playground.policies import (
    adaptive,
    consensus,
    esc,
    mars,
    offline,
    parallel_probe,
    stability,
)
from analysis.playground.policy_base import Option, Policy, PolicyDecl

# published policies first: the method menu and the frontier colours follow this order
BUILT_IN: tuple[PolicyDecl, ...] = (
    offline.SELF_CONSISTENCY,
    offline.DEEPCONF_ONLINE,
    mars.DECL,
    parallel_probe.DECL,
    consensus.DECL,
    stability.DECL,
    esc.DECL,
    adaptive.DECL,
)

# the method the CLI and the playground start with (the paper's headline method)
DEFAULT_METHOD = "sc-mars-cal"

_REGISTRY: list[PolicyDecl] = []


def register(decl: PolicyDecl) -> None:
    """Add a policy; its method ids, option names and URL keys must be new, or declared the
    same way (an option several policies share, such as `--dco-percentile`)."""
    known = {m for d in _REGISTRY for m in (*d.method_ids, *d.hidden)}
    clash = known & {*decl.method_ids, *decl.hidden}
    if clash:
        raise ValueError(f"policy {decl.name!r}: method ids already registered: {sorted(clash)}")
    have = {o.name: o for d in _REGISTRY for o in d.options}
    for o in decl.options:
        if o.name in have and have[o.name] != o:
            raise ValueError(f"policy {decl.name!r}: option {o.flag} declared differently")
    _REGISTRY.append(decl)


def unregister(name: str) -> None:
    """Remove the policy named `name` (tests register toy policies)."""
    _REGISTRY[:] = [d for d in _REGISTRY if d.name != name]


@contextmanager
def registered(decl: PolicyDecl) -> Iterator[PolicyDecl]:
    """`decl` registered for the duration of a `with` block."""
    register(decl)
    try:
        yield decl
    finally:
        unregister(decl.name)


for _decl in BUILT_IN:
    register(_decl)


def declarations() -> tuple[PolicyDecl, ...]:
    return tuple(_REGISTRY)


def published_methods() -> tuple[str, ...]:
    return tuple(m for d in _REGISTRY if d.family == "published" for m in d.method_ids)


def extra_methods() -> tuple[str, ...]:
    return tuple(m for d in _REGISTRY if d.family != "published" for m in d.method_ids)


def all_methods() -> tuple[str, ...]:
    """Every method id a user can pick, published ones first."""
    return published_methods() + extra_methods()


def decl_for_method(method: str) -> PolicyDecl:
    for d in _REGISTRY:
        if method in d.method_ids or method in d.hidden:
            return d
    raise ValueError(f"unknown method {method!r}; known: {', '.join(all_methods())}")


def decl_for_policy(policy: Policy) -> PolicyDecl:
    for d in _REGISTRY:
        if type(policy) is d.policy_type:
            return d
    raise ValueError(f"{type(policy).__name__} is not a registered policy")


def method_label(method: str) -> str:
    """The method's menu label (the id itself for an unknown one)."""
    for d in _REGISTRY:
        for m, label in d.methods:
            if m == method:
                return label
    return method


def method_family(method: str) -> str:
    """ "published", "checkpoint" (our rules on the checkpoint loop) or "sequential"."""
    return decl_for_method(method).family


def options() -> tuple[Option, ...]:
    """Every registered CLI option, once each, in registration order."""
    seen: dict[str, Option] = {}
    for d in _REGISTRY:
        for o in d.options:
            seen.setdefault(o.name, o)
    return tuple(seen.values())


def url_keys() -> tuple[str, ...]:
    """The URL keys of every policy's parameter widgets, once each."""
    return tuple(dict.fromkeys(k for d in _REGISTRY for k in d.url_keys))


def policy_for_method(method: str, **given: Any) -> Policy:
    """The policy `--method` runs, built by its declaration from the CLI options (keywords =
    option names, e.g. `gamma=`, `tau=`, `esc_window=`; the rest keep their defaults). As in
    the published CLI, the `-cal` methods calibrate gamma only with `warmup_gamma=True`."""
    decl = decl_for_method(method)
    opts = {o.name: o.default for o in options()}
    unknown = set(given) - set(opts)
    if unknown:
        raise TypeError(f"unknown option(s) {sorted(unknown)}; known: {', '.join(opts)}")
    return decl.build(method, {**opts, **given})


def published_policy(method: str) -> Policy:
    """The policy as the paper's rows run it (-cal: --warmup-gamma --ucb-z 1 --gamma-min 0.5)."""
    return policy_for_method(method, **decl_for_method(method).published_options.get(method, {}))


FAMILY_TEXT = {
    "published": "published",
    "checkpoint": "ours, checkpoint rule",
    "sequential": "ours, sequential arrival",
}


def methods_table() -> str:
    """The Markdown table of every registered method (docs/formats/stopping.md holds it)."""
    rows = [
        "| method | policy | family | CLI options | URL keys | source |",
        "|---|---|---|---|---|---|",
    ]
    for d in _REGISTRY:
        flags = ", ".join(f"`{o.flag}`" for o in d.options) or "–"
        keys = ", ".join(f"`{k}`" for k in d.url_keys) or "–"
        for m, _label in d.methods:
            row = (f"`{m}`", d.policy_type.__name__, FAMILY_TEXT[d.family], flags, keys)
            rows.append("| " + " | ".join((*row, d.source or "–")) + " |")
    return "\n".join(rows)
