// lite_chart, part 3 of 3 (the component): hover, clicks and the legend's toggles, the replay's
// step controls, `draw` (one render of the spec) and the Streamlit component's entry point.
// It draws the spec of components/common/lite_spec.py as SVG (no Plotly, no CDN).

// the hover box: the hovered point's text, above the pointer (below it near the chart's top),
// kept inside the chart: beside the pointer it covered the curve's next points
function hoverTip(root, svg, spec) {
  const tip = document.createElement("div");
  tip.className = "rte-lite-tip";
  tip.hidden = true;
  const show = (ev) => {
    const node = ev.target.closest("[data-t]");
    if (!node) {
      tip.hidden = true;
      return;
    }
    const t = spec.traces[Number(node.getAttribute("data-t"))];
    const text = t.tips ? t.tips[Number(node.getAttribute("data-p"))] : "";
    if (!text) {
      tip.hidden = true;
      return;
    }
    tip.textContent = text;
    tip.style.borderColor = String(at(t.marker.color, Number(node.getAttribute("data-p")), t.line.color));
    tip.hidden = false;
    const box = root.getBoundingClientRect();
    const x = ev.clientX - box.left;
    const y = ev.clientY - box.top;
    const w = tip.offsetWidth;
    const h = tip.offsetHeight;
    tip.style.left = `${Math.max(0, Math.min(box.width - w, x - w / 2))}px`;
    tip.style.top = `${y - h - 14 >= 0 ? y - h - 14 : y + 18}px`;
  };
  svg.addEventListener("pointermove", show);
  svg.addEventListener("pointerleave", () => (tip.hidden = true));
  return tip;
}

// a click on a legend item hides or shows it (its whole group under "togglegroup"); on a group
// title, the whole group
function legendClick(leg, spec, state) {
  const [kind, id] = leg.getAttribute("data-legend").split(/:(.*)/s);
  if (kind === "i") {
    const i = Number(id);
    const group = spec.traces[i].legendgroup;
    const members = spec.legend.groupclick === "togglegroup" && group && !spec.traces[i].grouptitle
      ? spec.traces.map((t, k) => (t.legendgroup === group ? k : -1)).filter((k) => k >= 0)
      : [i];
    const hide = !state.hidden.has(i);
    members.forEach((k) => (hide ? state.hidden.add(k) : state.hidden.delete(k)));
  } else {
    const members = spec.traces.map((t, k) => (t.legendgroup === id ? k : -1)).filter((k) => k >= 0);
    const hide = members.some((k) => !state.hidden.has(k));
    members.forEach((k) => (hide ? state.hidden.add(k) : state.hidden.delete(k)));
  }
  state.redraw();
}

// clicks and Enter / Space: on the legend, `legendClick`; on a point of a selectable chart, the
// selection Streamlit reads as `st.plotly_chart`'s
function wireClicks(svg, spec, state, setTriggerValue) {
  const act = (ev) => {
    const leg = ev.target.closest("[data-legend]");
    if (leg) {
      legendClick(leg, spec, state);
      return;
    }
    const node = ev.target.closest("[data-t]");
    if (!node || !spec.selectable) return;
    const ti = Number(node.getAttribute("data-t"));
    const p = Number(node.getAttribute("data-p"));
    const t = spec.traces[ti];
    const point = { curve_number: ti, point_number: p, point_index: p, x: t.x[p], y: t.y[p] };
    if (t.picks) point.customdata = t.picks[p];
    setTriggerValue("selection", { points: [point] });
  };
  svg.addEventListener("click", act);
  svg.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") act(ev);
  });
  if (spec.selectable) {
    svg.querySelectorAll("[data-t]").forEach((node) => {
      const t = spec.traces[Number(node.getAttribute("data-t"))];
      if (t.picks) node.setAttribute("cursor", "pointer");
    });
  }
}

function draw(root, spec, state, setTriggerValue) {
  // the width the last layout gave (the observer below), read without forcing a new layout
  const width = Math.max(200, (root.__rteWidth ?? root.clientWidth) || 600);
  const height = spec.height;
  root.style.height = `${height}px`;
  const svg = el("svg", {
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    "font-family": FONT,
    "font-size": 12,
    fill: FG,
    "data-testid": "lite-chart-svg",
  });
  const legend = layoutLegend(spec, width - 20);
  const box = plotBox(spec, width, height, legend);
  const ranges = axisRanges(spec, state);
  const ctx = { spec, state, axes: spec.axes, box, ranges, scale: scaler(spec.axes, ranges, box) };
  drawAxes(svg, ctx);
  drawTraces(svg, ctx);
  drawNotes(svg, ctx);
  if (legend.entries.length) drawLegend(svg, legend, ctx);
  const tip = hoverTip(root, svg, spec);
  wireClicks(svg, spec, state, setTriggerValue);
  if (spec.steps) {
    // one bar for the chart's life: a slider replaced while dragged would drop the drag
    if (!state.bar) state.bar = stepControls(state);
    state.bar.update(spec.steps);
    root.replaceChildren(svg, tip, state.bar.node);
  } else {
    root.replaceChildren(svg, tip);
  }
}

function stepControls(state) {
  // Play / Pause and a slider over the steps, like Plotly's animation controls
  const node = document.createElement("div");
  node.className = "rte-lite-steps";
  const play = document.createElement("button");
  play.type = "button";
  const range = document.createElement("input");
  range.type = "range";
  range.min = "0";
  range.setAttribute("aria-label", "step");
  const label = document.createElement("span");
  node.append(play, range, label);
  let steps = null;
  const stop = () => {
    clearInterval(state.timer);
    state.timer = null;
  };
  range.oninput = () => {
    stop();
    state.step = Number(range.value);
    state.redraw();
  };
  play.onclick = () => {
    if (state.timer) {
      stop();
      state.redraw();
      return;
    }
    const last = steps.counts.length - 1;
    if (state.step >= last) state.step = -1;
    const tick = () => {
      state.step += 1;
      if (state.step >= last) {
        state.step = last;
        stop();
      }
      state.redraw();
    };
    state.timer = setInterval(tick, Math.max(50, steps.duration));
    tick();
  };
  const update = (current) => {
    steps = current;
    play.textContent = state.timer ? "Pause" : "Play";
    range.max = String(steps.counts.length - 1);
    if (document.activeElement !== range || state.timer) range.value = String(state.step);
    label.textContent = `${steps.prefix}${steps.labels[state.step] ?? ""}${steps.suffix}`;
  };
  return { node, update };
}

function unpack(values) {
  // numbers come as base64 float32 (NaN marks a gap)
  if (!values || !values.f32) return values || [];
  const bytes = Uint8Array.from(atob(values.f32), (c) => c.charCodeAt(0));
  return Array.from(new Float32Array(bytes.buffer));
}

export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  let root = parentElement.querySelector(".rte-lite-root");
  if (!root) {
    root = document.createElement("div");
    root.className = "rte-lite-root";
    parentElement.appendChild(root);
  }
  const spec = (data || {}).spec;
  if (!spec) return;
  for (const t of spec.traces) {
    t.x = unpack(t.x);
    t.y = unpack(t.y);
    if (t.base) t.base = unpack(t.base);
  }
  const key = JSON.stringify([spec.revision, spec.traces.map((t) => t.name)]);
  if (!root.__rte || (root.__rte.key !== key && !(spec.revision && root.__rte.revision === spec.revision))) {
    if (root.__rte) clearInterval(root.__rte.timer);
    root.__rte = { key, revision: spec.revision, hidden: new Set(), uid: `lc${Math.random().toString(36).slice(2, 9)}` };
  }
  // a chart with steps is small; a new one (another question or iteration) starts afresh
  const sig = spec.steps ? JSON.stringify(spec) : "";
  if (spec.steps && (root.__rte.sig !== sig || !(root.__rte.step < spec.steps.counts.length))) {
    // a new replay starts on the step Plotly's slider was set to
    clearInterval(root.__rte.timer);
    root.__rte.timer = null;
    root.__rte.step = spec.steps.active;
  }
  root.__rte.sig = sig;
  const state = root.__rte;
  state.redraw = () => draw(root, spec, state, setTriggerValue);
  if (root.__rteObserver || typeof ResizeObserver === "undefined") {
    state.redraw();
    return;
  }
  // A new chart is drawn once the page's next layout has given its width: reading the width
  // now would force a layout of the whole page for each chart as the elements stream in. The
  // box takes its height at once, so nothing below it moves when it is drawn.
  root.style.height = `${spec.height}px`;
  root.__rteObserver = new ResizeObserver((entries) => {
    const width = entries[entries.length - 1].contentRect.width;
    if (root.__rteWidth === undefined || Math.abs(width - root.__rteWidth) > 1) {
      root.__rteWidth = width;
      root.__rte.redraw();
    }
  });
  root.__rteObserver.observe(root);
}
