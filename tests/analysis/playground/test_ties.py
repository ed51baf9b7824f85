"""Outcomes decided by a vote tied for first place (`analysis.playground.ties`) and the reference
diff that explains a difference by them (`compare.explain_reference`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.playground import SimSettings, policy_for_method, prepare, simulate_question
from analysis.playground.bootstrap import bootstrap_rows
from analysis.playground.compare import explain_reference, reference_comparison
from analysis.playground.results import question_summary
from analysis.playground.synthetic import hand_pool
from analysis.playground.ties import tie_check, with_ties_reversed

SETTINGS = SimSettings(budget=2, iterations=16, warmup=2, window=2048, seed=3)


def _tied_pool():  # type: ignore[no-untyped-def]
    # two traces, two answers: a sample holding one of each is an exact 1:1 tie
    return prepare(hand_pool([0, 1], [[0, 0], [1, 1]], labels=["7", "8"], correct=[True, False]))


def test_reversed_numbering_breaks_ties_the_other_way() -> None:
    prep = _tied_pool()
    rev = with_ties_reversed(prep)
    assert rev.group_labels == ["8", "7"] and list(rev.group_correct) == [False, True]
    assert list(rev.final) == [1, 0]
    pol = policy_for_method("offline")
    ours = simulate_question(prep, pol, SETTINGS)
    alt = simulate_question(rev, pol, SETTINGS)
    rows = bootstrap_rows(prep.n, SETTINGS.budget, np.arange(SETTINGS.iterations), 3, 0)
    mixed = np.array([len(set(r.tolist())) == 2 for r in rows])
    assert mixed.any() and (~mixed).any()  # the seed gives both kinds of sample
    # ours: the lowest id ("7") wins a tie; the other way: "8"
    assert [ours.answer_text(i) for i in np.flatnonzero(mixed)] == ["7"] * int(mixed.sum())
    assert [alt.answer_text(i) for i in np.flatnonzero(mixed)] == ["8"] * int(mixed.sum())


def test_tie_check_marks_exactly_the_tied_iterations() -> None:
    prep = _tied_pool()
    chk = tie_check(prep, policy_for_method("offline"), SETTINGS)
    rows = bootstrap_rows(prep.n, SETTINGS.budget, np.arange(SETTINGS.iterations), 3, 0)
    mixed = np.array([len(set(r.tolist())) == 2 for r in rows])
    assert chk.tied.tolist() == mixed.tolist()
    assert chk.n_tied == int(mixed.sum())


def test_no_tie_no_mark() -> None:
    prep = prepare(hand_pool([0, 0, 1], [[0, 0], [0, 0], [1, 1]]))
    chk = tie_check(prep, policy_for_method("sc-pp"), SimSettings(3, 8, 2, 2048, 1))
    # 2:1 or 3:0 samples are never tied; a 1:1 sample cannot occur with budget 3
    assert not chk.tied.any()


def _diff(prep, pol, ref_summary, settings=SETTINGS):  # type: ignore[no-untyped-def]
    ours = pd.DataFrame([question_summary(simulate_question(prep, pol, settings))])
    ref = pd.DataFrame([ref_summary])
    return reference_comparison(ours, ref), ref


def test_a_difference_from_a_tie_is_explained_and_expected() -> None:
    prep = _tied_pool()
    pol = policy_for_method("offline")
    chk = tie_check(prep, pol, SETTINGS)
    # the reference broke every tie the other way: its numbers are our other-way run's
    diff, ref = _diff(prep, pol, chk.alt_summary)
    assert abs(diff["d_accuracy_pct"].iloc[0]) > 1  # a real difference
    out = explain_reference(diff, {0: chk}, ref)
    row = out.iloc[0]
    assert row["status"] == "tie" and bool(row["differs"]) and bool(row["tie_explains"])
    assert row["tied_iterations"] == chk.n_tied
    assert "tie for first place" in row["why"] and "Python set order" in row["why"]


def test_a_difference_no_tie_explains_stays_a_difference() -> None:
    prep = prepare(hand_pool([0, 0, 1], [[0, 0], [0, 0], [1, 1]]))
    pol = policy_for_method("offline")
    odd = SimSettings(budget=3, iterations=16, warmup=2, window=2048, seed=3)  # never 1:1
    chk = tie_check(prep, pol, odd)
    assert chk.n_tied == 0
    summary = dict(chk.alt_summary, accuracy_pct=12.5)
    diff, ref = _diff(prep, pol, summary, odd)
    row = explain_reference(diff, {0: chk}, ref).iloc[0]
    assert row["status"] == "differs" and row["why"] == "not explained by a tie"


def test_equal_rows_are_same_and_gamma_sits_beside_the_reference() -> None:
    prep = _tied_pool()
    pol = policy_for_method("sc-mars-cal", warmup_gamma=True, ucb_z=1.0, gamma_min=0.5)
    chk = tie_check(prep, pol, SETTINGS)
    res = simulate_question(prep, pol, SETTINGS)
    diff, ref = _diff(prep, pol, question_summary(res))
    ref["gamma"] = [0.7]  # a reference that carries its gamma
    row = explain_reference(diff, {0: chk}, ref).iloc[0]
    assert row["status"] == "same" and not bool(row["differs"])
    assert row["gamma"] == res.gamma and row["gamma_ref"] == 0.7
