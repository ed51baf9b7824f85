"""Pure pieces of the Parason tabs: the 1x/8x tables as shown (a hand-built pair whose extra Trial
lengthens C: T 30 -> 45, C 26 -> 35 words + tags; see tests/analysis/parason/test_pairs.py),
the accepted-Trial and all-pairs tables, warning badges (notes apart) and the chart click
reader."""

from __future__ import annotations

import polars as pl

from analysis.parason.accepted import accepted_view
from analysis.parason.metrics import compute_metrics
from analysis.parason.pairs import pair_stages, paired_table
from analysis.parason.parse import parse
from analysis.parason.tables import added_nodes
from analysis.parason.tokens import get_counter
from components.parason.charts_tab import selected_uuid
from components.parason.pairs_view import (
    accepted_stage_frame,
    accepted_summary_frame,
    change_frame,
    compare_frame,
    latency_note,
    spread_frame,
    stage_compare_frame,
)
from components.parason.trajectory import tokens_caption, warning_badges, warnings_title

WORDS = get_counter("words")
ONE = (
    "go on <Parallel><Outlines><Trial>1: a</Trial><Trial>2: b</Trial></Outlines>"
    "<Thread>1: x x Accepted.</Thread><Thread>2: x x x x Rejected.</Thread></Parallel> so done"
)
EIGHT = ONE.replace("</Outlines>", "<Trial>3: c</Trial></Outlines>").replace(
    "</Thread></Parallel>", "</Thread><Thread>3: x x x x x x x x</Thread></Parallel>"
)


def test_compare_frame_cells_when_the_extra_trial_lengthens_c() -> None:
    m1, m8 = compute_metrics(parse(ONE), WORDS), compute_metrics(parse(EIGHT), WORDS)
    frame = compare_frame(m1, m8)
    assert frame.columns == ["metric", "sft-1x", "sft-8x", "8x vs 1x", "change is"]
    assert frame.rows() == [
        ("tokens T (compute)", "30 tokens", "45 tokens", "+15 tokens", "difference 8x − 1x"),
        ("critical path C (latency)", "26 tokens", "35 tokens", "1.35× slower", "ratio 8x / 1x"),
        ("speedup T / C (own row)", "1.15×", "1.29×", "1.11×", "ratio 8x / 1x"),
        ("T_1x / C (vs 1x work)", "1.15×", "0.86×", "0.74× slower", "ratio 8x / 1x"),
        ("parallel ratio", "80.0%", "86.7%", "+6.7 pt", "difference 8x − 1x"),
        ("trial ratio", "33.3%", "42.2%", "+8.9 pt", "difference 8x − 1x"),
        ("stages", "1", "1", "+0", "difference 8x − 1x"),
        ("total branches", "2", "3", "+1", "difference 8x − 1x"),
    ]
    assert not any("+0." in c and "×" in c for c in frame["8x vs 1x"])  # no difference of ratios


def test_latency_note_names_the_slower_critical_path() -> None:
    m1, m8 = compute_metrics(parse(ONE), WORDS), compute_metrics(parse(EIGHT), WORDS)
    note = latency_note(m1, m8)
    assert note == (
        "The 8x row is slower: its critical path C is 35 tokens against 26 tokens "
        "(C_8x / C_1x = 1.35×, 35 % longer). It is longer than the 1x row's whole sequential "
        "work T_1x (30 tokens): decoding the 1x row one token at a time would finish first. Its "
        "speedup T/C still rises (1.15× → 1.29×) because the extra Trials add 15 tokens to T."
    )
    assert latency_note(m1, m1) is None  # same C: nothing to warn about


def test_stage_compare_frame_cells() -> None:
    t1, t8 = parse(ONE), parse(EIGHT)
    m1, m8 = compute_metrics(t1, WORDS), compute_metrics(t8, WORDS)
    frame = stage_compare_frame(pair_stages(m1, m8, t8, added_nodes(t1, t8)))
    assert frame.row(0, named=True) == {
        "stage": 1,
        "join": "OR",
        "branches 1x → 8x": "2 → 3",
        "added": "1",
        "cost 1x → 8x (tokens)": "20.0 → 29.0",
        "cost 8x / 1x": "1.45×",
        "longest thread 1x → 8x (tokens)": "6.0 → 9.0",
        "speedup 1x → 8x": "1.20× → 1.34×",
        "speedup 8x / 1x": "1.12×",
    }
    assert stage_compare_frame([]).height == 0


def test_accepted_frames() -> None:
    views = {}
    for name, text in (("sft-1x", ONE), ("sft-8x", EIGHT)):
        traj = parse(text)
        counts = WORDS.count_parts(traj, None)
        views[name] = accepted_view(traj, counts, compute_metrics(traj, WORDS, counts=counts).C)
    assert accepted_summary_frame(views).rows() == [
        ("sft-1x", "1", "1", "26", "24", "24"),
        ("sft-8x", "1", "1", "35", "30", "30"),
    ]
    stages = accepted_stage_frame(views)
    assert stages.row(1) == (
        "sft-8x",
        1,
        "1✓ 2✗ 3·",
        "trial 1.1",
        "trial 1.1",
        "29.0",
        "24.0",
        "24.0",
    )


def test_all_pairs_frames() -> None:
    t1 = pl.DataFrame(
        {
            "uuid": list("abcdef"),
            "T": [100.0] * 6,
            "C": [80.0] * 6,
            "correctness": [True, True, False, True, None, False],
        }
    )
    t8 = pl.DataFrame(
        {
            "uuid": list("abcdef"),
            "T": [150.0, 160.0, 170.0, 100.0, 180.0, 190.0],
            "C": [90.0, 100.0, 70.0, 80.0, 120.0, 110.0],
            "correctness": [True, False, True, True, True, False],
        }
    )
    pairs = paired_table(t1, t8)
    assert spread_frame(pairs).rows() == [
        ("ΔC = C_8x − C_1x", "6", "+15 tokens", "-10 tokens to +40 tokens", "66.7%"),
        ("C_8x / C_1x", "6", "1.19×", "0.88× to 1.50×", "66.7%"),
        ("ΔT = T_8x − T_1x", "6", "+65 tokens", "+0 tokens to +90 tokens", "83.3%"),
    ]
    assert change_frame(pairs).rows() == [
        ("right → wrong", "1 of 5", "20.0%", "3.6% to 62.4%"),
        ("wrong → right", "1 of 5", "20.0%", "3.6% to 62.4%"),
        ("same", "3 of 5", "60.0%", "23.1% to 88.2%"),
        ("unknown", "1 of 6", "16.7%", "–"),
    ]


def test_warning_badges_escape_and_count() -> None:
    traj = parse("<Parallel><Thread>1: x</Thread></Parallel></Thread></Thread>")
    chips = warning_badges(traj)
    assert "⚠ stray_close ×2" in chips and "<script" not in chips


def test_notes_are_not_badged_as_warnings() -> None:
    traj = parse("<Parallel><Outlines><Trial>1: a</Outlines><Thread>1: x</Thread></Parallel>")
    assert traj.valid and [w.code for w in traj.warnings] == ["item_unclosed", "no_boxed"]
    chips = warning_badges(traj)
    assert "⚠" not in chips and "note: item_unclosed" in chips
    assert "shown as far as it parses" not in warnings_title(traj)
    bad = parse("<Parallel><Thread>1: x</Thread></Parallel></Thread>")
    assert "shown as far as it parses" in warnings_title(bad)


def test_selected_uuid_reads_dicts_and_attribute_events() -> None:
    event = {"selection": {"points": [{"customdata": None}, {"customdata": ["u2", 3]}]}}
    assert selected_uuid(event) == "u2"
    assert selected_uuid({"selection": {"points": []}}) is None
    assert selected_uuid(None) is None


def test_tokens_caption_has_no_negative_zero() -> None:
    m = compute_metrics(parse(ONE), WORDS)
    text = tokens_caption(m, 616.6, 617)  # counted - stored = -0.4, printed rounded
    # the caption is escaped Markdown: "+", "_" and "." carry a backslash
    assert "Whole text counted: 617 tokens; stored num\\_qwen\\_tokens: 617 tokens" in text
    assert "difference \\+0 tokens\\." in text and "-0" not in text
    assert "difference \\-13 tokens\\." in tokens_caption(m, 604.0, 617)
