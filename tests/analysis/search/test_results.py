"""Pages, counts, snippets, queue items and the CLI's JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from analysis.search.corpus import load_corpus
from analysis.search.engine import Filters, python_scan
from analysis.search.query import Query, compile_query
from analysis.search.queue import queue_items
from analysis.search.results import counts, group_by_item, item_hits, page, snippet
from cache.casebook.queue_items import QueueItem
from tests.analysis.search.test_engine import generated

ROOT = Path(__file__).resolve().parents[3]


def test_snippet_keeps_characters_whole() -> None:
    text = "x" * 10 + "e\u0301" + "y" * 5 + "HIT" + "z" * 5 + "𝑥🙂"
    start = text.index("HIT")
    before, hit, after = snippet(text, start, start + 3, context=6)
    assert hit == "HIT"
    assert before == "…e\u0301" + "y" * 5  # moved off the combining accent onto its letter
    assert after == "z" * 5 + "𝑥"[:1] + "…"
    assert snippet("ab", 0, 1) == ("", "a", "b")


def test_pages_follow_the_scan_and_counts_add_up() -> None:
    corpus = generated()
    q = compile_query(Query("proof"))
    want = python_scan(corpus.frame["text"].to_list(), q)
    first, second = page(corpus, q, size=7), page(corpus, q, number=1, size=7)
    got = [(h.row, h.start, h.end) for h in first.hits + second.hits]
    assert got == want[:14] and first.has_more
    assert all(h.match.lower() == "proof" for h in first.hits)
    total = counts(corpus, q)
    assert total.total == len(want) == total.per_item["hits"].sum()
    assert total.per_dataset["hits"].to_list() == [len(want)]
    assert total.per_group["hits"].sum() == len(want)
    assert total.rows == len({r for r, _, _ in want})
    pi = total.per_item
    full = dict(zip(zip(pi["group"], pi["item"], strict=True), pi["hits"], strict=True))
    for (_, file, item), n in item_hits(corpus, q, first.hits).items():
        assert full[(f"g{file[1:]}", item)] == n  # the generated corpus: group g<k> = file f<k>
    grouped = group_by_item(first.hits)
    assert sum(len(hs) for _, hs in grouped) == len(first.hits)


def test_queue_items_one_per_item_at_its_first_hit() -> None:
    corpus = generated()
    hits = page(corpus, compile_query(Query("proof")), size=40).hits
    items = queue_items(hits)
    assert all(isinstance(x, QueueItem) for x in items)
    assert len(items) == len({(h.dataset, h.file, h.item) for h in hits})
    assert items[0].label.startswith(hits[0].label) and items[0].view == hits[0].view


def test_cli_prints_json(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RTE_DB_URL": str(tmp_path / "cb.sqlite")}
    out = subprocess.run(
        [sys.executable, "-m", "analysis", "search", r"\\boxed\{9", "--regex", "--limit", "3"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["query"] == {"text": r"\\boxed\{9", "regex": True, "case_sensitive": False}
    assert doc["total_hits"] == sum(d["hits"] for d in doc["per_dataset"]) > 0
    assert doc["too_slow"] is None
    assert len(doc["hits"]) == 3
    hit = doc["hits"][0]
    assert hit["match"].startswith("\\boxed{9")
    assert {"dataset", "view", "query", "keys", "before", "after", "start", "end"} <= set(hit)
    bad = subprocess.run(
        [sys.executable, "-m", "analysis", "search", "(", "--regex"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert bad.returncode == 2 and "Not a valid regular expression" in bad.stderr


def test_an_items_count_under_the_correctness_filter_counts_only_the_texts_it_lists() -> None:
    """An item's header counts the hits the filters keep (a MARS trace's right probes are not
    listed under "wrong", so they are not counted in its header either)."""
    corpus = load_corpus()
    q = compile_query(Query("double-check"))
    wrong = Filters(datasets=("mars",), correct=False)  # a trace's texts differ in correctness
    shown = page(corpus, q, wrong, size=60).hits
    full = counts(corpus, q, wrong).per_item
    keys = zip(full["dataset"], full["group"], full["item"], strict=True)
    want = dict(zip(keys, full["hits"], strict=True))
    group = {(h.dataset, h.file, h.item): h.group for h in shown}
    got = item_hits(corpus, q, shown, wrong)
    assert got and all(want[(k[0], group[k], k[2])] == n for k, n in got.items())
    assert got != item_hits(corpus, q, shown)  # unfiltered, some item counts its right texts
