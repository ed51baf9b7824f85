"""Sections of the stopping playground, one module each (summary and notes, the run's casebook
control, frontier, per-question table, replay, reference diff and downloads, and the tabs they
open in); the page calls them through this module so each section can be swapped (tests put a
failing one in).
Computation lives in `analysis.stopping`; runs come through `components.stopping.cached`."""

from __future__ import annotations

from components.stopping.cases import show_run_cases
from components.stopping.frontier import show_frontier
from components.stopping.per_question import show_per_question
from components.stopping.reference import show_downloads, show_reference
from components.stopping.replay import show_replay
from components.stopping.runs import RunSet, run_set
from components.stopping.summary import show_notes, show_summary, untruncated_savings_pct
from components.stopping.tabs import TABS, TABS_KEY, result_tabs

__all__ = [
    "TABS",
    "TABS_KEY",
    "RunSet",
    "result_tabs",
    "run_set",
    "show_downloads",
    "show_frontier",
    "show_notes",
    "show_per_question",
    "show_reference",
    "show_replay",
    "show_run_cases",
    "show_summary",
    "untruncated_savings_pct",
]
