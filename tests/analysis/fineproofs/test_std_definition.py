"""The std of continuation grades is the population std (ddof 0) in the code, the sample
generator and every doc that names it (issue 30: the docs disagreed)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from analysis.fineproofs.values import GRADE_BINS, hist_stats

ROOT = Path(__file__).resolve().parents[3]


def test_histogram_std_divides_by_n() -> None:
    # grades 0, 0, 1, 1 (k = 0 and 7): mean 0.5, population std 0.5 (the sample std is 0.577)
    h = np.zeros(20)
    h[GRADE_BINS[0]], h[GRADE_BINS[7]] = 2, 2
    st = hist_stats(h)
    assert st["std"][0] == pytest.approx(0.5) and st["n"][0] == 4


def test_docs_agree_that_std_grade_is_the_population_std() -> None:
    gen = (ROOT / "cache/sample/fineproofs.py").read_text()
    assert "`std_grade` f64 (population std, ddof=0)" in gen
    datasets = (ROOT / "docs/formats/datasets.md").read_text()
    for doc in (datasets, (ROOT / "docs/formats/prefix-values.md").read_text()):
        said = re.findall(r"`std_grade`[^|]{0,160}?ddof ?=? ?(\d)", doc)
        assert said and set(said) == {"0"}, said
