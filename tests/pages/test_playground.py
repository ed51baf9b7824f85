"""AppTest of the stopping playground: it renders, sliders rerun the results, deep links restore,
runs and replayed iterations go to the casebook."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from analysis.mars.for_playground import load_features
from analysis.playground import ALL_METHODS, simulate
from analysis.playground.params import DEFAULT_SETTINGS
from analysis.playground.policies import published_policy
from analysis.playground.policy_pair import a_loses, compare_policies
from analysis.playground.prepare import prepare
from cache.casebook.model import make_case
from cache.casebook.store import open_store
from cache.datasets import MARS_FILES, mars_reference_dir
from cache.sample.mars import SCHEMA, write_file
from components.common.safe_text import md_text
from components.playground import view as pv
from components.playground.figures import MARKER_STYLE, SWEEP_BAND
from tests.pages.charts import lite_specs
from tests.pages.conftest import new_app, run_page
from tests.pages.controls import choose, chosen, light_control, light_select, tabs
from tests.pages.stats import shown_metrics
from tests.pages.tables import lite_payloads, shown_tables

REL = "DeepSeek-8B/aime25_deepseek.parquet"


@pytest.fixture(scope="module")
def local_mars(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("mars_local")
    write_file(root / REL, "aime", 24, seed=5, drop=0, n_questions=3)
    return root


@pytest.fixture
def open_app(local_mars: Path, monkeypatch):
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(local_mars))

    def make(**params: str):
        return run_page("pages/playground.py", **params)

    return make


def _metric(at, label: str) -> str:
    """A headline metric's value by its name (the label goes on with its 95 % interval)."""
    return next(m.value for m in shown_metrics(at) if m.label.split(" · ")[0] == label)


def open_tab(app, name: str):  # type: ignore[no-untyped-def]
    """Switch the result tabs to `name` (a click on the tab) and rerun."""
    assert name in pv.TABS
    app.session_state[pv.TABS_KEY] = name
    if pv.TABS_KEY in app.query_params:  # AppTest sends its URL again on every run
        app.query_params[pv.TABS_KEY] = name
    return app.run()


def test_renders_and_slider_updates_results(open_app) -> None:
    """A slider move updates the results. That only the fragment reran cannot be seen in
    AppTest: every `AppTest.run()` executes the whole page script (its script runner receives
    no fragment id). tests/e2e/test_playground_e2e.py checks it on the websocket instead
    (the server's `script_finished` status of each run)."""
    app = open_app(policy="sc-consensus", budget="32")
    assert not app.exception, app.exception
    assert not app.error, [e.value for e in app.error]
    # a new tab opens on the frontier; the closed tabs are neither built nor sent
    assert tabs(app).options == list(pv.TABS) and tabs(app).shown == "Frontier"
    assert [h.value for h in app.subheader] == ["Accuracy against token savings"]
    assert not [d for d in shown_tables(app) if "savings_pct" in d.columns]
    assert not app.get("download_button") and len(lite_specs(app)) == 1
    before = _metric(app, "mean token savings")
    assert chosen(app, "tau") == pytest.approx(0.95)
    assert light_control(app, "tau (leader share)").value == pytest.approx(0.95)
    choose(app, "tau", 0.5)
    assert not app.exception
    assert not app.error, [e.value for e in app.error]
    after = _metric(app, "mean token savings")
    assert float(after.rstrip("%")) > float(before.rstrip("%"))  # a looser tau stops earlier
    # the other sections followed: the frontier's "current setting" marker moved
    fig = _frontier(app)
    cur = next(t for t in fig["traces"] if t.get("name") == "current setting")
    assert cur["x"][0] == pytest.approx(float(after.rstrip("%")), abs=0.06)


def test_deep_link_restores_state(open_app) -> None:
    app = open_app(file=REL, policy="sc-pp", conv="5", budget="40", iters="3", seed="7")
    assert not app.exception, app.exception
    assert not app.error, [e.value for e in app.error]
    assert chosen(app, "policy") == "sc-pp" and chosen(app, "conv") == 5
    assert next(n for n in app.number_input if n.key == "budget").value == 40
    assert next(n for n in app.number_input if n.key == "seed").value == 7
    assert _metric(app, "iterations × questions") == "3 × 3"


def test_a_links_settings_the_boxes_refuse_are_said(open_app) -> None:
    """A budget past the box's range, one that is no number, a window that is no choice: each
    box says what the link asked for and what it runs with instead."""
    app = open_app(file=REL, budget="99999", iters="abc", window="77", seed="7")
    assert not app.exception, app.exception
    said = " ".join(c.value for c in app.caption if "The link's" in c.value).replace("\\", "")
    assert (
        "budget=“99999” is not a value this control takes (a whole number from 1 to 4,096): “budget (traces)” is set to “512”"
        in said
    )
    assert (
        "iters=“abc” is not a value this control takes (a whole number from 1 to 256): “iterations” is set to “64”"
        in said
    )
    assert (
        "window=“77” is not a value this control takes (one of: 1024, 2048, 4096): “window W” is set to “2048”"
        in said
    )
    assert "seed=" not in said  # a seed the box takes
    assert next(n for n in app.number_input if n.key == "seed").value == 7


@pytest.mark.parametrize(
    "method", ["offline", "dco", "dco-mars-cal", "esc", "ac-beta", "dco-stability"]
)
def test_every_policy_renders(open_app, method: str) -> None:
    app = open_app(budget="16", policy=method)
    assert not app.exception, (method, app.exception)
    assert not [e for e in app.error], (method, [e.value for e in app.error])
    assert chosen(app, "policy") == method
    for tab in pv.TABS[1:]:
        open_tab(app, tab)
        assert not app.exception, (method, tab, app.exception)
        assert not [e for e in app.error], (method, tab, [e.value for e in app.error])
    assert len(app.get("download_button")) == 3


def test_bad_file_shows_a_message_not_a_traceback(open_app, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RTE_MARS_PATH", str(tmp_path))  # folder without the file
    app = open_app()
    assert not app.exception
    assert any("missing" in e.value or "not found" in e.value.lower() for e in app.error)


def _bad_file(path: Path) -> None:
    """q0 fine; q1 no final answer; q2 three traces (< warmup); q3 all traces < 2048 tokens
    (empty grid); q4 NaN confidences; a `<script>` answer to check escaping."""
    rng = np.random.default_rng(0)
    rows = []

    def trace(qid, idx, ans, length, nan=False):
        confs = rng.uniform(5, 15, length).astype(np.float16)
        if nan:
            confs[length // 2] = np.nan
        probes = [
            {
                "position": p,
                "answer": ans,
                "is_correct": ans == "7",
                "raw_text": f"\\boxed{{{ans}}}",
                "avg_conf": 10.0,
            }
            for p in range(2048, length, 2048)
        ]
        rows.append(
            {
                "qid": qid,
                "trace_idx": idx,
                "ground_truth": "7",
                "extracted_answer": ans,
                "confs": confs.tolist(),
                "probes": probes,
            }
        )

    for i in range(20):
        trace(0, i, "7" if i % 3 else "<script>x</script>", 6000)
    for i in range(8):
        trace(1, i, None, 5000)
    for i in range(3):
        trace(2, i, "7", 5000)
    for i in range(6):
        trace(3, i, "7", 1500)
    for i in range(20):
        trace(4, i, "7", 6000, nan=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), path)


def test_bad_input_is_explained(tmp_path: Path, monkeypatch) -> None:
    _bad_file(tmp_path / REL)
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(tmp_path))
    for method in ("sc-mars-cal", "dco"):
        at = new_app()
        at.query_params["budget"] = "16"
        at.query_params["policy"] = method
        at.switch_page("pages/playground.py")
        at.run()
        assert not at.exception, at.exception
        assert not [e.value for e in at.error]
        html = "\n".join(h.proto.body for h in at.get("html"))
        assert "Q1: no non-null answer" in html
        assert "Q2: pool smaller than the warmup" in html
        assert "Q3: empty checkpoint grid" in html
        assert "Q4: NaN/inf confidences" in html
        assert "<script>x" not in html  # dataset text is escaped wherever it is shown
        assert any("data notes" in w.value for w in at.warning)


def test_reference_csvs_are_diffed(local_mars: Path, tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "src"
    shutil.copytree(local_mars, root)
    ref = root / "repro_reference/DeepSeek-8B/aime-2025/sc-pp"
    ref.mkdir(parents=True)
    pd.DataFrame(
        {
            "question_id": [0, 1, 2],
            "accuracy_pct": [50.0, 100.0, 0.0],
            "token_savings_pct": [10.0, 20.0, 30.0],
        }
    ).to_csv(ref / "summary_per_question.csv", index=False)
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(root))
    at = new_app()
    at.query_params["policy"] = "sc-pp"
    at.query_params["budget"] = "16"
    at.query_params["view"] = "Reference"
    at.switch_page("pages/playground.py")
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert any("turn off the quick preview" in i.value for i in at.info)
    assert not at.dataframe  # light tables until the "Data grid" switch
    diff = next(f for f in shown_tables(at) if "d_accuracy_pct" in f.columns)
    assert list(diff["question_id"]) == [0, 1, 2]
    assert list(diff["accuracy_pct_ref"]) == [50.0, 100.0, 0.0]
    # the preview runs 8 iterations, the reference 64: a difference is expected, never an error
    assert set(diff["status"]) <= {"same", "preview (expected)"}
    assert "preview (expected)" in set(diff["status"])
    assert all(
        "quick preview: 8 iterations" in w for w in diff.loc[diff["status"] != "same", "why"]
    )
    payload = next(p for p in lite_payloads(at) if p["cols"][0]["name"] == "question_id")
    assert "tones" not in payload  # every difference of the preview is expected: none marked


def test_file_caption_is_markdown_safe(open_app) -> None:
    """The file path caption is markdown: `_` and `.` must not turn into emphasis/links."""
    app = open_app(policy="sc-pp", budget="16")
    assert not app.exception, app.exception
    assert md_text(REL) in [c.value for c in app.caption]


def _mars_sample_copy(sample_root: Path, dest: Path) -> Path:
    """A local MARS source laid out like the Hub repo, holding the sample's DeepSeek-8B file."""
    (dest / REL).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(sample_root / "mars" / REL, dest / REL)
    return dest


@pytest.mark.parametrize(
    ("csv", "bad"),
    [
        ("qid,accuracy_pct\n0,50.0\n1,100.0\n", "question_id"),
        ("question_id,accuracy_pct,token_savings_pct\n0,fifty,1.0\n1,n/a,2.0\n", "accuracy_pct"),
    ],
)
def test_bad_reference_csv_is_a_data_error(
    sample_root: Path, tmp_path: Path, monkeypatch, csv: str, bad: str
) -> None:
    root = _mars_sample_copy(sample_root, tmp_path / "src")
    rel_csv = f"{mars_reference_dir(REL, 'sc-pp')}/summary_per_question.csv"
    (root / rel_csv).parent.mkdir(parents=True)
    (root / rel_csv).write_text(csv)
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(root))
    at = new_app()
    at.query_params["policy"] = "sc-pp"
    at.query_params["budget"] = "16"
    at.query_params["view"] = "Reference"
    at.switch_page("pages/playground.py")
    at.run()
    assert not at.exception, at.exception
    errs = [e.value for e in at.error]
    assert len(errs) == 1 and "Unexpected columns" in errs[0], errs
    assert "summary\\_per\\_question" in errs[0] and bad.replace("_", "\\_") in errs[0]
    # the other tabs still render
    open_tab(at, "Downloads")
    assert not at.error, [e.value for e in at.error]
    assert len(at.get("download_button")) == 3


@pytest.mark.parametrize(
    ("section", "broken_tabs"),
    [
        ("show_summary", set(pv.TABS)),  # above the tabs: its box shows whichever tab is open
        ("show_frontier", {"Frontier"}),
        ("show_per_question", {"Questions"}),
    ],
)
def test_a_failing_section_leaves_the_others(
    open_app, monkeypatch, section: str, broken_tabs: set[str]
) -> None:
    """A bug in one results section shows a bug box there; every other section (the replay,
    the reference diff, the downloads) still renders in its tab."""

    def boom(*_a, **_k):  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")

    monkeypatch.setenv("RTE_STRICT", "0")  # let the guard show the bug box instead of raising
    monkeypatch.setattr(pv, section, boom)
    app = open_app(policy="sc-pp", budget="16")
    for tab in pv.TABS:
        open_tab(app, tab)
        assert not app.exception, (tab, app.exception)
        errors = [e.value for e in app.error]
        if tab in broken_tabs:
            assert len(errors) == 1 and "boom" in errors[0], (tab, errors)
        else:
            assert not errors, (tab, errors)
        if tab == "Questions":
            assert "Replay one bootstrap iteration" in [h.value for h in app.subheader]
        elif tab == "Reference":  # no reference CSVs in this source: a one-line caption
            assert any(
                c.value.startswith("**Against the published reference:**") for c in app.caption
            )
        elif tab == "Downloads":
            assert len(app.get("download_button")) == 3


def test_bundled_sample_reference_diff_is_zero(sample_root: Path) -> None:
    """The bundled sample ships the published simulator's summaries as its repro_reference
    (cache/sample/mars_reference): the full run of sc-mars-cal at the published setting must
    show no difference on any question, and the same overall row."""
    assert (sample_root / "mars" / "repro_reference/DeepSeek-8B/aime-2025/sc-mars-cal").is_dir()
    at = new_app(timeout=300)
    at.query_params["policy"] = "sc-mars-cal"
    at.query_params["view"] = "Reference"
    at.query_params["ref_grid"] = "true"  # the grids hold the exact numbers
    at.switch_page("pages/playground.py")
    at.run()
    assert not at.exception, at.exception
    choose(at, "preview", False)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert not any("turn off the quick preview" in i.value for i in at.info)
    assert any("published MARS simulator's output" in c.value for c in at.caption)
    frames = [d.value for d in at.dataframe]
    diff = next(f for f in frames if "d_accuracy_pct" in getattr(f, "columns", []))
    diff = getattr(diff, "data", diff)  # a Styler in the app, its frame here
    assert list(diff["question_id"]) == list(range(30))
    dcols = [c for c in diff.columns if c.startswith("d_")]
    assert {"d_accuracy_pct", "d_token_savings_pct"} <= set(dcols)
    assert np.abs(diff[dcols].to_numpy(dtype=float)).max() < 1e-9
    assert set(diff["status"]) == {"same"} and set(diff["why"]) == {""}
    # the calibrated gamma of every question, beside the reference's (unknown: no column)
    assert diff["gamma"].between(0.5, 1.0).all()
    assert any("Every question matches the reference" in c.value for c in at.caption)
    overall = next(f for f in frames if "source" in getattr(f, "columns", []))
    overall = getattr(overall, "data", overall)  # a Styler in the app
    assert "SE of accuracy (pp)" in overall.columns and "accuracy_std" not in overall.columns
    ours = overall[overall["source"] == "ours"].drop(columns="source").to_numpy(dtype=float)
    ref = overall[overall["source"] == "reference"].drop(columns="source").to_numpy(dtype=float)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-9)


def _perq(app):  # type: ignore[no-untyped-def]
    return next(d for d in shown_tables(app) if "savings_pct" in d.columns)


def _frontier(app) -> dict:  # type: ignore[no-untyped-def]
    """The frontier: the page's first chart, drawn without Plotly (a lite chart's spec)."""
    assert not app.get("plotly_chart")  # nothing on the page loads Plotly's bundle
    return lite_specs(app)[0]


def test_window_choice_changes_the_confidence_windows(sample_root: Path) -> None:
    """W is a real control now: W = 1024 builds its own feature table (the store is keyed by
    window) and moves DeepConf's threshold, truncation and vote weights; a deep link restores
    it. (The sample, not the tiny local file: there every policy scores 100 %.)"""

    def open_dco(**params: str):  # type: ignore[no-untyped-def]
        at = new_app()
        at.query_params.update({"policy": "dco", "view": "Questions", **params})
        at.session_state["pg_settings_open"] = True  # the settings' widgets: drawn when open
        at.session_state["pg_notes_open"] = True  # and the notes' table
        at.switch_page("pages/playground.py")
        return at.run()

    app = open_dco()
    win = next(s for s in app.selectbox if s.key == "window")
    assert win.value == 2048 and not win.disabled
    assert list(win.options) == ["1024", "2048", "4096"]
    assert "probed every 2,048 tokens" in win.help
    before = _perq(app)
    win.set_value(1024).run()
    assert not app.exception, app.exception
    assert not app.error, [e.value for e in app.error]
    after = _perq(app)
    cols = ["accuracy_pct", "savings_pct"]
    assert not before[cols].equals(after[cols])  # dco's results moved with W
    notes = [
        n
        for d in app.dataframe
        if "note" in getattr(d.value, "columns", [])
        for n in d.value["note"]
    ]
    assert notes  # the notes' table is drawn (open)
    assert not [n for n in notes if "features were built with window" in n]  # store matches W
    linked = open_dco(window="1024")
    assert next(s for s in linked.selectbox if s.key == "window").value == 1024
    assert _perq(linked)[cols].equals(after[cols])


def test_budget_above_the_pool_is_explained_on_the_sample(sample_root: Path) -> None:
    """The sample holds 128 traces per question; the published budget 512 samples with
    replacement, and the page says so in one line (not 30)."""
    at = new_app()
    at.query_params["policy"] = "sc-pp"
    at.switch_page("pages/playground.py")
    at.run()
    assert not at.exception, at.exception
    # closed with nothing set in the URL, the settings draw no widget (the published values hold)
    assert not any(n.key == "budget" for n in at.number_input)
    at.session_state["pg_settings_open"] = True
    at.run()
    assert next(n for n in at.number_input if n.key == "budget").value == 512
    lines = [i.value for i in at.info if "sampled with replacement" in i.value]
    assert len(lines) == 1, [i.value for i in at.info]
    assert lines[0].startswith("Every question (30): budget 512 > pool of ")
    assert "128 traces" in lines[0]
    assert not any("data notes" in w.value for w in at.warning)  # informational, not a data issue


def test_frontier_shows_the_published_policies_by_default_grouped(open_app) -> None:
    app = open_app(policy="sc-consensus", budget="16")
    data = _frontier(app)["traces"]
    names = {t.get("name") for t in data}
    # a readable default: the published methods, not all 16 (the legend overlapped)
    assert names & set(ALL_METHODS) == {
        "sc-mars",
        "dco-mars",
        "sc-mars-cal",
        "dco-mars-cal",
        "sc-pp",
    }
    sweep = "sc-consensus: consensus tau swept 0.5–1"  # what is swept, over which range
    assert {"SC full budget (offline)", "DeepConf online (dco)", sweep} <= names
    groups = {t.get("name"): t.get("legendgroup") for t in data}
    assert groups["sc-pp"] == "published" and groups["DeepConf online (dco)"] == "baseline"
    assert _frontier(app)["legend"]["groupclick"] == "togglegroup"
    titles = {t.get("legendgroup"): t.get("grouptitle") for t in data if t.get("grouptitle")}
    assert titles["baseline"] == "Baselines"
    assert titles["published"] == "Re-simulated at published settings"  # this app's runs
    # DeepConf points measure savings against their own truncated cost: the chart says so
    assert any("Two savings scales" in c.value for c in app.caption)
    ours = open_app(policy="sc-mars", budget="16", others=["sc-consensus", "esc"])
    groups = {t.get("name"): t.get("legendgroup") for t in _frontier(ours)["traces"]}
    assert groups["sc-consensus"] == "checkpoint" and groups["esc"] == "sequential"
    picked = open_app(policy="sc-consensus", budget="16", others=["sc-pp", "ac-entropy"])
    assert not picked.exception, picked.exception
    ms = next(m for m in picked.multiselect if m.key == "others")
    assert ms.value == ["sc-pp", "ac-entropy"]
    names = {t.get("name") for t in _frontier(picked)["traces"]}
    assert names & set(ALL_METHODS) == {"sc-pp", "ac-entropy"}
    assert "DeepConf online (dco)" in names  # baselines stay


def _arr(v):  # type: ignore[no-untyped-def]
    """A chart's array as floats (None, a gap, as NaN)."""
    return np.asarray([np.nan if x is None else x for x in v], dtype=float)


def _chart(app, title: str) -> dict:  # type: ignore[no-untyped-def]
    """The lite chart whose annotations (subplot titles) include `title`."""
    for spec in lite_specs(app):
        if any(a.get("text") == title for a in spec["annotations"]):
            return spec
    raise AssertionError(f"no chart titled {title!r}")


def test_dco_explains_its_zero_savings_and_replays_its_votes(sample_root: Path) -> None:
    """DeepConf online never stops and its published savings are against the truncated cost
    (0 % by definition): the page says so next to the metrics, with the savings against the
    untruncated SC cost of the same sample; the replay still shows its vote at each checkpoint."""
    at = new_app()
    at.query_params["policy"] = "dco"
    at.query_params["view"] = "Questions"
    at.switch_page("pages/playground.py")
    at.run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert _metric(at, "mean token savings") == "0.0%"
    assert _metric(at, "stopped early") == "0 / 240"  # 8 preview iterations x 30 questions
    note = next(i.value for i in at.info if "never stops early" in i.value)
    assert "against the truncated cost" in note
    m = re.search(
        r"untruncated SC: \*\*([0-9.]+) % \(95 % CI \[([0-9.]+), ([0-9.]+)\] %\)\*\*", note
    )
    assert m, note
    assert 0 < float(m.group(1)) < 100  # truncation saves tokens on the sample
    assert float(m.group(2)) <= float(m.group(1)) <= float(m.group(3))  # with its interval
    fig = _chart(at, "vote share per answer")
    answers = [t for t in fig["traces"] if t["type"] == "scatter" and t["xaxis"] == "x"]
    n_k = len(fig["steps"]["counts"])  # the Play control steps through the checkpoints
    assert fig["steps"]["counts"] == list(range(1, n_k + 1))
    assert n_k > 1 and answers
    assert all(_arr(t["y"]).shape == (n_k,) for t in answers)  # a share at every checkpoint
    assert max(_arr(t["y"]).max() for t in answers) > 0
    share = _arr(next(t for t in fig["traces"] if t.get("name") == "leader share (%)")["y"])
    assert share.shape == (n_k,) and share.max() > 0
    assert not [a for a in fig["annotations"] if "stop at" in a["text"]]
    assert any("never stops early" in c.value for c in at.caption)


def test_empty_replay_is_an_info_box_not_an_empty_chart(tmp_path: Path, monkeypatch) -> None:
    """Q3 of the bad file has no checkpoint (every trace < 2,048 tokens)."""
    _bad_file(tmp_path / REL)
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(tmp_path))
    at = new_app()
    at.query_params.update({"budget": "16", "policy": "dco", "qid": "3"})
    at.switch_page("pages/playground.py")
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["replay_q"] == 3
    # each question named with this run's accuracy next to SC's (the lost ones marked)
    picker = light_select(at, "question")
    assert re.fullmatch(r"Q3 · \d+% \(SC \d+%\)( · lost)?", picker.shown), picker.shown
    assert [o.split(" · ")[0] for o in picker.options] == [
        f"Q{q}" for q in range(len(picker.options))
    ]
    assert any(i.value.startswith("Nothing to replay for Q3") for i in at.info)
    with pytest.raises(AssertionError):
        _chart(at, "vote share per answer")


def test_stopped_early_shows_its_total(open_app) -> None:
    app = open_app(policy="sc-consensus", budget="16", tau="0.5")
    assert not app.exception, app.exception
    metric = next(m for m in shown_metrics(app) if m.label == "stopped early")
    n, total = (int(v) for v in metric.value.split(" / "))
    assert total == 8 * 3  # preview iterations x questions
    assert 0 < n <= total
    assert metric.delta == f"{100 * n / total:.0f}% of iterations"


def _marker(app, name: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    t = next(t for t in _frontier(app)["traces"] if t.get("name") == name)
    return t["marker"]["symbol"], t["marker"]["color"]


def test_frontier_markers_keep_their_look_across_policies(open_app) -> None:
    every = [m for m in ALL_METHODS if m not in ("offline", "dco")]
    a = open_app(policy="sc-mars-cal", budget="16", others=every)
    b = open_app(policy="sc-pp", budget="16", others=every)
    assert not a.exception and not b.exception
    assert _marker(a, "dco-mars-cal") == _marker(b, "dco-mars-cal") == MARKER_STYLE["dco-mars-cal"]
    assert _marker(a, "ac-entropy") == _marker(b, "ac-entropy")
    # a method missing from one chart (the chosen policy is its sweep) moves no other marker
    assert _marker(a, "sc-consensus") == _marker(b, "sc-consensus")
    assert len(set(MARKER_STYLE.values())) == len(ALL_METHODS)  # every method distinct


def test_frontier_and_per_question_axes_have_headroom_and_round_ticks(open_app) -> None:
    app = open_app(policy="sc-mars-cal", budget="16")
    front = _frontier(app)
    skip = ("Pareto front (steps)", "95 % intervals", SWEEP_BAND)
    ys = [y for t in front["traces"] if t.get("name") not in skip for y in _arr(t["y"])]
    lo, hi = front["axes"]["yaxis"]["range"]
    assert hi >= max(ys) + 3 - 1e-4 and lo <= min(ys) - 3 + 1e-4  # the points are float32
    open_tab(app, "Questions")
    perq = next(
        spec
        for spec in lite_specs(app)
        if any(t.get("name") == "savings (%)" for t in spec["traces"])
    )
    lay = perq["axes"]
    # two rows, not twin axes with unrelated ticks (the lite renderer refuses `overlaying`)
    assert lay["yaxis2"]["domain"][1] < lay["yaxis"]["domain"][0]
    assert lay["yaxis2"]["tickvals"] == [0, 25, 50, 75, 100]
    assert lay["yaxis2"]["range"][1] > 100 and lay["yaxis2"]["range"][0] < 0


def test_dco_composed_policies_explain_their_accounting(open_app) -> None:  # type: ignore[no-untyped-def]
    at = open_app(policy="dco-mars")
    assert not at.exception and not at.error
    captions = " ".join(c.value for c in at.caption)
    assert "truncated" in captions and "Against untruncated SC" in captions
    plain = open_app(policy="sc-mars")
    assert "Against untruncated SC" not in " ".join(c.value for c in plain.caption)


# ---------------------------------------------------------------- casebook
def _save_case(app, prefix: str, title: str):  # type: ignore[no-untyped-def]
    """Fill the title of the popover whose keys start with `prefix` and press "Save case"."""
    box = next(t for t in app.text_input if t.key.startswith(prefix) and t.key.endswith("_title"))
    box.set_value(title)
    save = next(b for b in app.button if b.key == box.key.removesuffix("_title") + "_save")
    assert save.label == "Save case"
    save.click().run()
    assert not app.exception, app.exception
    assert not app.error, [e.value for e in app.error]
    return app


def _expanders(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [e.label for e in app.expander]


def test_a_run_is_captured_with_its_parameters(open_app, db: str) -> None:
    app = open_app(policy="sc-consensus", budget="16", tau="0.5")
    assert not app.exception, app.exception
    assert not any("on this item" in x for x in _expanders(app))  # none stored yet
    acc = float(_metric(app, "accuracy").rstrip("%"))
    savings = float(_metric(app, "mean token savings").rstrip("%"))
    _save_case(app, "cb_pg_run_", "consensus at 0.5 stops early")
    cases = open_store(db).cases_for_item("playground", file=REL)
    assert len(cases) == 1
    case = cases[0]
    assert (case.dataset, case.view, case.title) == (
        "playground",
        "playground",
        "consensus at 0.5 stops early",
    )
    params = "tau=0.5 budget=16 iters=8 warmup=16 window=2048 seed=42"
    assert case.item == {"file": REL, "policy": "sc-consensus", "params": params}
    query = dict(case.query)
    assert query["policy"] == "sc-consensus" and query["budget"] == "16" and query["tau"] == "0.5"
    assert case.source["kind"] == "local" and case.source["file"] == REL
    snap = case.snapshot
    assert snap["accuracy_pct"] == pytest.approx(acc, abs=0.06)
    assert snap["token_savings_pct"] == pytest.approx(savings, abs=0.06)
    assert snap["sc_accuracy_pct"] is not None and "untruncated_savings_pct" not in snap
    open_tab(app, "Questions")
    assert snap["questions_lost_vs_sc"] == sum(_perq(app)["flag"] != "")
    assert (snap["budget"], snap["iterations"], snap["warmup"], snap["window"], snap["seed"]) == (
        16,
        8,
        16,
        2048,
        42,
    )
    # the run's cases show inline by the summary; another tau is another run, without them
    assert "on this item" in " ".join(_expanders(app))
    other = open_app(policy="sc-consensus", budget="16", tau="0.6")
    assert not any("on this item" in x for x in _expanders(other))


def test_dco_run_snapshot_has_untruncated_savings(open_app, db: str) -> None:
    app = open_app(policy="dco", budget="16")
    _save_case(app, "cb_pg_run_", "dco run")
    (case,) = open_store(db).cases_for_item("playground", policy="dco")
    assert case.item["params"] == "pct=90 budget=16 iters=8 warmup=16 window=2048 seed=42"
    assert "untruncated_savings_pct" in case.snapshot


def test_a_replayed_iteration_is_captured_and_marked(open_app, db: str) -> None:
    app = open_app(policy="sc-consensus", budget="16", tau="0.5", qid="1")
    assert not app.exception, app.exception
    assert set(_perq(app)["cases"]) == {""}  # no marks yet
    choose(app, "it", 2)
    _save_case(app, "cb_pg_replay_", "Q1 iteration 2")
    (case,) = open_store(db).cases_for_item("playground", file=REL, qid="1")
    assert case.item == {
        "file": REL,
        "policy": "sc-consensus",
        "params": "tau=0.5 budget=16 iters=8 warmup=16 window=2048 seed=42",
        "qid": "1",
        "iteration": "2",
    }
    assert dict(case.query)["qid"] == "1"
    snap = case.snapshot
    assert {"answer", "correct", "stop_position", "tokens", "stopped_by"} <= set(snap)
    assert isinstance(snap["correct"], bool) and snap["tokens"] > 0
    html = "\n".join(h.proto.body for h in app.get("html"))
    line = next(x for x in html.split("\n") if "Q1, iteration 2" in x)
    assert f"({snap['stopped_by']})" in line or snap["stop_position"] is None
    if snap["stop_position"] is not None:  # the rule's signal at the stop
        assert snap["leader_share_at_stop"] >= 0.5 and snap["tau"] == 0.5
    # the per-question table marks the question; "open ↗" still links to the MARS view
    table = _perq(app)
    marks = dict(zip(table["qid"], table["cases"], strict=True))
    assert marks == {0: "", 1: "● 1", 2: ""}
    assert table["open"].str.contains("mars").all()
    # the replayed question shows its cases inline
    assert any(x.endswith("1 case on this item") for x in _expanders(app))


def test_marks_and_inline_cases_from_a_stored_case(open_app, db: str) -> None:
    """A case stored elsewhere (another session, an import) on Q2 of this file is marked in
    the table and shown inline when the replay opens Q2, not on other questions or files."""
    open_store(db).add(
        make_case(
            "playground",
            "playground",
            query=[("file", REL), ("qid", "2")],
            source={"kind": "local", "file": REL},
            item={"file": REL, "policy": "sc-pp", "params": "x", "qid": "2", "iteration": "0"},
            title="<b>stored</b> case",
            note="a note",
        )
    )
    open_store(db).add(
        make_case(
            "playground",
            "playground",
            query=[],
            source={"kind": "local", "file": "other.parquet"},
            item={"file": "other.parquet", "qid": "0"},
            title="other file",
        )
    )
    app = open_app(policy="sc-pp", budget="16", qid="2")
    assert not app.exception, app.exception
    table = _perq(app)
    assert dict(zip(table["qid"], table["cases"], strict=True)) == {0: "", 1: "", 2: "● 1"}
    assert any(x.endswith("1 case on this item") for x in _expanders(app))
    html = "\n".join(h.proto.body for h in app.get("html"))
    assert "&lt;b&gt;stored&lt;/b&gt; case" in html and "<b>stored</b>" not in html
    assert "other file" not in html
    # another question: no inline cases
    app.session_state["replay_q"] = 0  # what a pick in the question box sets
    app.run()
    assert not any("on this item" in x for x in _expanders(app))


def _link_notes(at) -> list[str]:  # type: ignore[no-untyped-def]
    return [w.value.replace("\\", "") for w in at.warning if "The link asks" in w.value]


@pytest.mark.parametrize(
    ("params", "asked", "shown"),
    [
        ({"qid": "999"}, "question 999", "replaying Q0 instead"),
        ({"it": "99"}, "iteration 99", "replaying iteration 0 instead"),
        ({"policy": "no-such-rule"}, "policy “no-such-rule”", "showing sc-mars-cal"),
        ({"file": "Nope/unknown.parquet"}, "Nope/unknown", "instead"),
    ],
)
def test_a_bad_deep_link_says_what_was_asked_and_what_is_shown(
    open_app, params: dict[str, str], asked: str, shown: str
) -> None:
    at = open_app(budget="16", **params)
    assert not at.exception, at.exception
    notes = _link_notes(at)
    assert len(notes) == 1 and asked in notes[0] and shown in notes[0], notes
    at.run()
    assert _link_notes(at), "the note stays while the fallback is shown"


def _in_order(block) -> list:  # type: ignore[no-untyped-def]
    """The page's elements in the order they are drawn (depth first)."""
    out = []
    for child in getattr(block, "children", {}).values():
        out.append(child)
        out.extend(_in_order(child))
    return out


@pytest.mark.parametrize("params", [{"qid": "999"}, {"it": "99"}])
def test_a_refused_replay_link_is_said_near_the_top(open_app, params: dict[str, str]) -> None:
    """The replay sits below the summary and the per-question table, off the first screen: a
    note about the question or iteration the link asked for is said above the policy's
    parameters, and stays there on the fragment's reruns (a slider moved)."""
    at = open_app(budget="16", **params)
    said = [str(getattr(e, "value", "")) for e in _in_order(at.main)]
    note = next(i for i, text in enumerate(said) if "The link asks" in text)
    keys = [getattr(e, "key", None) for e in _in_order(at.main)]
    assert (
        note < keys.index("_sel_gamma_pick") < said.index("Per question, next to self-consistency")
    )
    at.number_input(key="iters").set_value(8).run()  # the fragment reruns
    assert not at.exception and _link_notes(at)


def test_a_link_opens_the_tab_it_names_and_a_replay_link_opens_the_replay(open_app) -> None:
    """`?view=` opens that tab; a link naming a question or an iteration to replay (a replay
    case's link) opens the Questions tab; a bad tab name falls back to the frontier."""
    cases = [
        ({"view": "Downloads"}, "Downloads"),
        ({"it": "3"}, "Questions"),
        ({"qid": "1"}, "Questions"),
        ({"qid": "1", "view": "Frontier"}, "Frontier"),
        ({"view": "<script>"}, "Frontier"),
    ]
    for params, tab in cases:
        at = open_app(policy="sc-pp", budget="16", **params)
        assert not at.exception, (params, at.exception)
        assert not at.error, (params, [e.value for e in at.error])
        heads = [h.value for h in at.subheader]
        assert ("Accuracy against token savings" in heads) == (tab == "Frontier"), params
        assert ("Replay one bootstrap iteration" in heads) == (tab == "Questions"), params
        assert (len(at.get("download_button")) == 3) == (tab == "Downloads"), params


def test_the_replayed_iteration_lives_in_the_url(open_app) -> None:
    at = open_app(policy="sc-pp", budget="16", qid="1", it="5")
    assert not at.exception, at.exception
    assert not _link_notes(at)
    assert chosen(at, "it") == 5 and light_control(at, "bootstrap iteration").value == 5
    assert "iteration 5" in " ".join(h.proto.body for h in at.get("html"))


def test_a_folder_without_the_default_file_opens_the_first_file_it_has(
    tmp_path: Path, monkeypatch
) -> None:
    rel = "Qwen3-32B/brumo25.parquet"
    write_file(tmp_path / rel, "brumo", 8, seed=4, drop=0, n_questions=2, median_len=5000)
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(tmp_path))
    at = run_page("pages/playground.py", budget="8")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    pick = light_select(at, "MARS file…")
    assert chosen(at, "file") == rel
    assert "not in this folder" in pick.options[list(MARS_FILES).index(REL)]


def test_a_linked_file_the_folder_lacks_is_named(tmp_path: Path, monkeypatch) -> None:
    """The playground's file picker is the MARS view's (`components.common.mars_file`): a
    link's file that the folder lacks opens the folder's first file, with a note naming it."""
    rel = "Qwen3-32B/brumo25.parquet"
    write_file(tmp_path / rel, "brumo", 8, seed=4, drop=0, n_questions=2, median_len=5000)
    monkeypatch.setenv("RTE_MARS_SOURCE", "local")
    monkeypatch.setenv("RTE_MARS_PATH", str(tmp_path))
    at = run_page("pages/playground.py", budget="8", file=REL)
    assert not at.exception, at.exception
    assert chosen(at, "file") == rel
    assert _link_notes(at) == [
        f"The link asks for the file “{REL}”, which this folder does not have: showing {rel}, "
        "the first file it has, instead."
    ]


def test_compare_tab_pairs_two_policies_on_the_same_samples(open_app, local_mars: Path) -> None:
    """The Compare tab runs B with the current bootstrap settings: its McNemar counts and
    p-value are those of the two runs simulated here through the analysis layer, B's choice is in
    the URL, and each of A's losses links to A's replay at the first differing iteration."""
    settings = replace(DEFAULT_SETTINGS, budget=24, iterations=6)
    store = load_features(local_mars / REL, window=settings.window)
    preps = [prepare(store.pool(q)) for q in store.qids]
    a = simulate(preps, published_policy("offline"), settings)
    b = simulate(preps, published_policy("dco"), settings)
    want = compare_policies(a, b)
    assert not a_loses(want).empty, "the pair chosen should show A's losses"

    app = open_app(file=REL, policy="offline", vs="dco", budget="24", iters="6", view="Compare")
    assert not app.exception, app.exception
    assert not app.error, [e.value for e in app.error]
    assert chosen(app, "vs") == "dco"
    p = next(
        m
        for m in shown_metrics(app)
        if m.label == "McNemar exact p (two-sided, iterations as independent)"
    )
    assert float(p.value) == pytest.approx(want.mcnemar.p_value, rel=1e-2)
    captions = " ".join(c.value for c in app.caption)
    assert f"A right and B wrong {want.mcnemar.a_only:,}" in captions
    assert f"B right and A wrong {want.mcnemar.b_only:,}" in captions
    acc = next(m for m in shown_metrics(app) if m.label.startswith("accuracy A − B"))
    assert acc.value == f"{want.accuracy.estimate:+.1f} pp"
    lost = a_loses(want)
    table = next(df for df in shown_tables(app) if "replay" in df.columns)
    assert table["qid"].tolist() == lost["qid"].tolist()
    for link, qid, it in zip(
        table["replay"], lost["qid"], lost["first_differing_iteration"], strict=True
    ):
        assert link.startswith("playground?") and f"qid={qid}" in link and f"it={int(it)}" in link
        assert "policy=offline" in link and "view=Questions" in link and "vs=" not in link
    # every question compared, under its heading, with the counts the McNemar test sums
    every = next(
        df for df in shown_tables(app) if "a_only" in df.columns and "replay" not in df.columns
    )
    assert every["qid"].tolist() == want.per_question["qid"].tolist()
    assert int(every["a_only"].sum()) == want.mcnemar.a_only
    assert int(every["b_only"].sum()) == want.mcnemar.b_only
    n = len(want.per_question)
    assert any(m.value == f"**Every question** ({n})" for m in app.markdown)


def test_a_replayed_iteration_is_computed_and_drawn_once(open_app, monkeypatch) -> None:
    """The replay is cached like the runs: opening the same iteration again builds no figure;
    another iteration is its own replay (never the cached one of the first)."""
    from components.playground import replay as replay_view

    built: list[int] = []
    real = replay_view.replay_figure

    def counted(diag, res, *args, **kwargs):  # type: ignore[no-untyped-def]
        built.append(int(res.stop_index[0]))
        return real(diag, res, *args, **kwargs)

    monkeypatch.setattr(replay_view, "replay_figure", counted)
    # a budget no other test opens: nothing of it is in the process's caches yet
    params = {"policy": "sc-pp", "budget": "13", "qid": "1", "view": "Questions"}
    first = open_app(**params, it="6")
    assert not first.exception, first.exception
    assert not _link_notes(first)
    again = open_app(**params, it="6")
    assert len(built) == 1  # the second opening reuses the first's figure
    assert _chart(again, "vote share per answer") == _chart(first, "vote share per answer")
    html = " ".join(h.proto.body for h in again.get("html"))
    assert "iteration 6" in html
    other = open_app(**params, it="2")
    assert "iteration 2" in " ".join(h.proto.body for h in other.get("html"))
    assert len(built) == 2  # another iteration: its own replay


@pytest.mark.parametrize("raw", ["nan", "inf", "5", "-1", "abc", "0.95.1"])
def test_a_slider_value_a_link_cannot_hold_opens_the_default(open_app, raw: str) -> None:
    """The light slider's URL value is untrusted: a value outside the range, not a number, NaN
    or infinite opens the policy's default, and the link is rewritten to say so."""
    app = open_app(policy="sc-consensus", budget="8", tau=raw, preview="maybe")
    assert not app.exception, app.exception
    assert not app.error, [e.value for e in app.error]
    assert chosen(app, "tau") == pytest.approx(0.95)
    assert light_control(app, "tau (leader share)").value == pytest.approx(0.95)
    assert "tau" not in app.query_params  # the default: nothing in the URL
    assert chosen(app, "preview") is True  # "maybe" is no switch state: the default (on)
