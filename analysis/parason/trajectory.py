"""What the Parason parser returns (see docs/formats/parason.md): a tree of blocks, threads and
outline items, and a flat *partition* of the text into parts.

Every character belongs to exactly one part (``part_start/part_end/part_role/part_node``), and
every part is charged to one DAG node id. Token counters count parts; metrics and the DAG sum
them per node, so the two always agree.

Node ids: ``prompt`` (chat prompt, not part of the response), ``s<k>`` (sequential segment
before top-level block k), ``b<k>:fork`` / ``b<k>:join`` (block k's outlines / conclusion and
wrappers), ``b<k>t<i>`` (thread i of block k), nested blocks as ``b<k>t<i>b<j>:fork`` ...,
and ``answer`` (``</think>`` and everything after it).

Every oddity the parser meets is a ``ParseWarning`` whose code is a key of ``WARNING_CODES``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


def unparsed(text: str, message: str) -> Trajectory:
    """The whole text as one sequential segment with one `parser_error` warning: what `parse`
    returns when a bug stops it (a bug must not take the page down)."""
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
        warnings=[ParseWarning("parser_error", 0, message, "warning")],
        part_start=[0] if n else [],
        part_end=[n] if n else [],
        part_role=["segment"] if n else [],
        part_node=["s0"] if n else [],
    )
