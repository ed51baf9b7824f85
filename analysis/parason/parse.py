"""Tolerant parser for Parason / ThreadWeaver parallel trajectories (see docs/formats/parason.md).

Why hand-rolled: the grammar is tiny but the data is messy (truncated threads, missing closing
tags, maths such as ``a<b>c``). One regex scans for the reserved tag names only, and a stack
machine turns the tag events into a tree. The parser never raises; every oddity becomes a
``ParseWarning`` with a code and a character position.

Besides the tree, the parser returns a flat *partition* of the text into parts
(``part_start/part_end/part_role/part_node``): every character belongs to exactly one part, and
every part is charged to one DAG node id. Token counters count parts; metrics and the DAG sum
them per node, so the two always agree.

Node ids: ``prompt`` (chat prompt, not part of the response), ``s<k>`` (sequential segment
before top-level block k), ``b<k>:fork`` / ``b<k>:join`` (block k's outlines / conclusion and
wrappers), ``b<k>t<i>`` (thread i of block k), nested blocks as ``b<k>t<i>b<j>:fork`` ...,
and ``answer`` (``</think>`` and everything after it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = [
    "WARNING_CODES",
    "Block",
    "Item",
    "ParseWarning",
    "Segment",
    "Thread",
    "Trajectory",
    "SPECIAL_ROLES",
    "TAG_RE",
    "last_boxed",
    "parse",
]

# Only the reserved names (a generic `<\w+>` would eat maths like a<b>c). `think` in any case.
TAG_RE = re.compile(
    r"<(/?)(Parallel|Outlines|Outline|Trial|Subtask|Thread|Conclusion|(?i:think))>"
    r"|<\|(im_start|im_end)\|>"
)
_NUM_RE = re.compile(r"\s*(\d+(?:\.\d+)*)\s*:")
_THINK_CLOSE_RE = re.compile(r"</(?i:think)>")
_ASSISTANT_RE = re.compile(r"<\|im_start\|>assistant[^\n]*\n?")

# roles whose parts are single special tokens (counters charge them one token each)
SPECIAL_ROLES = frozenset({"tag", "stray_tag", "prompt_tag", "chat"})

# code -> (severity, description). "info" = tolerated by the runtime; "warning" = invalid data.
WARNING_CODES: dict[str, tuple[str, str]] = {
    "empty_trajectory": ("info", "the text is empty"),
    "unclosed_parallel": ("warning", "<Parallel> never closed"),
    "nested_parallel": ("warning", "<Parallel> inside a thread (nesting)"),
    "missing_parallel": ("warning", "<Outlines>/<Thread> outside any <Parallel> block"),
    "stray_close": ("warning", "closing tag without a matching opening tag"),
    "stray_tag": ("warning", "reserved tag in a place the grammar does not allow"),
    "unclosed_thread": ("warning", "<Thread> never closed (truncated output?)"),
    "unclosed_outlines": ("warning", "<Outlines> never closed"),
    "unclosed_conclusion": ("warning", "<Conclusion> never closed"),
    "item_unclosed": ("info", "outline item without closing tag"),
    "item_tag_mismatch": ("warning", "outline item closed by a different tag"),
    "item_outside_outlines": ("warning", "outline item outside <Outlines>"),
    "missing_outlines": ("warning", "block has threads but no outline items"),
    "empty_block": ("warning", "block without any thread"),
    "numbering_gap": ("warning", "outline numbers are not 1..n"),
    "duplicate_number": ("warning", "the same number is used twice"),
    "dotted_number": ("info", "dotted outline number such as 1.2"),
    "item_no_number": ("warning", "outline item without an `N:` prefix"),
    "thread_no_number": ("warning", "thread without an `N:` prefix"),
    "thread_number_mismatch": ("warning", "thread number matches no outline item"),
    "thread_order": ("warning", "threads not in outline order"),
    "extra_threads": ("warning", "more threads than outline items"),
    "missing_threads": ("warning", "more outline items than threads"),
    "empty_thread": ("warning", "thread with no content"),
    "text_between_threads": ("warning", "non-blank text between/around threads inside a block"),
    "too_many_items": ("warning", "more than 50 items in one block (valid data has at most ~50)"),
    "conclusion_outside_block": ("info", "<Conclusion> right after </Parallel>"),
    "tags_after_think": ("warning", "parallel tags after </think>"),
    "duplicate_think": ("warning", "<think> or </think> in the answer, after </think>"),
    "think_in_reasoning": (
        "info",
        "<think> or </think> inside the reasoning (counted as one token)",
    ),
    "empty_reasoning": ("warning", "empty reasoning: T = 0, the speedup is undefined"),
    "no_boxed": ("info", "no \\boxed{} answer"),
    "parser_error": ("warning", "internal parser error (please report)"),
    "multiple_boxed": ("info", "several \\boxed{}; the last one is the answer"),
}


@dataclass(slots=True)
class ParseWarning:
    code: str
    pos: int
    message: str
    severity: str = "warning"


@dataclass(slots=True)
class Segment:
    """A sequential piece of text at the top level (or the answer)."""

    node: str
    start: int
    end: int


@dataclass(slots=True)
class Item:
    """One outline item: `<Trial>`/`<Subtask>` (typed) or `<Outline>` (untyped)."""

    kind: str  # "subtask" | "trial" | "untyped"
    start: int
    end: int
    body_start: int
    body_end: int
    number: str | None = None
    closed: bool = False


@dataclass(slots=True)
class Thread:
    index: int
    node: str
    start: int
    end: int
    body_start: int
    body_end: int
    number: str | None = None
    closed: bool = False
    item: int | None = None  # index of the paired outline item
    kind: str = "untyped"
    blocks: list[Block] = field(default_factory=list)  # nested blocks (invalid but parsed)


@dataclass(slots=True)
class Block:
    prefix: str  # node-id prefix, e.g. "b0" or "b0t2b0"
    stage: int  # index among its siblings (top-level: the stage number)
    depth: int  # 1 for top-level blocks
    start: int
    end: int
    closed: bool = False
    implicit: bool = False  # created for a <Thread>/<Outlines> found outside <Parallel>
    outlines: tuple[int, int] | None = None
    items: list[Item] = field(default_factory=list)
    threads: list[Thread] = field(default_factory=list)
    conclusions: list[tuple[int, int]] = field(default_factory=list)
    kind: str = "untyped"  # "subtask" | "trial" | "mixed" | "untyped"

    @property
    def fork(self) -> str:
        return self.prefix + ":fork"

    @property
    def join(self) -> str:
        return self.prefix + ":join"

    @property
    def join_type(self) -> str:
        """AND for Subtask blocks, OR for Trial blocks, MIXED, or ALL (untyped: wait for all)."""
        return {"subtask": "AND", "trial": "OR", "mixed": "MIXED"}.get(self.kind, "ALL")


@dataclass(slots=True)
class Trajectory:
    """The parse result. `sequence` holds top-level Segments and Blocks in text order."""

    text: str
    prompt_end: int
    sequence: list[Segment | Block]
    blocks: list[Block]
    answer: Segment | None
    think_open: int | None
    think_close: int | None
    boxed: str | None
    boxed_span: tuple[int, int] | None
    warnings: list[ParseWarning]
    part_start: list[int]
    part_end: list[int]
    part_role: list[str]
    part_node: list[str]

    @property
    def parts(self) -> list[tuple[int, int, str, str]]:
        return list(
            zip(self.part_start, self.part_end, self.part_role, self.part_node, strict=True)
        )

    @property
    def segments(self) -> list[Segment]:
        return [x for x in self.sequence if isinstance(x, Segment)]

    @property
    def prelude(self) -> Segment | None:
        """Sequential text before the first block (None if the trajectory starts with a block)."""
        first = self.sequence[0] if self.sequence else None
        return first if isinstance(first, Segment) else None

    @property
    def tail(self) -> Segment | None:
        """Sequential text after the last block, before </think>."""
        last = self.sequence[-1] if self.sequence else None
        return last if isinstance(last, Segment) and self.blocks else None

    @property
    def warning_codes(self) -> list[str]:
        return sorted({w.code for w in self.warnings})

    @property
    def valid(self) -> bool:
        return not any(w.severity == "warning" for w in self.warnings)

    def all_blocks(self) -> list[Block]:
        """Top-level and nested blocks, depth first."""
        out: list[Block] = []
        stack = list(reversed(self.blocks))
        while stack:
            b = stack.pop()
            out.append(b)
            for t in reversed(b.threads):
                stack.extend(reversed(t.blocks))
        return out

    def node_text(self, node: str) -> str:
        """All characters charged to `node`, in text order."""
        t = self.text
        return "".join(
            t[s:e]
            for s, e, n in zip(self.part_start, self.part_end, self.part_node, strict=True)
            if n == node
        )


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


# frame kinds on the parser stack
_ROOT, _BLOCK, _OUTLINES, _ITEM, _THREAD, _CONCL = range(6)
_ITEM_KIND = {"Trial": "trial", "Subtask": "subtask", "Outline": "untyped"}
_UNCLOSED_CODE = {
    _BLOCK: "unclosed_parallel",
    _OUTLINES: "unclosed_outlines",
    _ITEM: "item_unclosed",
    _THREAD: "unclosed_thread",
    _CONCL: "unclosed_conclusion",
}


class _Parser:
    """One-shot state machine; `run()` returns the Trajectory. `run` only scans: each tag goes to
    one small handler, looked up by tag name in `_OPEN_HANDLERS` / `_CLOSE_HANDLERS` (`think`, in
    any case, is the fallback), so each grammar rule reads on its own."""

    __slots__ = (
        "text",
        "n",
        "warnings",
        "ps",
        "pe",
        "pr",
        "pn",
        "stack",
        "sequence",
        "blocks",
        "after_think",
        "think_open",
        "think_close",
        "answer",
        "last_think_close",
    )

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)
        self.warnings: list[ParseWarning] = []
        self.ps: list[int] = []
        self.pe: list[int] = []
        self.pr: list[str] = []
        self.pn: list[str] = []
        # each frame: [kind, obj, node-for-text]
        self.stack: list[list] = [[_ROOT, None, ""]]
        self.sequence: list[Segment | Block] = []
        self.blocks: list[Block] = []
        self.after_think = False
        self.think_open: int | None = None
        self.think_close: int | None = None
        self.answer: Segment | None = None
        self.last_think_close = -1  # position of the last `</think>` of the response

    # ---- helpers -------------------------------------------------------------------------
    def warn(self, code: str, pos: int, detail: str = "") -> None:
        sev, desc = WARNING_CODES[code]
        self.warnings.append(
            ParseWarning(code, pos, f"{desc}{': ' + detail if detail else ''}", sev)
        )

    def part(self, s: int, e: int, role: str, node: str) -> None:
        if e > s:
            self.ps.append(s)
            self.pe.append(e)
            self.pr.append(role)
            self.pn.append(node)

    def root_node(self) -> str:
        """Node for top-level text: extend the current segment or open a new one."""
        if self.after_think:
            return "answer"
        seq = self.sequence
        if seq and isinstance(seq[-1], Segment):
            return seq[-1].node
        node = f"s{len(self.blocks)}"
        seq.append(Segment(node, -1, -1))
        return node

    def extend_segment(self, node: str, s: int, e: int) -> None:
        seg = self.answer if node == "answer" else self.sequence[-1]
        if seg is None:
            return
        if seg.start < 0:
            seg.start = s
        seg.end = e

    def text_part(self, s: int, e: int) -> None:
        """Charge text[s:e] to the innermost open frame."""
        kind, obj, node = self.stack[-1]
        if kind == _ROOT:
            text = self.text
            seq = self.sequence
            if (
                not self.after_think
                and seq
                and isinstance(seq[-1], Block)
                and (text[s:e].isspace())
            ):
                self.part(s, e, "block_text", seq[-1].join)  # blank glue after a block
                return
            node = self.root_node()
            self.part(s, e, "answer" if node == "answer" else "segment", node)
            self.extend_segment(node, s, e)
        elif kind == _THREAD:
            self.part(s, e, "thread", node)
        elif kind == _ITEM:
            self.part(s, e, "item", node)
        elif kind == _OUTLINES:
            self.part(s, e, "outline", node)
        elif kind == _CONCL:
            self.part(s, e, "conclusion", node)
            if obj is None and node != "answer":  # a conclusion outside its block
                self.extend_segment(node, s, e)
        else:  # block level
            blk: Block = obj
            chunk = self.text[s:e]
            if not chunk.isspace():
                at = s + len(chunk) - len(chunk.lstrip())
                self.warn("text_between_threads", at, repr(self.text[at : min(e, at + 40)]))
            self.part(s, e, "block_text", blk.join if blk.threads else blk.fork)

    def stray(self, s: int, e: int, code: str, tag: str) -> None:
        """A reserved tag the grammar does not allow here: keep it as text of the current frame."""
        self.warn(code, s, tag)
        kind, obj, node = self.stack[-1]
        if kind == _ROOT:
            node = self.root_node()
            self.extend_segment(node, s, e)
        elif kind == _BLOCK:
            node = obj.join if obj.threads else obj.fork
        self.part(s, e, "stray_tag", node)

    def pop(self, pos: int, explicit: bool = False) -> list:
        """Close the innermost frame at `pos` (explicitly by its closing tag, or implicitly)."""
        frame = self.stack.pop()
        kind, obj = frame[0], frame[1]
        if not explicit:
            self.warn(_UNCLOSED_CODE[kind], pos)
        if kind == _BLOCK:
            obj.end = pos
            obj.closed = explicit
            _finish_block(obj, self)
        elif kind == _THREAD:
            obj.end = pos
            obj.body_end = pos if not explicit else obj.body_end
            obj.closed = explicit
        elif kind == _ITEM:
            obj.end = pos
            if not explicit:
                obj.body_end = pos
            obj.closed = explicit
        elif kind == _OUTLINES:
            blk: Block = self.stack[-1][1]
            blk.outlines = (blk.outlines[0], pos) if blk.outlines else (pos, pos)
        elif kind == _CONCL and obj is not None:
            cs = obj.conclusions
            if cs:
                cs[-1] = (cs[-1][0], pos)
        return frame

    def has(self, kind: int) -> bool:
        return any(f[0] == kind for f in self.stack)

    def open_block(self, s: int, implicit: bool = False) -> Block:
        kind, obj, _ = self.stack[-1]
        if kind == _THREAD:
            thread: Thread = obj
            owner = self._block_of_thread()
            blk = Block(
                f"{thread.node}b{len(thread.blocks)}",
                len(thread.blocks),
                owner.depth + 1,
                s,
                s,
                implicit=implicit,
            )
            thread.blocks.append(blk)
            self.warn("nested_parallel", s)
        else:
            blk = Block(f"b{len(self.blocks)}", len(self.blocks), 1, s, s, implicit=implicit)
            self.blocks.append(blk)
            self.sequence.append(blk)
        self.stack.append([_BLOCK, blk, blk.fork])
        return blk

    def _block_of_thread(self) -> Block:
        for f in reversed(self.stack):
            if f[0] == _BLOCK:
                return f[1]
        raise AssertionError("thread without block")  # unreachable: threads live in blocks

    # ---- main loop -----------------------------------------------------------------------
    def run(self) -> Trajectory:
        text = self.text
        if not text or text.isspace():
            self.warn("empty_trajectory", 0)
        prompt_end = _prompt_end(text)
        closes_at = [m.start() for m in _THINK_CLOSE_RE.finditer(text, prompt_end)]
        self.last_think_close = closes_at[-1] if closes_at else -1
        pos = 0
        text_part = self.text_part
        opens, closes = _OPEN_HANDLERS, _CLOSE_HANDLERS
        for m in TAG_RE.finditer(text):
            s, e = m.span()
            if s < prompt_end:
                pos = self.prompt_tag(pos, s, e, prompt_end)
                continue
            if pos < prompt_end:
                self.part(pos, prompt_end, "prompt", "prompt")
                pos = prompt_end
            if s > pos:
                text_part(pos, s)
            pos = e
            # the dispatch of `on_tag`, inlined: this loop runs once per tag of every row
            close, name, chat = m.group(1, 2, 3)
            if chat is not None or self.after_think:
                self.on_tag(s, e, m)
            elif close:
                closes.get(name, _Parser.close_think)(self, s, e, name, m.group(0))
            else:
                opens.get(name, _Parser.open_think)(self, s, e, name, m.group(0))
        if pos < prompt_end:
            self.part(pos, prompt_end, "prompt", "prompt")
            pos = prompt_end
        if pos < self.n:
            self.text_part(pos, self.n)
        while len(self.stack) > 1:
            self.pop(self.n)
        # drop segment placeholders that never received text (cannot happen, but be safe)
        self.sequence = [x for x in self.sequence if not (isinstance(x, Segment) and x.start < 0)]
        return self.finish(prompt_end)

    def prompt_tag(self, pos: int, s: int, e: int, prompt_end: int) -> int:
        """A tag inside the chat prompt: charge it (and the text before it) to `prompt`; returns
        the new scan position."""
        if s > pos:
            self.part(pos, s, "prompt", "prompt")
        self.part(s, min(e, prompt_end), "prompt_tag", "prompt")
        return prompt_end if e > prompt_end else e  # a tag straddling the end (not expected)

    def on_tag(self, s: int, e: int, m: re.Match[str]) -> None:
        """Dispatch one response tag to its handler (by tag name, opening or closing)."""
        close, name, chat = m.group(1, 2, 3)
        if chat is not None:
            self.on_chat(s, e, chat)
            return
        tag = m.group(0)
        if self.after_think and name != "Conclusion":
            self.stray(
                s, e, "duplicate_think" if name.lower() == "think" else "tags_after_think", tag
            )
            return
        table = _CLOSE_HANDLERS if close else _OPEN_HANDLERS
        handler = table.get(name, _Parser.close_think if close else _Parser.open_think)
        handler(self, s, e, name, tag)

    def pop_if(self, s: int, kind: int) -> None:
        """Implicitly close the innermost frame when it is of `kind`."""
        if self.stack[-1][0] == kind:
            self.pop(s)

    def pop_to(self, s: int, kind: int) -> None:
        """Implicitly close every frame above the innermost one of `kind`."""
        while self.stack[-1][0] != kind:
            self.pop(s)

    # ---- tag handlers: (self, start, end, tag name, tag text) ------------------------------
    def open_thread(self, s: int, e: int, name: str, tag: str) -> None:
        stack = self.stack
        for kind in (_ITEM, _OUTLINES, _THREAD, _CONCL):  # a previous thread never closed, ...
            if stack[-1][0] == kind:
                self.pop(s)
        if self.stack[-1][0] == _ROOT:
            self.warn("missing_parallel", s, "<Thread>")
            self.open_block(s, implicit=True)
        blk: Block = self.stack[-1][1]
        thread = Thread(len(blk.threads), f"{blk.prefix}t{len(blk.threads)}", s, e, e, e)
        blk.threads.append(thread)
        self.part(s, e, "tag", blk.fork)  # published placement: the wrapper is block-sequential
        self.stack.append([_THREAD, thread, thread.node])

    def close_thread(self, s: int, e: int, name: str, tag: str) -> None:
        if not self.has(_THREAD):
            self.stray(s, e, "stray_close", "</Thread>")
            return
        self.pop_to(s, _THREAD)
        thread: Thread = self.stack[-1][1]
        thread.body_end = s
        self.part(s, e, "tag", self.stack[-2][1].join)  # published: block-sequential
        self.pop(e, explicit=True)

    def open_item(self, s: int, e: int, name: str, tag: str) -> None:
        self.pop_if(s, _ITEM)
        top = self.stack[-1][0]
        blk = self.stack[-1][1]
        if not (top == _OUTLINES or (top == _BLOCK and not blk.threads)):
            self.stray(s, e, "stray_tag", tag)
            return
        if top == _BLOCK:
            self.warn("item_outside_outlines", s)
        item = Item(_ITEM_KIND[name], s, e, e, e)
        blk.items.append(item)
        self.part(s, e, "tag", blk.fork)
        self.stack.append([_ITEM, item, blk.fork])

    def close_item(self, s: int, e: int, name: str, tag: str) -> None:
        if self.stack[-1][0] != _ITEM:
            self.stray(s, e, "stray_close", tag)
            return
        item: Item = self.stack[-1][1]
        if item.kind != _ITEM_KIND[name]:
            self.warn("item_tag_mismatch", s, tag)
        item.body_end = s
        self.part(s, e, "tag", self.stack[-1][2])
        self.pop(e, explicit=True)

    def open_parallel(self, s: int, e: int, name: str, tag: str) -> None:
        while self.stack[-1][0] not in (_ROOT, _THREAD):
            self.pop(s)
        self.sequence_tag(s, e)  # published placement: the enclosing sequence
        self.open_block(s)

    def close_parallel(self, s: int, e: int, name: str, tag: str) -> None:
        if not self.has(_BLOCK):
            self.stray(s, e, "stray_close", "</Parallel>")
            return
        self.pop_to(s, _BLOCK)
        self.pop(e, explicit=True)
        self.sequence_tag(s, e)  # published placement: the enclosing sequence

    def sequence_tag(self, s: int, e: int) -> None:
        """Charge a `<Parallel>`/`</Parallel>` tag to the sequence around its block: the current
        top-level segment (a new one after a block) or, nested, the enclosing thread."""
        kind, _, node = self.stack[-1]
        if kind == _ROOT:
            node = self.root_node()
            self.extend_segment(node, s, e)
        self.part(s, e, "tag", node)

    def open_outlines(self, s: int, e: int, name: str, tag: str) -> None:
        if self.stack[-1][0] in (_ROOT, _THREAD):
            self.warn("missing_parallel", s, "<Outlines>")
            self.open_block(s, implicit=True)
        blk = self.stack[-1][1]
        if self.stack[-1][0] != _BLOCK or blk.outlines is not None or blk.threads:
            self.stray(s, e, "stray_tag", "<Outlines>")
            return
        blk.outlines = (s, s)
        self.part(s, e, "tag", blk.fork)
        self.stack.append([_OUTLINES, blk, blk.fork])

    def close_frame(self, s: int, e: int, kind: int, tag: str) -> None:
        """Close the innermost frame when it is of `kind` (the tag is charged to its node);
        otherwise the closing tag is stray."""
        if self.stack[-1][0] != kind:
            self.stray(s, e, "stray_close", tag)
            return
        kind, obj, node = self.stack[-1]
        self.part(s, e, "tag", node)
        if kind == _CONCL and obj is None and node != "answer":
            self.extend_segment(node, s, e)
        self.pop(e, explicit=True)

    def close_outlines(self, s: int, e: int, name: str, tag: str) -> None:
        self.pop_if(s, _ITEM)
        self.close_frame(s, e, _OUTLINES, "</Outlines>")

    def open_conclusion(self, s: int, e: int, name: str, tag: str) -> None:
        top = self.stack[-1][0]
        if top == _BLOCK:
            self.start_conclusion(s, e, self.stack[-1][1])
        elif top == _ROOT and self.after_think:
            # the authors' generator writes every row this way: valid, and no note
            self.answer_part(s, e, "tag")
            self.stack.append([_CONCL, None, "answer"])
        elif top == _ROOT and self.sequence and isinstance(self.sequence[-1], Block):
            self.warn("conclusion_outside_block", s)  # after an implicitly closed block
            self.start_conclusion(s, e, self.sequence[-1])
        elif top == _ROOT and self.right_after_block(s):
            # after `</Parallel>` it is outside the block, as the published count has it
            self.warn("conclusion_outside_block", s)
            node = self.root_node()
            self.extend_segment(node, s, e)
            self.part(s, e, "tag", node)
            self.stack.append([_CONCL, None, node])
        else:
            self.stray(s, e, "stray_tag", "<Conclusion>")

    def right_after_block(self, pos: int) -> bool:
        """True when the current top-level segment holds only a `</Parallel>` (and blanks)."""
        seq = self.sequence
        if len(seq) < 2 or not isinstance(seq[-1], Segment) or not isinstance(seq[-2], Block):
            return False
        return self.text[seq[-1].start : pos].strip() == "</Parallel>"

    def start_conclusion(self, s: int, e: int, blk: Block) -> None:
        blk.conclusions.append((s, s))
        self.part(s, e, "tag", blk.join)
        self.stack.append([_CONCL, blk, blk.join])

    def close_conclusion(self, s: int, e: int, name: str, tag: str) -> None:
        self.close_frame(s, e, _CONCL, "</Conclusion>")

    def open_think(self, s: int, e: int, name: str, tag: str) -> None:
        if self.stack[-1][0] != _ROOT or self.think_open is not None or self.blocks:
            self.inner_think(s, e, tag)
            return
        self.think_open = s
        node = self.root_node()
        self.extend_segment(node, s, e)
        self.part(s, e, "tag", node)

    def close_think(self, s: int, e: int, name: str, tag: str) -> None:
        """The last `</think>` closes every open frame; what follows is the answer. Why the last:
        a `</think>` left inside `response_reasoning` comes before the template's own."""
        if s != self.last_think_close:
            self.inner_think(s, e, tag)
            return
        while len(self.stack) > 1:
            self.pop(s)
        self.think_close = s
        self.after_think = True
        self.answer_part(s, e, "tag")

    def inner_think(self, s: int, e: int, tag: str) -> None:
        """A think tag inside the reasoning: one token of the current node, an informational note
        (the row stays valid)."""
        self.warn("think_in_reasoning", s, tag)
        kind, obj, node = self.stack[-1]
        if kind == _ROOT:
            node = self.root_node()
            self.extend_segment(node, s, e)
        elif kind == _BLOCK:
            node = obj.join if obj.threads else obj.fork
        self.part(s, e, "tag", node)

    def answer_part(self, s: int, e: int, role: str) -> None:
        if self.answer is None:
            self.answer = Segment("answer", s, e)
        self.answer.end = max(self.answer.end, e)
        self.part(s, e, role, "answer")

    def on_chat(self, s: int, e: int, chat: str) -> None:
        """`<|im_end|>` closes the response; any other chat marker is stray."""
        if chat == "im_end":
            kind, obj, node = self.stack[-1]
            if self.after_think:
                self.answer_part(s, e, "chat")
                return
            if kind == _ROOT:
                node = self.root_node()
                self.extend_segment(node, s, e)
            elif kind == _BLOCK:
                node = obj.join if obj.threads else obj.fork
            self.part(s, e, "chat", node)
        else:
            self.stray(s, e, "stray_tag", "<|im_start|>")

    def finish(self, prompt_end: int) -> Trajectory:
        text = self.text
        if self.answer is not None:
            self.answer.end = len(text)
        a0 = self.answer.start if self.answer is not None else prompt_end
        boxed, span, count = last_boxed(text, a0)
        if count == 0 and self.answer is not None:
            boxed, span, count = last_boxed(text, prompt_end)
        if count == 0:
            if text and not text.isspace():
                self.warn("no_boxed", len(text))
        elif count > 1:
            self.warn("multiple_boxed", span[0] if span else 0)
        if self.think_close is not None:
            start = prompt_end
            if self.think_open is not None:
                start = self.think_open + len("<think>")
            if not text[start : self.think_close].strip():
                self.warn("empty_reasoning", self.think_close)
        self.warnings.sort(key=lambda w: w.pos)
        return Trajectory(
            text=text,
            prompt_end=prompt_end,
            sequence=self.sequence,
            blocks=self.blocks,
            answer=self.answer,
            think_open=self.think_open,
            think_close=self.think_close,
            boxed=boxed,
            boxed_span=span,
            warnings=self.warnings,
            part_start=self.ps,
            part_end=self.pe,
            part_role=self.pr,
            part_node=self.pn,
        )


_Handler = Callable[[_Parser, int, int, str, str], None]
# tag name -> handler; `think` (any case) is the fallback, see `_Parser.on_tag`
_OPEN_HANDLERS: dict[str, _Handler] = {
    "Thread": _Parser.open_thread,
    "Parallel": _Parser.open_parallel,
    "Outlines": _Parser.open_outlines,
    "Conclusion": _Parser.open_conclusion,
    **{name: _Parser.open_item for name in _ITEM_KIND},
}
_CLOSE_HANDLERS: dict[str, _Handler] = {
    "Thread": _Parser.close_thread,
    "Parallel": _Parser.close_parallel,
    "Outlines": _Parser.close_outlines,
    "Conclusion": _Parser.close_conclusion,
    **{name: _Parser.close_item for name in _ITEM_KIND},
}


def _prompt_end(text: str) -> int:
    """End of the chat prompt: just after the last assistant header (0 without a chat)."""
    if "<|im_start|>" not in text:
        return 0
    end = 0
    for m in _ASSISTANT_RE.finditer(text):
        end = m.end()
    return end


def _number(text: str, pos: int, end: int) -> str | None:
    m = _NUM_RE.match(text, pos, end)
    return m.group(1) if m else None


def _finish_block(blk: Block, p: _Parser) -> None:
    """Numbers, kinds, thread/item pairing (by number first, then by position) and checks."""
    text = p.text
    items = blk.items
    threads = blk.threads
    kinds = {it.kind for it in items}
    if not kinds:
        blk.kind = "untyped"
    elif len(kinds) == 1:
        blk.kind = next(iter(kinds))
    else:
        blk.kind = "mixed"
    if not threads:
        p.warn("empty_block", blk.start)
    elif not items:
        p.warn("missing_outlines", blk.start)
    if len(items) > 50:
        p.warn("too_many_items", blk.start, str(len(items)))
    # item numbers
    by_number: dict[str, int] = {}
    ints: list[int] = []
    dotted = False
    for k, it in enumerate(items):
        it.number = num = _number(text, it.body_start, it.body_end)
        if num is None:
            p.warn("item_no_number", it.start)
            continue
        if num in by_number:
            p.warn("duplicate_number", it.start, f"item {num}")
            continue
        by_number[num] = k
        if "." in num:
            dotted = True
        else:
            ints.append(int(num))
    if dotted:
        p.warn("dotted_number", blk.start)
    if ints and sorted(ints) != list(range(1, len(ints) + 1)):
        p.warn("numbering_gap", blk.start, ",".join(str(i) for i in ints[:20]))
    # thread numbers + pairing by number
    used: set[int] = set()
    seen_thread_nums: set[str] = set()
    unpaired: list[Thread] = []
    last_item = -1
    order_bad = False
    for th in threads:
        th.number = num = _number(text, th.body_start, th.body_end)
        body = text[th.body_start : th.body_end]
        if not body.strip() or (num is not None and not _NUM_RE.sub("", body, count=1).strip()):
            p.warn("empty_thread", th.start, th.node)
        if num is None:
            if items:
                p.warn("thread_no_number", th.start, th.node)
            unpaired.append(th)
            continue
        if num in seen_thread_nums:
            p.warn("duplicate_number", th.start, f"thread {num}")
        seen_thread_nums.add(num)
        paired = by_number.get(num)
        if paired is None or paired in used:
            if items and paired is None:
                p.warn("thread_number_mismatch", th.start, f"thread {num}")
            unpaired.append(th)
            continue
        used.add(paired)
        th.item = paired
        if paired < last_item:
            order_bad = True
        last_item = max(last_item, paired)
    if order_bad:
        p.warn("thread_order", blk.start)
    free = [k for k in range(len(items)) if k not in used]
    for th, k in zip(unpaired, free, strict=False):
        th.item = k
    if len(threads) > len(items) and items:
        p.warn("extra_threads", blk.start, f"{len(threads)} threads, {len(items)} items")
    elif len(items) > len(threads) and threads:
        p.warn("missing_threads", blk.start, f"{len(items)} items, {len(threads)} threads")
    for th in threads:
        th.kind = items[th.item].kind if th.item is not None else "untyped"


def parse(text: str | None) -> Trajectory:
    """Parse one trajectory (response text, or a whole Qwen chat text). Never raises."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    try:
        return _Parser(text).run()
    except Exception as exc:  # defensive: a bug must not take the page down
        n = len(text)
        return Trajectory(
            text=text,
            prompt_end=0,
            sequence=[Segment("s0", 0, n)] if n else [],
            blocks=[],
            answer=None,
            think_open=None,
            think_close=None,
            boxed=None,
            boxed_span=None,
            warnings=[
                ParseWarning("parser_error", 0, f"internal parser error: {exc!r}", "warning")
            ],
            part_start=[0] if n else [],
            part_end=[n] if n else [],
            part_role=["segment"] if n else [],
            part_node=["s0"] if n else [],
        )
