"""The playground's rendered text: every headline figure carries its 95 % interval, and no view
prints "None", "nan" or a negative zero."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cache.sample.mars import write_file
from components.playground import view as pv
from tests.pages.conftest import run_page
from tests.pages.stats import shown_metrics

REL = "DeepSeek-8B/aime25_deepseek.parquet"
BAD = re.compile(r"\bNone\b|\bnan\b|(?<![\w.])[-−]0(?:\.0+)?(?![\d.])", re.IGNORECASE)


@pytest.fixture(scope="module")
def local_mars(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("mars_numbers")
    write_file(root / REL, "aime", 24, seed=5, drop=0, n_questions=3)
    return root


def _texts(at) -> list[str]:  # type: ignore[no-untyped-def]
    out = []
    for m in shown_metrics(at):
        out += [m.label, m.value, str(m.delta or "")]
    for kind in (at.caption, at.markdown, at.info, at.warning, at.subheader):
        out += [e.value for e in kind]
    out += [str(h.proto.body) for h in at.get("html")]
    return out


@pytest.mark.parametrize("policy", ["sc-mars-cal", "sc-pp", "dco"])
def test_no_none_nan_or_negative_zero_in_any_tab(
    local_mars: Path, monkeypatch: pytest.MonkeyPatch, policy: str
) -> None:
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(local_mars))
    for tab in ("Frontier", "Questions", "Reference"):
        at = run_page("pages/playground.py", policy=policy, budget="16", view=tab)
        assert not at.exception, at.exception
        texts = _texts(at)
        bad = [t for t in texts if BAD.search(t)]
        assert not bad, (tab, bad)
        labels = [m.label for m in shown_metrics(at)]
        assert any(x.startswith("accuracy · 95 % CI [") for x in labels), labels
        assert any(x.startswith("mean token savings · 95 % CI [") for x in labels), labels
        assert any("vs SC, 95 % CI [" in str(m.delta) for m in shown_metrics(at))
        assert any("so the intervals carry the extra noise" in c.value for c in at.caption)
        assert pv.TABS[0] == "Frontier"
