"""The search against a plain Python scan of the same texts, hit for hit: on the bundled sample's
stored text tables and on a generated corpus with hand-placed phrases (regex specials,
non-ASCII, astral-plane characters, HTML)."""

from __future__ import annotations

import random
import re
import string
import time
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from analysis.search import engine
from analysis.search.corpus import Corpus, assemble, builder, builders, load_corpus
from analysis.search.engine import NO_FILTERS, Filters, python_scan, scan
from analysis.search.query import (
    Query,
    QueryError,
    char_class,
    compile_query,
    required_literal,
)
from analysis.search.results import counts, item_hits, no_correctness, page
from cache.casebook.model import Case
from cache.sources import SourceConfig
from cache.text_tables import TextRows

PHRASES = [
    "a+b (c)?",
    "$x^2$",
    "\\boxed{",
    "Straße",
    "caf\u00e9",  # é precomposed
    "cafe\u0301",  # é as e + combining acute
    "𝑥",
    "🙂",
    "<script>alert(1)</script>",
    "&amp;",
    "\u212aelvin",  # Kelvin sign: matches "k" when case is ignored
    "STRASSE",
]
PLAIN = [*PHRASES, "straße", "CAFÉ", "kelvin", "ALERT(1)", "x^2", " ", "\n"]
REGEX = [
    r"\\boxed\{(\d+)\}",
    r"a\+b \(c\)\?",
    r"^The",
    r"end$",
    r"(?<=\$)x\^2(?=\$)",
    r"\bcaf\w+",
    r"(\w)\1",
    r"[𝑥🙂]+",
    r"<script>.*?</script>",
    r"stra(ß|ss)e",
    r"(?i)STRASSE",
    r"x*",  # empty matches everywhere
    r"[^\x00]{3}",
]


def _texts(n: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    words = ["The", "proof", "end", "value", "caf", "ab", "x", "= 2", "\n", "aa", "ÉCOLE"]
    out = []
    for _ in range(n):
        parts = [rnd.choice(words) for _ in range(rnd.randint(0, 30))]
        for _ in range(rnd.randint(0, 3)):
            parts.insert(rnd.randint(0, len(parts)), rnd.choice(PHRASES))
        out.append(" ".join(parts) if rnd.random() > 0.05 else "")
    return out


def generated(n: int = 600, seed: int = 7) -> Corpus:
    rows = TextRows()
    for i, text in enumerate(_texts(n, seed)):
        rows.add(
            file=f"f{i % 3}",
            group=f"g{i % 3}",
            item=f"item{i // 4}",
            label=f"item {i // 4}",
            field="text",
            text=text,
            view="home",
            query={},
            keys={},
            correct=[True, False, None][i % 3],
        )
    frame = pl.from_arrow(rows.table()).with_columns(pl.lit(["a", "b"][seed % 2]).alias("dataset"))
    return Corpus(assemble([frame]), {"a": "A", "b": "B"}, {})


def _hits(corpus: Corpus, q: Query, filters: Filters = NO_FILTERS) -> list[tuple[int, int, int]]:
    found = scan(corpus, compile_query(q), filters)
    assert not found.timed_out
    return list(zip(found.rows, found.starts, found.ends, strict=True))


@pytest.mark.parametrize("case", [False, True])
@pytest.mark.parametrize("chunk", [97, 20_000])
def test_generated_corpus_hit_for_hit(case: bool, chunk: int, monkeypatch) -> None:
    monkeypatch.setattr(engine, "CHUNK", chunk)  # row slices end mid-corpus too
    monkeypatch.setattr(engine, "NARROW_CHUNK", chunk * 3 + 1)
    corpus = generated()
    texts = corpus.frame["text"].to_list()
    for text, regex in [(p, False) for p in PLAIN] + [(r, True) for r in REGEX]:
        q = Query(text, regex=regex, case_sensitive=case)
        want = python_scan(texts, compile_query(q))
        assert _hits(corpus, q) == want, (text, regex, case)


def test_the_phrases_are_found_where_placed() -> None:
    corpus = generated()
    texts = corpus.frame["text"].to_list()
    for phrase in PHRASES:
        hits = _hits(corpus, Query(phrase, case_sensitive=True))
        assert len(hits) == sum(t.count(phrase) for t in texts) > 0, phrase
        for row, start, end in hits:
            assert texts[row][start:end] == phrase
    # case ignored: the Kelvin sign and "K" are one letter to `re`, as to the scan
    kelvin = _hits(corpus, Query("kelvin"))
    assert kelvin and all(texts[r][s] == "\u212a" for r, s, _ in kelvin)


def test_filters_keep_only_their_rows() -> None:
    corpus = generated()
    frame = corpus.frame
    q = Query("proof")
    for filters in (Filters(groups=("g1",)), Filters(correct=False), Filters(datasets=("zz",))):
        kept = filters.apply(frame)
        texts = kept["text"].to_list()
        rows = kept["row"].to_list()
        want = [(rows[i], s, e) for i, s, e in python_scan(texts, compile_query(q))]
        assert _hits(corpus, q, filters) == want


def test_a_first_page_stops_at_its_limit() -> None:
    corpus = generated()
    compiled = compile_query(Query("proof"))
    every = scan(corpus, compiled)
    first = scan(corpus, compiled, limit=5)
    assert len(first) == 5 and first.stopped
    assert first.rows == every.rows[:5] and first.starts == every.starts[:5]


def test_literal_narrowing_is_exact_only() -> None:
    def lit(pattern: str, flags: int = 0) -> str | None:
        return compile_query(
            Query(pattern, regex=True, case_sensitive=not flags & re.IGNORECASE)
        ).literal

    assert lit(r"\\boxed\{") == "\\boxed{"
    assert lit(r"\\boxed\{", re.IGNORECASE) is None  # `\` and `{` alone are too short
    assert lit(r"x\^2\$ = 10", re.IGNORECASE) == "^2$ = 10"
    assert lit(r"ab|cd") is None  # a branch: neither side is required
    assert lit(r"(?i)abc") is None  # an inline flag counts
    assert compile_query(Query("Straße")).literal is None
    assert compile_query(Query("Straße", case_sensitive=True)).literal == "Straße"
    assert required_literal([], False) is None


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "Type a word"),
        (
            "(unclosed",
            "Not a valid regular expression: missing ), unterminated subpattern at position 0",
        ),
        ("a{2,1}", "Not a valid regular expression"),
        ("(a+)+$", "nests unbounded repeats"),
        ("(?:a*b?)*c", "nests unbounded repeats"),
        ("x" * 1001, "at most 1,000"),
    ],
)
def test_bad_queries_say_why(text: str, says: str) -> None:
    with pytest.raises(QueryError, match=re.escape(says)):
        compile_query(Query(text, regex=True))


def test_plain_text_is_never_a_pattern() -> None:
    assert compile_query(Query("(unclosed", case_sensitive=True)).literal == "(unclosed"
    assert compile_query(Query("(unclosed")).pattern.pattern == re.escape("(unclosed")


@pytest.fixture(scope="module")
def sample_corpus(sample_root: Path) -> tuple[Corpus, list[str]]:
    """The sample's corpus, and the texts of its stored tables read straight from the files."""
    sources = {name: SourceConfig() for name in builders()}
    case = Case(id="c1", dataset="mars", view="mars", title="Boxed 𝑥 <b>", note="see \\boxed{")
    corpus = load_corpus(sources, cases=[case])
    texts = []
    for name in builders():
        for path in builder(builders()[name])(SourceConfig()):
            texts.extend(pq.read_table(path, columns=["text"])["text"].to_pylist())
    texts.extend(["Boxed 𝑥 <b>", "see \\boxed{"])
    return corpus, texts


QUERIES = [
    Query("boxed"),
    Query("\\boxed{", case_sensitive=True),
    Query("the answer"),
    Query(r"\\boxed\{(\d+)\}", regex=True),
    Query(r"^\s*So\b", regex=True, case_sensitive=True),
    Query(r"(?<=\d)\s*\+\s*(?=\d)", regex=True),
    Query("𝑛"),
    Query("<here>"),
]


@pytest.mark.parametrize("q", QUERIES, ids=lambda q: f"{q.text}|{q.regex}|{q.case_sensitive}")
def test_sample_hit_for_hit(sample_corpus: tuple[Corpus, list[str]], q: Query) -> None:
    corpus, texts = sample_corpus
    assert corpus.frame["text"].to_list() == texts
    want = python_scan(texts, compile_query(q))
    assert _hits(corpus, q) == want


def test_the_sample_has_hits_in_every_dataset_and_the_casebook(
    sample_corpus: tuple[Corpus, list[str]],
) -> None:
    corpus, _ = sample_corpus
    found = scan(corpus, compile_query(Query("boxed")))
    hit_datasets = set(corpus.frame["dataset"].gather(found.rows).to_list())
    assert {"parason", "mars", "casebook"} <= hit_datasets
    found = scan(corpus, compile_query(Query("𝑛")))
    assert "fineproofs" in set(corpus.frame["dataset"].gather(found.rows).to_list())


@pytest.mark.parametrize("case", [False, True])
def test_counts_per_row_equal_the_python_scan(case: bool) -> None:
    corpus = generated(seed=11)
    texts = corpus.frame["text"].to_list()
    for text, regex in [(p, False) for p in PLAIN] + [(r, True) for r in REGEX[:4]]:
        compiled = compile_query(Query(text, regex=regex, case_sensitive=case))
        want: dict[int, int] = {}
        for row, _, _ in python_scan(texts, compiled):
            want[row] = want.get(row, 0) + 1
        got = counts(corpus, compiled)
        assert got.total == sum(want.values()), (text, regex, case)
        assert got.rows == len(want)
        pi = got.per_item
        by_item = dict(zip(zip(pi["group"], pi["item"], strict=True), pi["hits"], strict=True))
        items = list(zip(corpus.frame["group"], corpus.frame["item"], strict=True))
        expect: dict[tuple[str, str], int] = {}
        for row, n in want.items():
            expect[items[row]] = expect.get(items[row], 0) + n
        assert by_item == expect, (text, regex, case)


# characters whose case classes are irregular: sharp s, long s, dotted/dotless i, final sigma,
# Kelvin and Angstrom signs, micro sign, a titlecase digraph, a ligature, Deseret (astral)
ODD = "aksßſİıσςΣKÅµǅﬀΐẞ\U00010400\U00010428"


def test_a_char_class_is_what_re_matches_under_ignorecase() -> None:
    every = [chr(x) for x in range(0x110000) if not 0xD800 <= x <= 0xDFFF]
    bmp = every[:0xD800]
    for ch in ODD + string.ascii_letters[:6] + "1{":
        rx = re.compile(re.escape(ch), re.IGNORECASE)
        pool = every if ch in ODD[-4:] else bmp
        want = [ord(x) for x in pool if rx.fullmatch(x)]
        got = [c for c in char_class(ch) if c <= ord(pool[-1])]
        assert got == want, ch


def test_a_count_past_its_time_limit_stops_and_says_so(monkeypatch) -> None:
    monkeypatch.setattr(engine, "CHUNK", 97)
    monkeypatch.setattr(engine, "NARROW_CHUNK", 97)
    corpus = generated()
    q = compile_query(Query("e"))
    whole = scan(corpus, q)
    cut = scan(corpus, q, time_limit=-1.0)  # the deadline has passed before the first slice ends
    assert not whole.timed_out and cut.timed_out
    assert cut.scanned_rows < whole.scanned_rows and len(cut.rows) < len(whole.rows)
    assert cut.rows == whole.rows[: len(cut.rows)]  # what it found is the start of the whole


@pytest.mark.parametrize("ok", [True, False])
def test_the_correctness_filter_hit_for_hit_and_what_it_leaves_out(ok: bool) -> None:
    corpus = generated(seed=5)
    frame = corpus.frame
    filters = Filters(correct=ok)
    for text, regex in [("proof", False), ("𝑥", False), (r"\bcaf\w+", True), (r"^The", True)]:
        q = Query(text, regex=regex)
        kept = [
            (r, t) for r, t, c in zip(frame["row"], frame["text"], frame["correct"], strict=True)
            if c is ok
        ]  # fmt: skip
        scanned = python_scan([t for _, t in kept], compile_query(q))
        assert _hits(corpus, q, filters) == [(kept[i][0], s, e) for i, s, e in scanned], text
    # the rows without a correctness, counted by hand: per dataset, items with such a row
    some: dict[str, set[tuple[str, str]]] = {}
    every: dict[str, dict[tuple[str, str], bool]] = {}
    cols = (frame["dataset"], frame["file"], frame["item"], frame["correct"])
    for d, file, item, c in zip(*cols, strict=True):
        every.setdefault(d, {}).setdefault((file, item), True)
        if c is None:
            some.setdefault(d, set()).add((file, item))
        else:
            every[d][(file, item)] = False
    out = no_correctness(corpus, filters)
    assert set(out) == set(some) and out
    for d, left in out.items():
        assert left.items == len(some[d])
        assert left.whole == sum(every[d].values())
        assert left.fields == ("text",)
    assert no_correctness(corpus, NO_FILTERS) == {}


def _pathological(n_before: int = 40) -> Corpus:
    """Rows with ordinary hits, then one long row on which `(a|aa)+$` backtracks for ever (the
    alternation's parts overlap, so a run of a's splits in exponentially many ways), then more."""
    texts = [f"row {i}: aa" for i in range(n_before)] + ["a" * 80 + "!", "after: aa"]
    rows = TextRows()
    for i, text in enumerate(texts):
        rows.add(
            file="f", group="g", item=f"item{i}", label=f"item {i}", field="note", text=text,
            view="home", query={}, keys={},
        )  # fmt: skip
    frame = pl.DataFrame(pl.from_arrow(rows.table())).with_columns(pl.lit("a").alias("dataset"))
    return Corpus(assemble([frame]), {"a": "Dataset A"}, {})


@pytest.mark.parametrize("pattern", [r"(a|aa)+$", r"(a|a)*b"])
def test_a_catastrophic_regex_is_stopped_on_its_row(pattern: str) -> None:
    corpus = _pathological()
    compiled = compile_query(Query(pattern, regex=True))  # the nesting guard lets it through
    texts = corpus.frame["text"].to_list()
    t = time.monotonic()
    found = scan(corpus, compiled, time_limit=1.0)
    assert time.monotonic() - t < 5.0
    assert found.timed_out and found.stuck_row == 40
    # what it found before that row is exactly `re`'s
    assert list(zip(found.rows, found.starts, found.ends, strict=True)) == python_scan(
        texts[:40], compiled
    )
    t = time.monotonic()
    shown = page(corpus, compiled, size=5, time_limit=1.0)  # a first page stops at 6 hits
    if pattern.endswith("$"):  # hits in the rows before: the page is full before the row
        assert shown.stuck is None and len(shown.hits) == 5
    else:  # no hit before it: the page stops on it, and says so
        assert shown.stuck is not None and not shown.hits
    total = counts(corpus, compiled, time_limit=1.0)
    assert total.timed_out and total.stuck is not None
    message = total.stuck.message()
    assert "took too long on Dataset A · item 40 (note, 81 characters)" in message
    assert "Try a pattern" in message and "(a|aa)+" in message
    assert time.monotonic() - t < 8.0
    # the killed worker is replaced: the next search runs, hit for hit
    q = compile_query(Query(r"a+$", regex=True))
    assert _hits(corpus, Query(r"a+$", regex=True)) == python_scan(texts, q)


def test_a_page_names_the_row_it_was_stopped_on() -> None:
    corpus = _pathological(n_before=3)
    compiled = compile_query(Query(r"(a|aa)+$", regex=True))
    t = time.monotonic()
    shown = page(corpus, compiled, size=25, time_limit=1.0)
    assert time.monotonic() - t < 5.0
    assert shown.timed_out and shown.stuck is not None and shown.stuck.label == "item 3"
    assert [h.row for h in shown.hits] == [0, 1, 2]  # the hits before it
    assert item_hits(corpus, compiled, shown.hits, time_limit=1.0) == {
        ("a", "f", f"item{i}"): 1 for i in range(3)
    }
