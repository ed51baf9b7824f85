"""AppTest of /lenses: every lens with its rule and count (figures computed here from the
sample's tables with the lenses' own functions), a deep link to one lens with its items and
their links, a file chosen by the URL, casebook marks, and a toy dataset's lens appearing once
its dataset is registered (the view names no dataset)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from cache.casebook.model import make_case
from cache.casebook.store import open_store
from cache.datasets import DatasetInfo, ViewInfo, registered
from cache.lenses import DatasetLenses, Lens, declared, run
from cache.sample.mars import write_file
from cache.sources import default_source, resolve_file
from tests.pages.conftest import run_page
from tests.pages.controls import chosen, light_select

MARS_FILE = "DeepSeek-8B/aime25_deepseek.parquet"
OTHER_FILE = "Qwen3-32B/hmmt.parquet"


def _found(lens_id: str, part: str | None = None) -> tuple[pl.DataFrame, int]:
    """A lens run straight on the sample's tables, outside the app."""
    for name, kit in declared().items():
        for lens in kit.lenses:
            if lens.id == lens_id:
                part = part or kit.parts[0]
                paths = [resolve_file(name, f, default_source(name)) for f in kit.files(part)]
                return run(lens, kit.load(paths, part, None))
    raise KeyError(lens_id)


def _html(at: AppTest) -> list[str]:
    return [h.proto.body for h in at.get("html")]


def _items_table(at: AppTest) -> str:
    return next(h for h in _html(at) if "rte-lens-items" in h)


def test_the_overview_lists_every_lens_with_its_rule_and_count(sample_root: Path) -> None:
    at = run_page("pages/lenses.py")
    assert not at.exception and not at.error
    table = next(h for h in _html(at) if "rte-lenses" in h)
    for kit in declared().values():
        for lens in kit.lenses:
            items, n = _found(lens.id)
            assert lens.title in table
            assert lens.rule.replace("'", "&#x27;") in table
            assert f"<b class='rte-lens-count'>{items.height:,}</b>" in table
            assert f"of {n:,} {lens.of}" in table
            assert items.height > 0, f"{lens.id} finds nothing on the sample"
    assert "Choose a lens (or click its name) to list its items." in [c.value for c in at.caption]


def test_a_deep_link_opens_the_lens_with_its_items_and_their_links(sample_root: Path) -> None:
    items, n = _found("mars-confidently-wrong")
    at = run_page("pages/lenses.py", lens="mars-confidently-wrong")
    assert not at.exception and not at.error
    assert chosen(at, "lens") == "mars-confidently-wrong"
    assert light_select(at, "Lens").shown == "MARS · Confidently wrong traces"
    assert f"**{items.height:,}** found of {n:,} traces" in "\n".join(m.value for m in at.markdown)
    rows = re.findall(r"<tr class='rte-lens-item'>(.*?)</tr>", _items_table(at))
    assert len(rows) == items.height
    first = items.row(0, named=True)
    href = (
        f"mars?view=Single+trace&amp;file={MARS_FILE}&amp;qid={first['qid']}"
        f"&amp;trace={first['trace_idx']}"
    )
    assert f"href='{href}'" in rows[0] and first["label"] in rows[0]


def test_the_url_picks_the_file_a_lens_runs_on(sample_root: Path) -> None:
    items, n = _found("mars-late-flips", OTHER_FILE)
    at = run_page("pages/lenses.py", lens="mars-late-flips", file=OTHER_FILE)
    assert not at.exception and not at.error
    assert chosen(at, "file") == OTHER_FILE
    text = "\n".join(m.value for m in at.markdown)
    assert f"**{items.height:,}** found of {n:,} traces in Qwen3\\-32B · HMMT" in text
    assert f"of {items.height:,}" in light_select(at, "Rows").options[0]  # paged by 200


def test_an_item_with_a_case_is_marked(sample_root: Path, db: str) -> None:
    items, _n = _found("fineproofs-bimodal")
    first = items.row(0, named=True)
    item = {
        "problem": first["problem_id"],
        "sample": str(first["sample_index"]),
        "prefix": str(first["ordinal"]),
        "step": "3",  # a case on the step names more than the lens's item
    }
    open_store(db).add(make_case("fineproofs", "fineproofs", item=item, title="bimodal"))
    at = run_page("pages/lenses.py", lens="fineproofs-bimodal")
    assert not at.exception and not at.error
    rows = re.findall(r"<tr class='rte-lens-item'>(.*?)</tr>", _items_table(at))
    assert "● 1 case<" in rows[0]
    assert all("● " not in r for r in rows[1:])


# ------------------------------------------------------------------------------- a toy lens


def _toy_load(paths: object, part: str, progress: object = None) -> pl.DataFrame:
    return pl.DataFrame({"row": [1, 2, 3, 4, 5], "text": ["a", "b", "<b>odd</b>", "d", "e"]})


def _odd(t: pl.DataFrame) -> pl.DataFrame:
    return t.filter(pl.col("row") % 2 == 1).select(
        "row", label=pl.format("row {}", "row"), why=pl.col("text")
    )


TOY_LENSES = DatasetLenses(
    parts=("",),
    files=lambda part: (),
    load=_toy_load,
    lenses=(
        Lens(
            id="toy-odd",
            dataset="toy",
            title="Odd rows",
            rule="A row whose number is odd.",
            view="toy",
            find=_odd,
            count=lambda t: t.height,
            of="rows",
            query=(),
            item=(("row", "row"),),
        ),
        Lens(
            id="toy-none",
            dataset="toy",
            title="No rows",
            rule="A row numbered above 10.",
            view="toy",
            find=lambda t: _odd(t).filter(pl.col("row") > 10),
            count=lambda t: t.height,
            of="rows",
            query=(),
            item=(("row", "row"),),
            empty="The toy has five rows.",
        ),
    ),
)
TOY = DatasetInfo(
    name="toy",
    title="Toy",
    default_repo="someone/toy-data",
    files=("rows.parquet",),
    views=(ViewInfo("toy", "Toy rows", ":material/toys:", "Toy", "Open the toy rows"),),
    lenses=f"{__name__}:TOY_LENSES",
)


@pytest.fixture
def toy() -> Iterator[DatasetInfo]:
    with registered(TOY) as info:
        yield info


def test_a_registered_lens_appears_in_the_view(sample_root: Path, toy: DatasetInfo) -> None:
    at = run_page("pages/lenses.py", lens="toy-odd")
    assert not at.exception and not at.error
    overview = next(h for h in _html(at) if "rte-lenses" in h)
    assert "Odd rows" in overview and "A row whose number is odd." in overview
    assert "<b class='rte-lens-count'>3</b>" in overview
    table = _items_table(at)
    assert len(re.findall(r"<tr class='rte-lens-item'>", table)) == 3
    assert "&lt;b&gt;odd&lt;/b&gt;" in table and "<b>odd</b>" not in table  # escaped
    empty = run_page("pages/lenses.py", lens="toy-none")
    assert [i.value for i in empty.info] == [
        "Nothing found. The toy has five rows\\."
    ]  # md-escaped


def test_the_toy_lens_is_gone_once_its_dataset_is(sample_root: Path) -> None:
    assert "toy" not in declared()
    at = run_page("pages/lenses.py", lens="toy-odd")
    assert not at.exception
    assert chosen(at, "lens") is None  # an unknown lens: none chosen
    assert light_select(at, "Lens").shown == "Choose a lens…"


def test_a_lens_starts_a_triage_queue_of_its_items(sample_root: Path, db: str) -> None:
    items, _ = _found("mars-confidently-wrong")
    at = run_page("pages/lenses.py", lens="mars-confidently-wrong")
    btn = next(b for b in at.button if b.key == "lens_triage")
    assert btn.label == f"Triage these {items.height:,}"
    btn.click().run()
    (queue,) = open_store(db).queues()
    assert queue.size == items.height and queue.origin.startswith("lens: Confidently wrong")
    first = items.row(0, named=True)
    assert dict(queue.items[0].query)["trace"] == str(first["trace_idx"])
    assert queue.items[0].view == "mars"


def _link_notes(at: AppTest) -> list[str]:
    return [w.value.replace("\\", "") for w in at.warning if "The link asks for" in w.value]


def test_a_linked_file_a_one_file_folder_lacks_is_named(tmp_path: Path, monkeypatch) -> None:
    """Regression: with a folder holding one MARS file the lens drew no file picker, and a
    link's other file was replaced by the folder's without a word. The lens runs on the
    folder's file, the note names both, and the URL names the file shown."""
    write_file(tmp_path / MARS_FILE, "aime", 6, seed=5, drop=0, n_questions=2, median_len=5000)
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(tmp_path))
    at = run_page("pages/lenses.py", lens="mars-late-flips", file=OTHER_FILE)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert _link_notes(at) == [
        f"The link asks for the file “{OTHER_FILE}”, which this folder does not have: showing "
        "DeepSeek-R1-0528-Qwen3-8B · AIME 2025, the first it has, instead."
    ], _link_notes(at)
    assert at.query_params["file"] in (MARS_FILE, [MARS_FILE])
    text = "\n".join(m.value for m in at.markdown)
    assert "traces in DeepSeek\\-R1\\-0528\\-Qwen3\\-8B · AIME 2025" in text


@pytest.mark.parametrize("lens", ["mars-late-flips", "fineproofs-bimodal"])
def test_a_linked_file_the_dataset_lacks_is_named(sample_root: Path, lens: str) -> None:
    """A file no part of the dataset holds, with a picker (MARS) or without one (FineProofs,
    one file), is named with what is shown instead; nothing else says it twice."""
    at = run_page("pages/lenses.py", lens=lens, file="nope.parquet")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    (note,) = _link_notes(at)
    assert note.startswith("The link asks for the file “nope.parquet”, which is not a file of ")
    assert "is not a value this control takes" not in "\n".join(c.value for c in at.caption)
