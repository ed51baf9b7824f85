// browser: what the server cannot do from Python. Every value comes from the explorer's own code
// (a path it built from its list of views and URL-encoded keys, a name typed in a widget); text is
// never parsed as HTML here.
const AUTHOR_COOKIE = "rte_author";
const YEAR = 365 * 24 * 3600;

function sameSiteRelative(path) {
  // only a relative path of ours: no scheme, no host, no leading slash or backslash
  return typeof path === "string" && /^[a-z][a-z0-9_-]*(\?[^#\s\\]*)?$/i.test(path);
}

const TRIAGE_STEPS = [".st-key-tq_next", ".st-key-tq_prev", ".st-key-tq_end", ".st-key-tq_save"]
  .map((k) => `${k} button`).join(", ");
const STEP_QUESTION =
  "Text you typed in a form here (a capture form, even closed) is not saved, and the next item " +
  "does not keep it. Leave it and go on?";

function installGuard() {
  // Text typed in a form and not submitted makes leaving the page ask first. A form in a
  // popover (the views' capture forms) leaves the page when its popover closes, while Streamlit
  // keeps its text for the next opening: it still counts while the page shows the same address
  // as when it was typed (the same item). A form gone with the item it was on does not.
  if (window.__rteGuard) return;
  window.__rteGuard = { dirty: new Map(), leaving: false };
  const g = window.__rteGuard;
  const formOf = (el) => el && el.closest && el.closest('[data-testid="stForm"]');
  document.addEventListener(
    "input",
    (ev) => {
      const form = formOf(ev.target);
      const tag = ev.target && ev.target.tagName;
      if (form && (tag === "TEXTAREA" || tag === "INPUT")) g.dirty.set(form, location.href);
    },
    true,
  );
  document.addEventListener(
    "click",
    (ev) => {
      const btn = ev.target && ev.target.closest && ev.target.closest("button");
      if (!btn || !/FormSubmit/.test(btn.getAttribute("data-testid") || "")) return;
      g.dirty.delete(formOf(btn));
      // a reopened popover draws its form anew: the closed one's entry is this form's too (one
      // popover is open at a time, so a second closed form's text goes unguarded: rare)
      for (const form of [...g.dirty.keys()]) if (!form.isConnected) g.dirty.delete(form);
    },
    true,
  );
  // a triage step (components/casebook/triage_bar.py) draws another item, and with it a new
  // capture form: text in the old one would go without a word, so the step asks first, before
  // its click reaches the app (after it, the run has already dropped the old form)
  document.addEventListener(
    "click",
    (ev) => {
      g.refused = null;
      const btn = ev.target && ev.target.closest && ev.target.closest(TRIAGE_STEPS);
      if (!btn || !g.unsaved()) return;
      // Save on the last item saves and stays: nothing is dropped
      const last = document.querySelector(".st-key-tq_next button");
      if (btn.closest(".st-key-tq_save") && (!last || last.disabled)) return;
      // the text's entries go by themselves once the step has drawn another item (`unsaved`)
      if (window.confirm(STEP_QUESTION)) return;
      ev.preventDefault();
      ev.stopPropagation();
      g.refused = btn; // triage_keys.js: this key's click did not go to the app
    },
    true,
  );
  g.unsaved = () => {
    for (const [form, href] of [...g.dirty]) {
      if (!form.isConnected && href !== location.href) g.dirty.delete(form);
    }
    return g.dirty.size > 0;
  };
  window.addEventListener("beforeunload", (ev) => {
    if (g.unsaved() && !g.leaving) {
      window.__rteLeaving = null; // the reader may stay: the triage keys answer here again
      ev.preventDefault();
      ev.returnValue = "";
    }
  });
  window.addEventListener("pageshow", (ev) => {
    if (ev.persisted) window.__rteLeaving = null; // back on this page from the browser's cache
  });
}

function focusWhenDrawn(cls, nonce) {
  // the view draws its item after the banner (or the triage bar): wait for it, bring it below
  // what is pinned at the top, and keep it there while charts above it finish drawing (until
  // the reader scrolls)
  if (window.__rteFocused === nonce) return;
  window.__rteFocused = nonce;
  const started = Date.now();
  let found = 0;
  let userMoved = false;
  const stop = () => { userMoved = true; };
  window.addEventListener("wheel", stop, { once: true, capture: true });
  window.addEventListener("touchmove", stop, { once: true, capture: true });
  window.addEventListener("keydown", stop, { once: true, capture: true });
  const tick = () => {
    if (userMoved) return;
    const node = document.querySelector(`[class*="${CSS.escape(cls)}"]`);
    if (node) {
      const below = pinnedBottom() + 16;
      if (Math.abs(node.getBoundingClientRect().top - below) > 4) {
        node.style.scrollMarginTop = `${below}px`;
        node.scrollIntoView({ block: "start", behavior: "instant" });
      }
      found = found || Date.now();
      if (Date.now() - found < 4000) setTimeout(tick, 250);
      return;
    }
    if (Date.now() - started < 30000) setTimeout(tick, 150);
  };
  tick();
}

export default function (component) {
  const { data } = component;
  const d = data || {};
  installGuard();
  if (typeof d.author === "string" && d.author) {
    const value = encodeURIComponent(d.author.slice(0, 200));
    document.cookie = `${AUTHOR_COOKIE}=${value}; path=/; max-age=${YEAR}; SameSite=Lax`;
  }
  if (typeof d.focus === "string" && d.focus) focusWhenDrawn(d.focus, `${d.focus}:${d.nonce}:${location.search}`);
  if (d.navigate && d.nonce && window.__rteNavigated !== d.nonce && sameSiteRelative(d.navigate)) {
    window.__rteNavigated = d.nonce;
    const g = window.__rteGuard;
    // asked here, not by the browser's own leave prompt: a reader who stays must get the page
    // back (the run that sent this stopped before drawing the view), so the answer is needed.
    // Only a form still on screen holds its text: one this run did not draw lost it already
    // (the triage steps ask before their click, while it is there)
    const shown = g.unsaved() && [...g.dirty.keys()].some((form) => form.isConnected);
    if (shown && !window.confirm(String(d.ask || ""))) {
      component.setTriggerValue("stayed", d.nonce); // a new run draws this page again
      return;
    }
    g.leaving = true; // asked already (or nothing to ask)
    // this page is being left: the triage keys (components/casebook/triage_keys.js) hold their
    // keys for the next page instead of clicking the old page's controls while it unloads
    window.__rteLeaving = performance.now();
    window.location.assign(new URL(d.navigate, document.baseURI).href);
  }
}
