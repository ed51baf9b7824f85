"""The sentences the Trace tab says about a trace's numbers, as pure functions (tested on exact
strings). Numbers go through `components.common.formatting`.

Why here: the shape line and the multiple-testing note are what an expert reads first; a
clamped share ("100 % of it" for a drop larger than the whole fall) or a bare count of flags
without the number of tests behind them misleads.
"""

from __future__ import annotations

from analysis.fineproofs.multitest import FlagBurden
from components.common.formatting import fmt_num, fmt_quantity


def change_phrase(total_decline: float) -> str:
    """total_decline = first - last prefix value, said in words (a signed "decline" of -0.058
    read as a double negative)."""
    d = float(total_decline)
    if d != d:
        return "no first-to-last change (a value is missing)"
    if abs(d) < 0.0005:
        return "value unchanged from first to last prefix"
    verb = "fell" if d > 0 else "rose"
    return f"value {verb} by {abs(d):.3f} from first to last prefix"


def drop_share_phrase(largest_drop: float | None, share: float | None) -> str:
    """The largest single drop as a share of the first-to-last fall, not clamped: a drop larger
    than the whole fall (the value also rose, before or after it) reads as more than 100 %."""
    if share is None or share != share:
        return ""
    out = (
        f"the largest single drop ({fmt_num(largest_drop, '.3f')}) is "
        f"{fmt_quantity(share, '%')} of that first-to-last fall"
    )
    if share > 1.0005:
        out += " (more than all of it: the value also rose, before or after that drop)"
    return out


def multiple_tests_note(b: FlagBurden, rule: str, q: float, min_drop: float = 0.15) -> str:
    """How many z-tests the trace makes and what the chosen rule means for chance flags."""
    if b.n_tests == 0:
        return "No z-test in this trace (fewer than two prefixes with a value and an SE)."
    tests = f"{b.n_tests} z-test{'s' if b.n_tests != 1 else ''}"
    head = f"This trace makes {tests}, one per change between consecutive prefixes with a value."
    if rule == "bh":
        return (
            f"{head} Benjamini-Hochberg is on: a change is flagged when its test survives the "
            f"correction over these {tests} at a false discovery rate of "
            f"{fmt_quantity(q, '%')} (and |change| ≥ {fmt_num(min_drop, '.2f')})."
        )
    return (
        f"{head} Each test alone flags a change with probability {fmt_quantity(b.alpha, '%')} "
        f"(|z| > 2) when the value does not move, so about {fmt_num(b.expected_false, '.2f')} "
        f"chance flags per trace like this one and a {fmt_quantity(b.p_any, '%')} chance of at "
        f"least one, before the |change| ≥ {fmt_num(min_drop, '.2f')} floor. The "
        "Benjamini-Hochberg switch above corrects them together."
    )


def counts_phrase(n_drops: int, n_recoveries: int, n_bimodal: int) -> str:
    """The per-trace counts in words, singular or plural."""

    def n(k: int, one: str, many: str) -> str:
        return f"{k} {one if k == 1 else many}"

    return (
        f"{n(n_drops, 'significant drop', 'significant drops')}, "
        f"{n(n_recoveries, 'recovery', 'recoveries')}, "
        f"{n(n_bimodal, 'bimodal prefix', 'bimodal prefixes')}"
    )
