"""The triage queue's next item, in headless Chromium against a warm server (target: <= 1 s).

    python bench/triage.py              # starts its own server on the bundled sample
    python bench/triage.py --steps 12   # more key presses per view

A queue of MARS questions and one of Parason trajectories are stored in a fresh casebook; each
is opened at its first item and, once settled, `j` is pressed again and again. Per press: from
the key press to the bar painting the next item ("n of N" and its label: `next item`), and to
the whole view settled (script finished, every chart drawn: `settled`), in wall-clock ms kept
in sessionStorage, so a step that loads a page (as every Parason step did when a light control's
value was read under the wrong key) is timed too. The Parason queue's items are made as Browse's
"Triage these N" makes them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.browser import SETTLED_JS, launch, streamlit_server  # noqa: E402

TARGET_S = 1.0
# `SETTLED_JS`, not waiting on components without room (the zero-height key listener and the
# browser bridge draw nothing)
_VISIBLE = ".filter((el) => el.offsetParent !== null)"
SETTLED = SETTLED_JS.replace(
    _VISIBLE + "\n    .every((el) => el.shadowRoot",
    ".filter((el) => el.offsetParent !== null && el.getBoundingClientRect().height > 0)"
    "\n    .every((el) => el.shadowRoot",
)
MARS_FILE = "DeepSeek-8B/aime25_deepseek.parquet"
# ms from the press to the bar showing step `n`; the press's time is kept in sessionStorage
# (wall clock), so a step that loads a page is timed too
_PRESS = "() => sessionStorage.setItem('bench_tq_press', String(Date.now()))"
_SINCE = "() => Date.now() - Number(sessionStorage.getItem('bench_tq_press'))"
_PAINTED = """(n) => {
  const el = document.querySelector('[data-testid="tq-position"]');
  if (!el || !el.textContent.startsWith(n + ' of')) return false;
  return new Promise((done) => requestAnimationFrame(() =>
    done(Date.now() - Number(sessionStorage.getItem('bench_tq_press')))));
}"""


def _queues(db_url: str) -> dict[str, str]:
    """view -> the URL path of its queue's first item (a MARS queue of one file's questions,
    a Parason one of sft-1x trajectories)."""
    return {v: f"{path}&triage={qid}&tpos=1" for v, (qid, path) in _stored(db_url).items()}


def _stored(db_url: str) -> dict[str, tuple[str, str]]:
    # why here: the sample and the store read RTE_CACHE_DIR, which main() sets first
    import polars as pl

    # why here: as above
    from cache.casebook.links import case_path
    from cache.casebook.queue_items import QueueItem
    from cache.casebook.store import open_store
    from cache.sample import build_all, sample_root
    from components.parason.cases import queue_items as parason_items

    build_all()
    uuids = (
        pl.read_parquet(sample_root("parason") / "sft-1x" / "train.parquet", columns=["uuid"])
        .get_column("uuid")
        .to_list()
    )
    store = open_store(db_url, readonly=False)
    mars = [
        QueueItem(
            "mars", (("file", MARS_FILE), ("qid", str(q))), {"file": MARS_FILE, "qid": str(q)}
        )
        for q in range(30)
    ]
    # as Browse's "Triage these N" makes them: each item's link names its subset
    parason = parason_items("sft-1x", [(u, f"trajectory {u}") for u in uuids[:30]], {})
    out = {
        items[0].view: (
            store.create_queue(f"bench {items[0].view}", "bench", items).id,
            str(case_path(items[0].view, items[0].query)),
        )
        for items in (mars, parason)
    }
    store.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=8)
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright  # why here: `--help` needs no browser

    with tempfile.TemporaryDirectory(prefix="rte-bench-triage-") as tmp:
        cache = Path(tmp)
        os.environ["RTE_CACHE_DIR"] = str(cache)
        db_url = f"sqlite:///{cache / 'casebook.sqlite'}"
        queues = _queues(db_url)
        medians: list[float] = []
        with streamlit_server(cache, RTE_DB_URL=db_url) as srv, sync_playwright() as pw:
            browser = launch(pw)
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            for view, path in queues.items():
                page.goto(f"{srv.url}/{path}", timeout=120_000)
                page.wait_for_function(SETTLED, timeout=120_000, polling=50)
                painted, settled = [], []
                for n in range(2, args.steps + 2):
                    page.evaluate(_PRESS)
                    page.keyboard.press("j")
                    painted.append(
                        float(page.wait_for_function(_PAINTED, arg=n, timeout=60_000).json_value())
                    )
                    page.wait_for_function(SETTLED, timeout=60_000, polling=50)
                    settled.append(float(page.evaluate(_SINCE)))
                p, s = statistics.median(painted) / 1000, statistics.median(settled) / 1000
                medians.append(p)
                print(
                    f"{view:8s} next item: median {p:.2f} s, max {max(painted) / 1000:.2f} s; "
                    f"view settled: median {s:.2f} s ({len(painted)} presses of j)"
                )
            browser.close()
        verdict = "met" if all(m <= TARGET_S for m in medians) else "missed"  # NaN: missed
        print(f"target: next item <= {TARGET_S:.0f} s (median per view): {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
