"""Answer grouping: normaliser, exact keys, math-verify equivalence, stable ids, correctness."""

from __future__ import annotations

import threading

import numpy as np

from analysis.mars import answers, verify_shortcuts
from analysis.mars.answers import AnswerGrouper, answer_key, equivalent, normalize
from analysis.mars.question_groups import GroupSummary


def test_normalize_strips_formatting() -> None:
    assert normalize("\\boxed{ \\dfrac{1}{9} }") == "\\frac{1}{9}"
    assert normalize("$\\left( 3 \\right)$.") == "(3)"
    assert normalize("x = 12") == "12"
    assert normalize("90^\\circ") == "90"
    assert normalize("1,000") == "1000"
    assert normalize("   ") is None
    assert normalize(None) is None
    assert normalize("{42}") == "42"


def test_answer_keys_exact_rationals() -> None:
    assert answer_key("042") == answer_key("42") == "n:42/1"
    assert answer_key("\\frac{2}{4}") == answer_key("1/2") == answer_key("0.5") == "n:1/2"
    assert answer_key("\\frac12") == "n:1/2"
    assert answer_key("x" * 500).startswith("t:")


def test_math_verify_equivalence_of_latex() -> None:
    assert equivalent("8\\sqrt{2}", "\\sqrt{128}")
    assert equivalent("\\frac{\\pi}{4}", "\\pi/4")
    assert not equivalent("2^{99}", "2^{98}")
    assert not equivalent("1/3", "0.333333333")  # distinct exact rationals


def test_group_ids_in_order_of_first_appearance_and_correctness() -> None:
    g = AnswerGrouper("\\frac{1}{9}")
    ids = g.add_many(["17", "1/9", None, "\\dfrac{1}{9}", "", "17.", "\\boxed{\\frac19}", "?"])
    assert ids.tolist() == [0, 1, -1, 1, -1, 0, 1, 2]
    assert g.labels == ["17", "1/9", "?"]
    assert g.group_correct.tolist() == [False, True, False]
    summary = GroupSummary.of(g)
    assert summary.correct_of(np.array([-1, 1, 2])).tolist() == [False, True, False]
    assert summary.n_groups == 3


def test_an_answer_the_normaliser_empties_is_an_answer_of_its_own() -> None:
    """A probe cut after `n=` (or a lone `.`) normalises to nothing, but the published simulator
    counts every answer but null and "": its own group, equal only to itself, never correct."""
    g = AnswerGrouper("2")
    ids = g.add_many(["n=", "2", "n=", "x=", ".", "", None, "n=2", "  "])
    assert ids.tolist() == [0, 1, 0, 2, 3, -1, -1, 1, 4]
    assert g.labels == ["n=", "2", "x=", ".", "(blank)"]
    assert g.group_correct.tolist() == [False, True, False, False, False]


def test_deterministic_across_runs() -> None:
    answers = ["5", "2^{99}", "garbage text", "5", "\\sqrt{3}", "2^{99}", "\\sqrt3"]
    a = AnswerGrouper("2^{99}").add_many(answers).tolist()
    b = AnswerGrouper("2^{99}").add_many(answers).tolist()
    assert a == b == [0, 1, 2, 0, 3, 1, 3]


def test_long_text_span_is_its_own_wrong_group() -> None:
    span = "we consider the symmetric case first and then " * 10
    g = AnswerGrouper(span)  # even a long ground truth never matches a text span
    i = g.add(span)
    assert i == 0 and not g.group_correct[0] and 0 in g.long_groups
    assert len(g.labels[0]) <= 80


def test_works_off_the_main_thread() -> None:
    """math-verify's signal timeouts fail in threads; we must fall back, not crash."""
    out: dict[str, object] = {}

    def run() -> None:
        g = AnswerGrouper("\\frac{\\sqrt{3}}{2}")
        out["ids"] = g.add_many(["\\sqrt{3}/2", "\\frac{\\sqrt3}{2}", "1"]).tolist()
        out["ok"] = g.group_correct.tolist()

    t = threading.Thread(target=run)
    t.start()
    t.join(60)
    assert out["ids"] == [0, 0, 1]
    assert out["ok"] == [True, False]


def test_math_verify_caches_are_bounded() -> None:
    """The parse/verify caches outlive a question (they are pure functions of the strings), so
    they must have a size limit."""
    for cached in (answers._parse, answers._verified):
        info = cached.cache_info()
        assert info.maxsize is not None and info.maxsize <= 100_000
    assert equivalent("\\frac{1}{2}", "0.5") == equivalent("0.5", "\\frac{1}{2}")


def _groups_of(answers_: list[str], ids: np.ndarray) -> set[frozenset[str]]:
    members: dict[int, set[str]] = {}
    for a, i in zip(answers_, ids.tolist(), strict=True):
        members.setdefault(i, set()).add(a)
    return {frozenset(v) for v in members.values()}


def test_prose_never_reaches_math_verify() -> None:
    """Probe garbage (prose with its spaces stripped) against numbers or other prose is decided
    without math-verify: no verify call, no parse."""
    assert answers.is_prose("Letmere-examinetheproblemstatement")
    assert answers.is_prose("Wait,let'scheck")
    assert not answers.is_prose("n=1weget3")  # math-verify reads part of it as maths
    assert not answers.is_prose("\\sqrt{3}") and not answers.is_prose("\\arctan(x)+\\sin x")
    before = answers._verified.cache_info()
    parsed = answers._parse.cache_info()
    g = AnswerGrouper("116")
    g.add_many(["116", "Letmere-examinetheproblemstatement", "Thesumofthe(roots)", "117"])
    assert g.n_groups == 4
    assert answers._verified.cache_info().misses == before.misses
    assert answers._parse.cache_info().misses == parsed.misses


def test_cheap_rejection_groups_realistic_garbage_as_math_verify_does() -> None:
    """The shortcut must not change a single group: the same answers grouped with every
    comparison sent to math-verify (cheap_reject=False) give the same ids, labels and
    correctness. A slice of the realistic garbage list keeps the full path to a few seconds."""
    from cache.sample.mars import realistic_garbage

    junk = realistic_garbage()[::4]
    assert sum(answers.is_prose(normalize(s) or "") for s in junk) >= 30
    stream = ["116", "\\frac{1}{9}", "117", "1/9", "2^{99}", "\\sqrt{3}", *junk, "116"]
    stream += junk[::-1]
    for gt in ("116", "\\frac{1}{9}"):
        cheap, full = AnswerGrouper(gt), AnswerGrouper(gt, cheap_reject=False)
        ids_c, ids_f = cheap.add_many(stream), full.add_many(stream)
        assert ids_c.tolist() == ids_f.tolist()
        assert cheap.labels == full.labels
        assert cheap.group_correct.tolist() == full.group_correct.tolist()
        assert _groups_of(stream, ids_c) == _groups_of(stream, ids_f)


def test_label_is_the_most_common_member() -> None:
    """A rare spelling that came first does not name the group: `116`, not full-width `１１６`."""
    g = AnswerGrouper("116")
    ids = g.add_many(["１１６", "116", "7", "116", "\\boxed{116}", "７"])
    assert ids.tolist() == [0, 0, 1, 0, 0, 1]
    assert g.labels == ["116", "7"]  # 7 vs ７: one each, the first seen wins the tie


def test_math_verify_log_notices_are_silenced(caplog) -> None:
    """Off the main thread timeouts are off on purpose; math-verify's warning about it (and
    its per-timeout notices) must not reach the terminal."""
    import logging

    from math_verify import grader, parser

    grader.TIMEOUT_WARNING_SHOWN = parser.TIMEOUT_WARNING_SHOWN = False
    answers._parse.cache_clear()
    answers._verified.cache_clear()
    answers._fingerprint.cache_clear()

    def run() -> None:
        equivalent("\\sqrt{2}+1", "1+\\sqrt{2}")

    with caplog.at_level(logging.WARNING):
        t = threading.Thread(target=run)
        t.start()
        t.join(60)
    assert not [r for r in caplog.records if r.name.startswith("math_verify")]


# math-verify shortcuts (`analysis.mars.verify_shortcuts`): no verdict may change

_SHORTCUT_PAIRS = [
    # plainly different values: decided without sympy simplify
    ("117", "x^2+1"),
    ("276", "1we"),
    ("\\frac{a}{b}", "a+b"),
    ("\\binom{n}{2}", "2^{n}-1"),
    ("2", "n(n+1)/2"),
    ("279", "e^{i\\pi}"),  # non-real `i`: evaluated at a non-real point
    # equal ones must stay equal (values agree, so math-verify's own tests run)
    ("1weget3", "weget3"),
    ("\\binom{n}{2}", "\\frac{n(n-1)}{2}"),
    ("(x+1)^2", "x^2+2x+1"),
    ("2\\sqrt{2}", "\\sqrt{8}"),
    ("0.5", "\\frac{1}{2}"),
    ("2", "=2needsseparatetreatment"),  # math-verify compares the right-hand side
    # equations, sets, intervals: their own rules, with memoised solve and checked sides
    ("cases:forn=1weget3", "forn=1weget3"),
    ("thecasen=2", "casen=2needsseparate"),
    ("x=\\frac{-b}{2a}", "\\frac{-b}{2a}"),
    ("\\{1,2,3\\}", "\\{3,2,1\\}"),
    ("(1,2)", "\\{1,2\\}"),
    ("e^{i\\pi}", "-1"),
    ("e^{i\\pi}", "e^{\\pi i}"),
    ("i^2", "-1"),
    ("i(i+1)", "i^2+i"),
    ("\\{i,2\\}", "\\{2,i\\}"),
    ("\\{i,2\\}", "\\{2,3\\}"),
    ("x", "x+0"),
    ("\\{1,2,3\\}", "x^2+1"),
    ("\\{1,2,3\\}", "\\{1,2,4\\}"),
    ("\\{\\sqrt{4},1\\}", "\\{1,2\\}"),
    ("(1,2)", "117"),
    ("(1,2)", "\\{1,2,3\\}"),
    ("[0,1]", "\\{0,1\\}"),
    ("563", "Wait,thecasen=2needsseparate"),  # a set holding an equation, against a number
    ("2", "\\{2,x=2\\}"),
    ("x=2", "\\{2,x=2\\}"),
    ("\\{1,2\\}", "(1,2,3)"),
    ("\\{1,x\\}", "\\{y=1,x\\}"),  # same size: left to math-verify
]


def _mv_verdicts(pairs: list[tuple[str, str]], fast: bool) -> list[bool]:
    mv = answers._math_verify()
    old = answers.FAST_VERIFY
    answers.FAST_VERIFY = fast
    try:
        out = []
        for a, b in pairs:
            pa, pb = answers._parse(a), answers._parse(b)
            out.append(bool(mv.verify(pa, pb, timeout_seconds=None)))
            out.append(bool(mv.verify(pb, pa, timeout_seconds=None)))
        return out
    finally:
        answers.FAST_VERIFY = old


def test_math_verify_shortcuts_change_no_verdict() -> None:
    """Every pair, both ways round, gets the verdict math-verify gives without the shortcuts
    (the equal pairs among them stay equal)."""
    fast = _mv_verdicts(_SHORTCUT_PAIRS, True)
    assert fast == _mv_verdicts(_SHORTCUT_PAIRS, False)
    assert fast[12] and fast[14] and fast[16] and fast[22]  # 1weget3, binom, (x+1)^2, 2


def test_plainly_different_values_never_reach_simplify(monkeypatch) -> None:
    """A number against a product of prose letters, or two formulas with different values at a
    real point (a non-real one for the non-real `i` of `e^{i\\pi}`), is False without sympy
    `simplify` (it cost ~7-90 ms a pair, every one False)."""
    from math_verify import grader

    answers._math_verify()
    calls: list[object] = []
    real = grader.simplify
    monkeypatch.setattr(grader, "simplify", lambda e, *a, **k: calls.append(e) or real(e, *a, **k))
    assert _mv_verdicts(_SHORTCUT_PAIRS[:6], True) == [False] * 12
    assert calls == []


def test_solve_runs_once_per_equation() -> None:
    """Comparing equations solves each one once (remembered), not once per pair it is in."""
    answers._math_verify()
    verify_shortcuts._SOLVED.clear()
    eqs = ["cases:forn=1weget3", "forn=1weget3", "thecasen=2"]
    pairs = [(a, b) for a in eqs for b in eqs if a != b]
    _mv_verdicts(pairs, True)
    solved = {f for f, _ in verify_shortcuts._SOLVED}
    assert solved == {answers._parse(e)[0] for e in eqs}
    assert len(verify_shortcuts._SOLVED) == len(eqs)


def test_grouping_identical_with_and_without_shortcuts() -> None:
    """Realistic probe garbage (every symbolic string of it) grouped with the shortcuts and
    with math-verify alone: the same ids, labels and correctness."""
    from cache.sample.mars import realistic_garbage

    junk = [s for s in realistic_garbage() if not answers._cheap_only(normalize(s) or "?")]
    stream = ["116", "\\frac{1}{9}", "2", "1weget3", *junk[:24], "116", *junk[:24][::-1]]
    results = []
    for fast in (True, False):
        answers._verified.cache_clear()
        answers.FAST_VERIFY = fast
        try:
            g = AnswerGrouper("2")
            results.append((g.add_many(stream).tolist(), g.labels, g.group_correct.tolist()))
        finally:
            answers.FAST_VERIFY = True
            answers._verified.cache_clear()
    assert results[0] == results[1]
    ids = results[0][0]
    assert ids.count(ids[2]) >= 2  # math-verify puts `=2a_n+1`-like garbage with `2`


def test_sets_of_other_values_are_decided_without_math_verify() -> None:
    """A finite set against a formula or a set of other values, an open interval against a
    number, sets of different sizes where only one holds an equation: decided by `_sets_differ`;
    equal sets, and equations against sets of the same size, are left to math-verify."""
    answers._math_verify()

    def parsed(s: str) -> object:
        return answers._parse(s)[0]

    assert verify_shortcuts._sets_differ(parsed("\\{1,2,3\\}"), parsed("x^2+1"))
    assert verify_shortcuts._sets_differ(parsed("\\{1,2,3\\}"), parsed("\\{1,2,4\\}"))
    assert verify_shortcuts._sets_differ(parsed("(1,2)"), parsed("117"))
    # sizes differ: an equation (prose with `=`) is no number, a tuple no set
    assert verify_shortcuts._sets_differ(parsed("563"), parsed("Wait,thecasen=2needs"))
    assert verify_shortcuts._sets_differ(parsed("\\{1,2\\}"), parsed("(1,2,3)"))
    assert not verify_shortcuts._sets_differ(parsed("\\{1,x\\}"), parsed("\\{y=1,x\\}"))
    assert not verify_shortcuts._sets_differ(parsed("\\{3,2,1\\}"), parsed("\\{1,2,3\\}"))
    assert not verify_shortcuts._sets_differ(
        parsed("(1,2)"), parsed("\\{1,2\\}")
    )  # ends vs elements


def _prose(k: int) -> list[str]:
    """k distinct prose fragments (probe garbage): non-numeric, decided without math-verify."""
    return [f"Letmecheckcase{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(k)]


def test_published_cap_counts_distinct_non_numeric_answers() -> None:
    """The published simulator's `max_symbolic_pairwise`: over 50 distinct answers without a
    numeric value, no pairwise comparison. Numbers and numeric LaTeX do not count, nor do null,
    "" or a repeat; prose, bare words, symbolic maths and an emptied `n=` do."""
    numeric = ["116", "1/9", "2^{10}", "\\sqrt{2}", "\\frac{\\pi}{6}", None, ""]
    assert answers.compares_symbolic([*numeric, *_prose(50), *_prose(50)])
    assert not answers.compares_symbolic([*numeric, *_prose(51)])
    assert answers.compares_symbolic([*_prose(48), "a+b"])
    assert not answers.compares_symbolic([*_prose(48), "a+b", "x^2+1", "n="])
    # each distinct raw string counts, as there (both spell the same prose)
    assert not answers.compares_symbolic([*_prose(50), "Wait, the case", "Wait,thecase"])


def test_over_the_cap_symbolic_answers_stay_apart_but_numbers_and_truth_still_match() -> None:
    """Over the cap `a b^{-1}` and `\\frac{a}{b}` stay two groups (the published simulator keeps each
    non-numeric string its own); numeric values still merge (`2^{10}` is `1024`) and an answer
    equal to the ground truth is still correct."""
    stream = ["1024", "\\frac{a}{b}", "a b^{-1}", "2^{10}", "b+a", "a+b", *_prose(60)]
    assert not answers.compares_symbolic(stream)
    both = {}
    for pairwise in (True, False):
        g = AnswerGrouper("a+b", symbolic_pairwise=pairwise)
        ids = g.add_many(stream).tolist()
        both[pairwise] = ids
        assert ids[3] == ids[0]  # numeric value: merged either way
        assert g.group_correct[ids[4]] and g.group_correct[ids[5]]
    assert both[True][2] == both[True][1] and both[True][5] == both[True][4]
    assert both[False][2] != both[False][1] and both[False][5] != both[False][4]
    assert len(set(both[False])) == len(set(both[True])) + 2
