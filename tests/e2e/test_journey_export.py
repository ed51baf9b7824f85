"""Journeys J3 and J4 (docs/JOURNEYS.md) in a real browser, against a server with its own
casebook.

J3, export and rejoin: FineProofs step labels captured in the Trace tab, gathered with two other
cases into a collection, downloaded from the Collections tab in every format; the JSONL imports
into a fresh casebook as the same cases and collection, the step labels join back to their
prefix rows, and the HTML report opens offline with a picture (or its note) for every case.

J4, safety: the Import tab refuses crafted views naming the line; a crafted view that got into
the database anyway is shown as plain text in the case panel and in present mode; a note's
remote image makes the browser fetch nothing."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from cache.casebook.io import import_cases
from cache.casebook.model import Case, case_to_dict, make_case
from cache.casebook.store import CaseStore, open_store
from tests.crafted_views import CRAFTED_VIEWS
from tests.e2e.conftest import streamlit_server
from tests.e2e.journey_helpers import (
    LOCAL_HOSTS,
    TIMEOUT_MS,
    VIEWPORTS,
    mars_case,
    no_exception,
    off_app_hrefs,
    open_url,
    settled,
    vp_id,
)

# expect()'s timeout for a journey: tests/e2e/conftest.py
pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("journey_expect_timeout")]


NAME_FIELD = "Your name (this browser remembers it)"
KEYS = ["problem_id", "sample_index", "step_idx"]


@pytest.fixture(scope="module")
def db_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("j3j4") / "casebook.sqlite"


@pytest.fixture(scope="module")
def db_url(db_path: Path) -> str:
    return f"sqlite:///{db_path}"


@pytest.fixture(scope="module")
def server(sample_root: Path, cache_dir: Path, db_url: str) -> Iterator[str]:
    # no public address: a report shows case links as plain paths
    with streamlit_server(cache_dir, RTE_DB_URL=db_url, RTE_PUBLIC_URL="") as url:
        yield url


@pytest.fixture(scope="module")
def contexts(browser) -> Iterator[dict[str, BrowserContext]]:  # type: ignore[no-untyped-def]
    """One browser context per viewport for this module's tests: the app's scripts load once."""
    made: dict[str, BrowserContext] = {}
    yield made
    for ctx in made.values():
        ctx.close()


@pytest.fixture()
def page(contexts, browser, viewport: dict[str, int]) -> Iterator[Page]:  # type: ignore[no-untyped-def]
    """A new tab in this viewport's context (downloads accepted)."""
    key = vp_id(viewport)
    if key not in contexts:
        contexts[key] = browser.new_context(viewport=viewport, accept_downloads=True)
    pg = contexts[key].new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    yield pg
    pg.close()


# ------------------------------------------------------------------------------------- J3


def _prefix_rows(sample_root: Path) -> pl.DataFrame:
    return pl.read_parquet(
        sample_root / "fineproofs/data/prefix_values.parquet", columns=KEYS
    ).with_columns(pl.col("sample_index", "step_idx").cast(pl.Int64))


def _steps_to_label(sample_root: Path, nth: int) -> list[tuple[str, int, int, int]]:
    """(problem, sample, prefix ordinal, step_idx) of prefixes 2 and 3 of the `nth` trace whose
    step indices there are not the ordinals (a join on the wrong key would miss)."""
    rows = _prefix_rows(sample_root)
    found = []
    for (pid, sample), g in rows.group_by(["problem_id", "sample_index"], maintain_order=True):
        steps = sorted(g["step_idx"].to_list())
        if len(steps) > 3 and steps[1] != 2 and steps[2] != 3:
            found.append([(str(pid), int(sample), o, steps[o - 1]) for o in (2, 3)])
    assert len(found) > nth, "the sample has too few FineProofs traces"
    return found[nth]


def _label_step(page: Page, ordinal: int, title: str, verdict: str) -> None:
    """Label the selected step (prefix `ordinal`) with the Trace tab's "Label this step"."""
    expect(page.get_by_text(f"Selected step · prefix {ordinal} · step")).to_be_visible()
    settled(page)
    # the view scrolls its selected step into sight once drawn; a popover opened before that
    # scroll moves with its button and can leave "Save case" below the window
    expect(page.locator(f"#fp-trace-text #fp-step-{ordinal}")).to_be_in_viewport()
    page.get_by_role("button", name="Label this step").click()
    body = page.locator('[data-testid="stPopoverBody"]').last
    body.get_by_label("Title").fill(title)
    body.get_by_label("Verdict").click()
    page.get_by_role("option", name=verdict, exact=True).click()
    body.get_by_label("Note (Markdown)").fill(f"{verdict} here")
    name = body.get_by_label(NAME_FIELD)
    if not name.input_value():  # asked once; the second label finds it remembered
        name.fill("Jo")
    body.get_by_role("button", name="Save case").click()
    expect(page.get_by_text(f"Saved to the casebook: {title}")).to_be_visible()
    page.keyboard.press("Escape")  # close the control (a no-op when it closed itself)
    expect(page.locator('[data-testid="stPopoverBody"]')).to_have_count(0)
    settled(page)  # the run after the save is over: the next click is not lost in it
    no_exception(page)


def _download(page: Page, label: str, folder: Path) -> Path:
    with page.expect_download() as info:
        page.get_by_role("button", name=label, exact=True).click()
    dl = info.value
    assert dl.failure() is None
    path = folder / dl.suggested_filename
    dl.save_as(path)
    return path


def _read_labels(path: Path) -> pl.DataFrame:
    if path.suffix == ".csv":
        return pl.read_csv(path, schema_overrides={"problem_id": pl.String, "note": pl.String})
    if path.suffix == ".jsonl":
        return pl.read_ndjson(path)
    return pl.read_parquet(path)


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j3_export_and_rejoin(  # type: ignore[no-untyped-def]
    server: str,
    db_url: str,
    sample_root: Path,
    browser,
    page: Page,
    viewport: dict[str, int],
    tmp_path: Path,
) -> None:
    vp = vp_id(viewport)
    store = open_store(db_url)
    # 1. two FineProofs step labels captured in the Trace tab, each with a step verdict
    steps = _steps_to_label(sample_root, 0 if viewport["width"] > 1200 else 1)
    verdicts = ["first error", "wrong step"]
    titles = [f"J3 {vp} label {i}" for i in (1, 2)]
    pid, sample = steps[0][:2]
    open_url(page, f"{server}/fineproofs?problem={pid}&sample={sample}&prefix=2&view=Trace")
    _label_step(page, 2, titles[0], verdicts[0])
    page.locator("#fp-trace-text #fp-step-3").click()  # select the next step in the text
    _label_step(page, 3, titles[1], verdicts[1])
    by_title = {c.title: c for c in store.list_cases(dataset="fineproofs")}
    labelled = [by_title[t] for t in titles]
    for case, (p, n, ordinal, step_idx) in zip(labelled, steps, strict=True):
        assert case.item == {
            "problem": p,
            "sample": str(n),
            "prefix": str(ordinal),
            "step": str(step_idx),
        }

    # with two cases made in the store, in a collection whose order is not capture order
    made = [
        mars_case(store, f"J3 {vp} question", qid=5, tags=["late recovery"], verdict="suspect"),
        mars_case(store, f"J3 {vp} other", qid=6, note="**bold** <b>not bold</b>"),
    ]  # fmt: skip
    order = [labelled[1], made[0], labelled[0], made[1]]
    col = store.create_collection(f"J3 {vp}", "export journey")
    for case in order:
        store.add_to_collection(col.id, case.id)
    col = store.get_collection(col.id)
    assert col is not None and list(col.case_ids) == [c.id for c in order]

    # 2. every download of the Collections tab, each named after what it holds
    open_url(page, f"{server}/casebook?tab=Collections&collection={col.id}", ready="Present")
    expect(page.locator(f"[class*='st-key-cb_row_{col.id}_']")).to_have_count(4)
    stem = f"casebook_J3_{vp}"
    files = {
        label: _download(page, label, tmp_path)
        for label in (
            "Download JSONL", "Download CSV", "Download Parquet", "Download HTML report",
            "Step labels CSV (2)", "Step labels JSONL (2)", "Step labels Parquet (2)",
        )
    }  # fmt: skip
    assert {k: p.name for k, p in files.items()} == {
        "Download JSONL": f"{stem}.jsonl",
        "Download CSV": f"{stem}.csv",
        "Download Parquet": f"{stem}.parquet",
        "Download HTML report": f"{stem}_report.html",
        "Step labels CSV (2)": f"{stem}_fineproofs_step_labels.csv",
        "Step labels JSONL (2)": f"{stem}_fineproofs_step_labels.jsonl",
        "Step labels Parquet (2)": f"{stem}_fineproofs_step_labels.parquet",
    }
    ids = [c.id for c in order]
    csv_ids = pl.read_csv(files["Download CSV"], columns=["id"], infer_schema=False)["id"]
    assert csv_ids.to_list() == ids
    assert pl.read_parquet(files["Download Parquet"], columns=["id"])["id"].to_list() == ids
    lines = [json.loads(x) for x in files["Download JSONL"].read_text().splitlines()]
    assert [x.get("id") for x in lines] == [*ids, col.id]
    assert lines[-1]["type"] == "collection" and lines[-1]["case_ids"] == ids

    # 3. the JSONL into a fresh casebook: the same cases, the same collection and order
    fresh = open_store(f"sqlite:///{tmp_path / 'fresh.sqlite'}")
    report = import_cases(fresh, files["Download JSONL"].read_bytes(), "jsonl")
    assert (report.added, report.collections_added) == (4, 1)
    for case in order:
        again = fresh.get(case.id)
        assert again is not None
        assert case_to_dict(again) == case_to_dict(store.get(case.id))  # type: ignore[arg-type]
    (copy,) = fresh.collections()
    assert (copy.id, copy.name, copy.description) == (col.id, col.name, col.description)
    assert list(copy.case_ids) == ids

    # 4. each labels file joins to data/prefix_values.parquet: every label on exactly one row
    rows = _prefix_rows(sample_root).with_row_index("source_row")
    want = {  # (problem, sample, step_idx) -> (prefix ordinal, label)
        (p, n, step_idx): (o, v) for (p, n, o, step_idx), v in zip(steps, verdicts, strict=True)
    }
    for label in ("Step labels CSV (2)", "Step labels JSONL (2)", "Step labels Parquet (2)"):
        labels = _read_labels(files[label]).with_columns(
            pl.col("sample_index", "step_idx", "prefix_ordinal").cast(pl.Int64)
        )
        assert labels.height == 2, label
        joined = labels.join(rows, on=KEYS, how="left")
        assert joined.height == labels.height, f"{label}: a label matched several rows"
        assert joined["source_row"].null_count() == 0, f"{label}: a label matched no row"
        got = {
            (r["problem_id"], r["sample_index"], r["step_idx"]): (r["prefix_ordinal"], r["label"])
            for r in labels.iter_rows(named=True)
        }  # fmt: skip
        assert got == want, label

    # 5. the HTML report with the network cut off: no request, a picture for every case
    _check_report_offline(browser, files["Download HTML report"], order, {c.id for c in labelled})
    no_exception(page)

    # 6. a case opened from the casebook opens its view with the captured item in sight
    open_url(page, f"{server}/casebook?case={labelled[0].id}", ready="version 1")
    page.get_by_role("button", name="Open the view").click()
    expect(page).to_have_url(re.compile(r"/fineproofs\?.*focus=true"))
    expect(page.locator("[class*='st-key-rte_evidence_fp_step']")).to_be_in_viewport()
    no_exception(page)


def _check_report_offline(browser, path: Path, order: list[Case], pictured: set[str]) -> None:  # type: ignore[no-untyped-def]
    ctx = browser.new_context()
    requests: list[str] = []

    def cut(route) -> None:  # type: ignore[no-untyped-def]
        requests.append(route.request.url)
        route.abort()

    ctx.route(lambda url: not url.startswith("file:"), cut)
    try:
        rp = ctx.new_page()
        rp.goto(path.as_uri())
        sections = rp.locator("section.case")
        expect(sections).to_have_count(len(order))
        assert sections.evaluate_all("(els) => els.map((e) => e.id)") == [
            f"case-{c.id}" for c in order
        ]
        for case in order:
            section = rp.locator(f"#case-{case.id}")
            if case.id in pictured:  # captured in the view: the value curve it was labelled on
                expect(section.locator("svg.evidence polyline").first).to_be_visible()
            else:
                expect(section.get_by_text("No picture stored at capture.")).to_be_visible()
        expect(rp.locator("img, script, iframe, object, embed, link")).to_have_count(0)
        # no public address set: each case's way back is its path as plain text, no link at all
        expect(rp.locator("a")).to_have_count(0)
        for case in order:
            path = rp.locator(f"#case-{case.id} code.path")
            expect(path).to_have_text(re.compile(rf"^{case.view}\?"))
        assert requests == [], requests
    finally:
        ctx.close()


# ------------------------------------------------------------------------------------- J4

REMOTE_IMAGE = "![i](https://evil.example/x.png)"


def _fp_case(store: CaseStore, sample_root: Path, title: str, note: str = "") -> Case:
    """A FineProofs step case made in the store (the sample's first trace, prefix 2)."""
    pid, sample = _prefix_rows(sample_root).row(0)[:2]
    return store.add(
        make_case(
            "fineproofs",
            "fineproofs",
            query=[("problem", pid), ("sample", str(sample)), ("prefix", "2"), ("view", "Trace")],
            item={"problem": pid, "sample": str(sample), "prefix": "2"},
            title=title,
            note=note,
            author="seed",
        )
    )


def _jsonl(*cases: dict) -> bytes:  # type: ignore[type-arg]
    return "".join(json.dumps(c) + "\n" for c in cases).encode()


# the forms each viewport's run uploads (the first, the brief's own, at both; the unit tests of
# cache/casebook cover every form on every path)
FORMS_AT = {1440: (0, 1, 2, 3), 1024: (0, 4, 5, 6)}


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j4_import_refuses_crafted_views(
    server: str, db_url: str, page: Page, viewport: dict[str, int]
) -> None:
    store = open_store(db_url)
    before = store.count(include_deleted=True)
    good = case_to_dict(
        make_case("mars", "mars", query=[("qid", "3")], item={"qid": "3"}, title="fine case")
    )
    open_url(page, f"{server}/casebook?tab=Import", ready="Cases file (.jsonl, .csv, .parquet)")
    upload = page.locator('[data-testid="stFileUploader"] input[type="file"]')
    for n in FORMS_AT[viewport["width"]]:
        view = CRAFTED_VIEWS[n]
        crafted = {**good, "id": f"crafted{n}", "view": view, "note": REMOTE_IMAGE}
        name = f"crafted_{n}.jsonl"
        data = _jsonl(good, crafted)  # line 1 is a fine case, line 2 the crafted one
        upload.set_input_files(
            files=[{"name": name, "mimeType": "application/jsonl", "buffer": data}]
        )
        expect(page.get_by_text(name)).to_be_visible()
        # the run after the upload has the new file (it clears the last file's error)
        expect(page.get_by_role("alert")).to_have_count(0)
        page.get_by_role("button", name="Import", exact=True).click()
        alert = page.get_by_role("alert")
        expect(alert).to_contain_text(f"line 2: view {view!r} is not one of the explorer's views")
        expect(alert).to_contain_text("nothing was imported")
        expect(page.get_by_text("Imported crafted")).to_have_count(0)
    no_exception(page)
    assert store.get(good["id"]) is None  # the whole file refused, its fine line 1 too
    assert store.count(include_deleted=True) == before


def _crafted_in_db(
    db_path: Path, store: CaseStore, sample_root: Path, title: str, view: str
) -> Case:
    """A case whose view was changed straight in the SQLite file (past every check)."""
    case = _fp_case(store, sample_root, title, note="plain note")
    with sqlite3.connect(db_path) as con:
        assert con.execute("UPDATE cases SET view=? WHERE id=?", (view, case.id)).rowcount == 1
    stored = store.get(case.id)
    assert stored is not None and stored.view == view
    return stored


def _count_away(page: Page) -> list[str]:
    """Every request the page makes to anywhere but the app's host (aborted, and listed)."""
    away: list[str] = []

    def is_away(url: str) -> bool:
        host = url.split("/")[2].rsplit(":", 1)[0] if "://" in url else ""
        return url.startswith(("http:", "https:", "ws:", "wss:")) and host not in LOCAL_HOSTS

    page.on("request", lambda r: away.append(r.url) if is_away(r.url) else None)
    page.route(is_away, lambda route: route.abort())
    return away


@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_j4_crafted_view_and_remote_image_stay_inert(
    server: str,
    db_url: str,
    db_path: Path,
    sample_root: Path,
    page: Page,
    viewport: dict[str, int],
) -> None:
    vp = vp_id(viewport)
    store = open_store(db_url)
    view = CRAFTED_VIEWS[0]
    image_title, crafted_title = f"J4 {vp} remote image", f"J4 {vp} crafted"
    note = f"look: {REMOTE_IMAGE} <img src=https://evil.example/y.png>"
    image = _fp_case(store, sample_root, image_title, note=note)
    crafted = _crafted_in_db(db_path, store, sample_root, crafted_title, view)
    col = store.create_collection(f"J4 {vp}")
    for case in (image, crafted):
        store.add_to_collection(col.id, case.id)
    away = _count_away(page)
    # a note's remote image in the case panel: shown as text, never fetched
    open_url(page, f"{server}/casebook?case={image.id}", ready="version 1")
    shown = page.locator(".st-key-cb_case_panel").get_by_test_id("stHtml").first
    expect(shown).to_contain_text("![i](https://evil.example/x.png)")
    expect(shown).to_contain_text("<img src=https://evil.example/y.png>")
    expect(shown.locator("a")).to_have_count(0)
    expect(page.locator("img[src*='evil.example']")).to_have_count(0)
    no_exception(page)

    # the crafted view in the case panel: plain text, no link, no link out anywhere
    open_url(page, f"{server}/casebook?case={crafted.id}", ready="version 1")
    panel = page.locator(".st-key-cb_case_panel")
    expect(
        panel.get_by_text(f"Captured in a view this version does not have: {view}")
    ).to_be_visible()
    expect(panel.locator("a")).to_have_count(0)
    assert off_app_hrefs(page, server) == []
    no_exception(page)

    # present step 1, the remote image in the banner over its FineProofs view: not fetched
    open_url(page, f"{server}/casebook?present={col.id}", ready="step 1 of 2")
    banner = page.locator(".st-key-present_banner")
    expect(banner).to_contain_text(image_title)
    expect(banner).to_contain_text("![i](https://evil.example/x.png)")
    expect(page.locator("img[src*='evil.example']")).to_have_count(0)
    assert "/fineproofs?" in page.url
    no_exception(page)
    assert away == [], away

    # Next: step 2, the crafted view, said as plain text in the banner (not opened)
    page.get_by_role("button", name="Next").click()
    expect(banner).to_contain_text("step 2 of 2")
    expect(banner).to_contain_text(crafted_title)
    expect(
        banner.get_by_text(f"captured in a view this version does not have ({view})")
    ).to_be_visible()
    expect(banner.locator("a")).to_have_count(0)
    assert off_app_hrefs(page, server) == []
    assert page.url.startswith(f"{server}/casebook?")
    no_exception(page)
    assert away == [], away


@pytest.mark.parametrize("viewport", VIEWPORTS[:1])
def test_the_case_list_export_is_named_after_its_filter(
    server: str, db_url: str, page: Page, viewport: dict[str, int], tmp_path: Path
) -> None:
    """The Cases tab's download holds the list shown: every case with no filter set
    (`casebook_all`), the filtered list once one is (`casebook_filtered`)."""
    store = open_store(db_url)
    store.add(
        make_case(
            "mars", "mars", query=[("qid", "1")], source={"kind": "sample"},
            item={"qid": "1"}, title="named export", author="ada",
        )
    )  # fmt: skip
    open_url(page, f"{server}/casebook", ready="Export these cases")
    assert _download(page, "Download CSV", tmp_path).name == "casebook_all.csv"
    open_url(page, f"{server}/casebook?q=named+export", ready="Export these cases")
    assert _download(page, "Download CSV", tmp_path).name == "casebook_filtered.csv"
    no_exception(page)
