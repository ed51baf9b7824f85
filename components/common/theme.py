"""The palette has one home: every colour a view draws, named by what it means.

Shared meanings first (right/wrong, selection, missing, panels), then each view's own
categorical colours. Figures and HTML import from here; no hex literal lives in a view.
"""

from __future__ import annotations

from plotly.colors import qualitative

from cache.casebook import palette as _casebook_palette

# ------------------------------------------------------------------ shared meanings
CORRECT = "#1a9850"  # a right answer / a correct trajectory
WRONG = "#d73027"  # a wrong answer
NO_ANSWER = "#7a7a7a"  # "no final answer" / unknown correctness: neutral grey, never a red
MUTED = "#b3b3b3"  # "other" buckets
FAINT = "#e3e3e3"  # empty space in stacked bars
MISSING = "rgba(160,160,160,0.35)"  # a cell with no data
ALERT = "#d62728"  # critical path, drops, warnings drawn on figures
FOCUS = "#1f77b4"  # the focused element in text views
TEXT_DARK, TEXT_LIGHT = "#111111", "#ffffff"
PANEL_BG, PANEL_BORDER = "#f6f6f4", "#e0e0dc"  # pre-formatted text panels
BOX_BG, BOX_BORDER = "#fcfcfd", "#e3e6ea"  # scrolling trajectory/proof text boxes
TABLE_RULE = "rgba(128,128,128,0.25)"
DIFF_BG = "#f8d7da"  # a cell that differs from the reference
WARN_BG, WARN_FG = "#fde2e1", "#b42318"  # a warning badge
INFO_BG, INFO_FG = "#e8f0fe", "#1a4d99"  # an informational badge
HIT_BG = "#ffe58f"  # a search hit inside its snippet

# ------------------------------------------------------------------ casebook
# defined beside the HTML report in the cache layer (which cannot import this module)
CASE_ACCENT = _casebook_palette.CASE_ACCENT  # the bar beside a case, badges
CASE_TAG_BG = _casebook_palette.CASE_TAG_BG
CASE_META_FG = _casebook_palette.CASE_META_FG
REPORT_TEXT = _casebook_palette.REPORT_TEXT  # the HTML report
REPORT_CASE_BG = _casebook_palette.REPORT_CASE_BG
REPORT_RULE = _casebook_palette.REPORT_RULE

# ------------------------------------------------------------------ Parason
KIND_COLOURS = {
    "segment": "#8c8c8c",
    "fork": "#1f3b73",
    "join": "#1f3b73",
    "answer": "#2b2b2b",
    "subtask": "#2e9e5b",
    "trial": "#e8871e",
    "untyped": "#8e6cc4",
    "collapsed": "#b8b8b8",
}
TAG_COLOURS = {
    "parallel": "#1f3b73",
    "outlines": "#3566b8",
    "outline": "#8e6cc4",
    "trial": "#e8871e",
    "subtask": "#2e9e5b",
    "thread": "#555e6b",
    "conclusion": "#138a8a",
    "think": "#6b6b6b",
}
TAG_DEFAULT = "#6b6b6b"
TINTS = {
    "subtask": "rgba(46,158,91,0.10)",
    "trial": "rgba(232,135,30,0.12)",
    "untyped": "rgba(142,108,196,0.12)",
}
DAG_CRITICAL = ALERT
DAG_ADDED = "#d100d1"  # Trial branches the 8x expansion added
DAG_SELECTED = "#ffd400"
CORRECTNESS_COLOURS = {True: "#2e9e5b", False: ALERT, None: "#8c8c8c"}
MIX_COLOURS = {
    "subtask": KIND_COLOURS["subtask"],
    "trial": KIND_COLOURS["trial"],
    "untyped": KIND_COLOURS["untyped"],
    "mixed": "#3566b8",
    "none": "#8c8c8c",
}
GROUP_COLOURS = {
    "Subtask only": MIX_COLOURS["subtask"],
    "Trial only": MIX_COLOURS["trial"],
    "Subtask + Trial stages": "#17becf",
    "has mixed stages": MIX_COLOURS["mixed"],
    "untyped / none": MIX_COLOURS["untyped"],
}
DAG_EDGE = "#9aa5b1"  # a plain DAG edge
DAG_OR_EDGE = KIND_COLOURS["trial"]  # an edge into an OR join (dashed)
MARKER_EDGE = "white"  # thin outline that separates overlapping markers
SELECTED_RING = "#f0b400"  # the selected trajectory's ring on a chart / part in the text
SELECTED_FILL = "rgba(255,212,0,0.25)"  # the selected node's text
NOTE_FG = "#888"  # the "token counts: ..." note on a figure
CAPTION_FG = "#555"  # the question header's second line
ITEM_TINT = "rgba(53,102,184,0.08)"  # outline-item text
PROMPT_FG = "#8a8f98"  # the chat prompt, when shown
ANSWER_TINT = "rgba(43,43,43,0.05)"  # the text after </think>
STRAY_TEXT_BG = "#fff4ce"  # non-blank text between threads
LINK_HOVER = TAG_COLOURS["outlines"]  # outline of a text-view node link under the pointer
TAG_TEXT = "white"  # the text of a tag chip, on its tag colour
DAG_BG = "white"  # the DAG's plot area
RING_FILL = "rgba(0,0,0,0)"  # a selection ring is hollow

# ------------------------------------------------------------------ MARS
# wrong answers in the vote chart: Tableau 10 without its green and grey, so no wrong answer can
# pass for the ground truth or for "no answer"; one colour for each of the (at most 8) shown
ANSWER_PALETTE = [
    "#4e79a7",
    "#f28e2b",
    "#b07aa1",
    "#edc948",
    "#e15759",
    "#76b7b2",
    "#9c755f",
    "#ff9da7",
]
GRID_SCALE = "RdYlGn"  # overview grid: pass@1 from red to green
GRID_SELECTED = "#1f4fd8"
GRID_RING = "#000000"  # ring round a question whose majority vote is wrong
TRANSPARENT = "rgba(0,0,0,0)"
CORRECT_BAND = "rgba(26,152,80,0.2)"  # CORRECT at 20%: the 10-90% band of right traces
WRONG_BAND = "rgba(215,48,39,0.2)"  # WRONG at 20%
TRUTH_EDGE = "#0b6b35"  # a darker CORRECT: the ground truth's edge in the vote stack
HATCH = "#9a9a9a"  # hatching of "no answer" areas and bars
OTHER_ANSWER = "#7f7f7f"  # a wrong final answer in the answers bar
TOKEN_LINE, TOKEN_LINE_SMOOTHED = "#c6dbef", "#9ecae1"  # the zoom's token confidences
GROUP_LINE = "#08519c"  # the zoom's W-token group confidence
MARKER_OUTLINE = "white"  # keeps probe markers readable on top of the lines

# ------------------------------------------------------------------ stopping playground
LINE_PALETTE = [
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
]
# frontier markers: every policy can be on the chart at once (16+), so colour x symbol must not
# repeat within that many (24 colours, 9 symbols; the sweep line keeps LINE_PALETTE[0])
MARKER_COLORS = [c for c in qualitative.Dark24 if c.upper() != "#2E91E5"]
MARKER_FALLBACK = "#7f7f7f"
MARKER_EDGE = "white"  # ring around each frontier marker
PARETO_LINE, PARETO_MARKER = "rgba(46,160,44,0.35)", "rgba(46,160,44,0.25)"  # the green band
CURRENT_RING, CURRENT_FILL = "black", "rgba(0,0,0,0)"  # the current setting: an empty ring
GAIN = "#2ca02c"  # a question that keeps (or gains) accuracy against SC
SIGNAL = "#000000"  # the replay's rule signal (margin, leader share)
TOKENS_BAR = "#7f7f7f"  # tokens spent per checkpoint
STOP_LABEL_BG = "rgba(255,255,255,0.85)"  # behind the replay's "stop at" label

# ------------------------------------------------------------------ FineProofs
VALUE_SCALE = "RdBu"  # 0 red .. 0.5 white .. 1 blue (colour-blind safe, unlike red/green)
CHANGE_SCALE = "RdBu"  # diverging, 0 white
STEP_BORDER = "rgba(0,0,0,0.15)"
# the trace text's span tints follow VALUE_SCALE's ends and middle (RGB, drawn translucent)
FP_TINT_LOW, FP_TINT_MID, FP_TINT_HIGH = (215, 48, 39), (247, 247, 247), (33, 102, 172)
FP_TINT_MISSING = "rgba(160,160,160,0.25)"  # a step span without a value
FP_STEP_HOVER = "rgba(31,119,180,0.7)"  # outline of the step span under the pointer
FP_TEXT_BOX_BORDER = "rgba(128,128,128,0.35)"
FP_LABEL = "#555"  # small secondary text: prefix numbers, legends, table keys
FP_GUIDE = "#555"  # the dotted line at the selected prefix
FP_GRID = "#eee"  # gridlines of the value curve and bars
FP_ROW_SELECTED = "#222"  # frame around the selected trace's row in the overview
FP_TRANSPARENT = "rgba(0,0,0,0)"  # the selected row's frame is not filled
FP_MARKER_EDGE = "#333"  # edge of the endpoint-grade diamonds
FP_BAND = "rgba(31,119,180,0.15)"  # the +/-2 SE band around the value curve
FP_RECOVERY = "#2ca02c"
FP_FIRST_ERROR = "#000000"
FP_BIMODAL = "#9467bd"
FP_ENDPOINT = "#ff7f0e"  # the endpoint grade's star: a single grade, not a mean
FP_HIST_SCALE = "Blues"  # share of continuations per grade level
# MARS probe markers by agreement with the trace's own final answer, and a policy's threshold
PROBE_AGREE = "#2166ac"  # the probe's answer is the final answer
PROBE_DIFFER = "#e08214"  # another answer than the final one
THRESHOLD_LINE = "#6a3d9a"  # a DeepConf threshold drawn across the curves

# a prefix without a value in the overview grid: a grey hatch, outside the red-white-blue scale
# (plain light grey read as a value near 0.5)
FP_NO_VALUE = "repeating-linear-gradient(45deg,#8c8c8c 0 2px,#f0f0f0 2px 5px)"
FP_DROP_MARK = "#fff"  # the ▼ on an overview cell holding a significant drop (outlined: dark cells)
FP_DROP_MARK_EDGE = "#000"
