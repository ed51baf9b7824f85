"""The casebook's colours (case accent, tags, meta text, the HTML report). They live in the cache
layer because the report is built here (`cache.casebook.report`, also used by the CLI);
`components.common.theme` re-exports them, so the palette keeps one place a view imports from."""

from __future__ import annotations

CASE_ACCENT = "#3566b8"  # the bar beside a case, badges
CASE_TAG_BG = "#eef2f7"
CASE_META_FG = "#666666"
REPORT_TEXT, REPORT_CASE_BG, REPORT_RULE = "#1f2328", "#fafbfc", "#e1e4e8"  # the HTML report

# the report's evidence pictures (cache.casebook.evidence_svg)
EVIDENCE_SERIES = (
    "#3566b8",
    "#d95f02",
    "#1a9850",
    "#7570b3",
    "#e7298a",
    "#a6761d",
    "#666666",
    "#17becf",
)
EVIDENCE_AXIS, EVIDENCE_GRID = "#57606a", "#e1e4e8"
EVIDENCE_MARK = "#8c959f"  # probes, drops: the vertical rules
EVIDENCE_HIGHLIGHT = "#d62728"  # the point (or bar) the case is about
EVIDENCE_BG = "#ffffff"  # behind the picture
