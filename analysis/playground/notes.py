"""The simulator's notes as typed codes: what was odd about a question's data or settings.

Why codes: the playground groups and explains notes by what they are, and the CLI prints their
text; a code keeps the two apart (no view matches note text). `Note.message` is the text the
CLI prints and the tables show, unchanged from the string notes it replaces.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class NoteCode(StrEnum):
    """What a note is about. Pool notes (the MARS feature store's "kind: message") get the code
    of the same meaning when there is one, else `POOL`."""

    WINDOW_MISMATCH = "window_mismatch"
    BUDGET_ZERO = "budget_zero"
    SMALL_POOL = "small_pool"  # fewer traces than the warmup
    BUDGET_ABOVE_POOL = "budget_above_pool"  # sampled with replacement (informational)
    NONFINITE_THRESHOLD = "nonfinite_threshold"
    GAMMA_FEW_WARMUP = "gamma_few_warmup"  # calibration needs 4 warmup traces
    GAMMA_EMPTY_GRID = "gamma_empty_grid"
    GAMMA_CALIBRATED = "gamma_calibrated"  # informational
    NO_Q_MODEL = "no_q_model"
    MISSING_LABELS = "missing_labels"
    NONFINITE_LOWS = "nonfinite_lows"
    UNSORTED_LOWS = "unsorted_lows"
    NONFINITE_FEATURES = "nonfinite_features"
    NO_ANSWER = "no_answer"  # no trace has a final answer
    EMPTY_GRID = "empty_grid"
    NONFINITE_CONFS = "nonfinite_confs"  # pool kind: NaN/inf token confidences
    POOL = "pool"  # any other note of the feature store


INFO_CODES = frozenset({NoteCode.BUDGET_ABOVE_POOL, NoteCode.GAMMA_CALIBRATED})

# feature-store note kinds (analysis.mars.features) that mean the same as one of ours
_POOL_KINDS = {"no_answers": NoteCode.NO_ANSWER, "nonfinite_confs": NoteCode.NONFINITE_CONFS}


@dataclass(frozen=True)
class Note:
    """One note: its code and its text. `info` notes are not data problems."""

    code: NoteCode
    message: str

    @property
    def info(self) -> bool:
        return self.code in INFO_CODES

    def __str__(self) -> str:
        return self.message


def pool_note(text: str) -> Note:
    """A feature-store note (`"kind: message"`, `QuestionPool.notes`) with its code."""
    kind = text.split(":", 1)[0].strip()
    return Note(_POOL_KINDS.get(kind, NoteCode.POOL), text)


BUDGET_NOTE = "sampled with replacement"


def budget_note(budget: int, n_pool: int) -> Note:
    """The note of a budget larger than the pool. Not an error: the bootstrap samples with
    replacement (as the published simulator does), so some traces are drawn several times and
    the run cannot be read as "budget distinct traces"."""
    return Note(
        NoteCode.BUDGET_ABOVE_POOL, f"budget {budget} > pool of {n_pool} traces: {BUDGET_NOTE}"
    )
