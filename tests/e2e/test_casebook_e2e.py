"""The casebook in a real browser: capture a case on each view, find it on the casebook page,
open it and land on the same view, present a collection of three, export the HTML report and
open it offline."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import polars as pl
import pytest

from cache.casebook.store import open_store
from tests.e2e.conftest import assert_no_exception, streamlit_server, wait_for_app

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def db_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{tmp_path_factory.mktemp('casebook') / 'casebook.sqlite'}"


@pytest.fixture(scope="module")
def cb_url(sample_root: Path, cache_dir: Path, db_url: str) -> Iterator[str]:
    with streamlit_server(cache_dir, RTE_DB_URL=db_url) as url:
        yield url


# the capture control's label on each view (next to the item it concerns)
LABELS = {
    "parason": "Add to casebook",
    "mars": "Add question",
    "playground": "Add run",
    "fineproofs": "Add to casebook",
}


def _views(sample_root: Path) -> dict[str, str]:
    uuid = pl.read_parquet(sample_root / "parason/sft-1x/train.parquet", columns=["uuid"])[0, 0]
    fp = pl.read_parquet(
        sample_root / "fineproofs/data/prefix_values.parquet",
        columns=["problem_id", "sample_index"],
    ).row(0)
    return {
        "parason": f"parason?uuid={uuid}",
        "mars": "mars?qid=3",
        "playground": "playground?policy=sc-consensus",
        "fineproofs": f"fineproofs?problem={fp[0]}&sample={fp[1]}",
    }


def _capture(page, base: str, path: str, title: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base}/{path}")
    wait_for_app(page, timeout=120_000)
    button = page.get_by_role("button", name=LABELS[path.split("?")[0]]).first
    button.wait_for(timeout=180_000)  # the playground's run finishes inside its fragment
    button.click()
    body = page.locator('[data-testid="stPopoverBody"]').last
    title_box = body.get_by_label("Title")
    title_box.fill(title)
    body.get_by_label("Note (Markdown)").fill(f"**{title}** <script>window.pwned=1</script>")
    page.wait_for_timeout(300)
    body.get_by_role("button", name="Save case").click()
    page.get_by_text("Saved to the casebook").first.wait_for(timeout=30_000)
    assert_no_exception(page)


def test_capture_find_open_present_export(  # type: ignore[no-untyped-def]
    cb_url: str, sample_root: Path, db_url: str, browser, tmp_path: Path
) -> None:
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    views = _views(sample_root)
    for view, path in views.items():
        _capture(page, cb_url, path, f"e2e {view} case")
    store = open_store(db_url)
    cases = {c.dataset: c for c in store.list_cases()}
    assert set(cases) == set(views)
    assert cases["mars"].item == {"file": "DeepSeek-8B/aime25_deepseek.parquet", "qid": "3"}
    assert page.evaluate("() => window.pwned") is None

    # find it on the casebook page and open it: the same view, the same item
    page.goto(f"{cb_url}/casebook?q=e2e+mars")
    wait_for_app(page)
    page.get_by_text("1 case(s)").wait_for()
    page.goto(f"{cb_url}/casebook?case={cases['mars'].id}")
    wait_for_app(page)
    page.get_by_role("button", name="Open the view").click()
    page.wait_for_url("**/mars?**")
    wait_for_app(page, timeout=120_000)
    assert parse_qs(urlparse(page.url).query)["qid"] == ["3"]
    assert_no_exception(page)

    # present a collection of three: each step in its view, the arrow keys step on
    col = store.create_collection("e2e demo")
    for d in ("mars", "parason", "fineproofs"):
        store.add_to_collection(col.id, cases[d].id)
    page.goto(f"{cb_url}/casebook?present={col.id}")
    page.wait_for_url("**/mars?**")
    wait_for_app(page, timeout=120_000)
    page.get_by_text("step 1 of 3").wait_for()
    page.get_by_text("e2e mars case").first.wait_for()
    page.locator("body").press("ArrowRight")
    page.wait_for_url("**/parason?**")
    wait_for_app(page, timeout=120_000)
    page.get_by_text("step 2 of 3").wait_for()
    assert "present=" in page.url
    assert_no_exception(page)

    # the HTML report: self-contained, opened offline
    page.goto(f"{cb_url}/casebook?collection={col.id}&tab=Collections")
    wait_for_app(page)
    with page.expect_download() as dl:
        page.get_by_role("button", name="Download HTML report").click()
    report = tmp_path / "report.html"
    dl.value.save_as(report)
    assert dl.value.suggested_filename.endswith("_report.html")
    offline = browser.new_context()
    requests: list[str] = []
    offline.route(
        lambda url: not url.startswith("file:"),
        lambda route: (requests.append(route.request.url), route.abort()),
    )
    rp = offline.new_page()
    rp.goto(report.as_uri())
    for d in ("mars", "parason", "fineproofs"):
        assert rp.get_by_text(f"e2e {d} case").count() >= 1
    assert rp.evaluate("() => window.pwned") is None
    assert requests == []  # no script, font, image or stylesheet from anywhere
    offline.close()
    ctx.close()
