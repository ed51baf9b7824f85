"""One number style everywhere: every view's rendered text (markdown, captions, metrics, alerts,
table cells) on the bundled sample holds no raw "None", "nan" or negative zero. Undefined values
print as "–" (components/common/formatting.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from components.common.formatting import DASH
from tests.pages.conftest import run_page
from tests.pages.stats import shown_metrics

pytestmark = pytest.mark.usefixtures("sample_root", "db")

# a value token, not a word inside prose or an identifier: "None", "nan"/"NaN", "-0", "−0.00", "-0 pp"
RAW_NONE = re.compile(r"(?<![\w`'\"-])(None|nan|NaN)(?![\w`'\"])")
NEG_ZERO = re.compile(r"(?<![\w.\-−])[-−]0(?:\.0+)?(?![\d.])")

VIEWS: list[tuple[str, dict[str, str]]] = [
    ("pages/home.py", {}),
    *[
        ("pages/parason.py", {"view": v})
        for v in ("Browse", "Trajectory", "1x vs 8x", "Charts", "RL")
    ],
    *[
        ("pages/mars.py", {"qid": "1", "view": v})
        for v in ("Curves", "Vote evolution", "Distributions", "Single trace", "Data")
    ],
    *[("pages/playground.py", {"view": v}) for v in ("Frontier", "Questions", "Reference")],
    ("pages/playground.py", {"qid": "2", "it": "1"}),
    *[("pages/fineproofs.py", {"view": v}) for v in ("Overview", "Trace", "Collection")],
]


def _texts(at: Any) -> list[str]:
    """Every piece of text the run drew, as a reader sees it."""
    out: list[str] = []
    for kind in (
        "markdown",
        "caption",
        "info",
        "warning",
        "success",
        "error",
        "title",
        "header",
        "subheader",
    ):
        out += [str(e.value) for e in getattr(at, kind)]
    for m in shown_metrics(at):
        out += [str(m.label), str(m.value), str(m.delta or "")]
    for df in at.dataframe:
        frame = df.value
        for col in frame.columns:
            out.append(str(col))
            if frame[col].dtype == object:
                out += [str(v) for v in frame[col].tolist() if isinstance(v, str)]
            if frame[col].isna().any() and df.proto.placeholder != DASH:
                # the grid draws a missing cell as "None" unless told otherwise
                out.append(f"None (missing cells of {col!r} without the '–' placeholder)")
    return out


def _offences(texts: list[str]) -> list[str]:
    bad = []
    for t in texts:
        for rx in (RAW_NONE, NEG_ZERO):
            m = rx.search(t)
            if m:
                start = max(0, m.start() - 40)
                bad.append(f"{m.group(0)!r} in …{t[start : m.end() + 40]}…")
    return bad


def test_patterns_catch_what_they_should() -> None:
    assert _offences(["difference -0", "−0.00 pp", "value None", "z = nan"]) == [
        "'-0' in …difference -0…",
        "'−0.00' in …−0.00 pp…",
        "'None' in …value None…",
        "'nan' in …z = nan…",
    ]
    assert _offences(["2026-03-01", "b1t0", "-0.5", "+0.0 pp", "finance", "NoneType", "10.0"]) == []


@pytest.mark.parametrize(
    ("page", "params"),
    VIEWS,
    ids=[f"{p[6:-3]}-{'-'.join(q.values()) or 'default'}" for p, q in VIEWS],
)
def test_view_text_has_no_raw_none_nan_or_negative_zero(page: str, params: dict[str, str]) -> None:
    at = run_page(page, **params)
    assert not at.exception, [e.value for e in at.exception]
    texts = _texts(at)
    assert texts, "the view drew no text"
    assert _offences(texts) == []
