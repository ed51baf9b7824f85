"""Tolerant parser for Parason / ThreadWeaver parallel trajectories (see docs/formats/parason.md).

Why hand-rolled: the grammar is tiny but the data is messy (truncated threads, missing closing
tags, maths such as ``a<b>c``). One regex scans for the reserved tag names only, and a stack
machine turns the tag events into a tree. The parser never raises; every oddity becomes a
``ParseWarning`` with a code and a character position.

What it returns (the tree, the partition of the text into parts, node ids) is described in
`analysis.parason.trajectory`; the checks of a closed block are in `analysis.parason.block_checks`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from analysis.parason.block_checks import finish_block
from analysis.parason.landmarks import find_prompt_end, last_boxed
from analysis.parason.trajectory import (
    SPECIAL_ROLES,
    WARNING_CODES,
    Block,
    Item,
    ParseWarning,
    Segment,
    Thread,
    Trajectory,
    unparsed,
)

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
_THINK_CLOSE_RE = re.compile(r"</(?i:think)>")


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
            finish_block(obj, self.text, self.warn)
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
        prompt_end = find_prompt_end(text)
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


def parse(text: str | None) -> Trajectory:
    """Parse one trajectory (response text, or a whole Qwen chat text). Never raises."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    try:
        return _Parser(text).run()
    except Exception as exc:  # defensive: a bug must not take the page down
        return unparsed(text, f"internal parser error: {exc!r}")
