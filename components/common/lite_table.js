// A light read-only table: a header and only the rows in sight (plus a margin), drawn as the
// reader scrolls, so a table of thousands of rows costs what a screenful does. Every cell is
// set with textContent: text from the data is never markup. A click on a row, or Enter on a
// focused row, reports the row's index ("pick"); the arrow keys move between rows.

const ROW_PX = 35;
// a view's relative URL: its path (one plain segment) and an optional query
const VIEW_HREF = /^[a-z][a-z0-9_-]*(\?[^\s"'<>]*)?$/;
const MARGIN_ROWS = 12;
// a cell's tone: one of the names the server's stylesheet defines (lite_table.py TONES)
const TONE = /^[a-z]+$/;

// `top`: where the box is scrolled to, when known without reading the layout (a new table
// starts at the top); the box is never taller than `height` (its max-height), so the rows in
// sight follow from that, and drawing a new table forces no layout of the page
function draw(root, state, force, top = root.scrollTop) {
  const { rows, height } = state;
  const view = height - ROW_PX;
  const first = Math.max(0, Math.floor(top / ROW_PX) - MARGIN_ROWS);
  const last = Math.min(rows.length, Math.ceil((top + view) / ROW_PX) + MARGIN_ROWS);
  if (!force && first === state.first && last === state.last) return;
  state.first = first;
  state.last = last;
  const body = document.createElement("tbody");
  const spacer = (n) => {
    const tr = document.createElement("tr");
    tr.className = "rte-lt-spacer";
    tr.setAttribute("aria-hidden", "true");
    tr.style.height = `${n * ROW_PX}px`;
    body.appendChild(tr);
  };
  if (first > 0) spacer(first);
  for (let i = first; i < last; i += 1) {
    const tr = document.createElement("tr");
    tr.dataset.i = String(i);
    tr.setAttribute("aria-rowindex", String(i + 2));
    if (state.pickable) tr.tabIndex = 0;
    if (i === state.selected) tr.setAttribute("aria-selected", "true");
    rows[i].forEach((text, c) => {
      const td = document.createElement("td");
      td.setAttribute("role", "gridcell");
      const link = state.links[c];
      if (link && VIEW_HREF.test(text)) {
        // a link to one of the explorer's own views, checked on the server (and here again)
        const a = document.createElement("a");
        a.href = text;
        a.target = "_blank";
        a.rel = "noopener noreferrer";
        a.textContent = link;
        td.appendChild(a);
      } else {
        td.textContent = link ? "" : text;
      }
      if (state.right[c]) td.classList.add("rte-lt-num");
      if (state.pins[c] !== null) {
        td.classList.add("rte-lt-pin");
        td.style.left = `${state.pins[c]}px`;
      }
      const tone = state.tones && state.tones[i] ? state.tones[i][c] : "";
      if (tone && TONE.test(tone)) td.classList.add(`rte-lt-tone-${tone}`);
      if (text.length > 12) td.title = text;
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }
  if (last < rows.length) spacer(rows.length - last);
  state.table.replaceChild(body, state.table.tBodies[0]);
}

function build(root, payload) {
  const cols = payload.cols || [];
  const table = document.createElement("table");
  table.setAttribute("role", "grid");
  table.setAttribute("aria-rowcount", String((payload.rows || []).length + 1));
  if (payload.label) table.setAttribute("aria-label", payload.label);
  const group = document.createElement("colgroup");
  let total = 0;
  cols.forEach((c) => {
    const col = document.createElement("col");
    col.style.width = `${c.width}px`;
    total += c.width;
    group.appendChild(col);
  });
  table.appendChild(group);
  table.style.minWidth = `${total}px`;
  // a pinned column (the grid's `pinned`) stays at the left edge as the table scrolls
  // sideways, after the pinned columns before it: its offset, else null
  let pinned = 0;
  const pins = cols.map((c) => {
    if (!c.pinned) return null;
    const at = pinned;
    pinned += Number(c.width) || 0;
    return at;
  });
  const head = document.createElement("thead");
  const tr = document.createElement("tr");
  cols.forEach((c, i) => {
    const th = document.createElement("th");
    th.setAttribute("role", "columnheader");
    th.textContent = c.label;
    if (c.help) th.title = c.help;
    if (c.right) th.classList.add("rte-lt-num");
    if (pins[i] !== null) {
      th.classList.add("rte-lt-pin");
      th.style.left = `${pins[i]}px`;
    }
    tr.appendChild(th);
  });
  head.appendChild(tr);
  table.appendChild(head);
  table.appendChild(document.createElement("tbody"));
  root.replaceChildren(table);
  root.style.maxHeight = `${payload.height}px`;
  // the left edge's shade starts after the pinned columns (what scrolls under them)
  if (root.parentElement) root.parentElement.style.setProperty("--rte-pin-w", `${pinned}px`);
  return {
    table,
    rows: payload.rows || [],
    height: payload.height,
    right: cols.map((c) => Boolean(c.right)),
    widths: cols.map((c) => Number(c.width) || 0),
    pins,
    tones: Array.isArray(payload.tones) ? payload.tones : null,
    links: cols.map((c) => c.link || ""),
    selected: Number.isInteger(payload.selected) ? payload.selected : -1, // the row in use
    pickable: Boolean(payload.pickable),
    first: -1,
    last: -1,
  };
}

function focusRow(root, state, i) {
  const n = state.rows.length;
  if (n === 0) return;
  const at = Math.max(0, Math.min(n - 1, i));
  const rowTop = (at + 1) * ROW_PX; // below the sticky header
  if (rowTop < root.scrollTop + ROW_PX) root.scrollTop = rowTop - ROW_PX;
  else if (rowTop + ROW_PX > root.scrollTop + root.clientHeight) {
    root.scrollTop = rowTop + ROW_PX - root.clientHeight;
  }
  draw(root, state, false);
  const el = root.querySelector(`tr[data-i="${at}"]`);
  if (el) el.focus();
}

// Columns wider than the box scroll sideways; nothing on screen shows that by itself (overlay
// scrollbars appear only on a scroll), so a shade marks the cut edge and a small tag in the
// header's corner says how many columns are out of sight (its title says it in words; a click
// scrolls sideways). It is kept small: a sentence there covered the last headers in sight.
function hint(root) {
  const state = root.__rteState;
  const frame = root.parentElement;
  if (!state || !frame) return;
  const seen = root.scrollLeft + root.clientWidth;
  let edge = 0;
  let right = 0;
  let left = 0;
  state.widths.forEach((w, i) => {
    if (edge + w > seen + 1) right += 1;
    if (edge < root.scrollLeft - 1 && state.pins[i] === null) left += 1;
    edge += w;
  });
  // a table narrower than its box fills it: nothing is out of sight
  if (root.scrollWidth <= root.clientWidth + 1) right = left = 0;
  frame.classList.toggle("rte-lt-cut-right", right > 0);
  frame.classList.toggle("rte-lt-cut-left", left > 0);
  const note = frame.querySelector(".rte-lt-more");
  if (!note) return;
  const text = right ? `+${right}` : "";
  if (note.textContent !== text) {
    note.textContent = text;
    note.title = right ? `${right} more column${right > 1 ? "s" : ""}: scroll sideways` : "";
    note.setAttribute("aria-label", note.title);
  }
  note.hidden = !right;
}

export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  const payload = data || {};
  let root = parentElement.querySelector(".rte-lite-table");
  if (!root) {
    const frame = document.createElement("div");
    frame.className = "rte-lt-frame";
    root = document.createElement("div");
    root.className = "rte-lite-table";
    const note = document.createElement("button");
    note.type = "button";
    note.className = "rte-lt-more";
    note.hidden = true;
    note.addEventListener("click", () => {
      root.scrollBy({ left: Math.max(100, root.clientWidth * 0.8), behavior: "smooth" });
    });
    frame.append(root, note);
    parentElement.appendChild(frame);
    if (typeof ResizeObserver !== "undefined") {
      // the cut edge is read after a layout, never forced: when the box or its table resizes
      root.__rteObserver = new ResizeObserver(() => hint(root));
      root.__rteObserver.observe(root);
    }
  }
  const selected = Number.isInteger(payload.selected) ? payload.selected : -1;
  if (root.dataset.version !== String(payload.version)) {
    // new rows: a new table, from the top
    root.dataset.version = String(payload.version);
    root.scrollTop = 0;
    const before = root.__rteState;
    root.__rteState = build(root, payload);
    draw(root, root.__rteState, true, 0);
    if (root.__rteObserver) {
      if (before) root.__rteObserver.unobserve(before.table);
      root.__rteObserver.observe(root.__rteState.table);
    }
  } else if (root.__rteState.selected !== selected) {
    // the same rows, another one in use (the run a pick started): redraw in place, where the
    // reader scrolled to, with the focus kept on the row it was on
    const focused = root.querySelector("tr[data-i]:focus");
    root.__rteState.selected = selected;
    draw(root, root.__rteState, true);
    if (focused) {
      const again = root.querySelector(`tr[data-i="${focused.dataset.i}"]`);
      if (again) again.focus();
    }
  }
  const state = root.__rteState;
  root.onscroll = () =>
    requestAnimationFrame(() => {
      draw(root, state, false);
      hint(root);
    });
  if (!root.__rteObserver) hint(root);
  const rowOf = (event) => {
    const tr = event.target.closest ? event.target.closest("tr[data-i]") : null;
    return tr && root.contains(tr) ? Number(tr.dataset.i) : null;
  };
  root.onclick = (event) => {
    if (event.target.closest && event.target.closest("a")) return; // a link opens its view
    const i = rowOf(event);
    if (i === null || !state.pickable) return;
    setTriggerValue("pick", String(i));
  };
  root.onkeydown = (event) => {
    const i = rowOf(event);
    if (i === null) return;
    if (event.target.closest && event.target.closest("a")) return;
    if ((event.key === "Enter" || event.key === " ") && state.pickable) {
      event.preventDefault();
      setTriggerValue("pick", String(i));
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      focusRow(root, state, i + (event.key === "ArrowDown" ? 1 : -1));
    }
  };
}
