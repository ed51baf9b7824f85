// triage keys: j/k step, 1-9 toggle a tag, v cycles the verdict, n focuses the note, Enter saves
// and moves on. Each key clicks (or focuses) one of the triage bar's own keyed controls, so a key
// does exactly what its button does. No key fires while typing in a field, except Ctrl/Cmd+Enter
// in the note, which saves from there (a plain Enter in the note is a newline).
const BAR = ".st-key-tq_bar";

function control(name, tag) {
  return document.querySelector(`${BAR} .st-key-${name} ${tag}`);
}

function noteField() {
  return document.querySelector(`${BAR} textarea`); // the bar's one text area
}

function running() {
  const app = document.querySelector('[data-testid="stApp"]');
  return Boolean(app && app.dataset.testScriptState === "running");
}

function whenIdle(act, started = Date.now()) {
  // a click sent while the script still runs can be dropped with that run: act once it ended
  if (running() && Date.now() - started < 5000) {
    requestAnimationFrame(() => whenIdle(act, started));
    return;
  }
  act();
}

function clickIt(name) {
  const found = control(name, "button");
  if (found) {
    whenIdle(() => {
      const btn = control(name, "button"); // the one drawn now
      if (btn && !btn.disabled) btn.click();
    });
  }
  return Boolean(found);
}

function typing(el) {
  if (!el || !el.tagName) return false;
  const tag = el.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
}

function onKey(ev) {
  if (!document.querySelector(BAR) || ev.defaultPrevented || ev.isComposing) return;
  const target = ev.target;
  if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) {
    const note = noteField();
    if (target === note) {
      note.blur(); // the note's text reaches the server before the save
      clickIt("tq_save");
      ev.preventDefault();
      ev.stopPropagation();
    }
    return;
  }
  if (typing(target) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (target && target.closest && target.closest("button, a, [role='tab'], [role='option']")) {
    if (ev.key === "Enter") return; // a focused control answers Enter itself
  }
  let done = false;
  if (ev.key === "j") done = clickIt("tq_next");
  else if (ev.key === "k") done = clickIt("tq_prev");
  else if (ev.key === "v") done = clickIt("tq_verdict");
  else if (ev.key === "Enter") done = clickIt("tq_save");
  else if (/^[1-9]$/.test(ev.key)) done = clickIt(`tq_tag_${ev.key}`);
  else if (ev.key === "n") {
    const note = noteField();
    if (note) {
      note.focus();
      done = true;
    }
  }
  if (done) ev.preventDefault();
}

export default function () {
  if (window.__rteTriageKeys) return;
  window.__rteTriageKeys = true;
  document.addEventListener("keydown", onKey, true); // before the page's own handlers
}
