// lite_chart, part 2 of 3 (drawing): axes, traces by kind (bars, lines, markers, text labels),
// shapes and annotations, the legend. Reads the helpers of lite_chart_layout.js.

// one axis: grid lines and tick labels, the zero line, the title
function drawAxis(layer, key, a, ctx) {
  const { axes, ranges, scale } = ctx;
  const { left, top, pw, ph } = ctx.box;
  const isX = key[0] === "x";
  const other = axes[axisKey(a.anchor || (isX ? "y" : "x"))];
  const od = other ? other.domain : [0, 1];
  const sc = scale(key);
  const [r0, r1] = ranges[key];
  const lo = Math.min(r0, r1);
  const hi = Math.max(r0, r1);
  const lenPx = isX ? (a.domain[1] - a.domain[0]) * pw : (a.domain[1] - a.domain[0]) * ph;
  let vals = a.tickvals;
  let texts = a.ticktext;
  // at least three asked for: on a narrow axis two "nice" steps can both fall outside the range
  const auto = niceTicks(lo, hi, Math.max(3, Math.floor(lenPx / (isX ? 90 : 45))));
  const step = auto.length > 1 ? auto[1] - auto[0] : 1;
  if (!vals) vals = auto;
  vals.forEach((v, k) => {
    if (!numeric(v) || v < lo - 1e-9 || v > hi + 1e-9) return;
    const p = sc(v);
    if (isX) {
      const y0 = top + (1 - od[1]) * ph;
      const y1 = top + (1 - od[0]) * ph;
      if (a.showgrid !== false) el("line", { x1: p, x2: p, y1: y0, y2: y1, stroke: GRID }, layer);
      const text = String(texts ? texts[k] ?? "" : tickLabel(v, a, step));
      if (a.showticklabels !== false && a.turned) {
        // turned 45 degrees, ending under its tick, cut to the depth its layout gave it
        const y = y1 + 10;
        const label = el("text", {
          x: p + 3,
          y,
          "text-anchor": "end",
          transform: `rotate(-45 ${p + 3} ${y})`,
          fill: MUTED,
        }, layer);
        fitted(label, text, TURNED_PX, 12);
      } else if (a.showticklabels !== false) {
        const label = el("text", { x: p, y: y1 + 15, "text-anchor": "middle", fill: MUTED }, layer);
        label.textContent = text;
      }
    } else {
      const x0 = left + od[0] * pw;
      const x1 = left + od[1] * pw;
      if (a.showgrid !== false) el("line", { x1: x0, x2: x1, y1: p, y2: p, stroke: GRID }, layer);
      if (a.showticklabels !== false) {
        const label = el("text", { x: x0 - 6, y: p + 4, "text-anchor": "end", fill: MUTED }, layer);
        label.textContent = texts ? texts[k] ?? "" : tickLabel(v, a, step);
      }
    }
  });
  if (a.zeroline && lo < 0 && hi > 0) {
    const p = sc(0);
    if (isX) el("line", { x1: p, x2: p, y1: top + (1 - od[1]) * ph, y2: top + (1 - od[0]) * ph, stroke: MUTED }, layer);
    else el("line", { x1: left + od[0] * pw, x2: left + od[1] * pw, y1: p, y2: p, stroke: MUTED }, layer);
  }
  if (a.title) axisTitle(layer, a, isX, od, ctx.box);
}

// a title longer than its room is cut to fit with "…", the whole of it kept as its tip
function fitted(node, text, room, size) {
  if (textWidth(text, size) <= room) {
    node.textContent = text;
    return;
  }
  let n = text.length;
  while (n > 1 && textWidth(`${text.slice(0, n)}…`, size) > room) n -= 1;
  node.textContent = `${text.slice(0, n)}…`;
  const group = el("g", {}, node.parentNode); // the tip, beside the text and not in it
  group.appendChild(node);
  el("title", {}, group).textContent = text;
}

function axisTitle(layer, a, isX, od, box) {
  const { left, top, pw, ph } = box;
  if (isX) {
    const t = el("text", {
      x: left + ((a.domain[0] + a.domain[1]) / 2) * pw,
      y: top + (1 - od[0]) * ph + (a.showticklabels !== false ? 36 + (a.turned || 0) : 18),
      "text-anchor": "middle",
      "font-size": 13,
    }, layer);
    fitted(t, String(a.title), (a.domain[1] - a.domain[0]) * pw, 13);
  } else {
    const cy = top + (1 - (a.domain[0] + a.domain[1]) / 2) * ph;
    const cx = left + od[0] * pw - (a.showticklabels !== false ? Math.max(48, (a.labelwidth || 0) + 14) : 12);
    const t = el("text", {
      x: cx,
      y: cy,
      transform: `rotate(-90 ${cx} ${cy})`,
      "text-anchor": "middle",
      "font-size": 13,
    }, layer);
    t.textContent = a.title;
  }
}

// axes, grids and titles, then the chart's title
function drawAxes(svg, ctx) {
  if (ctx.spec.bg) {
    const { left, top, pw, ph } = ctx.box;
    el("rect", { x: left, y: top, width: pw, height: ph, fill: ctx.spec.bg }, svg);
  }
  const layer = el("g", { class: "grid" }, svg);
  for (const key of Object.keys(ctx.axes)) {
    const a = ctx.axes[key];
    if (a.visible !== false) drawAxis(layer, key, a, ctx);
  }
  if (ctx.spec.title) {
    const t = el("text", { x: ctx.box.left, y: ctx.spec.margin.t + 16, "font-size": 15 }, svg);
    fitted(t, String(ctx.spec.title), ctx.box.pw + (ctx.spec.margin.r || 0) - 4, 15);
  }
}

// clip each trace to its subplot: one clipPath per (x, y) pair, made on first use
function clipper(svg, ctx) {
  const { axes, state } = ctx;
  const { left, top, pw, ph } = ctx.box;
  const defs = el("defs", {}, svg);
  const clipIds = {};
  return (xref, yref) => {
    const id = `${state.uid}-${xref}-${yref}`;
    if (!clipIds[id]) {
      const xa = axes[axisKey(xref)] || { domain: [0, 1] };
      const ya = axes[axisKey(yref)] || { domain: [0, 1] };
      const cp = el("clipPath", { id }, defs);
      el("rect", {
        x: left + xa.domain[0] * pw - 12,
        y: top + (1 - ya.domain[1]) * ph - 12,
        width: (xa.domain[1] - xa.domain[0]) * pw + 24,
        height: (ya.domain[1] - ya.domain[0]) * ph + 24,
      }, cp);
      clipIds[id] = true;
    }
    return `url(#${id})`;
  };
}

// Plotly's hatch (`pattern.shape` "/", "\\", "x", "-", "|", "+"): an SVG pattern per shape and
// colour, made once per chart
function hatch(svg, shape, colour) {
  const defs = svg.querySelector("defs") || el("defs", {}, svg);
  const id = `rte-hatch-${[...`${shape}${colour}`].map((c) => c.charCodeAt(0).toString(16)).join("")}`;
  if (!svg.querySelector(`#${id}`)) {
    const p = el("pattern", { id, width: 6, height: 6, patternUnits: "userSpaceOnUse" }, defs);
    const lines = { "/": ["M0,6L6,0"], "\\": ["M0,0L6,6"], x: ["M0,6L6,0", "M0,0L6,6"], "-": ["M0,3H6"], "|": ["M3,0V6"], "+": ["M0,3H6", "M3,0V6"] };
    for (const d of lines[shape] || lines["/"]) el("path", { d, stroke: colour || "#000", "stroke-width": 1 }, p);
  }
  return `url(#${id})`;
}

// bars; under barmode "group" the shown bar traces of an axis pair sit side by side in each slot
function drawBars(g, t, ti, n, sx, sy, ctx) {
  const { spec, state } = ctx;
  const peers = spec.barmode === "group"
    ? spec.traces.map((u, k) => (u.type === "bar" && u.xaxis === t.xaxis && u.yaxis === t.yaxis && u.visible !== false && u.visible !== "legendonly" && !state.hidden.has(k) ? k : -1)).filter((k) => k >= 0)
    : [ti];
  const step = barStep(peers.flatMap((k) => spec.traces[k].x), 1);
  const slot = Math.abs(sx(step) - sx(0)) * (1 - spec.bargap);
  const bw = slot / peers.length;
  const shift = -slot / 2 + bw * Math.max(0, peers.indexOf(ti));
  const svg = g.ownerSVGElement;
  for (let i = 0; i < n; i++) {
    if (!numeric(t.x[i]) || !numeric(t.y[i])) continue;
    const px = sx(t.x[i]) + shift + (bw * spec.bargroupgap) / 2;
    const y0 = sy(t.base ? Number(at(t.base, i, 0)) || 0 : 0);
    const y1 = sy(t.y[i]);
    const box = { x: px, y: Math.min(y0, y1), width: Math.max(1, bw * (1 - spec.bargroupgap)), height: Math.max(0.5, Math.abs(y1 - y0)) };
    el("rect", {
      ...box,
      fill: at(t.marker.color, i, t.line.color),
      stroke: at(t.marker.line_color, i, null),
      "stroke-width": Number(at(t.marker.line_width, i, 0)) || null,
      "data-t": ti,
      "data-p": i,
      "data-x": t.x[i],
      "data-y": t.y[i],
    }, g);
    const shape = at(t.marker.pattern, i, null);
    if (shape) el("rect", { ...box, fill: hatch(svg, shape, t.marker.patterncolor), "pointer-events": "none" }, g);
  }
}

// a stacked area: from the trace's line down to the one under it (`base`)
function drawArea(g, t, n, sx, sy) {
  const up = [];
  const down = [];
  for (let i = 0; i < n; i++) {
    if (!numeric(t.x[i]) || !numeric(t.y[i]) || !numeric(t.base[i])) continue;
    up.push(`${sx(t.x[i]).toFixed(1)},${sy(t.y[i]).toFixed(1)}`);
    down.unshift(`${sx(t.x[i]).toFixed(1)},${sy(t.base[i]).toFixed(1)}`);
  }
  if (!up.length) return;
  const d = `M${up.join("L")}L${down.join("L")}Z`;
  el("path", { d, fill: t.fillcolor, stroke: "none", "pointer-events": "none" }, g);
  if (t.fillpattern) el("path", { d, fill: hatch(g.ownerSVGElement, t.fillpattern, t.fillpatterncolor), stroke: "none", "pointer-events": "none" }, g);
}

// one path, lifted at every gap
function drawLine(g, t, n, sx, sy) {
  let d = "";
  let pen = false;
  for (let i = 0; i < n; i++) {
    if (!numeric(t.x[i]) || !numeric(t.y[i])) {
      pen = false;
      continue;
    }
    d += `${pen ? "L" : "M"}${sx(t.x[i]).toFixed(1)},${sy(t.y[i]).toFixed(1)}`;
    pen = true;
  }
  el("path", {
    d,
    fill: "none",
    stroke: t.line.color,
    "stroke-width": t.line.width,
    "stroke-dasharray": DASH[t.line.dash] || t.line.dash || null,
    "stroke-linejoin": "round",
    "pointer-events": "none",
  }, g);
}

function drawMarkers(g, t, ti, n, sx, sy) {
  for (let i = 0; i < n; i++) {
    if (!numeric(t.x[i]) || !numeric(t.y[i])) continue;
    const size = Number(at(t.marker.size, i, 6));
    const [d, kind] = symbolPath(at(t.marker.symbol, i, "circle"), size / 2);
    const colour = at(t.marker.color, i, t.line.color);
    const lw = Number(at(t.marker.line_width, i, 0)) || 0;
    const lc = at(t.marker.line_color, i, null);
    const attrs = {
      d,
      transform: `translate(${sx(t.x[i]).toFixed(1)},${sy(t.y[i]).toFixed(1)})`,
      "fill-opacity": at(t.marker.opacity, i, 1),
      "data-t": ti,
      "data-p": i,
      "data-x": t.x[i],
      "data-y": t.y[i],
    };
    if (kind === "stroke") {
      Object.assign(attrs, { fill: "none", stroke: colour, "stroke-width": Math.max(1.5, lw || 1.5) });
    } else if (kind) {
      Object.assign(attrs, { fill: "none", stroke: colour, "stroke-width": Math.max(1, lw || 1) });
    } else {
      Object.assign(attrs, { fill: colour });
      if (lw > 0 && lc) Object.assign(attrs, { stroke: lc, "stroke-width": lw });
    }
    el("path", attrs, g);
  }
}

function drawTexts(g, t, n, sx, sy, bg) {
  for (let i = 0; i < n; i++) {
    const label = at(t.text, i, "");
    if (!label || !numeric(t.x[i]) || !numeric(t.y[i])) continue;
    // a position per point or one for all: "top left", "middle right", ...
    const pos = String(at(t.textposition, i, "middle center"));
    const r = Number(at(t.marker.size, i, 6)) / 2;
    const dy = pos.startsWith("top") ? -r - 4 : pos.startsWith("bottom") ? r + 12 : 4;
    const side = pos.endsWith("left") ? -1 : pos.endsWith("right") ? 1 : 0;
    const node = el("text", {
      x: sx(t.x[i]) + side * (r + 3),
      y: sy(t.y[i]) + dy,
      "text-anchor": side < 0 ? "end" : side > 0 ? "start" : "middle",
      "font-size": t.textsize || 12,
      fill: at(t.textcolor, i, FG),
      stroke: t.texthalo ? bg || "white" : null,
      "stroke-width": t.texthalo ? 3 : null,
      "paint-order": t.texthalo ? "stroke" : null,
      "pointer-events": "none",
    }, g);
    node.textContent = label;
  }
}

// every shown trace in its own group: bars, or lines, markers and text labels
function drawTraces(svg, ctx) {
  const { spec, state, scale } = ctx;
  const clipFor = clipper(svg, ctx);
  const plot = el("g", { class: "traces" }, svg);
  spec.traces.forEach((t, ti) => {
    if (t.visible === false || t.visible === "legendonly" || state.hidden.has(ti)) return;
    const sx = scale(axisKey(t.xaxis));
    const sy = scale(axisKey(t.yaxis));
    const g = el("g", {
      class: "trace",
      "data-name": t.name,
      opacity: t.opacity,
      "clip-path": clipFor(t.xaxis, t.yaxis),
    }, plot);
    // a step of a replay shows each trace's first points (axes keep the full range)
    const n = spec.steps ? Math.min(t.y.length, spec.steps.counts[state.step] ?? t.y.length) : t.y.length;
    if (t.type === "bar") {
      drawBars(g, t, ti, n, sx, sy, ctx);
      return;
    }
    if (t.base) drawArea(g, t, n, sx, sy);
    if (t.mode.includes("lines")) drawLine(g, t, n, sx, sy);
    if (t.mode.includes("markers")) drawMarkers(g, t, ti, n, sx, sy);
    if (t.mode.includes("text") && t.text) drawTexts(g, t, n, sx, sy, ctx.spec.bg);
  });
}

// shapes and annotations: refs "x", "x2", "paper", "y domain"
function drawNotes(svg, ctx) {
  const { spec, axes, scale } = ctx;
  const { left, top, pw, ph } = ctx.box;
  const place = (ref, v, letter) => {
    if (ref === "paper") {
      return letter === "x" ? left + v * pw : top + (1 - v) * ph;
    }
    if (ref.endsWith(" domain")) {
      const a = axes[axisKey(ref.split(" ")[0])] || { domain: [0, 1] };
      const f = a.domain[0] + v * (a.domain[1] - a.domain[0]);
      return letter === "x" ? left + f * pw : top + (1 - f) * ph;
    }
    return scale(axisKey(ref))(v);
  };
  const over = el("g", { class: "notes", "pointer-events": "none" }, svg);
  for (const s of spec.shapes) {
    const x0 = place(s.xref, s.x0, "x");
    const x1 = place(s.xref, s.x1, "x");
    const y0 = place(s.yref, s.y0, "y");
    const y1 = place(s.yref, s.y1, "y");
    if (s.type === "line") {
      el("line", { x1: x0, x2: x1, y1: y0, y2: y1, stroke: s.color, "stroke-width": s.width, "stroke-dasharray": DASH[s.dash] || null, opacity: s.opacity }, over);
    } else {
      el("rect", { x: Math.min(x0, x1), y: Math.min(y0, y1), width: Math.abs(x1 - x0), height: Math.abs(y1 - y0), fill: s.fill || "none", stroke: s.color, "stroke-width": s.width, opacity: s.opacity }, over);
    }
  }
  for (const a of spec.annotations) {
    const x = place(a.xref, a.x, "x");
    const y = place(a.yref, a.y, "y") - (a.yshift || 0);
    const anchor = a.xanchor === "left" ? "start" : a.xanchor === "right" ? "end" : "middle";
    const dy = a.yanchor === "bottom" ? -4 : a.yanchor === "top" ? a.size : a.size / 3;
    const node = el("text", {
      x,
      y: y + dy,
      "text-anchor": anchor,
      "font-size": a.size,
      fill: a.color,
      stroke: a.bg ? "white" : null,
      "stroke-width": a.bg ? 3 : null,
      "paint-order": a.bg ? "stroke" : null,
    }, over);
    node.textContent = a.text;
  }
}

// a legend item's sample of its trace: a bar, a line, a marker
function legendSwatch(item, t, size) {
  if (t.base) {
    const box = { x: 4, y: 3, width: 18, height: size };
    el("rect", { ...box, fill: t.fillcolor, opacity: t.opacity }, item);
    if (t.fillpattern) el("rect", { ...box, fill: hatch(item.ownerSVGElement, t.fillpattern, t.fillpatterncolor) }, item);
  }
  if (t.type === "bar") el("rect", { x: 4, y: 3, width: 18, height: size, fill: at(t.marker.color, 0, t.line.color) }, item);
  if (t.mode.includes("lines")) el("line", { x1: 2, x2: 24, y1: size / 2 + 3, y2: size / 2 + 3, stroke: t.line.color, "stroke-width": Math.min(4, t.line.width), "stroke-dasharray": DASH[t.line.dash] || null }, item);
  if (t.mode.includes("markers")) {
    const [d, kind] = symbolPath(at(t.marker.symbol, 0, "circle"), Math.min(6, Number(at(t.marker.size, 0, 6)) / 2));
    const colour = at(t.marker.color, 0, t.line.color);
    const lw = Number(at(t.marker.line_width, 0, 0)) || 0;
    const ring = lw > 0 ? at(t.marker.line_color, 0, null) : null;
    el("path", {
      d,
      transform: `translate(13,${size / 2 + 3})`,
      fill: kind ? "none" : colour,
      stroke: kind ? colour : ring,
      "stroke-width": kind ? 1.5 : ring ? Math.min(2, lw) : null,
    }, item);
  }
}

// the legend's items and group titles (each a button: see `legendClick`)
function drawLegend(svg, legend, ctx) {
  const { state } = ctx;
  const { width, height, right, top } = ctx.box;
  const lx = legend.horizontal ? 10 : width - right + 12;
  const ly = legend.horizontal ? height - legend.height - 2 : top;
  const lg = el("g", { class: "legend", transform: `translate(${lx},${ly})` }, svg);
  for (const e of legend.entries) {
    const item = el("g", {
      transform: `translate(${e.x},${e.y})`,
      cursor: "pointer",
      role: "button",
      tabindex: 0,
      "data-legend": e.kind === "group" ? `g:${e.group}` : `i:${e.index}`,
    }, lg);
    const off = e.kind === "item" && state.hidden.has(e.index);
    if (e.kind === "item") legendSwatch(item, e.trace, legend.size);
    const label = el("text", {
      x: e.kind === "group" ? 0 : 30,
      y: legend.size + 1,
      "font-size": legend.size,
      "font-weight": e.kind === "group" ? 600 : null,
      opacity: off ? 0.4 : 1,
    }, item);
    label.textContent = e.text;
    if (off) item.setAttribute("opacity", 0.55);
  }
}
