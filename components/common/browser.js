// browser: what the server cannot do from Python. Every value comes from the explorer's own code
// (a path it built from its list of views and URL-encoded keys, a name typed in a widget); text is
// never parsed as HTML here.
const AUTHOR_COOKIE = "rte_author";
const YEAR = 365 * 24 * 3600;

function sameSiteRelative(path) {
  // only a relative path of ours: no scheme, no host, no leading slash or backslash
  return typeof path === "string" && /^[a-z][a-z0-9_-]*(\?[^#\s\\]*)?$/i.test(path);
}

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
  // whether text typed in a form is still unsaved (the triage keys ask before a step drops it)
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
    // this page is being left: the triage keys (components/casebook/triage_keys.js) hold their
    // keys for the next page instead of clicking the old page's controls while it unloads
    window.__rteLeaving = performance.now();
    window.location.assign(new URL(d.navigate, document.baseURI).href);
  }
}
