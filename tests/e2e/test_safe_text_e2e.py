"""Dataset and user text in a real browser: Streamlit's Markdown (remark-gfm) turns no escaped
value into a link, and a rendered note loads nothing. A throwaway one-page app renders hostile
strings through `md_text`, `md_label` and `md_html` the way the views do."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest

from bench.browser import free_port, wait_healthy
from components.common.safe_text import WORD_JOINER

pytestmark = pytest.mark.e2e

HOSTILE = (
    "view (https://evil.example/x) lacks it; see www.evil.example, mail a@evil.example,"
    " HTTP://EVIL.example/Y and http://e"
)
MARKUP = "<img src=x onerror=window.__pwned=1> <b>b</b> [x](http://e)"
NOTE = textwrap.dedent(
    """\
    **bold** ![pic](https://evil.example/a.png) [ok](https://ok.example/page)

    ![ref][r] <https://ok.example/auto> [bad](javascript:alert(1)) [rel](//evil.example/p)

    ```
    code

    ![i](https://evil.example/b.png) https://evil.example/c <img src="https://evil.example/d.png">
    ```

    after https://evil.example/e

    [r]: https://evil.example/f.png
    """
)
APP = f"""
import streamlit as st
from components.common.safe_text import md_html, md_label, md_text
from components.common.stat_row import stat_row

HOSTILE = {HOSTILE!r}
MARKUP = {MARKUP!r}
with st.container(key="texts"):
    st.markdown(md_text(HOSTILE))
    st.caption(md_text(HOSTILE))
    st.warning(md_text(HOSTILE))
    st.metric(md_label("https://evil.example/k www.evil.example"), md_text(HOSTILE))
with stat_row("figures", label=MARKUP) as row:  # set as text: nothing escaped, nothing run
    row.metric(MARKUP, HOSTILE, "-" + MARKUP, help=MARKUP)
with st.container(key="note"):
    st.markdown("<div class='note'>" + md_html({NOTE!r}) + "</div>", unsafe_allow_html=True)
st.container(key="done").write("done")
"""


@pytest.fixture(scope="module")
def text_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("safe_text_app")
    (root / "page.py").write_text(APP)
    log = root / "streamlit.log"
    port = free_port()
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(root / "page.py"),
             "--server.port", str(port), "--server.address", "127.0.0.1",
             "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=root, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            wait_healthy(url, proc, log)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


def test_escaped_text_is_never_a_link_and_notes_load_nothing(text_app: str, page) -> None:  # type: ignore[no-untyped-def]  # a Playwright page
    from playwright.sync_api import expect

    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(text_app)
    expect(page.locator(".st-key-done")).to_contain_text("done", timeout=60_000)

    texts = page.locator(".st-key-texts")
    expect(texts.locator('[data-testid="stMarkdownContainer"]')).to_have_count(4)
    expect(texts.locator("a")).to_have_count(0)
    # the reader sees the value itself: no backslash, no visible joiner
    shown = texts.locator('[data-testid="stMarkdownContainer"]').first.inner_text()
    assert shown.replace(WORD_JOINER, "") == HOSTILE

    # a stat row: every part is the text itself, no markup, no link, nothing ran
    figure = page.locator(".rte-stat")
    expect(figure.locator(".rte-stat-value")).to_have_text(HOSTILE)
    expect(figure.locator(".rte-stat-label span").first).to_have_text(MARKUP)
    expect(figure.locator(".rte-stat-delta")).to_have_text(f"↓ -{MARKUP}")
    expect(figure.locator(".rte-stat-help")).to_have_attribute("title", MARKUP)
    expect(page.locator(".rte-stats img, .rte-stats b, .rte-stats a")).to_have_count(0)
    assert page.evaluate("() => window.__pwned") is None

    note = page.locator(".st-key-note .note")
    expect(note.locator("strong")).to_have_text("bold")
    expect(note.locator("img")).to_have_count(0)
    # no link at all: an image, a reference image, an http(s) link and an autolink stay the
    # text they were written as (no stored text becomes a link out of the explorer)
    expect(note.locator("a")).to_have_count(0)
    expect(note).to_contain_text("![pic](https://evil.example/a.png)")
    expect(note).to_contain_text("[ok](https://ok.example/page)")
    expect(note).to_contain_text("<https://ok.example/auto>")
    expect(note).to_contain_text("[r]: https://evil.example/f.png")
    expect(note).to_contain_text("[bad](javascript:alert(1))")
    expect(note).to_contain_text("[rel](//evil.example/p)")
    # the code block keeps its blank line and stays code (no image, no link after the blank line)
    expect(note.locator("pre code")).to_contain_text("code\n\n![i](https://evil.example/b.png)")
    # nothing but the app's own server (a component's script is a blob of this page's origin)
    assert not [u for u in requests if not u.startswith((text_app, f"blob:{text_app}"))], requests
