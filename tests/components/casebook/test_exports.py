"""The casebook's download row and the import summary: a collection's JSONL carries the
collection, step labels come in three formats with their columns named, skipped steps are said."""

from __future__ import annotations

import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from cache.casebook import Collection, ImportReport, import_cases, make_case, open_store
from components.casebook.exports import cases_file
from components.casebook.import_tab import summary


def _with_steps(labelled: bool) -> None:
    """An app that renders the export row of two FineProofs steps, one without a step index."""
    # AppTest runs this function's body on its own, so it imports what it uses
    from cache.casebook import Collection, make_case
    from components.casebook.exports import export_buttons

    item = {"problem": "P1", "sample": "0", "prefix": "2"}
    verdict = "wrong step" if labelled else None
    cases = [
        make_case("fineproofs", "fineproofs", item=item, verdict=verdict, snapshot={"step": 4}),
        make_case("fineproofs", "fineproofs", item={**item, "prefix": "3"}, verdict=verdict),
    ]
    col = Collection("c1", "Demo", "d", tuple(c.id for c in cases), 1.0, 2.0, 1)
    export_buttons(cases, "casebook_Demo", key="k", title="Demo", collection=col)


def _buttons(at: AppTest) -> dict[str, tuple[bool, str]]:
    return {b.proto.label: (b.proto.disabled, b.proto.help) for b in at.get("download_button")}


def test_step_labels_in_three_formats_with_their_columns_named() -> None:
    at = AppTest.from_function(_with_steps, args=(True,)).run()
    assert not at.exception
    buttons = _buttons(at)
    for fmt in ("CSV", "JSONL", "Parquet"):
        assert f"Download {fmt}" in buttons
        disabled, help_text = buttons[f"Step labels {fmt} (1)"]
        assert not disabled
        assert "problem_id, sample_index, step_idx" in help_text and "updated_at" in help_text
    assert "Download HTML report" in buttons
    assert any("1 labelled step case skipped: no step index" in c.value for c in at.caption)
    unlabelled = AppTest.from_function(_with_steps, args=(False,)).run()
    assert all(d for label, (d, _) in _buttons(unlabelled).items() if label.startswith("Step"))
    assert not unlabelled.caption


def test_a_collections_jsonl_recreates_it(tmp_path: Path) -> None:
    a, b = make_case("mars", "mars", title="a"), make_case("parason", "parason", title="b")
    col = Collection("c1", "Demo", "for Friday", (b.id, a.id), 1.0, 2.0, 3)
    data = cases_file([b, a], "jsonl", col)
    last = json.loads(data.splitlines()[-1])
    assert last["type"] == "collection" and last["case_ids"] == [b.id, a.id]
    assert b'"collection"' not in cases_file([b, a], "jsonl", None)
    assert cases_file([b, a], "csv", col) == cases_file([b, a], "csv", None)
    store = open_store(f"sqlite:///{tmp_path}/c.sqlite", readonly=False)
    try:
        report = import_cases(store, data, "jsonl")
        assert store.collections() == [col]
        assert summary("demo.jsonl", report) == (
            "Imported demo.jsonl: 2 added, 0 updated, 0 unchanged. "
            "Collections: 1 added, 0 updated, 0 unchanged."
        )
    finally:
        store.close()


def test_import_summary_of_cases_only() -> None:
    text = summary("x.csv", ImportReport(1, 2, 3, ("k",)))
    assert (
        text
        == "Imported x.csv: 1 added, 2 updated, 3 unchanged. 1 kept as stored (edited here later)."
    )


def _note_with_maths() -> None:
    from cache.casebook import make_case
    from components.casebook.exports import export_buttons

    case = make_case("mars", "mars", item={"qid": "1"}, note="flips at $x^2$")
    export_buttons([case], "casebook_maths", key="k")


def test_the_report_typesets_notes_maths_when_the_switch_is_on(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The HTML report follows "Render maths" (URL key `maths`): KaTeX embedded when on."""
    import components.casebook.exports as exports

    built: dict[str, object] = {}
    real = exports.download_file

    def spy(build, name, fmt, **kw):  # type: ignore[no-untyped-def]
        if fmt == "html":
            built["html"] = build
        return real(build, name, fmt, **kw)

    monkeypatch.setattr(exports, "download_file", spy)
    for on in (True, False):
        at = AppTest.from_function(_note_with_maths)
        at.query_params["maths"] = "true" if on else "false"
        at.run()
        assert not at.exception, at.exception
        html = built.pop("html")().decode()  # type: ignore[operator]
        assert ('data-tex="x^2"' in html) is on and ("<script" in html) is on
        assert "$x^2$</span>" in html if on else "flips at $x^2$" in html  # source kept


def test_the_case_list_counts_stages_from_one() -> None:
    """The list's label of a Parason stage case says the stage as its title and the view do."""
    from cache.casebook.model import make_case
    from components.casebook.shared import short_label

    case = make_case(
        "parason", "parason", item={"subset": "sft-1x", "uuid": "b4db827a-x", "stage": "0"},
        title="sft-1x b4db827a · stage 1",
    )  # fmt: skip
    assert short_label(case) == "sft-1x · b4db827a · stage 1"
    node = make_case(
        "parason", "parason", item={"subset": "sft-1x", "uuid": "b4db827a-x", "node": "b1t1"},
        title="sft-1x · trial 2.2 · Find x",
    )  # fmt: skip
    assert short_label(node) == "sft-1x · b4db827a · node 2.2"  # as the title and link say
