"""The "Add a dataset" checklist (docs/ARCHITECTURE.md), checked: a toy dataset declared in
this file and registered appears in the dataset list and its sample, the schema check and the
inventory, the casebook (its dataset, label, tags, item check), the list of views and a link's
round trip, the home cards, both CLIs (`python -m cache`, `python -m analysis`) and the
warmer; unregistered, it is gone again."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import polars as pl
import pytest

from analysis.__main__ import main as analysis_main
from cache import datasets as dataset_registry
from cache.__main__ import main as cache_main
from cache.casebook import case_datasets, deep_link, make_case, validate_case
from cache.casebook.errors import InvalidCase
from cache.casebook.links import case_path, is_case_view
from cache.casebook.locate import missing
from cache.datasets import (
    DATASETS,
    DatasetInfo,
    ItemCheck,
    ViewInfo,
    check_view_columns,
    dataset_of_view,
    registered,
)
from cache.errors import SchemaError
from cache.inventory import inventory
from cache.progress import ProgressFn
from cache.sample import generators
from cache.schemas import Role
from cache.sources import SourceConfig, default_source, resolve_file
from cache.warmers import warmer
from components.casebook.shared import dataset_label, dataset_labels
from components.common.casebook import tag_suggestions
from components.common.links import view_href, view_params, views
from components.common.url_keys import keys_of
from components.home.cards import home_cards, view_links

FILE = "rows/data.parquet"
ROLES = (Role("row", ("row_id", "id")), Role("text", ("text",), required=False))


def write_sample(root: Path, progress: ProgressFn | None = None) -> None:
    """The toy's bundled sample: rows 0..4."""
    (root / "rows").mkdir(parents=True)
    pl.DataFrame({"row_id": list(range(5)), "text": list("abcde")}).write_parquet(root / FILE)


def check_columns(relpath: str, schema: Mapping[str, str]) -> None:
    if "row_id" not in schema:
        raise SchemaError(f"{relpath}: column `row_id` missing", "is this a toy file?")


def warm(source: SourceConfig, progress: ProgressFn | None = None) -> list[Path]:
    return [resolve_file("toy", FILE, source)]


def register(sub: argparse._SubParsersAction) -> None:
    """The toy's `python -m analysis` command (the CLI calls its module's `register`)."""
    p = sub.add_parser("toy-count", help="count the toy's rows")
    p.set_defaults(func=lambda args: print("toy rows: 5") or 0)


TOY = DatasetInfo(
    name="toy",
    title="Toy",
    default_repo="someone/toy-data",
    files=(FILE,),
    views=(
        ViewInfo(
            name="toy",
            nav_title="Toy rows",
            icon=":material/toys:",
            label="Toy",
            link_text="Open the toy rows",
            tags=("odd row",),
            commands=(("toy-count", __name__),),
        ),
    ),
    check_columns=check_columns,
    sample=__name__,
    sample_share=0.5,
    item_check=ItemCheck(
        roles=ROLES, keys=("row",), digits=("row",), what="a toy file", gone="row {row} is gone"
    ),
    warmer=f"{__name__}:warm",
)


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[DatasetInfo]:
    monkeypatch.setenv("RTE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RTE_DB_URL", f"sqlite:///{tmp_path / 'cases.db'}")
    with registered(TOY) as info:
        yield info


def test_1_the_dataset_list_its_source_and_its_sample(toy: DatasetInfo) -> None:
    assert list(DATASETS)[-1] == "toy" and dataset_of_view("toy") is TOY
    assert default_source("toy").kind == "sample"
    assert default_source("toy", {"RTE_TOY_PATH": "/data/toy"}).local_path == "/data/toy"
    assert generators()["toy"] == (__name__, 0.5)
    path = resolve_file("toy", FILE, default_source("toy"))  # builds the sample
    assert pl.read_parquet(path)["row_id"].to_list() == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="already registered"):
        dataset_registry.register(TOY)


def test_2_the_schema_check_and_the_inventory(toy: DatasetInfo) -> None:
    check_view_columns("toy", FILE, {"row_id": "int64"})
    with pytest.raises(SchemaError, match="row_id"):
        check_view_columns("toy", FILE, {"id": "int64"})
    inv = inventory("toy", default_source("toy"))
    assert [(f.relpath, f.status, f.rows) for f in inv.files] == [(FILE, "ok", 5)]


def test_3_the_casebook(toy: DatasetInfo) -> None:
    assert case_datasets()[-1] == "toy" and is_case_view("toy")
    case = validate_case(make_case("toy", "toy", query=[("row", "3")], item={"row": "3"}))
    assert case.title == "toy: row 3" and deep_link(case) == "toy?row=3"
    assert dataset_labels()["toy"] == "Toy" and dataset_label("toy") == "Toy"
    assert tag_suggestions("toy") == ("odd row",)
    source = {"kind": "sample", "file": FILE}
    assert missing("toy", source, {"row": "3"}) == ""
    assert missing("toy", source, {"row": "9"}) == "row 9 is gone"
    assert missing("toy", source, {"row": "x"}) == ""  # not a number: nothing to check


def test_4_the_views_and_a_link_round_trip(toy: DatasetInfo) -> None:
    page = views()["toy"]
    assert (page.script, page.url_path, page.title) == ("pages/toy.py", "toy", "Toy rows")
    # datasets' views before the search and the lenses across them, and the casebook
    assert list(views())[-4:] == ["toy", "search", "lenses", "casebook"]
    assert {"src_toy_kind", "src_toy_path", "src_mars_kind"} <= keys_of("toy")
    assert "src_toy_kind" in keys_of("mars")  # the sidebar's keys reach every view
    params = view_params("toy", src_toy_kind="local", src_toy_path="/data/a b")
    href = view_href("toy", **params)
    split = urlsplit(href)
    assert split.path == "toy" and dict(parse_qsl(split.query)) == params
    stored = case_path("toy", list(params.items()))  # a case's link, from its stored query
    assert stored is not None and dict(parse_qsl(urlsplit(stored).query)) == params
    with pytest.raises(KeyError, match="reads no URL key"):
        view_href("toy", row=3)  # the toy declares no URL keys of its own


def test_5_the_home_cards(toy: DatasetInfo) -> None:
    assert home_cards()[-1] is TOY
    assert view_links("toy") == [("pages/toy.py", "Open the toy rows")]


def test_6_the_clis_and_the_warmer(toy: DatasetInfo, capsys: pytest.CaptureFixture) -> None:
    assert cache_main(["warm", "toy"]) == 0
    assert "toy: data.parquet" in capsys.readouterr().out
    assert warmer("toy") is warm
    assert cache_main(["casebook", "list", "--dataset", "toy"]) == 0
    assert analysis_main(["toy-count"]) == 0
    assert "toy rows: 5" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        analysis_main(["--help"])
    assert "toy-count" in capsys.readouterr().out


def test_7_unregistered_the_toy_is_gone(capsys: pytest.CaptureFixture) -> None:
    assert "toy" not in DATASETS and "toy" not in case_datasets() and "toy" not in views()
    assert not is_case_view("toy") and "toy" not in generators()
    assert all(c is not TOY for c in home_cards())
    with pytest.raises(InvalidCase, match="unknown dataset"):
        validate_case(make_case("toy", "toy"))
    with pytest.raises(KeyError):
        keys_of("toy")
    with pytest.raises(SystemExit):
        cache_main(["warm", "toy"])
    assert "invalid choice: 'toy'" in capsys.readouterr().err
