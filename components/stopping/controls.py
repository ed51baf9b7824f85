"""Playground controls: file pick, policy and its parameters, bootstrap settings.

Every widget binds itself to the URL (`bound(key)`), so a link restores file, policy and
parameters. Policies are built from the published defaults (`analysis.stopping.params`)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from analysis.stopping import (
    ALL_METHODS,
    DCO,
    AdaptiveConsistency,
    Consensus,
    DeepConfOnline,
    EarlyStoppingSC,
    Mars,
    ParallelProbe,
    Policy,
    ProbeStability,
    SimSettings,
    policy_for_method,
)
from cache.datasets import MARS_FILES
from components.common.safe_text import md_text
from components.common.url_state import Param, bound

DEFAULT_FILE = "DeepSeek-8B/aime25_deepseek.parquet"
PREVIEW_ITERATIONS = 8
FRONTIER_BASELINES = ("offline", "dco")
WINDOWS = (1024, 2048, 4096)
WINDOW_HELP = (
    "Confidence window W: group confidences (min_group, bottom_10, hence the DeepConf threshold "
    "and truncation), conf_at_pos (vote weights, DeepConf eligibility, the MARS q-model) and "
    "tail_conf are means over W tokens. Answers are still probed every 2,048 tokens whatever W "
    "is, so the checkpoint grid does not change. A new W builds its feature table once (progress "
    "bar). Published: 2048."
)

METHOD_LABELS = {
    "offline": "Self-consistency, full budget (offline)",
    "dco": "DeepConf online (dco)",
    "sc-mars": "MARS on SC, gamma fixed (sc-mars)",
    "dco-mars": "MARS on DeepConf, gamma fixed (dco-mars)",
    "sc-mars-cal": "MARS on SC, calibrated gamma (sc-mars-cal)",
    "dco-mars-cal": "MARS on DeepConf, calibrated gamma (dco-mars-cal)",
    "sc-pp": "Parallel-Probe (sc-pp)",
    "sc-consensus": "Consensus tau on SC (ours)",
    "dco-consensus": "Consensus tau on DeepConf (ours)",
    "sc-stability": "Probe stability on SC (ours, Dynasor-style)",
    "dco-stability": "Probe stability on DeepConf (ours)",
    "esc": "ESC, sequential arrival (ours)",
    "ac-beta": "Adaptive-Consistency Beta, sequential (ours)",
    "ac-dirichlet": "Adaptive-Consistency Dirichlet, sequential (ours)",
    "ac-entropy": "Adaptive-Consistency entropy, sequential (ours)",
    "ac-majority": "Adaptive-Consistency majority, sequential (ours)",
}


FILE = Param("file", DEFAULT_FILE, parse=str, choices=tuple(MARS_FILES))


def pick_file() -> str:
    """The file lives in the URL as its Hub relpath (`?file=...`, the MARS view's key). Not a
    bound widget: Streamlit drops a page's bound keys when navigating away, which would lose
    `file` on the way to the MARS view."""
    rels = list(MARS_FILES)
    want = FILE.read()
    rel = st.selectbox(
        "MARS file (model · benchmark)",
        rels,
        index=rels.index(want if want in rels else DEFAULT_FILE),
        format_func=lambda r: MARS_FILES[r][2],
        key="pg_file",
    )
    FILE.write(rel)
    st.caption(md_text(rel))
    return rel


def pick_method() -> str:
    method = st.selectbox(
        "Stopping policy (method id)",
        list(ALL_METHODS),
        index=list(ALL_METHODS).index("sc-mars-cal"),
        **bound("policy"),
    )
    st.caption(md_text(METHOD_LABELS.get(method, method)))
    return method


def published_policy(method: str) -> Policy:
    """The policy as the paper's rows run it (-cal: --warmup-gamma --ucb-z 1 --gamma-min 0.5)."""
    if method.endswith("-cal"):
        return policy_for_method(method, warmup_gamma=True, ucb_z=1.0, gamma_min=0.5)
    return policy_for_method(method)


def policy_params(method: str) -> Policy:
    """Parameter widgets for the chosen method; returns the policy they define."""
    pol = published_policy(method)
    cols = st.columns(4)
    if isinstance(pol, Mars):
        with cols[0]:
            cal = st.toggle("Calibrate gamma per question", value=pol.calibrate, **bound("cal"))
        with cols[1]:
            gamma = st.slider(
                "gamma (cost shrinkage)",
                0.0,
                1.0,
                float(pol.gamma),
                0.05,
                disabled=cal,
                help="fixed gamma when calibration is off",
                **bound("gamma"),
            )
        with cols[2]:
            z = st.slider("UCB z", 0.0, 3.0, float(pol.ucb_z), 0.1, disabled=not cal, **bound("z"))
        with cols[3]:
            gmin = st.slider(
                "gamma min", 0.0, 1.0, float(pol.gamma_min), 0.05, disabled=not cal, **bound("gmin")
            )
        pol = replace(pol, calibrate=cal, gamma=gamma, ucb_z=z, gamma_min=gmin)
        if pol.voting.filter:
            pol = replace(pol, voting=replace(pol.voting, percentile=_percentile(cols)))
    elif isinstance(pol, DeepConfOnline):
        with cols[0]:
            pct = st.slider("threshold percentile", 0, 100, 90, 5, **bound("pct"))
        pol = replace(pol, percentile=float(pct))
    elif isinstance(pol, ParallelProbe):
        with cols[0]:
            conv = st.slider("stable checkpoints to stop (conv)", 1, 12, pol.conv, **bound("conv"))
        with cols[1]:
            warm = st.slider("warm-up checkpoints", 0, 8, pol.warmup, **bound("ppw"))
        with cols[2]:
            prune = st.slider("prune patience", 0, 6, pol.prune_patience, **bound("prune"))
        pol = replace(pol, conv=conv, warmup=warm, prune_patience=prune)
    elif isinstance(pol, Consensus):
        with cols[0]:
            tau = st.slider("tau (leader share)", 0.5, 1.0, pol.tau, 0.01, **bound("tau"))
        pol = replace(pol, tau=tau)
        if pol.voting.filter:
            pol = replace(pol, voting=replace(DCO, percentile=_percentile(cols)))
    elif isinstance(pol, ProbeStability):
        with cols[0]:
            k = st.slider("stable checkpoints k", 1, 12, pol.k, **bound("k"))
        pol = replace(pol, k=k)
        if pol.voting.filter:
            pol = replace(pol, voting=replace(DCO, percentile=_percentile(cols)))
    elif isinstance(pol, EarlyStoppingSC):
        with cols[0]:
            w = st.slider("ESC window (traces)", 2, 16, pol.window, **bound("win"))
        pol = replace(pol, window=w)
    elif isinstance(pol, AdaptiveConsistency):
        with cols[0]:
            thr = st.slider("threshold", 0.5, 0.99, float(pol.threshold), 0.01, **bound("thr"))
        pol = replace(pol, threshold=thr)
    return pol


def _percentile(_cols) -> float:
    col = st.columns(4)[0]
    with col:
        return float(st.slider("DeepConf threshold percentile", 0, 100, 90, 5, **bound("pct")))


def pick_others(method: str) -> list[str]:
    """Which other policies the frontier shows as markers, each at its published defaults
    (URL `others`, method ids). All by default: the whole set costs well under a second in the
    quick preview and runs are cached, so deselecting is for readability, not speed."""
    options = [m for m in ALL_METHODS if m not in FRONTIER_BASELINES]
    with st.expander("Other policies on the frontier (each at its published defaults)"):
        picked = st.multiselect(
            "policies shown as markers",
            options,
            default=options,
            help="SC at full budget and DeepConf online are always shown as baselines; the "
            "chosen policy is drawn as its sweep instead of a marker.",
            **bound("others"),
        )
    return [m for m in picked if m != method]


def settings_controls() -> tuple[SimSettings, bool]:
    """Bootstrap settings (published defaults) and whether this is a quick preview."""
    d = SimSettings()
    with st.expander(
        "Bootstrap settings (published: budget 512, 64 iterations, warmup 16, window 2048, seed 42)"
    ):
        c = st.columns(5)
        budget = c[0].number_input("budget (traces)", 1, 4096, d.budget, **bound("budget"))
        iters = c[1].number_input("iterations", 1, 256, d.iterations, **bound("iters"))
        warmup = c[2].number_input("warmup", 1, 128, d.warmup, **bound("warmup"))
        window = c[3].selectbox(
            "window W (tokens)",
            WINDOWS,
            index=WINDOWS.index(d.window),
            help=WINDOW_HELP,
            **bound("window"),
        )
        seed = c[4].number_input("seed", 0, 2**31 - 1, d.seed, **bound("seed"))
    preview = st.toggle(
        f"Quick preview ({PREVIEW_ITERATIONS} iterations; turn off for the full run)",
        value=True,
        **bound("preview"),
    )
    st_ = SimSettings(int(budget), int(iters), int(warmup), int(window), int(seed))
    if preview:
        st_ = replace(st_, iterations=min(st_.iterations, PREVIEW_ITERATIONS))
    return st_, bool(preview)
