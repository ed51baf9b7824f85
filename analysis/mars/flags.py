"""The data-note flags of a MARS trace: one bit per data problem found while building the features.

Why one home: the ingest sets the bits and words the per-question notes, the view names the bits
of one trace; both read the table below, so a bit, its note and its label cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass

FLAG_EMPTY = 1
FLAG_NONFINITE = 2
FLAG_NEGATIVE = 4
FLAG_PROBES_UNSORTED = 8
FLAG_PROBE_BEYOND_END = 16
FLAG_LONG_ANSWER = 32
FLAG_NO_PROBES = 64


@dataclass(frozen=True)
class Flag:
    """One flag bit: `kind` names its note, `note` ends "<n> traces ..." in the per-question note
    (None: the ingest words that note itself), `label` names it on a single trace."""

    bit: int
    kind: str
    note: str | None
    label: str


FLAGS: tuple[Flag, ...] = (
    Flag(FLAG_EMPTY, "empty_confs", "with empty confs", "empty confs"),
    Flag(
        FLAG_NONFINITE,
        "nonfinite_confs",
        "with NaN/inf confidences (those tokens are ignored)",
        "NaN/inf confidences (ignored)",
    ),
    Flag(
        FLAG_NEGATIVE,
        "negative_confs",
        "with negative confidences (kept as they are)",
        "negative confidences",
    ),
    Flag(
        FLAG_PROBES_UNSORTED,
        "probes_unsorted",
        "with probes out of order (re-sorted)",
        "probes out of order (re-sorted)",
    ),
    Flag(
        FLAG_PROBE_BEYOND_END,
        "probe_beyond_end",
        "with probes beyond the trace end (dropped)",
        "probes beyond the end (dropped)",
    ),
    Flag(FLAG_LONG_ANSWER, "long_answer", None, "final answer is a long text span"),
    Flag(
        FLAG_NO_PROBES,
        "no_probes",
        "without any probe (no intermediate answers)",
        "no probes",
    ),
)


def flag_names(flags: int) -> list[str]:
    """The labels of the bits set in a trace's `flags`, in bit order."""
    return [f.label for f in FLAGS if flags & f.bit]
