// triage keys: j/k step, 1-9 toggle a tag, v cycles the verdict, n focuses the note, Enter saves
// and moves on. Each key clicks (or focuses) one of the triage bar's own keyed controls, so a key
// does exactly what its button does. No key fires while typing in a field, except Ctrl/Cmd+Enter
// in the note, which saves from there (a plain Enter in the note is a newline), and Escape, which
// leaves the note (its text is kept) so the keys answer again.
//
// After `n` the keys are the note's text until Escape, a save or a click elsewhere: `n` may wait
// behind earlier keys' runs before the note can take the focus, and a run may redraw the note
// and take its focus away; either way what is typed goes into the note, never to the keys (a `k`
// in a word stepped back). Escape before the note has the focus keeps that text too: it goes
// into the note when the note can take it, and the keys after the Escape are keys again.
//
// Keys are applied one at a time, in the order pressed. A click sent while the app's script runs
// restarts that run with the click's widget state only, which drops the running one's button
// press (a `j` then a quick `2` lost the step, or the `2`); so a key waits until the run of the
// key before it has drawn the whole bar again (each run hands this listener, drawn after the
// bar, a new `run` token) and no script has run for IDLE_MS (a run stopped by `st.rerun` reads
// "notRunning" for a moment before the next one starts). A key whose button is not drawn yet,
// or that Streamlit has disabled while it reconnects, waits for it (up to GIVE_UP_MS) instead
// of being dropped. Keys still waiting when a step loads another page are kept in
// sessionStorage and applied on that page. Keys pressed while that page loads, before this
// listener is attached there, are kept by the page itself (the view's page shell,
// components/server/page_shell.py, listens from its first line when STEP says a queue is open)
// and applied here once attached. While a step's page load is under way (browser.js marks it),
// no key clicks the old page's controls.
//
// The listener's last decisions (keys, clicks, runs, page changes) are kept in `state.log`, over
// page loads too, so a journey that fails can say which key went where.
const BAR = ".st-key-tq_bar";
const STASH = "rte_triage_keys";
const LOG = "rte_triage_log"; // the decisions' log, carried over a step that loads a page
const STEP = "rte_triage_step"; // page_shell.py's TRIAGE_STEP: a queue's page is loading
const GIVE_UP_MS = 20000; // a run that never draws the bar again (an error above it) frees the queue
const IDLE_MS = 120;
const QUIET_MS = 1500;
const FILL_MS = 1000;
const state =
  window.__rteTriage ||
  (window.__rteTriage = {
    queue: [], wait: null, blocked: null, qid: null, typed: "", noteMode: false,
    run: null, changed: 0, log: [], refused: null, stored: "", readonly: false, drawnAt: 0,
  });

function record(what, detail) {
  // the listener's last decisions, for a test that fails to say what happened (bounded)
  state.log.push(`${Date.now() % 1e7} ${what} ${detail || ""}`); // one clock over page loads
  if (state.log.length > 200) state.log.shift();
}

function control(name, tag) {
  return document.querySelector(`${BAR} .st-key-${name} ${tag}`);
}

function noteField() {
  return document.querySelector(`${BAR} textarea`); // the bar's one text area
}

function drawnRun() {
  return state.run; // the token of the last run that drew the whole bar
}

function connected() {
  const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.dataset.testConnectionState === "CONNECTED";
}

function running() {
  const app = document.querySelector('[data-testid="stApp"]');
  const now = app && app.dataset.testScriptState;
  return now === "running" || now === "rerunRequested";
}

function idle() {
  // no run now, and none started or ended for IDLE_MS (state.changed: the observer below)
  return !running() && performance.now() - state.changed >= IDLE_MS;
}

const ACTIONS = {
  j: "tq_next",
  k: "tq_prev",
  v: "tq_verdict",
  Enter: "tq_save",
};

const KNOWN = new Set([...Object.values(ACTIONS), "note", "endnote", "save", ..."123456789"].map(
  (a) => (a.length === 1 ? `tq_tag_${a}` : a),
));

function actionOf(key) {
  if (ACTIONS[key]) return ACTIONS[key];
  if (/^[1-9]$/.test(key)) return `tq_tag_${key}`;
  return key === "n" ? "note" : null;
}

function editNote(change) {
  // the note's text changed as a user's typing changes it (React reads the input event), with
  // what was typed while it had no focus; kept for later while the note is not drawn
  const note = noteField();
  if (!note || note.disabled) {
    state.typed = change(state.typed);
    return;
  }
  note.focus();
  const text = change(note.value + state.typed);
  state.typed = "";
  if (text === note.value) return;
  const set = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set;
  set.call(note, text);
  note.dispatchEvent(new Event("input", { bubbles: true }));
}

function apply(action) {
  // true when a click went to the server (its run must end before the next key), false when
  // done here (or not possible: `k` on the first item), null when its control is not there yet
  // (the bar being redrawn) or the app is reconnecting (Streamlit disables every widget while
  // its connection is down)
  if (action === "endnote") {
    // Escape typed while `n` still waited (or while a run had the note redrawn): what was typed
    // goes into the note, then the note lets go, and the keys after the Escape are keys again
    const note = noteField();
    if (!note || (note.disabled && !connected())) return null;
    if (!note.disabled && state.typed) editNote((text) => text);
    note.blur();
    state.noteMode = false; // `n` set it when it ran; the keys after the Escape are keys
    return false;
  }
  if (action === "note") {
    const note = noteField();
    if (!note) return null;
    // a read-only casebook: no note to write, keys stay keys; else the note is disabled for a
    // moment (reconnecting, a page still loading): wait for it
    if (note.disabled) return state.readonly ? false : null;
    // Streamlit fills a text box whose value the app set just after drawing it: a note that
    // reads empty right after a run with a stored note is not filled yet (for up to FILL_MS)
    if (!note.value && state.stored && performance.now() - state.drawnAt < FILL_MS) return null;
    state.noteMode = true;
    // the stored note of the item's case, as loaded: what is typed starts on a line of its own
    // (the save trims a line left empty); a note of one's own being written is carried on
    const stored = note.value && note.value === state.stored;
    const more = stored && !note.value.endsWith("\n") ? "\n" : "";
    editNote((text) => (text.startsWith(note.value) ? note.value + more + text.slice(note.value.length) : text));
    return false;
  }
  const name = action === "save" ? "tq_save" : action;
  const btn = control(name, "button");
  if (!btn || (btn.disabled && !connected())) return null;
  if (btn.disabled) return false; // disabled by the bar itself: no previous item before the first
  if (action === "save") {
    state.noteMode = false;
    const note = noteField();
    if (note) note.blur(); // the note's text reaches the server with the save
  }
  record("click", `${name} run=${drawnRun()} script=${running() ? "running" : "idle"}`);
  state.refused = null; // a mouse click refused before is not this key's
  btn.click();
  if (state.refused === btn) {
    state.refused = null;
    record("refused", name);
    return false;
  }
  return true;
}

function leaving() {
  // a step is loading another page (components/common/browser.js marks it): the keys not
  // applied yet go to that page (`keep`), never to this one's controls as it unloads; a load
  // that does not happen (a reader staying for unsaved text) frees them after GIVE_UP_MS
  const at = window.__rteLeaving;
  return typeof at === "number" && performance.now() - at < GIVE_UP_MS;
}

function pump() {
  while (state.queue.length) {
    if (leaving()) {
      requestAnimationFrame(pump);
      return;
    }
    if (state.wait) {
      // drawn: the listener has the run's new token; or, should that token not come, a run
      // has started or ended since the click and the app has been quiet for QUIET_MS
      const quiet = state.changed > state.wait.at && !running()
        && performance.now() - state.changed >= QUIET_MS;
      const drawn = (drawnRun() !== state.wait.run && idle()) || quiet;
      if (!drawn && Date.now() - state.wait.since < GIVE_UP_MS) {
        requestAnimationFrame(pump);
        return;
      }
      record("drawn", drawn ? `run=${drawnRun()}` : "gave up");
      state.wait = null;
    }
    if (!idle() || !document.querySelector(BAR)) {
      requestAnimationFrame(pump);
      return;
    }
    const done = apply(state.queue[0]);
    if (done === false) record("skip", state.queue[0]);
    if (done === null) {
      // the key waits for its control, as long as a run may take; then it is dropped
      state.blocked = state.blocked || Date.now();
      if (Date.now() - state.blocked < GIVE_UP_MS) {
        requestAnimationFrame(pump);
        return;
      }
    }
    state.blocked = null;
    state.queue.shift();
    if (done) state.wait = { run: drawnRun(), since: Date.now(), at: performance.now() };
  }
}

const STEPS = ["tq_next", "tq_prev", "tq_end", "tq_save"].map((k) => `${BAR} .st-key-${k} button`)
  .join(", ");
const STEP_QUESTION =
  "Text you typed in a form here (a capture form, even closed) is not saved, and the next item " +
  "does not keep it. Leave it and go on?";

function askBeforeStep(ev) {
  // a step draws another item, and with it a new capture form: text in the old one would go
  // without a word, so a step (key or mouse) asks first, before its click reaches the app (after
  // it, the run has already dropped the old form); components/common/browser.js keeps the text
  state.refused = null;
  const btn = ev.target && ev.target.closest && ev.target.closest(STEPS);
  const guard = window.__rteGuard;
  if (!btn || !guard || !guard.unsaved()) return;
  const next = control("tq_next", "button"); // Save on the last item saves and stays
  if (btn.closest(".st-key-tq_save") && (!next || next.disabled)) return;
  if (window.confirm(STEP_QUESTION)) {
    guard.dirty.clear(); // the reader leaves that text: the page's leave prompt asks no more
    return;
  }
  ev.preventDefault();
  ev.stopPropagation();
  state.refused = btn; // `apply`: this key's click did not go to the app
}

function typing(el) {
  if (!el || !el.tagName) return false;
  const tag = el.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
}

function onKey(ev) {
  if (!document.querySelector(BAR) || ev.defaultPrevented || ev.isComposing) return;
  // the element the key went to, inside a component's shadow root too (a light control's
  // text box or tab): `ev.target` here is only the component's host
  const target = (ev.composedPath && ev.composedPath()[0]) || ev.target;
  // `n` waits in the queue and no Escape after it: what is typed is the note's text
  const noteAsked = state.queue.lastIndexOf("note") > state.queue.lastIndexOf("endnote");
  if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
    if (target === noteField() || noteAsked || state.noteMode) {
      state.queue.push("save");
      pump();
      ev.preventDefault();
      ev.stopPropagation();
    }
    return;
  }
  if (ev.key === "Escape" && target === noteField()) {
    state.noteMode = false;
    target.blur(); // out of the note: its text stays, and the keys answer again
    return;
  }
  const writing = noteAsked || state.noteMode;
  if (writing && !typing(target) && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
    if (ev.key === "Escape") {
      record("key", "Escape (note)");
      state.noteMode = false;
      state.queue.push("endnote"); // the text typed so far is kept
      pump();
    } else if (ev.key === "Backspace") {
      if (noteAsked) state.typed = state.typed.slice(0, -1);
      else editNote((text) => text.slice(0, -1));
    } else if (ev.key === "Enter" || ev.key.length === 1) {
      const typed = ev.key === "Enter" ? "\n" : ev.key;
      if (noteAsked) state.typed += typed;
      else editNote((text) => text + typed);
    } else {
      return;
    }
    ev.preventDefault();
    return;
  }
  if (typing(target) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (target && target.closest && target.closest("button, a, [role='tab'], [role='option']")) {
    if (ev.key === "Enter") return; // a focused control answers Enter itself
  }
  const action = actionOf(ev.key);
  if (!action) return;
  record("key", ev.key);
  state.queue.push(action);
  pump();
  ev.preventDefault();
}

function keep() {
  // a step that loads another page: the keys not applied yet go with the queue to that page,
  // and the page is told to keep the keys pressed while it loads
  if (!state.qid) return;
  record("leave", `queue=${state.queue.join(",")} typed=${state.typed.length}`);
  sessionStorage.setItem(STEP, JSON.stringify({ qid: state.qid, at: Date.now() }));
  if (state.queue.length) {
    const kept = { qid: state.qid, keys: state.queue, typed: state.typed };
    sessionStorage.setItem(STASH, JSON.stringify(kept));
  }
  // gone with the page: a return to it from the browser's cache does not apply them again
  state.queue = [];
  state.typed = "";
  try {
    sessionStorage.setItem(LOG, JSON.stringify({ qid: state.qid, log: state.log }));
  } catch (_) {
    // the log is only for a failing test to read; the keys above are what matters
  }
}

function restore() {
  // the keys of the page before (STASH, already actions), then those pressed while this page
  // loaded (raw keys), in the order pressed; only for the queue they were pressed in
  const kept = sessionStorage.getItem(STASH);
  const step = sessionStorage.getItem(STEP);
  sessionStorage.removeItem(STASH);
  sessionStorage.removeItem(STEP);
  const early = Array.isArray(window.__rteEarlyKeys) ? window.__rteEarlyKeys : [];
  window.__rteEarlyKeys = null;
  try {
    const before = JSON.parse(sessionStorage.getItem(LOG) || "{}");
    if (before && before.qid === state.qid && Array.isArray(before.log)) {
      state.log.unshift(...before.log.slice(-150));
    }
  } catch (_) {
    // an unreadable log is dropped; the keys below are still restored
  }
  sessionStorage.removeItem(LOG);
  record("arrive", `kept=${kept ? "yes" : "no"} step=${step ? "yes" : "no"} early=${early.length}`);
  try {
    if (kept) {
      const { qid, keys, typed } = JSON.parse(kept);
      if (qid === state.qid && Array.isArray(keys)) {
        state.queue.push(...keys.filter((k) => KNOWN.has(k)));
        if (typeof typed === "string") state.typed += typed;
      }
    }
    if (step && JSON.parse(step).qid === state.qid) {
      state.queue.push(...early.map(actionOf).filter((a) => a && KNOWN.has(a)));
    }
  } catch (_) {
    // an unreadable stash is dropped
  }
}

export default function (component) {
  const d = (component && component.data) || {};
  if (d.qid) state.qid = d.qid;
  if (d.run && d.run !== state.run) record("token", d.run);
  if (d.run && d.run !== state.run) state.drawnAt = performance.now();
  if (d.run) state.run = d.run;
  state.stored = typeof d.stored === "string" ? d.stored : "";
  state.readonly = d.readonly === true;
  if (!window.__rteTriageKeys) {
    window.__rteTriageKeys = true;
    // when a run starts or ends: a key waits until none has for IDLE_MS
    new MutationObserver(() => {
      state.changed = performance.now();
      const app = document.querySelector('[data-testid="stApp"]');
      record("script", app && app.dataset.testScriptState);
    }).observe(document.body, {
      subtree: true, attributes: true, attributeFilter: ["data-test-script-state"],
    });
    document.addEventListener("keydown", onKey, true); // before the page's own handlers
    document.addEventListener("click", askBeforeStep, true); // before the app's buttons
    document.addEventListener(
      "pointerdown",
      (ev) => {
        const target = (ev.composedPath && ev.composedPath()[0]) || ev.target;
        if (target !== noteField()) state.noteMode = false; // a click elsewhere leaves the note
      },
      true,
    );
    document.addEventListener(
      "focusout",
      (ev) => {
        // Tab to another control leaves the note; a run redrawing it moves the focus nowhere
        if (ev.target === noteField() && ev.relatedTarget) state.noteMode = false;
      },
      true,
    );
    window.addEventListener("pagehide", keep);
    restore();
  }
  document.documentElement.dataset.rteTriageKeys = "ready"; // the listener is on (journeys wait)
  pump();
}
