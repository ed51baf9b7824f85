"""The whole trajectory as escaped HTML, reserved tags highlighted, threads tinted by kind, the
selected DAG node outlined.

Why HTML built here: `st.markdown` would render `$...$` as LaTeX and interpret markup in model
text; instead every part of the parser's partition is passed through `esc` and wrapped in a
span, with `white-space: pre-wrap` so the maths stays exactly as written (readable LaTeX source).
"""

from __future__ import annotations

import html
from collections.abc import Collection, Iterable, Mapping

from analysis.parason.parse import Trajectory
from components.common.links import query_href
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
# constant script (no data interpolated): scroll the text box to the selected node
SCROLL_SCRIPT = (
    "<script>(function(){"
    f"const box=document.getElementById('{BOX_ID}');"
    f"const el=document.getElementById('{SELECTED_ID}');"
    "if(box&&el){box.scrollTop=Math.max(0,el.offsetTop-box.offsetTop-60);}})();</script>"
)


LINK_CLASS = "rte-node-link"
# constant stylesheet (no data): the node links look like the spans they wrap
LINK_STYLE = (
    "<style>"
    f".rte-parason-text a.{LINK_CLASS},.rte-parason-text a.{LINK_CLASS}:visited,"
    f".rte-parason-text a.{LINK_CLASS}:hover{{color:inherit;text-decoration:none;cursor:pointer}}"
    f".rte-parason-text a.{LINK_CLASS}:hover{{outline:1px solid {LINK_HOVER};outline-offset:1px;"
    "border-radius:2px}"
    "</style>"
)


LinkParams = Mapping[str, str] | Iterable[tuple[str, str]]


def node_href(params: LinkParams, node: str) -> str:
    """`?<params with node=NODE>`, URL-encoded and escaped for an HTML attribute. `params` may be
    (key, value) pairs, so a repeated key (a multiselect bound to the URL) keeps every value."""
    return html.escape(query_href(params, "node", node), quote=True)


def thread_kinds(traj: Trajectory) -> dict[str, str]:
    return {th.node: th.kind for b in traj.all_blocks() for th in b.threads}


def highlighted_html(
    traj: Trajectory,
    selected: str | None = None,
    added: Collection[str] = (),
    show_prompt: bool = False,
    link_params: LinkParams | None = None,
    linkable: Collection[str] | None = None,
) -> str:
    """One <div> with every character of the trajectory (prompt optional), escaped.

    With `link_params` (the page's query, as pairs or a mapping), each run of parts of one node is wrapped in
    a plain link to `?<link_params>&node=NODE` (same tab), so clicking the text selects the node
    like clicking it in the DAG; `linkable` limits the links to those nodes (the prompt never
    links)."""
    pairs = None
    if link_params is not None:  # a list: a generator of pairs would be used up by one link
        items = link_params.items() if isinstance(link_params, Mapping) else link_params
        pairs = [(str(k), str(v)) for k, v in items]
    kinds = thread_kinds(traj)
    added_set = set(added)
    text = traj.text
    out = [f'<div class="rte-parason-text" id="{BOX_ID}" style="{BOX_STYLE}">']
    first_selected = True
    open_link: str | None = None  # node of the link currently open
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
        if selected is not None and node == selected:
            style.append(SELECTED_STYLE)
            if role not in ("tag", "prompt_tag", "chat", "stray_tag"):
                style.append(f"background-color:{SELECTED_FILL}")
        anchor = ""
        if selected is not None and node == selected and first_selected:
            anchor = f' id="{SELECTED_ID}"'
            first_selected = False
        if not style and not text[s:e].strip():
            out.append(piece)  # bare whitespace joins the open link (or none): fewer links
            continue
        link = pairs is not None and node != "prompt" and (linkable is None or node in linkable)
        if open_link is not None and (not link or node != open_link):
            out.append("</a>")
            open_link = None
        if link and open_link is None:
            out.append(
                f'<a class="{LINK_CLASS}" href="{node_href(pairs or [], node)}" '
                f'target="_self" data-node="{esc(node)}">'
            )
            open_link = node
        if style:
            out.append(
                f'<span{anchor} style="{";".join(style)}" title="{esc(title)}">{piece}</span>'
            )
        else:
            out.append(piece)
    if open_link is not None:
        out.append("</a>")
    out.append("</div>")
    return (LINK_STYLE if pairs is not None else "") + "".join(out)


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


def node_text_html(text: str, limit: int = 20_000) -> str:
    """A node's own text, escaped, LaTeX left as written."""
    more = len(text) > limit
    body = esc(text[:limit]) + ("\n… (truncated)" if more else "")
    style = BOX_STYLE.replace("max-height: 560px", "max-height: 360px")
    return f'<div class="rte-node-text" style="{style}">{body}</div>'
