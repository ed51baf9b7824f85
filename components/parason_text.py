"""The whole trajectory as escaped HTML, reserved tags highlighted, threads tinted by kind, the
selected DAG node outlined.

Why HTML built here: `st.markdown` would render `$...$` as LaTeX and interpret markup in model
text; instead every part of the parser's partition is passed through `esc` and wrapped in a
span, with `white-space: pre-wrap` so the maths stays exactly as written (readable LaTeX source).
"""

from __future__ import annotations

from collections.abc import Collection

from analysis.parallel_parse import Trajectory
from components.safe_text import esc

TAG_COLOURS = {
    "parallel": "#1f3b73",
    "outlines": "#3566b8",
    "outline": "#8e6cc4",
    "trial": "#e8871e",
    "subtask": "#2e9e5b",
    "thread": "#555e6b",
    "conclusion": "#138a8a",
    "think": "#6b6b6b",
}
TINTS = {
    "subtask": "rgba(46,158,91,0.10)",
    "trial": "rgba(232,135,30,0.12)",
    "untyped": "rgba(142,108,196,0.12)",
}
BOX_STYLE = (
    "font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.82rem; line-height: 1.45;"
    "white-space: pre-wrap; word-break: break-word; max-height: 560px; overflow-y: auto;"
    "border: 1px solid #e3e6ea; border-radius: 6px; padding: 0.6rem 0.8rem; background: #fcfcfd;"
)


def _tag_style(tag: str) -> str:
    name = tag.strip("<>/|").lower()
    colour = TAG_COLOURS.get(name, "#6b6b6b")
    return f"background:{colour};color:white;border-radius:3px;padding:0 3px;font-weight:600;font-size:0.75rem"


BOX_ID = "rte-parason-text"
SELECTED_ID = "rte-parason-sel"
# constant script (no data interpolated): scroll the text box to the selected node
SCROLL_SCRIPT = (
    "<script>(function(){"
    f"const box=document.getElementById('{BOX_ID}');"
    f"const el=document.getElementById('{SELECTED_ID}');"
    "if(box&&el){box.scrollTop=Math.max(0,el.offsetTop-box.offsetTop-60);}})();</script>"
)


def thread_kinds(traj: Trajectory) -> dict[str, str]:
    return {th.node: th.kind for b in traj.all_blocks() for th in b.threads}


def highlighted_html(
    traj: Trajectory,
    selected: str | None = None,
    added: Collection[str] = (),
    show_prompt: bool = False,
) -> str:
    """One <div> with every character of the trajectory (prompt optional), escaped."""
    kinds = thread_kinds(traj)
    added_set = set(added)
    text = traj.text
    out = [f'<div class="rte-parason-text" id="{BOX_ID}" style="{BOX_STYLE}">']
    first_selected = True
    for s, e, role, node in zip(
        traj.part_start, traj.part_end, traj.part_role, traj.part_node, strict=True
    ):
        if node == "prompt" and not show_prompt:
            continue
        piece = esc(text[s:e])
        style = []
        title = node
        if role in ("tag", "prompt_tag", "chat"):
            style.append(_tag_style(text[s:e]))
        elif role == "stray_tag":
            style.append(
                "background:#fde2e1;color:#b42318;border:1px dashed #b42318;border-radius:3px"
            )
            title = f"{node}: tag out of place"
        elif role == "thread":
            style.append(f"background:{TINTS.get(kinds.get(node, 'untyped'), TINTS['untyped'])}")
        elif role == "item":
            style.append("background:rgba(53,102,184,0.08)")
        elif role == "prompt":
            style.append("color:#8a8f98")
        elif role == "answer":
            style.append("background:rgba(43,43,43,0.05)")
        elif role == "block_text" and text[s:e].strip():
            style.append("background:#fff4ce")
            title = f"{node}: text between threads"
        if node in added_set:
            style.append("box-shadow: inset 3px 0 0 #d100d1")
            title += " (added by the 8x expansion)"
        if selected is not None and node == selected:
            style.append("outline:2px solid #f0b400")
            if role not in ("tag", "prompt_tag", "chat", "stray_tag"):
                style.append("background-color:rgba(255,212,0,0.25)")
        anchor = ""
        if selected is not None and node == selected and first_selected:
            anchor = f' id="{SELECTED_ID}"'
            first_selected = False
        if style:
            out.append(
                f'<span{anchor} style="{";".join(style)}" title="{esc(title)}">{piece}</span>'
            )
        else:
            out.append(piece)
    out.append("</div>")
    return "".join(out)


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
        '<span style="background:#fde2e1;color:#b42318;border:1px dashed #b42318;padding:0 3px">tag out of place</span>'
        ' <span style="background:#fff4ce;padding:0 3px">stray text</span>'
        ' <span style="outline:2px solid #f0b400;padding:0 3px">selected node</span>'
        ' <span style="box-shadow: inset 3px 0 0 #d100d1;padding:0 6px">added by 8x</span>'
    )
    return f'<div style="font-size:0.78rem;line-height:2">{" ".join(chips)} · {" ".join(tints)} · {extra}</div>'


def node_text_html(text: str, limit: int = 20_000) -> str:
    """A node's own text, escaped, LaTeX left as written."""
    more = len(text) > limit
    body = esc(text[:limit]) + ("\n… (truncated)" if more else "")
    style = BOX_STYLE.replace("max-height: 560px", "max-height: 360px")
    return f'<div class="rte-node-text" style="{style}">{body}</div>'
