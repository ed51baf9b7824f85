// lite_chart, part 1 of 3 (the spec's layout): constants, SVG elements, ticks, marker symbols,
// the legend's layout, the plot area, axis ranges and scales. lite_chart.py joins
// lite_chart_layout.js, lite_chart_draw.js and lite_chart.js, in that order, into one module.
// Every piece of text is set with textContent / setAttribute, never as HTML.
const NS = "http://www.w3.org/2000/svg";
const FONT = '"Source Sans Pro", "Source Sans 3", sans-serif';
const FG = "#31333f";
const MUTED = "#6b6e76";
const GRID = "rgba(49,51,63,0.12)";
const DASH = { solid: "", dot: "2,3", dash: "6,4", longdash: "10,5", dashdot: "6,3,2,3" };

function el(name, attrs, parent) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  }
  if (parent) parent.appendChild(node);
  return node;
}

function at(value, i, fallback) {
  if (Array.isArray(value)) return value[i] ?? fallback;
  return value ?? fallback;
}

let measurer = null;
let measuredSize = 0;
function textWidth(text, size) {
  measurer = measurer || document.createElement("canvas").getContext("2d");
  if (size !== measuredSize) {
    // setting a font parses it: only when the size changes
    measurer.font = `${size}px ${FONT}`;
    measuredSize = size;
  }
  return measurer.measureText(String(text)).width;
}

function niceTicks(lo, hi, count) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / Math.max(1, count);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
    out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  }
  return out;
}

function tickLabel(v, axis, step) {
  const f = axis.tickformat || "";
  const pct = f.match(/^\.(\d)%$/);
  if (pct) return (v * 100).toFixed(Number(pct[1])) + "%";
  const fix = f.match(/^,?\.(\d)f$/);
  if (fix) return v.toFixed(Number(fix[1])) + axis.ticksuffix;
  const a = Math.abs(v);
  let s;
  if (a >= 1e4 && step >= 1000) s = `${+(v / 1000).toFixed(step >= 1000 ? 0 : 1)}k`;
  else {
    const digits = step > 0 && step < 1 ? Math.min(6, Math.ceil(-Math.log10(step) + 1e-9)) : 0;
    s = v.toFixed(digits);
  }
  return s + axis.ticksuffix;
}

// marker symbols as paths around (0, 0), radius r; [path, open]
function symbolPath(symbol, r) {
  const name = String(symbol || "circle");
  const open = name.endsWith("-open");
  const base = name.replace(/-open$/, "").replace(/-dot$/, "");
  const polygon = (n, rot, rr) => {
    const pts = [];
    for (let k = 0; k < n; k++) {
      const a = rot + (2 * Math.PI * k) / n;
      pts.push(`${(rr * Math.cos(a)).toFixed(2)},${(rr * Math.sin(a)).toFixed(2)}`);
    }
    return `M${pts.join("L")}Z`;
  };
  const s = r;
  switch (base) {
    case "square":
      return [`M${-s},${-s}H${s}V${s}H${-s}Z`, open];
    case "diamond":
      return [`M0,${-s * 1.3}L${s * 1.3},0L0,${s * 1.3}L${-s * 1.3},0Z`, open];
    case "triangle-up":
      return [polygon(3, -Math.PI / 2, s * 1.3), open];
    case "triangle-down":
      return [polygon(3, Math.PI / 2, s * 1.3), open];
    case "triangle-right":
      return [polygon(3, 0, s * 1.3), open];
    case "triangle-left":
      return [polygon(3, Math.PI, s * 1.3), open];
    case "star-diamond":
      return [`M0,${-s * 1.3}Q0,0 ${s * 1.3},0Q0,0 0,${s * 1.3}Q0,0 ${-s * 1.3},0Q0,0 0,${-s * 1.3}Z`, open];
    case "pentagon":
      return [polygon(5, -Math.PI / 2, s * 1.15), open];
    case "hexagon":
      return [polygon(6, 0, s * 1.1), open];
    case "star": {
      const pts = [];
      for (let k = 0; k < 10; k++) {
        const a = -Math.PI / 2 + (Math.PI * k) / 5;
        const rr = k % 2 ? s * 0.55 : s * 1.35;
        pts.push(`${(rr * Math.cos(a)).toFixed(2)},${(rr * Math.sin(a)).toFixed(2)}`);
      }
      return [`M${pts.join("L")}Z`, open];
    }
    case "cross": {
      const t = s * 0.4;
      return [
        `M${-t},${-s}H${t}V${-t}H${s}V${t}H${t}V${s}H${-t}V${t}H${-s}V${-t}H${-t}Z`,
        open,
      ];
    }
    case "x":
      return [`M${-s},${-s}L${s},${s}M${s},${-s}L${-s},${s}`, "stroke"];
    case "line-ns":
      return [`M0,${-s}V${s}`, "stroke"];
    case "line-ew":
      return [`M${-s},0H${s}`, "stroke"];
    default:
      return [`M${s},0A${s},${s} 0 1,1 0,${-s}A${s},${s} 0 0,1 ${s},0Z`, open];
  }
}

function numeric(v) {
  return typeof v === "number" && Number.isFinite(v);
}

// the smallest gap between distinct x values of bars (a bar's slot), `fallback` for one bar
function barStep(xs, fallback) {
  const sorted = [...new Set(xs.filter(numeric))].sort((a, b) => a - b);
  let step = Infinity;
  for (let k = 1; k < sorted.length; k++) step = Math.min(step, sorted[k] - sorted[k - 1]);
  return Number.isFinite(step) ? step : fallback;
}

function layoutLegend(spec, width) {
  // legend entries: group titles and items, flowed into rows (horizontal) or one column
  const entries = [];
  const seenGroups = new Set();
  // in Plotly's order: by each trace's legend rank, then as drawn
  const order = spec.traces.map((t, i) => i);
  order.sort((a, b) => (spec.traces[a].legendrank ?? 1000) - (spec.traces[b].legendrank ?? 1000) || a - b);
  order.forEach((i) => {
    const t = spec.traces[i];
    if (t.showlegend === false || !spec.legend.show || t.visible === false) return;
    if (t.legendgroup && t.grouptitle && !seenGroups.has(t.legendgroup)) {
      seenGroups.add(t.legendgroup);
      entries.push({ kind: "group", group: t.legendgroup, text: t.grouptitle });
    }
    entries.push({ kind: "item", index: i, text: t.name, trace: t });
  });
  const size = spec.legend.fontsize || 12;
  const rowH = size + 10;
  const horizontal = spec.legend.orientation === "h";
  let x = 0;
  let y = 0;
  let maxW = 0;
  for (const e of entries) {
    const w = (e.kind === "group" ? 8 : 30) + textWidth(e.text, size) + 14;
    if (horizontal) {
      if (x > 0 && (x + w > width || e.kind === "group")) {
        x = 0;
        y += rowH;
      }
      e.x = x;
      e.y = y;
      x += w;
    } else {
      e.x = 0;
      e.y = y;
      y += rowH;
    }
    maxW = Math.max(maxW, w);
  }
  const height = entries.length ? y + rowH : 0;
  return { entries, rowH, size, horizontal, height, width: horizontal ? width : maxW };
}

// The plot area: Plotly's margins hold the tick labels and titles; they grow only when those need
// more, and the legend takes room below (horizontal) or to the right.
function plotBox(spec, width, height, legend) {
  const m = spec.margin;
  const axes = spec.axes;
  const xKeys = Object.keys(axes).filter((k) => k.startsWith("x"));
  const yKeys = Object.keys(axes).filter((k) => k.startsWith("y"));
  const anyVisible = (keys) => keys.some((k) => axes[k].visible !== false);
  const yTitle = yKeys.some((k) => axes[k].visible !== false && axes[k].title);
  const xTitle = xKeys.some((k) => axes[k].visible !== false && axes[k].title);
  const yLabels = yKeys.some((k) => axes[k].visible !== false && axes[k].showticklabels !== false);
  const xLabels = xKeys.some((k) => axes[k].visible !== false && axes[k].showticklabels !== false);
  const labelWidth = Math.max(44, ...yKeys.map((k) => (axes[k].labelwidth || 0) + 8));
  const yNeed = anyVisible(yKeys) ? (yLabels ? labelWidth : 6) + (yTitle ? 22 : 0) : 0;
  const left = Math.max(m.l, yNeed + 4);
  let right = m.r;
  // named ticks (categories) too wide for the room between them are turned (turnLabels); the
  // deepest turned label takes room below the axis, above its title
  const roughWidth = Math.max(40, width - left - right - (legend.horizontal ? 0 : legend.width + 12));
  let turnedDepth = 0;
  for (const k of xKeys) {
    const a = axes[k];
    a.turned = a.visible !== false && a.showticklabels !== false ? turnLabels(a, roughWidth) : 0;
    turnedDepth = Math.max(turnedDepth, a.turned);
  }
  const xNeed = anyVisible(xKeys)
    ? (xLabels ? 22 + turnedDepth : 4) + (xTitle ? 22 : 0)
    : 0;
  const top = m.t + (spec.title ? 24 + (spec.titlepad || 0) : 0);
  let bottom = Math.max(m.b, xNeed + 6);
  if (legend.entries.length) {
    if (legend.horizontal) bottom += legend.height + 6;
    else right += legend.width + 12;
  }
  const pw = Math.max(40, width - left - right);
  const ph = Math.max(40, height - top - bottom);
  return { width, height, left, right, top, pw, ph };
}

// A category axis whose labels would run into each other: the depth (px) its labels take when
// turned 45 degrees, each cut to TURNED_PX; 0 when they fit flat (or are too close even turned,
// where they stay flat as Plotly's would).
const TURNED_PX = 72;
const TURNED_GAP = 14;
function turnLabels(a, plotWidth) {
  const vals = a.tickvals;
  const texts = a.ticktext;
  if (!Array.isArray(vals) || !Array.isArray(texts) || vals.length < 2) return 0;
  const nums = vals.filter(numeric);
  if (nums.length < 2) return 0;
  const sorted = [...nums].sort((p, q) => p - q);
  let step = Infinity;
  for (let i = 1; i < sorted.length; i += 1) step = Math.min(step, sorted[i] - sorted[i - 1]);
  const span = sorted[sorted.length - 1] - sorted[0] + step; // bars pad half a step each side
  const gap = ((a.domain[1] - a.domain[0]) * plotWidth * step) / span;
  const widest = Math.max(...texts.map((t) => textWidth(String(t ?? ""), 12)));
  if (!(gap >= TURNED_GAP) || widest + 8 <= gap) return 0;
  return Math.ceil(Math.min(widest, TURNED_PX) * Math.SQRT1_2) + 4;
}

// the data range of one axis over the shown traces (markers and text padded like Plotly, bars by
// half a bar)
function dataRange(spec, state, letter, ref) {
  let lo = Infinity;
  let hi = -Infinity;
  let pad = false;
  let barTops = false;
  spec.traces.forEach((t, i) => {
    if (t[`${letter}axis`] !== ref || state.hidden.has(i) || t.visible === false) return;
    const vals = t[letter];
    for (const v of vals) {
      if (!numeric(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    if (t.type === "bar" && letter === "y") {
      barTops = true;
      // bars start at their base (stacks, boxes), else at 0
      for (const b of t.base || [0]) {
        if (!numeric(b)) continue;
        lo = Math.min(lo, b);
        hi = Math.max(hi, b);
      }
    }
    if (t.type === "bar" && letter === "x" && vals.length) pad = "bar";
    if (t.mode.includes("markers") || t.mode.includes("text")) pad = pad || true;
  });
  if (!Number.isFinite(lo)) return [0, 1];
  if (hi === lo) return [lo - 1, hi + 1];
  const span = hi - lo;
  if (pad === "bar") {
    const xs = spec.traces.flatMap((t) => (t.type === "bar" && t.xaxis === ref ? t.x : []));
    const step = barStep(xs, span);
    return [lo - step / 2, hi + step / 2];
  }
  if (barTops) {
    // room above the tallest bar (below the deepest), as Plotly leaves: its top is in sight
    return [lo < 0 ? lo - span * 0.05 : lo, hi > 0 ? hi + span * 0.05 : hi];
  }
  return pad ? [lo - span * 0.05, hi + span * 0.05] : [lo, hi];
}

// ranges: given, matched, or from the data
function axisRanges(spec, state) {
  const axes = spec.axes;
  const ranges = {};
  const refOf = (key) => (key.length > 5 ? key[0] + key.slice(5) : key[0]);
  for (const key of Object.keys(axes)) {
    const a = axes[key];
    if (a.range && a.range.length === 2 && a.range.every(numeric)) ranges[key] = a.range.slice();
    else ranges[key] = dataRange(spec, state, key[0], refOf(key));
    if (a.reversed) ranges[key] = [ranges[key][1], ranges[key][0]];
  }
  for (const key of Object.keys(axes)) {
    const match = axes[key].matches;
    if (match) {
      const other = `${match[0]}axis${match.slice(1)}`;
      if (ranges[other]) ranges[key] = ranges[other];
    }
  }
  return ranges;
}

// "x2" -> "xaxis2", "y" -> "yaxis"
function axisKey(ref) {
  return ref.length > 1 ? `${ref[0]}axis${ref.slice(1)}` : `${ref}axis`;
}

// axis key -> (data value -> pixel)
function scaler(axes, ranges, box) {
  const { left, top, pw, ph } = box;
  return (key) => {
    const a = axes[key] || { domain: [0, 1] };
    const [r0, r1] = ranges[key] || [0, 1];
    const [d0, d1] = a.domain;
    if (key[0] === "x") {
      const p0 = left + d0 * pw;
      const p1 = left + d1 * pw;
      return (v) => p0 + ((v - r0) / (r1 - r0 || 1)) * (p1 - p0);
    }
    const p0 = top + (1 - d0) * ph;
    const p1 = top + (1 - d1) * ph;
    return (v) => p0 + ((v - r0) / (r1 - r0 || 1)) * (p1 - p0);
  };
}
