"""Playground controls: file pick, policy and its parameters, bootstrap settings.

Every widget binds itself to the URL (`bound(key)`; keys in `url_keys.PlaygroundKeys`), so a
link restores file, policy and parameters. The methods, their labels and families come from the
policy registry (`analysis.playground.policies`); each policy describes its own parameter widgets
(`ui_params()`, plain data) and this module only renders them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import streamlit as st

from analysis.playground import Policy, SimSettings
from analysis.playground.params import ParamSpec
from analysis.playground.policies import (
    DEFAULT_METHOD,
    all_methods,
    method_family,
    method_label,
)
from analysis.playground.policies import published_policy as _published_policy
from cache.datasets import MARS_FILES
from cache.sources import SourceConfig
from components.common.deeplink import LinkNotes
from components.common.lazy_expander import lazy_expander
from components.common.mars_file import pick_mars_file
from components.common.safe_text import md_text
from components.common.url_keys import PlaygroundKeys
from components.common.url_state import (
    Param,
    bound,
    int_text_in,
    one_of,
    parse_bool,
    refused_link,
    safe_token,
    say_refused,
    url_selectbox,
    url_slider,
    url_switch,
    whole_numbers,
)

DL = LinkNotes("playground")  # this view's deep-link notes

PREVIEW_ITERATIONS = 8
# light controls bound to the URL (`url_selectbox`, `url_switch`)
POLICY = Param("policy", DEFAULT_METHOD, parse=safe_token(64))
PREVIEW = Param("preview", True, parse=parse_bool)
FRONTIER_BASELINES = ("offline", "dco")
WINDOWS = (1024, 2048, 4096)
WINDOW_HELP = (
    "Confidence window W: group confidences (min_group, bottom_10, hence the DeepConf threshold "
    "and truncation), conf_at_pos (vote weights, DeepConf eligibility, the MARS q-model) and "
    "tail_conf are means over W tokens. Answers are still probed every 2,048 tokens whatever W "
    "is, so the checkpoint grid does not change. A new W builds its feature table once (progress "
    "bar). Published: 2048."
)

POLICY_NOTE = "The link asks for the policy “{asked}”, which does not exist: showing {shown}."


def pick_file(src: SourceConfig) -> str:
    """The file lives in the URL as its Hub relpath (`?file=...`, the MARS view's key), so a
    link carries it to and from the MARS view (`components.common.mars_file`)."""
    rel = pick_mars_file(src, PlaygroundKeys.FILE, DL, lambda r: MARS_FILES[r][2])
    st.caption(md_text(rel))
    return rel


def pick_method() -> str:
    raw = DL.asked("policy")
    methods = list(all_methods())
    method = str(
        url_selectbox(  # a refused policy is said by POLICY_NOTE below
            "Stopping policy (method id)", methods, POLICY, fallback=DEFAULT_METHOD, noted=True
        )
    )
    st.caption(md_text(method_label(method)))
    DL.remember("policy", raw, raw is None or raw in methods, method)
    DL.show("policy", POLICY_NOTE, method)
    return method


def published_policy(method: str) -> Policy:
    """The policy as the paper's rows run it (its declaration's `published_options`)."""
    return _published_policy(method)


SLIDER_PX = 210  # a parameter's slider: four to a row at 1440 px, two at 1024


def _row() -> Any:
    """A wrapping row of parameter sliders, their tracks level when a label wraps."""
    return st.container(horizontal=True, wrap=True, vertical_alignment="bottom", gap="medium")


def _widget(spec: ParamSpec, disabled: bool) -> Any:
    """A policy parameter's light control, bound to the URL under its key."""
    if spec.toggle:
        param = Param(spec.key, bool(spec.default), parse=parse_bool)
        return url_switch(spec.label, param, help=spec.help or "")
    assert spec.lo is not None and spec.hi is not None  # a slider's range is declared
    whole = all(isinstance(v, int) for v in (spec.lo, spec.hi, spec.default))
    step = spec.step if spec.step is not None else (1 if whole else 0.01)  # Streamlit's
    whole = whole and isinstance(step, int)
    param = Param(spec.key, spec.default, parse=int if whole else float)
    return url_slider(
        spec.label,
        param,
        spec.lo,
        spec.hi,
        step,
        help=spec.help or "",
        disabled=disabled,
        width=SLIDER_PX,
    )


def policy_params(method: str) -> Policy:
    """Parameter widgets for the chosen method (sliders in a wrapping row, the DeepConf
    percentile of a composed rule on its own row); returns the policy they define."""
    pol = published_policy(method)
    values: dict[str, Any] = {}
    specs = pol.ui_params()
    for spec in specs:  # toggles on their own line: a quarter column cut their labels
        if spec.toggle:
            values[spec.field] = _widget(spec, False)
    row = _row()
    for spec in specs:
        if spec.toggle:
            continue
        slot = _row() if spec.new_row else row
        gate = spec.enabled_when
        disabled = gate is not None and bool(values.get(gate[0])) != gate[1]
        with slot:
            values[spec.field] = _widget(spec, disabled)
    return pol.with_params(values) if values else pol


def pick_others(method: str) -> list[str]:
    """Which other policies the frontier shows as markers, each at its published defaults
    (URL `others`, method ids). By default the published ones only: with all 16 the legend
    overlaps into an unreadable block; our additions are a click away, by group."""
    options = [m for m in all_methods() if m not in FRONTIER_BASELINES]
    default = [m for m in options if method_family(m) == "published"]
    picked = default
    with lazy_expander(
        "Other policies on the frontier (each at its published defaults)",
        ("others",),
        "pg_others_open",
    ) as draw:
        if draw:
            picked = st.multiselect(
                "policies shown as markers",
                options,
                default=default,
                help="Published ones by default; add ours here (grouped by family in the chart's "
                "legend, where clicking a group title hides or shows the whole group). SC at full "
                "budget and DeepConf online are always shown as baselines; the chosen policy is "
                "drawn as its sweep instead of a marker.",
                **bound("others"),
            )
    return [m for m in picked if m != method]


SETTINGS_KEYS = ("budget", "iters", "warmup", "window", "seed")  # URL keys of the settings
# each number box's range: what it takes, and what a link's refused value is told
BOUNDS = {"budget": (1, 4096), "iters": (1, 256), "warmup": (1, 128), "seed": (0, 2**31 - 1)}
# each setting's box: its column in the row and its label (a refused link value is said under it)
BOXES = {
    "budget": (0, "budget (traces)"),
    "iters": (1, "iterations"),
    "warmup": (2, "warmup"),
    "window": (3, "window W"),  # in tokens (its help says so): one line at 1024 px
    "seed": (4, "seed"),
}


def settings_controls() -> tuple[SimSettings, bool]:
    """Bootstrap settings (published defaults) and whether this is a quick preview."""
    d = SimSettings()
    budget, iters, warmup, window, seed = d.budget, d.iterations, d.warmup, d.window, d.seed
    with lazy_expander(
        "Bootstrap settings (published: budget 512, 64 iterations, warmup 16, window 2048, seed 42)",
        SETTINGS_KEYS,
        "pg_settings_open",
    ) as draw:
        if draw:
            c = st.columns(5)
            asked = {k: refused_link(k, int_text_in(*BOUNDS[k])) for k in BOUNDS}
            asked["window"] = refused_link("window", {str(w) for w in WINDOWS}.__contains__)
            slot = {k: c[i] for k, (i, _) in BOXES.items()}
            name = {k: text for k, (_, text) in BOXES.items()}
            budget = slot["budget"].number_input(
                name["budget"], *BOUNDS["budget"], d.budget, **bound("budget")
            )
            iters = slot["iters"].number_input(
                name["iters"], *BOUNDS["iters"], d.iterations, **bound("iters")
            )
            warmup = slot["warmup"].number_input(
                name["warmup"], *BOUNDS["warmup"], d.warmup, **bound("warmup")
            )
            window = slot["window"].selectbox(
                name["window"],
                WINDOWS,
                index=WINDOWS.index(d.window),
                help=WINDOW_HELP,
                **bound("window"),
            )
            seed = slot["seed"].number_input(name["seed"], *BOUNDS["seed"], d.seed, **bound("seed"))
            shown = {"budget": budget, "iters": iters, "warmup": warmup, "seed": seed}
            for key, value in shown.items():
                with slot[key]:  # under its own box
                    say_refused(key, asked[key], name[key], value, whole_numbers(*BOUNDS[key]))
            with slot["window"]:
                say_refused(
                    "window", asked["window"], name["window"], window, one_of(list(WINDOWS))
                )
    preview = url_switch(
        f"Quick preview ({PREVIEW_ITERATIONS} iterations; turn off for the full run)", PREVIEW
    )
    st_ = SimSettings(int(budget), int(iters), int(warmup), int(window), int(seed))
    if preview:
        st_ = replace(st_, iterations=min(st_.iterations, PREVIEW_ITERATIONS))
    return st_, bool(preview)
