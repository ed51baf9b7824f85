// The page's scrolling, shared by the components that bring something into sight (joined before
// their own script): what is pinned at the window's top, and which box scrolls what.

// where the window's pinned top ends: the first of these bars that is pinned at the top (sticky,
// or drawn outside the page's layout wrappers), else the app's header. What a script brings into
// sight is placed below it, not under a bar.
const PINNED_BARS = [".st-key-present_banner", ".st-key-tq_bar", ".st-key-rte_marks_line"];

function pinnedBottom() {
  for (const sel of PINNED_BARS) {
    const bar = document.querySelector(sel);
    const wrap = bar && bar.closest('[data-testid="stLayoutWrapper"]');
    if (bar && !wrap) return Math.max(0, bar.getBoundingClientRect().bottom);
    const style = wrap && getComputedStyle(wrap);
    if (style && style.position === "sticky") {
      // where it ends once stuck (the page scrolled past it), wherever it is drawn now: a view
      // opening at the top still has it in its place in the page
      const paneTop = scroller(up(wrap)).getBoundingClientRect().top;
      return Math.max(0, paneTop) + (parseFloat(style.top) || 0) + wrap.getBoundingClientRect().height;
    }
  }
  const header = document.querySelector('[data-testid="stHeader"]');
  return header ? Math.max(0, header.getBoundingClientRect().bottom) : 64;
}

function up(el) {
  // the element's parent, out of a shadow root through its host
  if (el.parentElement) return el.parentElement;
  const root = el.getRootNode();
  return root && root.host ? root.host : null;
}

function scrolls(el, sideways = false) {
  // whether `el` scrolls vertically (`sideways`: horizontally): its overflow allows it and its
  // content is taller (wider)
  const style = getComputedStyle(el);
  return sideways
    ? /(auto|scroll)/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 4
    : /(auto|scroll)/.test(style.overflowY) && el.scrollHeight > el.clientHeight + 4;
}

function closestUp(el, testid) {
  // the nearest element at or above `el` with Streamlit's `data-testid`, out of shadow roots
  let at = el;
  while (at && !(at.dataset && at.dataset.testid === testid)) at = up(at);
  return at;
}

function scroller(from) {
  // the nearest box at or above `from` that scrolls vertically (the page's own, at the end)
  for (let at = from; at; at = up(at)) if (scrolls(at)) return at;
  return document.scrollingElement;
}
