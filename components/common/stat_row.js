// A row of headline figures (stat_row.py): label, value and delta of each, set with textContent
// (text from the data is never markup), the help as the tip of a small "?" mark.

const TONES = new Set(["up", "down", "off"]); // the stylesheet's delta colours

function cell(stat) {
  const box = document.createElement("div");
  box.className = "rte-stat";
  box.setAttribute("role", "listitem");
  const label = document.createElement("div");
  label.className = "rte-stat-label";
  const name = document.createElement("span");
  name.textContent = stat.label;
  label.appendChild(name);
  if (stat.help) {
    const tip = document.createElement("span");
    tip.className = "rte-stat-help";
    tip.textContent = "?";
    tip.title = stat.help;
    tip.tabIndex = 0;
    tip.setAttribute("aria-label", stat.help);
    label.appendChild(tip);
  }
  const value = document.createElement("div");
  value.className = "rte-stat-value";
  value.textContent = stat.value;
  box.append(label, value);
  if (stat.delta) {
    const delta = document.createElement("div");
    const tone = TONES.has(stat.tone) ? stat.tone : "off";
    delta.className = `rte-stat-delta ${tone}`;
    const arrow = stat.arrow === "↑" || stat.arrow === "↓" ? `${stat.arrow} ` : "";
    delta.textContent = arrow + stat.delta;
    box.appendChild(delta);
  }
  return box;
}

export default function (component) {
  const { data, parentElement } = component;
  const payload = data || {};
  let root = parentElement.querySelector(".rte-stats");
  if (!root) {
    root = document.createElement("div");
    root.className = "rte-stats";
    root.setAttribute("role", "list");
    parentElement.appendChild(root);
  }
  if (payload.label) root.setAttribute("aria-label", payload.label);
  root.replaceChildren(...(payload.stats || []).map(cell));
}
