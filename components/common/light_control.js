// A light control: a native <select>, a type-to-filter picker (a text box suggesting the options),
// a list of check boxes for several options, a radio group, an on/off switch, a range slider with
// one handle or two, a text box, or a row of tabs, with its label, drawn in place of Streamlit's widget. The
// label, the options and the help are set as text, never as markup. A choice is reported as the
// option's index, several as their indices ("0,3"), a switch as "1" or "0", a slider as its value
// and a range as "low,high" ("pick"); the server then decides what is shown, and the next run
// hands it back as `index` / `chosen` / `on` / `value`.

let serial = 0;
const KEY_PAUSE_MS = 350;

function helpTip() {
  // the help, shown as a tip on hover (its text is set in `update`)
  const tip = document.createElement("span");
  tip.className = "rte-lc-help";
  tip.textContent = "?";
  tip.setAttribute("role", "img");
  tip.tabIndex = 0; // reachable by Tab: a focused tip shows its text (CSS), as hover does
  tip.addEventListener("focus", () => {
    // in the window's right half the text opens leftwards, so it stays on screen
    const left = tip.getBoundingClientRect().left;
    tip.classList.toggle("rte-lc-help-end", left > window.innerWidth / 2);
  });
  return tip;
}

function head(root, forId) {
  const row = document.createElement("div");
  row.className = "rte-lc-head";
  const label = document.createElement("label");
  label.className = "rte-lc-label";
  label.htmlFor = forId;
  row.appendChild(label);
  const tip = helpTip();
  row.appendChild(tip);
  root.appendChild(row);
  return { label, tip };
}

function buildSelect(root, send) {
  const id = `rte-lc-${++serial}`;
  const parts = head(root, id);
  const select = document.createElement("select");
  select.id = id;
  select.addEventListener("change", () => send(select.value));
  root.appendChild(select);
  return { ...parts, select, version: null };
}

function buildCombo(root, send) {
  // a picker one can type into: the options are the box's suggestions (a datalist, which the
  // browser filters as one types). While focused the box is empty, the choice its placeholder,
  // so every option is suggested; Enter takes the first option that starts with (else contains)
  // the text, Escape or leaving the box without a match puts the choice back.
  const id = `rte-lc-${++serial}`;
  const parts = head(root, id);
  const input = document.createElement("input");
  input.type = "text";
  input.id = id;
  input.autocomplete = "off";
  input.setAttribute("role", "combobox");
  const list = document.createElement("datalist");
  list.id = `${id}-options`;
  input.setAttribute("list", list.id);
  root.append(input, list);
  const state = { ...parts, input, list, combo: true, labels: [], index: 0, version: null };
  const chosen = () => state.labels[state.index] ?? "";
  const find = (text, loose) => {
    const exact = state.labels.indexOf(text);
    if (exact >= 0 || !loose || !text.trim()) return exact;
    const low = text.trim().toLowerCase();
    const lower = state.labels.map((l) => l.toLowerCase());
    const starts = lower.findIndex((l) => l.startsWith(low));
    return starts >= 0 ? starts : lower.findIndex((l) => l.includes(low));
  };
  const take = (i) => {
    input.value = state.labels[i];
    if (i !== state.index) {
      state.index = i;
      send(String(i));
    }
  };
  input.addEventListener("focus", () => {
    input.placeholder = chosen();
    input.value = "";
  });
  input.addEventListener("input", (ev) => {
    // a suggestion picked from the list replaces the whole text
    if (ev.inputType && ev.inputType !== "insertReplacementText") return;
    const i = find(input.value, false);
    if (i >= 0) {
      take(i);
      input.blur();
    }
  });
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") {
      ev.preventDefault();
      const i = find(input.value, true);
      if (i >= 0) {
        take(i);
        input.blur();
      }
    } else if (ev.key === "Escape") {
      input.value = chosen();
      input.blur();
    }
  });
  input.addEventListener("blur", () => {
    input.placeholder = "";
    const i = find(input.value, false);
    if (i >= 0) take(i);
    else input.value = chosen();
  });
  return state;
}

function buildRadio(root, send) {
  // a fieldset named by its legend: the group's name for assistive technology
  const fieldset = document.createElement("fieldset");
  fieldset.className = "rte-lc-group";
  const legend = document.createElement("legend");
  legend.className = "rte-lc-head";
  const label = document.createElement("span");
  label.className = "rte-lc-label";
  const tip = helpTip();
  legend.append(label, tip);
  const group = document.createElement("div");
  group.className = "rte-lc-options";
  fieldset.append(legend, group);
  root.appendChild(fieldset);
  return { label, tip, group, name: `rte-lc-${++serial}`, send, version: null };
}

function buildTabs(root, send) {
  // a row of tabs (a tablist): the open one underlined. Arrow keys, Home and End move between
  // them, Enter or a click opens one; the view draws only the open tab's content, below it.
  const list = document.createElement("div");
  list.className = "rte-lc-tabs";
  list.setAttribute("role", "tablist");
  list.addEventListener("keydown", (ev) => {
    const tabs = [...list.querySelectorAll('[role="tab"]')];
    const at = tabs.indexOf(ev.target);
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[ev.key];
    if (at < 0 || to === undefined) return;
    ev.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length];
    tabs.forEach((t) => { t.tabIndex = t === next ? 0 : -1; });
    next.focus();
  });
  root.appendChild(list);
  return { tabs: true, list, send, version: null };
}

function openTab(state, index) {
  [...state.list.children].forEach((tab, i) => {
    tab.setAttribute("aria-selected", String(i === index));
    tab.tabIndex = i === index ? 0 : -1;
  });
}

function updateTabs(state, payload) {
  state.list.setAttribute("aria-label", String(payload.label ?? ""));
  if (state.version !== payload.version) {
    state.version = payload.version;
    state.list.replaceChildren(
      ...(payload.options || []).map((text, i) => {
        const tab = document.createElement("button");
        tab.type = "button";
        tab.setAttribute("role", "tab");
        tab.textContent = String(text);
        tab.addEventListener("click", () => {
          if (tab.getAttribute("aria-selected") === "true") return;
          openTab(state, i); // shown open at once; the run it starts draws its content
          state.send(String(i));
        });
        return tab;
      }),
    );
  }
  openTab(state, Number(payload.index ?? 0));
}

function rangeRow(root, track, out) {
  // a slider's row (its track, its value) and, under the track, the range's ends as
  // Streamlit's slider shows them
  const row = document.createElement("div");
  row.className = "rte-lc-range";
  row.append(track, out);
  const ends = document.createElement("div");
  ends.className = "rte-lc-ends";
  ends.setAttribute("aria-hidden", "true");
  const lo = document.createElement("span");
  const hi = document.createElement("span");
  ends.append(lo, hi);
  root.append(row, ends);
  return { lo, hi };
}

function sendOnRelease(inputs, value, send) {
  // a drag sends once released; arrow keys send once they pause, not at every step
  let timer = null;
  let byKey = false;
  for (const input of inputs) {
    input.addEventListener("keydown", () => { byKey = true; });
    input.addEventListener("pointerdown", () => { byKey = false; });
    input.addEventListener("change", () => {
      clearTimeout(timer);
      if (byKey) timer = setTimeout(() => send(value()), KEY_PAUSE_MS);
      else send(value());
    });
  }
}

function setRange(state, inputs, payload) {
  // the bounds, step and decimals the server gives, on each input and under the track
  const digits = payload.digits ?? 0;
  for (const input of inputs) {
    input.min = String(payload.lo);
    input.max = String(payload.hi);
    input.step = String(payload.step);
    input.dataset.digits = String(digits);
    input.disabled = Boolean(payload.disabled);
  }
  state.lo.textContent = Number(payload.lo).toFixed(digits);
  state.hi.textContent = Number(payload.hi).toFixed(digits);
}

function buildSlider(root, send) {
  const id = `rte-lc-${++serial}`;
  const parts = head(root, id);
  const input = document.createElement("input");
  input.type = "range";
  input.id = id;
  const out = document.createElement("output");
  out.htmlFor = id;
  const ends = rangeRow(root, input, out);
  const digits = () => Number(input.dataset.digits || 0);
  // the value in sight while dragging
  input.addEventListener("input", () => { out.textContent = Number(input.value).toFixed(digits()); });
  sendOnRelease([input], () => input.value, send);
  return { ...parts, ...ends, input, out, range: true };
}

function buildText(root, send, payload) {
  // a text box: Enter, leaving it changed, or its button (if any) sends the text
  const id = `rte-lc-${++serial}`;
  const parts = head(root, id);
  const row = document.createElement("div");
  row.className = "rte-lc-textrow";
  const input = document.createElement("input");
  input.type = "search";
  input.id = id;
  input.autocomplete = "off";
  row.appendChild(input);
  let sent = null;
  const commit = () => {
    if (input.value === sent) return;
    sent = input.value;
    send(input.value);
  };
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") {
      sent = null; // Enter sends again (a second search for the same text)
      commit();
    }
  });
  // leaving the box changed sends it too, unless the box only sends on Enter or its button
  input.addEventListener("change", () => { if (!input.dataset.enterOnly) commit(); });
  input.addEventListener("search", () => { if (input.value === "" && !input.dataset.enterOnly) commit(); });
  let button = null;
  if (payload.button) {
    button = document.createElement("button");
    button.type = "button";
    button.addEventListener("click", () => { sent = null; commit(); });
    row.appendChild(button);
  }
  root.appendChild(row);
  return { ...parts, input, button, text: true, reset: (v) => { sent = v; } };
}

function buildSwitch(root, send) {
  const label = document.createElement("label");
  label.className = "rte-lc-switch";
  const input = document.createElement("input");
  input.type = "checkbox";
  input.setAttribute("role", "switch");
  input.addEventListener("change", () => send(input.checked ? "1" : "0"));
  const text = document.createElement("span");
  label.append(input, text);
  root.appendChild(label);
  const tip = helpTip();
  root.appendChild(tip);
  return { label: text, tip, input };
}

function buildMulti(root, send) {
  // several options at once: a summary that reads like a select box opens a list of check boxes;
  // each tick sends the ticked options' indices ("0,3"), the list stays open across the rerun
  const id = `rte-lc-${++serial}`;
  const parts = head(root, id);
  const box = document.createElement("details");
  box.className = "rte-lc-multi";
  const summary = document.createElement("summary");
  summary.id = id;
  const menu = document.createElement("div");
  menu.className = "rte-lc-menu";
  menu.setAttribute("role", "group");
  box.append(summary, menu);
  root.appendChild(box);
  const state = { ...parts, box, summary, menu, multi: true, version: null };
  const picked = () =>
    Array.from(menu.querySelectorAll("input:checked")).map((i) => i.value).join(",");
  menu.addEventListener("change", () => send(picked()));
  // a click elsewhere or Escape closes the list
  const outside = (ev) => {
    if (!box.isConnected) document.removeEventListener("click", outside);
    else if (box.open && !ev.composedPath().includes(box)) box.open = false;
  };
  document.addEventListener("click", outside);
  box.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && box.open) {
      box.open = false;
      summary.focus();
    }
  });
  return state;
}

function buildRange(root, send) {
  // a range with two handles: two range inputs over one track, the span between them filled;
  // a handle cannot pass the other, and a release sends both ("low,high")
  const id = `rte-lc-${++serial}`;
  const parts = head(root, id);
  const dual = document.createElement("div");
  dual.className = "rte-lc-dual";
  const fill = document.createElement("div");
  fill.className = "rte-lc-fill";
  const low = document.createElement("input");
  const high = document.createElement("input");
  low.type = high.type = "range";
  low.id = id;
  dual.append(fill, low, high);
  const out = document.createElement("output");
  const ends = rangeRow(root, dual, out);
  const shown = () => {
    const d = Number(low.dataset.digits || 0);
    out.textContent = `${Number(low.value).toFixed(d)} – ${Number(high.value).toFixed(d)}`;
    const span = Number(low.max) - Number(low.min) || 1;
    const a = ((Number(low.value) - Number(low.min)) / span) * 100;
    const b = ((Number(high.value) - Number(low.min)) / span) * 100;
    fill.style.left = `${a}%`;
    fill.style.width = `${Math.max(b - a, 0)}%`;
  };
  for (const [input, other, isLow] of [[low, high, true], [high, low, false]]) {
    input.addEventListener("input", () => {
      const v = Number(input.value);
      const w = Number(other.value);
      if (isLow ? v > w : v < w) input.value = String(w);
      shown();
    });
  }
  sendOnRelease([low, high], () => `${low.value},${high.value}`, send);
  return { ...parts, ...ends, low, high, fill, out, shown, dual: true };
}

function update(state, payload) {
  if (state.tabs) {
    updateTabs(state, payload);
    return;
  }
  state.label.textContent = String(payload.label ?? "");
  const help = String(payload.help ?? "");
  state.tip.hidden = help === "";
  state.tip.title = help;
  state.tip.setAttribute("aria-label", help);
  state.tip.dataset.tip = help;
  if (state.group) {
    if (state.version !== payload.version) {
      state.version = payload.version;
      state.group.replaceChildren(
        ...(payload.options || []).map((text, i) => {
          const option = document.createElement("label");
          const input = document.createElement("input");
          input.type = "radio";
          input.name = state.name;
          input.value = String(i);
          input.addEventListener("change", () => state.send(input.value));
          const span = document.createElement("span");
          span.textContent = String(text);
          option.append(input, span);
          return option;
        }),
      );
    }
    for (const input of state.group.querySelectorAll("input")) {
      input.checked = input.value === String(payload.index ?? 0);
    }
  } else if (state.text) {
    const value = String(payload.value ?? "");
    const input = state.input;
    if (input.dataset.v !== value) {
      // the server's text (a link, Back, a reset): shown unless the reader is typing in the
      // box (its text differs from the last the server gave)
      const typing = input.getRootNode().activeElement === input && input.value !== (input.dataset.v ?? "");
      input.dataset.v = value;
      if (!typing) input.value = value;
      state.reset(value);
    }
    if (payload.enter_only) input.dataset.enterOnly = "1";
    else delete input.dataset.enterOnly;
    state.input.placeholder = String(payload.placeholder ?? "");
    state.input.maxLength = Number(payload.max_chars || 1000);
    if (state.button) state.button.textContent = String(payload.button);
  } else if (state.range) {
    setRange(state, [state.input], payload);
    state.input.value = String(payload.value);
    state.out.textContent = Number(payload.value).toFixed(payload.digits ?? 0);
  } else if (state.multi) {
    const chosen = new Set((payload.chosen || []).map(String));
    if (state.version !== payload.version) {
      state.version = payload.version;
      state.menu.replaceChildren(
        ...(payload.options || []).map((text, i) => {
          const option = document.createElement("label");
          const input = document.createElement("input");
          input.type = "checkbox";
          input.value = String(i);
          const span = document.createElement("span");
          span.textContent = String(text);
          option.append(input, span);
          return option;
        }),
      );
      if (!(payload.options || []).length) {
        const none = document.createElement("div");
        none.className = "rte-lc-none";
        none.textContent = "No options to select";
        state.menu.appendChild(none);
      }
    }
    for (const input of state.menu.querySelectorAll("input")) input.checked = chosen.has(input.value);
    const names = (payload.options || []).filter((_, i) => chosen.has(String(i))).map(String);
    state.summary.textContent = names.length ? names.join(", ") : String(payload.placeholder ?? "");
    state.summary.classList.toggle("rte-lc-empty", !names.length);
    state.menu.setAttribute("aria-label", String(payload.label ?? ""));
  } else if (state.dual) {
    setRange(state, [state.low, state.high], payload);
    const label = String(payload.label ?? "");
    state.low.setAttribute("aria-label", `${label} (from)`);
    state.high.setAttribute("aria-label", `${label} (to)`);
    state.low.value = String(payload.value[0]);
    state.high.value = String(payload.value[1]);
    state.shown();
  } else if (state.combo) {
    const input = state.input;
    if (state.version !== payload.version) {
      state.version = payload.version;
      state.labels = (payload.options || []).map(String);
      state.list.replaceChildren(
        ...state.labels.map((text) => {
          const option = document.createElement("option");
          option.value = text;
          return option;
        }),
      );
    }
    state.index = Number(payload.index ?? 0);
    const focused = input.getRootNode().activeElement === input;
    if (!focused) input.value = state.labels[state.index] ?? "";
    else input.placeholder = state.labels[state.index] ?? "";
    input.disabled = Boolean(payload.disabled);
  } else if (state.select) {
    const select = state.select;
    if (state.version !== payload.version) {
      state.version = payload.version;
      select.replaceChildren(
        ...(payload.options || []).map((text, i) => {
          const option = document.createElement("option");
          option.value = String(i);
          option.textContent = String(text);
          return option;
        }),
      );
    }
    select.value = String(payload.index ?? 0);
    select.disabled = Boolean(payload.disabled);
  } else {
    state.input.checked = Boolean(payload.on);
    state.input.disabled = Boolean(payload.disabled);
  }
}

export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  const payload = data || {};
  const kinds = ["switch", "radio", "slider", "text", "combo", "multi", "range", "tabs"];
  const kind = kinds.includes(payload.kind) ? payload.kind : "select";
  let root = parentElement.querySelector(".rte-lc");
  if (!root || root.dataset.kind !== kind) {
    if (root) root.remove();
    root = document.createElement("div");
    root.className = `rte-lc rte-lc-k-${kind}`;
    root.dataset.kind = kind;
    parentElement.appendChild(root);
    const send = (value) => setTriggerValue("pick", value);
    const builders = {
      select: buildSelect, combo: buildCombo, radio: buildRadio, switch: buildSwitch,
      slider: buildSlider, text: buildText, multi: buildMulti, range: buildRange, tabs: buildTabs,
    };
    const build = builders[kind];
    root.__rteState = build(root, send, payload);
  }
  update(root.__rteState, payload);
}
