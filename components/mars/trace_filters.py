"""The trace filters shared by the Curves tab and the Single trace picker: verdict, final
answer, length and confidence ranges, each bound to the URL (`MarsKeys` lists the keys), and
kept while the other tab is open. The logic is `analysis.mars.trace_filters`; this draws it,
says "k of n traces match", and says what to loosen when none does."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import streamlit as st

from analysis.mars import trace_filters as tf
from components.common.lazy_expander import lazy_expander
from components.common.safe_text import md_text
from components.common.url_state import bound_kept, one_of, refused_link, say_refused

VERDICT_KEY = "verdict"
ANSWER_KEY = "answer"
LENGTH_KEY = "length"
CONF_BY_KEY = "conf_by"
CONF_KEY = "conf"
KEYS = (VERDICT_KEY, ANSWER_KEY, LENGTH_KEY, CONF_BY_KEY, CONF_KEY)
OPEN_KEY = "mars_filter_open"  # the bar's open state (session only)
_HELP_VERDICT = (
    "right: the final answer is the ground truth; wrong: a final answer that is not; no answer: "
    "no final answer was extracted."
)
_HELP_CONF = (
    "Which per-trace confidence the range applies to (the Single trace tab's numbers): tail = "
    "mean of the last 2,048 tokens, mean = over the whole trace, lowest group = min_group, "
    "bottom 10% = mean of the lowest 10% of the 2,048-token groups. A trace without a finite "
    "value is left out once the range is narrowed."
)


def _range_bounds(values: pl.Series, digits: int) -> tuple[float, float] | tuple[int, int] | None:
    """Finite min and max rounded outwards (ints for 0 digits), or None when there is no range
    to pick."""
    v = values.cast(pl.Float64).to_numpy()
    v = v[np.isfinite(v)]
    if not v.size:
        return None
    scale = 10**digits
    lo = math.floor(float(v.min()) * scale) / scale
    hi = math.ceil(float(v.max()) * scale) / scale
    if hi <= lo:
        return None
    return (int(lo), int(hi)) if digits == 0 else (lo, hi)


def _range(label: str, bounds: tuple | None, key: str, **kw: object) -> tuple | None:
    """A range slider over `bounds`; None when it spans them (no filtering)."""
    if bounds is None:
        return None
    lo, hi = bounds
    got = st.slider(label, lo, hi, (lo, hi), **bound_kept(key), **kw)  # type: ignore[call-overload]  # int or float ends
    return None if tuple(got) == (lo, hi) else (got[0], got[1])


def filter_bar(feats: pl.DataFrame) -> tf.TraceFilter:
    """The filter widgets for this question's traces, in an expander open while a filter is set
    (drawn while open or while a filter is set: `lazy_expander`); the filter they describe."""
    with lazy_expander("Filter traces", KEYS, OPEN_KEY, icon=":material/filter_list:") as draw:
        if not draw:
            return tf.TraceFilter()
        # wrapping rows of fixed-width widgets: nothing is cut at 1024 px
        with st.container(horizontal=True, vertical_alignment="bottom", gap="medium"):
            asked = st.query_params.get(VERDICT_KEY)
            verdict = st.segmented_control(
                "Verdict",
                tf.VERDICTS,
                default=tf.ANY,
                help=_HELP_VERDICT,
                width="content",
                **bound_kept(VERDICT_KEY),
            )
            if asked and asked not in tf.VERDICTS:  # Streamlit drops it without a word
                st.caption(
                    f"The link's verdict “{md_text(asked, 40)}” is not one of "
                    f"{', '.join(tf.VERDICTS)}: every trace is shown."
                )
            counts = dict(tf.answer_counts(feats))
            answers = st.multiselect(
                "Final answer",
                list(counts),
                placeholder="any answer",
                help="Traces whose final answer is one of these; the list runs from the most frequent "
                "answer of the question down: "
                + ", ".join(f"{md_text(a, 40)} ({n})" for a, n in counts.items())[:600],
                width="stretch",
                **bound_kept(ANSWER_KEY),
            )
        d1, d2, d3 = st.columns([4, 3, 4], vertical_alignment="bottom")
        with d1:
            lb = _range_bounds(feats["length"], 0)
            length = _range("Length (tokens)", lb, LENGTH_KEY, step=1)
        by_name = {name: col for col, name in tf.CONFIDENCES.items()}
        asked_conf = refused_link(CONF_BY_KEY, by_name.__contains__)
        conf_name = d2.selectbox(  # the URL holds the name shown
            "Confidence", list(by_name), help=_HELP_CONF, **bound_kept(CONF_BY_KEY)
        )
        with d2:
            say_refused(CONF_BY_KEY, asked_conf, "Confidence", conf_name, one_of(list(by_name)))
        conf_by = by_name.get(str(conf_name), tf.DEFAULT_CONFIDENCE)
        with d3:
            cb = _range_bounds(feats[conf_by], 2) if conf_by in feats.columns else None
            conf = _range(f"{conf_name} confidence", cb, CONF_KEY, step=0.01)
    return tf.TraceFilter(
        verdict=str(verdict or tf.ANY),
        answers=tuple(str(a) for a in answers),
        length=(int(length[0]), int(length[1])) if length else None,
        confidence=str(conf_by),
        conf_range=(float(conf[0]), float(conf[1])) if conf else None,
    )


def filtered(feats: pl.DataFrame) -> tuple[pl.DataFrame, tf.TraceFilter]:
    """The filter bar, then the traces that pass it with "k of n traces match", or an empty
    state naming the filters to loosen (the returned table is then empty)."""
    f = filter_bar(feats)
    out = tf.apply(feats, f)
    if f.active() and out.height:
        st.caption(f"**{out.height:,} of {feats.height:,} traces match** the filters.")
    elif f.active():
        hints = ", ".join(
            f"the {md_text(name)} ({n:,} would match without it)"
            for name, n in tf.loosen_hints(feats, f)
        )
        st.info(
            f"No trace of this question matches the filters (0 of {feats.height:,}). "
            f"Loosen {hints}.",
            icon=":material/filter_alt_off:",
        )
    return out, f
