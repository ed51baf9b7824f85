"""The two landmarks of a trajectory's text outside the parallel grammar: where the chat prompt
ends (the response starts after the last assistant header) and the final answer (the last
balanced ``\\boxed{}``)."""

from __future__ import annotations

import re

_ASSISTANT_RE = re.compile(r"<\|im_start\|>assistant[^\n]*\n?")


def find_prompt_end(text: str) -> int:
    """End of the chat prompt: just after the last assistant header (0 without a chat)."""
    if "<|im_start|>" not in text:
        return 0
    end = 0
    for m in _ASSISTANT_RE.finditer(text):
        end = m.end()
    return end


def last_boxed(
    text: str, start: int = 0, end: int | None = None
) -> tuple[str | None, tuple[int, int] | None, int]:
    """Content of the last balanced `\\boxed{...}` in text[start:end], its span, and the count."""
    end = len(text) if end is None else end
    count = text.count("\\boxed{", start, end)
    if not count:
        return None, None, 0
    k = text.rfind("\\boxed{", start, end)
    i = k + 7
    depth = 1
    j = i
    while j < end:
        c = text[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[i:j], (k, j + 1), count
        j += 1
    return text[i:end], (k, end), count  # unbalanced: take the rest
