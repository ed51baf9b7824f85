"""Stopping playground: what if the parallel traces had been stopped early with rule X?"""

from __future__ import annotations

import streamlit as st

from components.common.guards import guard
from components.common.router import ensure_routed
from components.common.source_picker import current_source
from components.stopping import cached as pc
from components.stopping import view as pv
from components.stopping.controls import (
    pick_file,
    pick_method,
    pick_others,
    policy_params,
    settings_controls,
)

ensure_routed()

st.title("Stopping playground")
st.caption(
    "Re-simulate early-stopping rules on a MARS pool: accuracy against tokens saved, the questions a "
    "rule gets wrong, and when and why one bootstrap run stopped. Numbers follow the published MARS "
    "simulator (budget 512 × 64 iterations by default)."
)

# Diagnostic: full script runs of this page in this session. The fragment below never touches
# it, so it stays put while only the fragment reruns (the browser test reads it to check that
# moving a slider reruns the fragment alone).
FULL_RUNS = "_pg_full_runs"
st.session_state[FULL_RUNS] = st.session_state.get(FULL_RUNS, 0) + 1

src = current_source("mars")
c1, c2 = st.columns([3, 2])
with c1:
    rel = pick_file()
with c2:
    method = pick_method()
    st.html(
        f"<span data-testid='pg-full-runs' style='display:none'>{int(st.session_state[FULL_RUNS])}"
        "</span>"
    )


@st.fragment
def lab() -> None:
    """Parameters and results: moving a slider reruns only this fragment."""
    ok = False
    with guard("the simulation", dataset="mars"):
        policy = policy_params(method)
        settings, preview = settings_controls()
        shown = pick_others(method)
        preps = pc.prepared(rel, src, settings.window)
        cur, bases, sweep_pts, label, others = pv.run_set(
            rel, src, policy, settings, full=not preview, others=shown
        )
        ok = True
    if not ok:
        return
    # each results section has its own guard: a failure in one leaves the others on screen
    with guard("the data notes", dataset="mars"):
        pv.show_notes(cur)
    with guard("the summary", dataset="mars"):
        pv.show_summary(cur, bases["offline"])
    with guard("the frontier", dataset="mars"):
        pv.show_frontier(policy, cur, sweep_pts, label, others)
    picked = None
    with guard("the per-question table", dataset="mars"):
        picked = pv.show_per_question(rel, cur, bases["offline"])
    with guard("the replay", dataset="mars"):
        pv.show_replay(rel, src, policy, settings, [p.qid for p in preps], picked)
    with guard("the reference diff", dataset="mars"):
        pv.show_reference(rel, src, cur, full=not preview)
    st.subheader("Downloads (current run)")
    with guard("the downloads", dataset="mars"):
        pv.show_downloads(cur)


lab()
