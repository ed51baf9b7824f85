"""Pure pieces of the Parason tabs: the 1x/8x table text, warning badges (notes apart) and the
chart click reader."""

from __future__ import annotations

from analysis.parason.metrics import compute_metrics
from analysis.parason.parse import parse
from analysis.parason.tokens import get_counter
from components.parason.charts_tab import selected_uuid
from components.parason.compare import compare_frame
from components.parason.trajectory import warning_badges, warnings_title

WORDS = get_counter("words")
ONE = (
    "<Parallel><Outlines><Trial>1: a</Trial><Trial>2: b</Trial></Outlines>"
    "<Thread>1: alpha</Thread><Thread>2: beta</Thread></Parallel>"
)
EIGHT = ONE.replace("</Outlines>", "<Trial>3: c</Trial></Outlines>").replace(
    "</Thread></Parallel>", "</Thread><Thread>3: gamma</Thread></Parallel>"
)


def test_compare_frame_is_display_text() -> None:
    m1, m8 = compute_metrics(parse(ONE), WORDS), compute_metrics(parse(EIGHT), WORDS)
    frame = compare_frame(m1, m8)
    rows = {r["metric"]: r for r in frame.iter_rows(named=True)}
    assert rows["total branches"] == {
        "metric": "total branches",
        "sft-1x": "2",
        "sft-8x": "3",
        "change": "+1",
    }
    assert rows["speedup T/C"]["sft-1x"].endswith("×")
    assert rows["trial ratio"]["change"].endswith(" pt")
    assert rows["parallel ratio"]["sft-8x"].endswith("%")


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
