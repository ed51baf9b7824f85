"""The replay section: one bootstrap iteration of one question, checkpoint by checkpoint
(votes, the rule's signal, tokens spent, where it stopped), with its casebook control."""

from __future__ import annotations

import streamlit as st

from analysis.stopping import Policy, SimSettings, replay
from cache.sources import SourceConfig
from components.common.casebook import evidence
from components.common.deeplink import LinkNotes
from components.common.formatting import fmt_num, fmt_quantity
from components.common.lite_chart import lite_chart
from components.common.safe_text import esc
from components.common.url_keys import PlaygroundKeys
from components.common.url_state import bound
from components.stopping import cached as pc
from components.stopping.cases import replay_snapshot, show_replay_cases
from components.stopping.figures import replay_figure, replay_steps

DL = LinkNotes("playground")  # this view's deep-link notes

QID = PlaygroundKeys.QID
ITERATION_KEY = "it"
QID_NOTE = (
    "The link asks to replay question {asked}, which this file does not have ({have}): "
    "replaying {shown} instead."
)
IT_NOTE = (
    "The link asks to replay iteration {asked}, but this run has iterations 0–{last}: "
    "replaying iteration {shown} instead."
)


def show_replay(
    rel: str,
    src: SourceConfig,
    policy: Policy,
    settings: SimSettings,
    qids: list[int],
    picked: int | None,
) -> None:
    st.subheader("Replay one bootstrap iteration")
    if policy.sequential:
        st.caption(
            "Sequential-arrival rules have no checkpoints; the replay shows checkpoint rules."
        )
        return
    if not qids:
        return
    raw_q, raw_it = DL.asked(QID.key), DL.asked(ITERATION_KEY)
    if picked in qids:  # a new table/chart selection moves the picker
        st.session_state["replay_q"] = picked
    elif st.session_state.get("replay_q") not in qids:  # first run, or another file: URL first
        st.session_state["replay_q"] = QID.read() if QID.read() in qids else qids[0]
    last = max(settings.iterations - 1, 0)
    if raw_it is not None and not (raw_it.isdigit() and int(raw_it) <= last):
        del st.query_params[ITERATION_KEY]  # out of range: the slider starts at 0 (note below)
    c = st.columns(2)
    qid = c[0].selectbox("question", qids, key="replay_q")
    QID.write(qid)
    # in the URL (`?it=`), so a copied link replays the same iteration
    it = c[1].slider("bootstrap iteration", 0, last, 0, **bound(ITERATION_KEY))
    DL.remember("qid", raw_q, raw_q is None or raw_q in {str(q) for q in qids}, f"Q{qid}")
    have = f"questions {qids[0]}–{qids[-1]}" if len(qids) > 1 else f"only question {qids[0]}"
    DL.show("qid", QID_NOTE.replace("{have}", have), f"Q{qid}")
    DL.remember("it", raw_it, raw_it is None or (raw_it.isdigit() and int(raw_it) <= last), f"{it}")
    DL.show("it", IT_NOTE.replace("{last}", str(last)), f"{it}")
    preps = {p.qid: p for p in pc.prepared(rel, src, settings.window)}
    res, diag = replay(preps[qid], policy, settings, it)
    proxy = policy.replay_proxy()
    if proxy is not None:  # same sample, same votes per checkpoint; `res` stays the policy's own
        _res, diag = replay(preps[qid], proxy, settings, it)
    ans = res.answer_text(0)
    ok = "correct" if res.correct[0] else "wrong"
    how = (
        f"stopped at {res.position[0]} tokens ({res.stopped_by[0]})"
        if res.stop_index[0] >= 0
        else "ran to the budget"
    )
    st.html(
        f"<p>Q{qid}, iteration {it}: {esc(how)}; answer <code>{esc(ans[:80]) or '—'}</code> ({ok}); "
        f"tokens {fmt_quantity(int(res.tokens[0]), 'n')} of {fmt_quantity(int(res.baseline[0]), 'n')}"
        + (f"; gamma {fmt_num(res.gamma)}" if res.gamma is not None else "")
        + "</p>"
    )
    snap = replay_snapshot(res, diag, policy.share_threshold())
    show_replay_cases(rel, src, policy, settings, qid, it, snap)
    if diag is None or diag.votes.shape[-1] == 0 or diag.grid.shape[0] == 0:
        st.info(
            f"Nothing to replay for Q{qid}: no checkpoint (every sampled trace ended before "
            "2,048 tokens, or the question has no answer), so no rule could act before the "
            "final vote.",
            icon=":material/info:",
        )
        return
    if proxy is not None:
        st.caption(
            "This policy never stops early; the chart shows how its vote stood at each checkpoint "
            "(the snapshot vote it would take if it stopped there)."
        )
    fig = replay_figure(diag, res, policy.replay_signal, policy.share_threshold())
    with evidence("replay"):
        lite_chart(fig, key="replay_fig", steps=replay_steps(diag.grid))
