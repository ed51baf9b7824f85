// lite_chart: draws the spec of components/common/lite_spec.py as SVG (no Plotly, no CDN).
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
function textWidth(text, size) {
  measurer = measurer || document.createElement("canvas").getContext("2d");
  measurer.font = `${size}px ${FONT}`;
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
  spec.traces.forEach((t, i) => {
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

function draw(root, spec, state, setTriggerValue) {
  const width = Math.max(200, root.clientWidth || 600);
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
  const m = spec.margin;
  const legend = layoutLegend(spec, width - 20);
  const axes = spec.axes;
  const xKeys = Object.keys(axes).filter((k) => k.startsWith("x"));
  const yKeys = Object.keys(axes).filter((k) => k.startsWith("y"));
  const anyVisible = (keys) => keys.some((k) => axes[k].visible !== false);
  const yTitle = yKeys.some((k) => axes[k].visible !== false && axes[k].title);
  const xTitle = xKeys.some((k) => axes[k].visible !== false && axes[k].title);
  const yLabels = yKeys.some((k) => axes[k].visible !== false && axes[k].showticklabels !== false);
  const xLabels = xKeys.some((k) => axes[k].visible !== false && axes[k].showticklabels !== false);
  // Plotly's margins hold the tick labels and titles; grow them only when those need more
  const yNeed = anyVisible(yKeys) ? (yLabels ? 44 : 6) + (yTitle ? 22 : 0) : 0;
  const xNeed = anyVisible(xKeys) ? (xLabels ? 22 : 4) + (xTitle ? 22 : 0) : 0;
  const left = Math.max(m.l, yNeed + 4);
  let right = m.r;
  const top = m.t + (spec.title ? 24 : 0);
  let bottom = Math.max(m.b, xNeed + 6);
  if (legend.entries.length) {
    if (legend.horizontal) bottom += legend.height + 6;
    else right += legend.width + 12;
  }
  const pw = Math.max(40, width - left - right);
  const ph = Math.max(40, height - top - bottom);

  // ranges: given, matched, or from the data (markers padded like Plotly)
  const ranges = {};
  const refOf = (key) => (key.length > 5 ? key[0] + key.slice(5) : key[0]);
  const dataRange = (letter, ref) => {
    let lo = Infinity;
    let hi = -Infinity;
    let pad = false;
    spec.traces.forEach((t, i) => {
      if (t[`${letter}axis`] !== ref || state.hidden.has(i) || t.visible === false) return;
      const vals = t[letter];
      for (const v of vals) {
        if (!numeric(v)) continue;
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
      if (t.type === "bar" && letter === "y") {
        lo = Math.min(lo, 0);
        hi = Math.max(hi, 0);
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
    return pad ? [lo - span * 0.05, hi + span * 0.05] : [lo, hi];
  };
  for (const key of Object.keys(axes)) {
    const a = axes[key];
    if (a.range && a.range.length === 2 && a.range.every(numeric)) ranges[key] = a.range.slice();
    else ranges[key] = dataRange(key[0], refOf(key));
    if (a.reversed) ranges[key] = [ranges[key][1], ranges[key][0]];
  }
  for (const key of Object.keys(axes)) {
    const match = axes[key].matches;
    if (match) {
      const other = `${match[0]}axis${match.slice(1)}`;
      if (ranges[other]) ranges[key] = ranges[other];
    }
  }
  const scale = (key) => {
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
  const axisKey = (ref) => (ref.length > 1 ? `${ref[0]}axis${ref.slice(1)}` : `${ref}axis`);

  // axes, grids and titles
  const gridLayer = el("g", { class: "grid" }, svg);
  for (const key of Object.keys(axes)) {
    const a = axes[key];
    if (a.visible === false) continue;
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
    const auto = niceTicks(lo, hi, Math.max(2, Math.floor(lenPx / (isX ? 90 : 45))));
    const step = auto.length > 1 ? auto[1] - auto[0] : 1;
    if (!vals) vals = auto;
    vals.forEach((v, k) => {
      if (!numeric(v) || v < lo - 1e-9 || v > hi + 1e-9) return;
      const p = sc(v);
      if (isX) {
        const y0 = top + (1 - od[1]) * ph;
        const y1 = top + (1 - od[0]) * ph;
        if (a.showgrid !== false) el("line", { x1: p, x2: p, y1: y0, y2: y1, stroke: GRID }, gridLayer);
        if (a.showticklabels !== false) {
          const label = el("text", { x: p, y: y1 + 15, "text-anchor": "middle", fill: MUTED }, gridLayer);
          label.textContent = texts ? texts[k] ?? "" : tickLabel(v, a, step);
        }
      } else {
        const x0 = left + od[0] * pw;
        const x1 = left + od[1] * pw;
        if (a.showgrid !== false) el("line", { x1: x0, x2: x1, y1: p, y2: p, stroke: GRID }, gridLayer);
        if (a.showticklabels !== false) {
          const label = el("text", { x: x0 - 6, y: p + 4, "text-anchor": "end", fill: MUTED }, gridLayer);
          label.textContent = texts ? texts[k] ?? "" : tickLabel(v, a, step);
        }
      }
    });
    if (a.zeroline && lo < 0 && hi > 0) {
      const p = sc(0);
      if (isX) el("line", { x1: p, x2: p, y1: top + (1 - od[1]) * ph, y2: top + (1 - od[0]) * ph, stroke: MUTED }, gridLayer);
      else el("line", { x1: left + od[0] * pw, x2: left + od[1] * pw, y1: p, y2: p, stroke: MUTED }, gridLayer);
    }
    if (a.title) {
      if (isX) {
        const t = el("text", {
          x: left + ((a.domain[0] + a.domain[1]) / 2) * pw,
          y: top + (1 - od[0]) * ph + (a.showticklabels !== false ? 36 : 18),
          "text-anchor": "middle",
          "font-size": 13,
        }, gridLayer);
        t.textContent = a.title;
      } else {
        const cy = top + (1 - (a.domain[0] + a.domain[1]) / 2) * ph;
        const cx = left + od[0] * pw - (a.showticklabels !== false ? 48 : 12);
        const t = el("text", {
          x: cx,
          y: cy,
          transform: `rotate(-90 ${cx} ${cy})`,
          "text-anchor": "middle",
          "font-size": 13,
        }, gridLayer);
        t.textContent = a.title;
      }
    }
  }
  if (spec.title) {
    const t = el("text", { x: left, y: m.t + 16, "font-size": 15 }, svg);
    t.textContent = spec.title;
  }

  // clip each trace to its subplot
  const defs = el("defs", {}, svg);
  const clipIds = {};
  const clipFor = (xref, yref) => {
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
      const step = barStep(t.x, 1);
      const bw = Math.abs(sx(step) - sx(0)) * (1 - spec.bargap);
      for (let i = 0; i < n; i++) {
        if (!numeric(t.x[i]) || !numeric(t.y[i])) continue;
        const px = sx(t.x[i]);
        const y0 = sy(0);
        const y1 = sy(t.y[i]);
        el("rect", {
          x: px - bw / 2,
          y: Math.min(y0, y1),
          width: Math.max(1, bw),
          height: Math.max(0.5, Math.abs(y1 - y0)),
          fill: at(t.marker.color, i, t.line.color),
          "data-t": ti,
          "data-p": i,
          "data-x": t.x[i],
          "data-y": t.y[i],
        }, g);
      }
      return;
    }
    if (t.mode.includes("lines")) {
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
    if (t.mode.includes("markers")) {
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
    if (t.mode.includes("text") && t.text) {
      const pos = t.textposition || "middle center";
      const dy = pos.startsWith("top") ? -Number(at(t.marker.size, 0, 6)) / 2 - 4 : pos.startsWith("bottom") ? Number(at(t.marker.size, 0, 6)) / 2 + 12 : 4;
      for (let i = 0; i < n; i++) {
        const label = at(t.text, i, "");
        if (!label || !numeric(t.x[i]) || !numeric(t.y[i])) continue;
        const node = el("text", {
          x: sx(t.x[i]),
          y: sy(t.y[i]) + dy,
          "text-anchor": "middle",
          "font-size": t.textsize || 12,
          fill: at(t.textcolor, i, FG),
          "pointer-events": "none",
        }, g);
        node.textContent = label;
      }
    }
  });

  // shapes and annotations: refs "x", "x2", "paper", "y domain"
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
    const y = place(a.yref, a.y, "y");
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

  // legend: a click on an item hides or shows it; on a group title, the whole group
  if (legend.entries.length) {
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
      if (e.kind === "item") {
        const t = e.trace;
        if (t.type === "bar") el("rect", { x: 4, y: 3, width: 18, height: legend.size, fill: at(t.marker.color, 0, t.line.color) }, item);
        if (t.mode.includes("lines")) el("line", { x1: 2, x2: 24, y1: legend.size / 2 + 3, y2: legend.size / 2 + 3, stroke: t.line.color, "stroke-width": Math.min(4, t.line.width), "stroke-dasharray": DASH[t.line.dash] || null }, item);
        if (t.mode.includes("markers")) {
          const [d, kind] = symbolPath(at(t.marker.symbol, 0, "circle"), Math.min(6, Number(at(t.marker.size, 0, 6)) / 2));
          const colour = at(t.marker.color, 0, t.line.color);
          const lw = Number(at(t.marker.line_width, 0, 0)) || 0;
          const ring = lw > 0 ? at(t.marker.line_color, 0, null) : null;
          el("path", {
            d,
            transform: `translate(13,${legend.size / 2 + 3})`,
            fill: kind ? "none" : colour,
            stroke: kind ? colour : ring,
            "stroke-width": kind ? 1.5 : ring ? Math.min(2, lw) : null,
          }, item);
        }
      }
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
    const flip = x > box.width * 0.6;
    tip.style.left = flip ? "" : `${x + 14}px`;
    tip.style.right = flip ? `${box.width - x + 14}px` : "";
    tip.style.top = `${Math.max(0, y - 10)}px`;
  };
  svg.addEventListener("pointermove", show);
  svg.addEventListener("pointerleave", () => (tip.hidden = true));
  const act = (ev) => {
    const leg = ev.target.closest("[data-legend]");
    if (leg) {
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
  state.redraw();
  if (!root.__rteObserver) {
    let last = root.clientWidth;
    root.__rteObserver = new ResizeObserver(() => {
      if (Math.abs(root.clientWidth - last) > 1) {
        last = root.clientWidth;
        root.__rte.redraw();
      }
    });
    root.__rteObserver.observe(root);
  }
}
