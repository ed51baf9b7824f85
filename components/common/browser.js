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
  if (window.__rteGuard) return;
  window.__rteGuard = { dirty: new Set(), leaving: false };
  const g = window.__rteGuard;
  const formOf = (el) => el && el.closest && el.closest('[data-testid="stForm"]');
  document.addEventListener(
    "input",
    (ev) => {
      const form = formOf(ev.target);
      const tag = ev.target && ev.target.tagName;
      if (form && (tag === "TEXTAREA" || tag === "INPUT")) g.dirty.add(form);
    },
    true,
  );
  document.addEventListener(
    "click",
    (ev) => {
      const btn = ev.target && ev.target.closest && ev.target.closest("button");
      if (btn && /FormSubmit/.test(btn.getAttribute("data-testid") || "")) g.dirty.delete(formOf(btn));
    },
    true,
  );
  window.addEventListener("beforeunload", (ev) => {
    for (const form of [...g.dirty]) if (!form.isConnected) g.dirty.delete(form);
    if (g.dirty.size && !g.leaving) {
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
