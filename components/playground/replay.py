"""The replay section: one bootstrap iteration of one question, checkpoint by checkpoint
(votes, the rule's signal, tokens spent, where it stopped), with its casebook control."""

from __future__ import annotations

from collections.abc import Mapping

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from analysis.playground import Diagnostics, Policy, QuestionResult, SimSettings
from analysis.playground.explain import ThresholdParts, threshold_parts
from cache.sources import SourceConfig
from components.common.casebook import evidence
from components.common.deeplink import LinkNotes
from components.common.formatting import fmt_num, fmt_quantity
from components.common.light_control import light_select
from components.common.lite_chart import lite_chart
from components.common.safe_text import esc
from components.common.url_keys import PlaygroundKeys
from components.common.url_state import Param, url_slider
from components.playground import cached as pc
from components.playground.cases import replay_snapshot, show_replay_cases
from components.playground.figures import replay_figure, replay_steps

DL = LinkNotes("playground")  # this view's deep-link notes

QID = PlaygroundKeys.QID
ITERATION_KEY = "it"
ITERATION = Param(ITERATION_KEY, 0, parse=int)
QID_NOTE = (
    "The link asks to replay question {asked}, which this file does not have ({have}): "
    "replaying {shown} instead."
)
IT_NOTE = (
    "The link asks to replay iteration {asked}, but this run has iterations 0–{last}: "
    "replaying iteration {shown} instead."
)


def default_question(qids: list[int]) -> int | None:
    """The question the replay opens on before anything is picked: the URL's, else the first."""
    return QID.read() if QID.read() in qids else (qids[0] if qids else None)


def replay_note_slot() -> DeltaGenerator | None:
    """A place near the top of the page for the replay's notes on a link's question or iteration
    (the replay itself is far below the first screen), made only when the link names either."""
    return st.container() if DL.asked(QID.key) or DL.asked(ITERATION_KEY) else None


def show_replay(
    rel: str,
    src: SourceConfig,
    policy: Policy,
    settings: SimSettings,
    qids: list[int],
    picked: int | None,
    labels: Mapping[int, str] | None = None,
    notes_at: DeltaGenerator | None = None,
) -> None:
    """One iteration of one question, step by step; `labels` name the questions in the
    picker (default: Q<n>). `notes_at`: where a link's refused question or iteration is said
    (the tab's top, so it is on the first screen; the replay sits below the table)."""
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
        st.session_state["replay_q"] = default_question(qids)
    last = max(settings.iterations - 1, 0)
    if raw_it is not None and not (raw_it.isdigit() and int(raw_it) <= last):
        del st.query_params[ITERATION_KEY]  # out of range: the slider starts at 0 (note below)
    c = st.columns(2)
    with c[0]:  # light controls (a new tab draws no Streamlit select box or slider)
        light_select(
            "question",
            [(labels or {}).get(q, f"Q{q}") for q in qids],
            qids.index(st.session_state["replay_q"]),
            key="replay_q_pick",
            on_pick=lambda i: st.session_state.__setitem__("replay_q", qids[i]),
        )
    qid = st.session_state["replay_q"]
    QID.write(qid)
    with c[1]:  # in the URL (`?it=`), so a copied link replays the same iteration
        it = int(url_slider("bootstrap iteration", ITERATION, 0, last, 1, disabled=last == 0))
    DL.remember("qid", raw_q, raw_q is None or raw_q in {str(q) for q in qids}, f"Q{qid}")
    have = f"questions {qids[0]}–{qids[-1]}" if len(qids) > 1 else f"only question {qids[0]}"
    DL.remember("it", raw_it, raw_it is None or (raw_it.isdigit() and int(raw_it) <= last), f"{it}")
    with notes_at if notes_at is not None else st.container():
        DL.show("qid", QID_NOTE.replace("{have}", have), f"Q{qid}")
        DL.show("it", IT_NOTE.replace("{last}", str(last)), f"{it}")
    res, diag = pc.replayed(rel, src, policy, settings, qid, it)
    proxy = policy.replay_proxy()
    ans = res.answer_text(0)
    ok = "correct" if res.correct[0] else "wrong"
    how = (
        f"stopped at {fmt_quantity(int(res.position[0]), 'n')} tokens ({res.stopped_by[0]})"
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
    unit = vote_unit(policy)
    fig = _chart((rel, src, policy, settings, qid, it), res, diag, policy)
    with evidence("replay"):
        lite_chart(fig, key="replay_fig", steps=replay_steps(diag.grid), kept=True)
    stop = int(res.stop_index[0])
    k = stop if stop >= 0 else int(diag.grid.shape[0]) - 1
    parts = threshold_parts(diag, k)
    if parts is not None:
        calibrated = bool(getattr(policy, "calibrate", False))
        st.html(threshold_html(parts, res, int(diag.grid[k]), stop >= 0, unit, calibrated))


@st.cache_resource(show_spinner=False, max_entries=64)
def _chart(
    key: tuple[object, ...], _res: QuestionResult, _diag: Diagnostics, policy: Policy
) -> go.Figure:
    """The replay's figure, once per replayed iteration (`key`: what `pc.replayed` was asked,
    which names `_res` and `_diag`, not hashed). Kept and never changed: `lite_chart` makes its
    spec once."""
    return replay_figure(
        _diag, _res, policy.replay_signal, policy.share_threshold(), vote_unit=vote_unit(policy)
    )


def vote_unit(policy: Policy) -> str:
    return "confidence-weighted votes" if policy.voting.weighted else "votes"


def _name(res: QuestionResult, gid: int | None) -> str:
    if gid is None:
        return "an answer with no votes yet"
    return f"“{esc(res.labels[gid][:60])}”" if 0 <= gid < len(res.labels) else "no answer"


def threshold_html(
    parts: ThresholdParts, res: QuestionResult, pos: int, stopped: bool, unit: str, cal: bool
) -> str:
    """How the MARS threshold is formed at one checkpoint, with its numbers (answers escaped)."""
    g = parts.gamma
    f = lambda v: fmt_num(v, ".3g")  # noqa: E731  # one spec for every part
    where = f"the stop, {pos:,} tokens" if stopped else f"the last checkpoint, {pos:,} tokens"
    if parts.runner_up is None:
        formula = (
            f"threshold = γ·(S<sub>all</sub> + S<sub>L</sub>) = {f(g)} × ({f(parts.s_all)} + "
            f"{f(parts.s_leader)}) = <b>{f(parts.threshold)}</b>; margin = V<sub>L</sub> = "
            f"<b>{f(parts.margin)}</b> (the check against an answer with no votes yet binds)"
        )
    else:
        formula = (
            f"runner-up {_name(res, parts.runner_up)} with V<sub>a</sub> = "
            f"{f(parts.v_runner_up)}; threshold = γ·(S<sub>all</sub> + S<sub>L</sub>) − "
            f"(1 + γ)·S<sub>a</sub> = {f(g)} × ({f(parts.s_all)} + {f(parts.s_leader)}) − "
            f"{f(1 + g)} × {f(parts.s_runner_up)} = <b>{f(parts.threshold)}</b>; margin = "
            f"V<sub>L</sub> − V<sub>a</sub> = <b>{f(parts.margin)}</b>"
        )
    verdict = "above" if parts.margin > parts.threshold else "not above"
    if parts.guard < 0:
        guard = "The first-checkpoint guard applies only at the first checkpoint."
    else:
        guard = (
            f"First-checkpoint guard: here the leader must also be the warmup set's majority "
            f"final answer {_name(res, parts.guard)}"
            + ("; it is not, so the rule cannot stop here." if parts.guard_blocks else "; it is.")
        )
    return (
        f"<p style='font-size:0.9rem'><b>How the threshold is formed</b> at {where}: leader "
        f"{_name(res, parts.leader)} with V<sub>L</sub> = {f(parts.v_leader)} {esc(unit)}; "
        f"{formula} ({verdict} the threshold). S<sub>a</sub> = Σ q<sub>j</sub>·e<sub>j</sub>·"
        "w<sub>j</sub> over the traces voting a (S<sub>all</sub>: over all traces), where "
        "q<sub>j</sub> is the q-model's probability that trace j's answer here differs from its "
        "final answer, e<sub>j</sub> = 1 when the trace is eligible with an answer and "
        f"w<sub>j</sub> its vote weight. γ = {f(g)} "
        + ("(calibrated per question on the warmup traces). " if cal else "(fixed). ")
        + guard
        + "</p>"
    )
