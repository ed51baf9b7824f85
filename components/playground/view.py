"""Sections of the stopping playground, one module each (summary and notes, the run's casebook
control, frontier, per-question table, replay, reference diff and downloads, and the tabs they
open in); the page calls them through this module so each section can be swapped (tests put a
failing one in).
Computation lives in `analysis.playground`; runs come through `components.playground.cached`."""

from __future__ import annotations

from components.playground.cases import show_run_cases
from components.playground.frontier import show_frontier
from components.playground.per_question import question_labels, show_per_question
from components.playground.policy_compare import show_policy_compare
from components.playground.reference import show_downloads, show_reference
from components.playground.replay import replay_note_slot, show_replay
from components.playground.runs import RunSet, run_set
from components.playground.summary import show_notes, show_summary, untruncated_savings_pct
from components.playground.tabs import TABS, TABS_KEY, result_tab

__all__ = [
    "TABS",
    "TABS_KEY",
    "RunSet",
    "question_labels",
    "result_tab",
    "run_set",
    "show_downloads",
    "show_frontier",
    "show_notes",
    "show_per_question",
    "show_policy_compare",
    "show_reference",
    "replay_note_slot",
    "show_replay",
    "show_run_cases",
    "show_summary",
    "untruncated_savings_pct",
]
