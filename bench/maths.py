""" "Render maths" benchmark: the server-side cost of finding and wrapping the maths of a text
(`cache.maths_spans`), on a long maths-dense reasoning text and on texts built to be the worst
case for a delimiter scan (prices, unclosed `\\(`, unbalanced `\\boxed{`, stray backticks).

    python bench/maths.py [--chars 100000] [--runs 5]

Target: well under the view's own render time, i.e. < 50 ms for 100,000 characters, whatever
the text (a scan per opener would be quadratic on the worst cases: seconds).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cache.maths_spans import maths_html, maths_spans  # noqa: E402

PIECES = {
    "reasoning, maths-dense": (
        "So $f(x+y) = f(x) + f(y)$ gives \\(f(0)=0\\); then\n\\[ \\sum_{k=1}^{n} k = "
        "\\frac{n(n+1)}{2} \\]\nand the answer is \\boxed{\\frac{1}{2}}. It costs $5, not $6.\n"
    ),
    "prices": "costs $5 and $6 and ",
    "unclosed \\(": "\\( a ",
    "unbalanced \\boxed{": "\\boxed{ a ",
    "stray backticks": "it`s ",
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chars", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    for name, piece in PIECES.items():
        text = (piece * (args.chars // len(piece) + 1))[: args.chars]
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            spans = maths_spans(text)
            maths_html(text, spans)
            times.append(time.perf_counter() - t0)
        print(
            f"{name:24s} {len(text):,} chars, {len(spans):,} spans: "
            f"median {statistics.median(times) * 1000:.1f} ms (split + HTML)"
        )


if __name__ == "__main__":
    main()
