"""Take full-page screenshots of running views with Debian's chromium (for the README and reviews).

Usage: python -m tests.e2e.screenshots http://127.0.0.1:8501 OUT_DIR path[?query] [path ...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, drawn


def shoot(
    base: str, out: Path, paths: list[str], width: int = 1500, height: int = 1000
) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    saved = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        for path in paths:
            t0 = time.perf_counter()
            page.goto(f"{base}/{path}")
            drawn(page, timeout=180_000)  # script ended, charts and components drawn and painted
            page.wait_for_function(
                """() => !document.querySelector('[data-testid="stProgress"]')""",
                timeout=180_000,
            )
            name = path.split("?")[0].strip("/") or "home"
            dest = out / f"{name}.png"
            page.screenshot(path=str(dest), full_page=True)
            print(f"{dest} ({time.perf_counter() - t0:.1f} s)")
            saved.append(dest)
        browser.close()
    return saved


if __name__ == "__main__":
    shoot(sys.argv[1], Path(sys.argv[2]), sys.argv[3:] or ["home"])
