"""The whole trajectory as escaped HTML, reserved tags highlighted, threads tinted by kind, the
selected DAG node outlined.

Why HTML built here: `st.markdown` would render `$...$` as LaTeX and interpret markup in model
text; instead every part of the parser's partition is passed through `esc` and wrapped in a
span, with `white-space: pre-wrap` so the maths stays exactly as written (readable LaTeX source).
With `maths=True` ("Render maths"), the maths spans found on the whole text are wrapped for the
text component to typeset (`cache.maths_spans`); the rest is escaped as before.
"""

from __future__ import annotations

from collections.abc import Collection

from analysis.parason.parse import Trajectory
from cache.maths_spans import maths_html, maths_spans
from components.common.safe_text import esc
from components.common.theme import (
    ANSWER_TINT,
    BOX_BG,
    BOX_BORDER,
    DAG_ADDED,
    ITEM_TINT,
    LINK_HOVER,
    PROMPT_FG,
    SELECTED_FILL,
    SELECTED_RING,
    STRAY_TEXT_BG,
    TAG_COLOURS,
    TAG_DEFAULT,
    TAG_TEXT,
    TINTS,
    WARN_BG,
    WARN_FG,
)

BOX_STYLE = (
    "font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.82rem; line-height: 1.45;"
    "white-space: pre-wrap; word-break: break-word; max-height: 560px; overflow-y: auto;"
    f"border: 1px solid {BOX_BORDER}; border-radius: 6px; padding: 0.6rem 0.8rem; background: {BOX_BG};"
)


STRAY_TAG_STYLE = f"background:{WARN_BG};color:{WARN_FG};border:1px dashed {WARN_FG}"
ADDED_STYLE = f"box-shadow: inset 3px 0 0 {DAG_ADDED}"
SELECTED_STYLE = f"outline:2px solid {SELECTED_RING}"


def _tag_style(tag: str) -> str:
    name = tag.strip("<>/|").lower()
    colour = TAG_COLOURS.get(name, TAG_DEFAULT)
    return f"background:{colour};color:{TAG_TEXT};border-radius:3px;padding:0 3px;font-weight:600;font-size:0.75rem"


BOX_ID = "rte-parason-text"
SELECTED_ID = "rte-parason-sel"
PICK_CLASS = "rte-node-pick"
# constant stylesheet (no data): a pickable run shows where a click lands
PICK_STYLE = (
    "<style>"
    f".rte-parason-text .{PICK_CLASS}{{cursor:pointer}}"
    f".rte-parason-text .{PICK_CLASS}:hover{{outline:1px solid {LINK_HOVER};outline-offset:1px;"
    "border-radius:2px}"
    "</style>"
)


def thread_kinds(traj: Trajectory) -> dict[str, str]:
    return {th.node: th.kind for b in traj.all_blocks() for th in b.threads}


def highlighted_html(
    traj: Trajectory,
    selected: str | None = None,
    added: Collection[str] = (),
    show_prompt: bool = False,
    pickable: Collection[str] | None = None,
    maths: bool = False,
) -> str:
    """One <div> with every character of the trajectory (prompt optional), escaped.

    With `pickable` (the node ids that can be picked), each run of parts of one of those nodes is
    wrapped in a `<span data-pick="NODE">`: `components.common.click_text` turns a click on it
    into a selection in place, with no page reload (the prompt never picks). The first part of
    the selected node carries `data-picked` (the component scrolls it into view) and the box
    `data-keep-scroll` (the component keeps its scroll position across reruns)."""
    kinds = thread_kinds(traj)
    added_set = set(added)
    picks = set(pickable) if pickable is not None else None
    text = traj.text
    spans = maths_spans(text) if maths else []
    keep = " data-keep-scroll" if picks is not None else ""
    out = [f'<div class="rte-parason-text" id="{BOX_ID}"{keep} style="{BOX_STYLE}">']
    first_selected = True
    open_run: str | None = None  # node of the pickable run currently open
    for s, e, role, node in zip(
        traj.part_start, traj.part_end, traj.part_role, traj.part_node, strict=True
    ):
        if node == "prompt" and not show_prompt:
            continue
        piece = maths_html(text, spans, s, e) if spans else esc(text[s:e])
        style = []
        title = node
        if role in ("tag", "prompt_tag", "chat"):
            style.append(_tag_style(text[s:e]))
            if text[s:e] in ("<Thread>", "</Thread>"):
                title = f"{node}: thread wrapper, counted in the block's sequential part"
        elif role == "stray_tag":
            style.append(f"{STRAY_TAG_STYLE};border-radius:3px")
            title = f"{node}: tag out of place"
        elif role == "thread":
            style.append(f"background:{TINTS.get(kinds.get(node, 'untyped'), TINTS['untyped'])}")
        elif role == "item":
            style.append(f"background:{ITEM_TINT}")
        elif role == "prompt":
            style.append(f"color:{PROMPT_FG}")
        elif role == "answer":
            style.append(f"background:{ANSWER_TINT}")
        elif role == "block_text" and text[s:e].strip():
            style.append(f"background:{STRAY_TEXT_BG}")
            title = f"{node}: text between threads"
        if node in added_set:
            style.append(ADDED_STYLE)
            title += " (added by the 8x expansion)"
        is_selected = selected is not None and node == selected
        if is_selected:
            style.append(SELECTED_STYLE)
            if role not in ("tag", "prompt_tag", "chat", "stray_tag"):
                style.append(f"background-color:{SELECTED_FILL}")
        anchor = ""
        if is_selected and first_selected:
            anchor = f' id="{SELECTED_ID}" data-picked'
            first_selected = False
        if not style and not text[s:e].strip():
            out.append(piece)  # bare whitespace joins the open run (or none): fewer spans
            continue
        pick = picks is not None and node != "prompt" and node in picks
        if open_run is not None and (not pick or node != open_run):
            out.append("</span>")
            open_run = None
        if pick and open_run is None:
            out.append(f'<span class="{PICK_CLASS}" data-pick="{esc(node)}">')
            open_run = node
        if style:
            out.append(
                f'<span{anchor} style="{";".join(style)}" title="{esc(title)}">{piece}</span>'
            )
        else:
            out.append(piece)
    if open_run is not None:
        out.append("</span>")
    out.append("</div>")
    return (PICK_STYLE if picks is not None else "") + "".join(out)


def legend_html() -> str:
    chips = [
        f'<span style="{_tag_style("<" + k + ">")}">{esc(k)}</span>'
        for k in ("Parallel", "Outlines", "Subtask", "Trial", "Outline", "Thread", "Conclusion")
    ]
    tints = [
        f'<span style="background:{TINTS[k]};padding:0 4px;border-radius:3px">{k} thread</span>'
        for k in ("subtask", "trial", "untyped")
    ]
    extra = (
        f'<span style="{STRAY_TAG_STYLE};padding:0 3px">tag out of place</span>'
        f' <span style="background:{STRAY_TEXT_BG};padding:0 3px">stray text</span>'
        f' <span style="{SELECTED_STYLE};padding:0 3px">selected node</span>'
        f' <span style="{ADDED_STYLE};padding:0 6px">added by 8x</span>'
    )
    return f'<div style="font-size:0.78rem;line-height:2">{" ".join(chips)} · {" ".join(tints)} · {extra}</div>'


def node_text_html(text: str, limit: int = 20_000, maths: bool = False) -> str:
    """A node's own text, escaped, LaTeX left as written (or wrapped for typesetting)."""
    more = len(text) > limit
    shown = text[:limit]
    body = (maths_html(shown, maths_spans(shown)) if maths else esc(shown)) + (
        "\n… (truncated)" if more else ""
    )
    style = BOX_STYLE.replace("max-height: 560px", "max-height: 360px")
    return f'<div class="rte-node-text" style="{style}">{body}</div>'
