"""AppTest of the home page under each source: sample, local folder (good and bad), Hub (offline)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from streamlit.testing.v1 import AppTest

from components.common.safe_text import md_text
from components.home.cards import derived_kinds
from tests.pages.conftest import new_app, run_page
from tests.pages.md_tables import figures, md_tables, number


def _home(**session: str) -> AppTest:
    at = new_app()
    for k, v in session.items():
        at.session_state[k] = v
    at.run()
    return at


def _text(at: AppTest) -> str:
    parts = (
        [m.value for m in at.markdown] + [c.value for c in at.caption] + [e.value for e in at.error]
    )
    parts += [str(s.value) for s in at.subheader]
    return "\n".join(parts)


def test_home_on_sample_lists_every_dataset(sample_root: Path) -> None:
    at = _home()
    assert not at.exception
    assert not at.error
    assert [s.value for s in at.subheader] == ["Parason", "MARS", "FineProofs"]
    text = _text(at)
    assert "Bundled sample" in text
    # the sample says it is synthetic and what it is realistic about, with the bench's figures
    assert "The bundled sample is synthetic." in text
    assert "median per-question AUROC 0.65 to" in text
    assert "49 of 190 Parason 8x rows" in text
    tables = md_tables(at, "file")
    files = {r["file"] for t in tables for r in t}
    assert {
        "sft-1x/train.parquet",
        "DeepSeek-8B/aime25_deepseek.parquet",
        "data/prefix_values.parquet",
    } <= files
    mars = next(t for t in tables if "Qwen3-32B/hmmt.parquet" in {r["file"] for r in t})
    mars = [r for r in mars if str(r["file"]).endswith(".parquet")]
    assert len(mars) == 9 and all(r["status"] == "ok" and number(r["rows"]) > 0 for r in mars)
    # a size keeps its number and unit on one line (a narrow table split "44.9" / "MB")
    assert all(re.fullmatch(r"[0-9.]+\u00a0[KMG]?B", str(r["size"])) for r in mars), mars


def test_home_with_a_local_folder(sample_root: Path, tmp_path: Path) -> None:
    shutil.copytree(sample_root / "parason", tmp_path / "parason")
    at = _home(src_parason_kind="local", src_parason_path=str(tmp_path / "parason"))
    assert not at.exception and not at.error
    assert md_text(f"Local folder · {tmp_path / 'parason'}", 300) in _text(at)


def test_a_local_path_from_the_url_is_shown_as_text(sample_root: Path, tmp_path: Path) -> None:
    """A path is untrusted input (it comes from the URL): its Markdown shows as typed."""
    folder = tmp_path / "**bold**[link](javascript:x)"
    shutil.copytree(sample_root / "parason", folder)
    at = _home(src_parason_kind="local", src_parason_path=str(folder))
    assert not at.exception and not at.error
    caption = next(c.value for c in at.caption if "Local folder" in c.value)
    assert "**bold**" not in caption and "[link](" not in caption
    assert r"\*\*bold\*\*\[link\]\(javascript:x\)" in caption


def test_home_with_a_bad_local_folder_keeps_other_datasets(
    sample_root: Path, tmp_path: Path
) -> None:
    at = _home(src_mars_kind="local", src_mars_path=str(tmp_path / "missing"))
    assert not at.exception
    assert len(at.error) == 1 and "does not exist" in at.error[0].value
    assert any(b.label == "Use the bundled sample instead" for b in at.button)
    assert [s.value for s in at.subheader] == ["Parason", "FineProofs"]  # the others still render
    at.button(key="back_to_sample_mars_the MARS summary").click().run()
    assert not at.error and "MARS" in [s.value for s in at.subheader]


def test_home_with_a_corrupt_file_names_it(sample_root: Path, tmp_path: Path) -> None:
    shutil.copytree(sample_root / "parason", tmp_path / "p")
    bad = tmp_path / "p" / "sft-8x" / "train.parquet"
    bad.write_bytes(bad.read_bytes()[:100])
    at = _home(src_parason_kind="local", src_parason_path=str(tmp_path / "p"))
    assert not at.exception
    status = {r["file"]: r["status"] for r in md_tables(at, "file")[0]}
    assert (
        status["sft-8x/train.parquet"].startswith("error:")
        and status["sft-1x/train.parquet"] == "ok"
    )


def test_home_with_hub_offline_says_nothing_is_downloaded(sample_root: Path, monkeypatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = _home(src_fineproofs_kind="hub")
    assert not at.exception
    text = _text(at)
    assert (
        md_text("Hugging Face Hub · asingh15/fineproofs-branch-rollout-distribution@main", 300)
        in text
    )
    assert any("python -m cache fetch fineproofs" in i.value for i in at.info)


def test_home_with_a_populated_hf_cache_reads_it_offline(
    sample_root: Path, tmp_path: Path, monkeypatch
) -> None:
    """Hub source, HF_HUB_OFFLINE, files already in the HF cache: the card shows them, no download."""
    from huggingface_hub import constants

    from tests.cache.test_sources import _populate_hf_cache

    files = {
        rel: (sample_root / "parason" / rel).read_bytes()
        for rel in ("sft-1x/train.parquet", "sft-8x/train.parquet", "rl/train.parquet")
    }
    _populate_hf_cache(tmp_path, "parallel-reasoner/parason-data", files, "1" * 40)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    at = _home(src_parason_kind="hub")
    assert not at.exception and not at.error
    assert md_text("Hugging Face Hub · parallel-reasoner/parason-data@main", 300) in _text(at)
    parason = md_tables(at, "file")[0]
    assert all(r["status"] == "ok" for r in parason)
    assert sum(number(r["rows"]) for r in parason) > 300


def test_source_choice_lives_in_the_url(sample_root: Path, tmp_path: Path) -> None:
    """A link (or the reload after clicking a text link) keeps a non-default source."""
    shutil.copytree(sample_root / "parason", tmp_path / "p")
    at = new_app()
    at.query_params["src_parason_kind"] = "Local folder"  # bound radios carry their label
    at.query_params["src_parason_path"] = str(tmp_path / "p")
    at.run()
    assert not at.exception and not at.error
    assert md_text(f"Local folder · {tmp_path / 'p'}", 300) in _text(at)
    assert at.session_state["src_parason_kind"] == "local"


def test_home_cards_give_each_dataset_its_three_figures(sample_root: Path) -> None:
    """Files available, rows and size on disk, for each dataset, in card order."""
    at = _home()
    got = figures(at, "Files available")
    assert [label for label, _ in got] == ["Files available", "Rows", "On disk"] * 3
    files = [value for label, value in got if label == "Files available"]
    assert (
        files == ["3 / 3", "9 / 9", files[2]]
        and files[2].split(" / ")[0] == files[2].split(" / ")[1]
    )
    assert all(value not in ("", "0") for label, value in got if label == "Rows")


def test_a_plain_source_kind_in_a_link_is_taken(sample_root: Path) -> None:
    at = run_page("pages/home.py", src_mars_kind="local", src_mars_path=str(sample_root / "mars"))
    assert not at.exception
    assert at.radio(key="src_mars_kind").value == "local"


def test_an_unknown_source_kind_in_a_link_says_so(sample_root: Path) -> None:
    at = run_page("pages/home.py", src_parason_kind="floppy")
    assert not at.exception
    assert any("floppy" in w.value and "Bundled sample" in w.value for w in at.sidebar.warning)


def test_derived_tables_are_listed_by_table_not_by_hashed_file() -> None:
    got = derived_kinds(
        [
            ("mars-features-v9-0c6e97db8059d58e43c9.parquet", 100),
            ("mars-features-v9-1d7e97db8059d58e43c9.parquet", 50),
            ("mars-texts-v1-4576e6461edfd19b8c71.parquet", 7),
            ("odd.parquet", 3),
        ]
    )
    assert got == {"mars-features": (2, 150), "mars-texts": (1, 7), "odd.parquet": (1, 3)}


def test_source_boxes_draw_their_controls_only_when_open_or_linked(sample_root: Path) -> None:
    """Closed and not named by the link, a dataset's source box draws no control (three boxes
    of radios cost every view's first paint); opened, or named by the link, it does."""
    at = new_app().run()  # home, through the router (a rerun keeps the sidebar)
    assert not at.exception
    labels = [e.label for e in at.sidebar.expander]
    assert labels == [
        "Parason · Bundled sample",
        "MARS · Bundled sample",
        "FineProofs · Bundled sample",
    ]
    assert not at.sidebar.radio
    at.session_state["src_mars_box"] = True  # the reader opens the MARS box
    at.run()
    assert [r.key for r in at.sidebar.radio] == ["src_mars_kind"]
    assert at.radio(key="src_mars_kind").value == "sample"
    # choosing a kind in the box: tests/e2e/test_source_sidebar_e2e.py (AppTest loses the
    # sidebar on the rerun a lazy box's widget starts)
    linked = new_app()
    linked.query_params["src_parason_kind"] = "hub"
    linked.run()
    assert [r.key for r in linked.sidebar.radio] == ["src_parason_kind"]
    assert linked.radio(key="src_parason_kind").value == "hub"
