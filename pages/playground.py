"""Stopping playground: what if the parallel traces had been stopped early with rule X?"""

from __future__ import annotations

import streamlit as st

from components.common.guards import guard
from components.common.router import ensure_routed
from components.common.source_picker import current_source
from components.playground import cached as pc
from components.playground import view as pv
from components.playground.controls import (
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

src = current_source("mars")
c1, c2 = st.columns([3, 2])
with c1:
    rel = pick_file(src)
with c2:
    method = pick_method()


@st.fragment
def lab() -> None:
    """Parameters and results: moving a slider reruns only this fragment."""
    notes_at = pv.replay_note_slot()  # inside the fragment, which may write to it on its reruns
    ok = False
    with guard("the simulation", dataset="mars"):
        policy = policy_params(method)
        settings, preview = settings_controls()
        shown = pick_others(method)
        preps = pc.prepared(rel, src, settings.window)
        runs = pv.run_set(rel, src, policy, settings, full=not preview, others=shown)
        ok = True
    if not ok:
        return
    cur, sc = runs.cur, runs.bases["offline"]
    # each results section has its own guard: a failure in one leaves the others on screen
    with guard("the data notes", dataset="mars"):
        pv.show_notes(cur)
    with guard("the summary", dataset="mars"):
        pv.show_summary(cur, sc, preview)
        pv.show_run_cases(rel, src, cur, sc)
    # only the open tab is built and sent: a new tab opens on the frontier alone
    name = pv.result_tab()
    if name == "Frontier":
        with guard("the frontier", dataset="mars"):
            pv.show_frontier(policy, cur, runs.sweep_pts, runs.label, runs.others)
    elif name == "Questions":
        picked = None
        with guard("the per-question table", dataset="mars"):
            replayed = st.session_state.get("replay_q")  # marked in the table
            picked = pv.show_per_question(rel, cur, sc, replayed)
        with guard("the replay", dataset="mars"):
            qids = [p.qid for p in preps]
            labels = pv.question_labels(cur, sc)
            pv.show_replay(rel, src, policy, settings, qids, picked, labels, notes_at)
    elif name == "Compare":
        with guard("the policy comparison", dataset="mars"):
            pv.show_policy_compare(rel, src, policy, settings, cur)
    elif name == "Reference":
        with guard("the reference diff", dataset="mars"):
            pv.show_reference(rel, src, cur, full=not preview)
    else:
        st.caption("The current run's results in the published simulator's CSV files.")
        with guard("the downloads", dataset="mars"):
            pv.show_downloads(rel, cur)


lab()
