// search marks: every place the page's text holds the phrase a search hit's link names, marked
// with the CSS Custom Highlight API (ranges painted by a ::highlight rule; the page's DOM and
// text are not touched). Text in components' shadow roots is marked too, root by root (a range
// cannot cross into a shadow root); typeset maths is not (KaTeX replaced its source).
const NAME = "rte-search-mark";
const CURRENT = "rte-search-mark-current"; // the mark "Next mark" brought into sight
const CURRENT_BG = "#f5a524";
const UNDERLINE = "#8a5a00"; // under every mark, dark enough on any light shading
const LAND_MS = 6000; // while a view draws, a hit with no mark in sight is brought to one
const RESCAN_MS = 1000; // components fill their shadow roots later than the page: look again
const RESCAN_FOR_MS = 20000;
const SKIP = new Set(["SCRIPT", "STYLE", "TEXTAREA", "INPUT", "NOSCRIPT"]);
const LINE = ".st-key-rte_marks_line"; // the line naming the marks: its phrase is no mark
const state =
  window.__rteMarks ||
  (window.__rteMarks = {
    key: "", observer: null, timer: null, ranges: [], at: -1, label: null, boxes: new WeakSet(),
  });

function rule(colour) {
  // underlined too: a mark inside text a view already shades (a selected node, a step) still
  // stands out
  const line = `text-decoration: underline 2px ${UNDERLINE}; text-underline-offset: 2px;`;
  return (
    `::highlight(${NAME}) { background-color: ${colour}; color: inherit; ${line} }\n` +
    `::highlight(${CURRENT}) { background-color: ${CURRENT_BG}; color: inherit; ${line} }`
  );
}

function styled(root, colour) {
  // the rule must be in each tree it paints (a shadow root does not see the page's rules)
  const host = root === document ? document.head : root;
  let style = host.querySelector(`style[data-rte-marks]`);
  if (!style) {
    style = document.createElement("style");
    style.dataset.rteMarks = "1";
    host.appendChild(style);
  }
  style.textContent = rule(colour);
}

function roots(main) {
  const out = [main];
  for (let i = 0; i < out.length; i++) {
    out[i].querySelectorAll("*").forEach((el) => {
      if (el.shadowRoot) out.push(el.shadowRoot);
    });
  }
  return out;
}

function rangesIn(root, phrase, cs) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => {
      const parent = node.parentElement;
      const skip = !parent || SKIP.has(parent.tagName) || parent.closest(LINE);
      return skip ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
    },
  });
  const nodes = [];
  const starts = [];
  let text = "";
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    nodes.push(node);
    starts.push(text.length);
    text += node.data;
  }
  let hay = text;
  let needle = phrase;
  if (!cs) {
    // any case, where lower-casing keeps every offset (else the phrase as written)
    const lower = text.toLowerCase();
    const low = phrase.toLowerCase();
    if (lower.length === text.length && low.length === phrase.length) {
      hay = lower;
      needle = low;
    }
  }
  const at = (offset, end) => {
    // the text node holding `offset` (at an end: the node it closes)
    let lo = 0;
    let hi = nodes.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] < offset || (!end && starts[mid] === offset)) lo = mid;
      else hi = mid - 1;
    }
    return [nodes[lo], offset - starts[lo]];
  };
  const out = [];
  for (let i = hay.indexOf(needle); i >= 0 && needle; i = hay.indexOf(needle, i + needle.length)) {
    const range = new Range();
    range.setStart(...at(i, false));
    range.setEnd(...at(i + needle.length, true));
    out.push(range);
  }
  return out;
}

function scrollBox(el, main) {
  // the nearest box inside the view that scrolls its own text (a node's text, a trace's text),
  // not the page
  for (let at = el; at && at !== main; at = up(at)) if (scrolls(at)) return at;
  return null;
}

function scrollBoxTo(box, rect) {
  // `box` scrolled so that `rect` (in the window's coordinates) sits a third down it
  box.scrollTop += rect.top - box.getBoundingClientRect().top - box.clientHeight / 3;
}

function inside(r, b) {
  return r.top >= b.top - 1 && r.bottom <= b.bottom + 1 && r.left >= b.left - 1
    && r.right <= b.right + 1;
}

function hiddenBy(range, main, scrolling) {
  // whether a box between the mark and the page cuts it off: one that hides its overflow (a
  // table cell cut short with "…"), and with `scrolling` one that scrolls its own text too
  const r = range.getBoundingClientRect();
  if (!r.width && !r.height) return true; // not laid out: a closed tab or section
  const cuts = (o) => o === "hidden" || o === "clip" || (scrolling && (o === "auto" || o === "scroll"));
  for (let at = range.startContainer.parentElement; at && at !== main; at = up(at)) {
    const style = getComputedStyle(at);
    const b = at.getBoundingClientRect();
    if (cuts(style.overflowX) && (r.left < b.left - 1 || r.right > b.right + 1)) return true;
    if (cuts(style.overflowY) && (r.top < b.top - 1 || r.bottom > b.bottom + 1)) return true;
  }
  return false;
}

function reachable(main) {
  // the marks a reader can be brought to (not those in a cell cut short, or a closed tab)
  return main ? (state.ranges || []).filter((range) => !hiddenBy(range, main, false)) : [];
}

function inSight(range, main, top) {
  // `top`: where the window stops being covered (`pinnedBottom`, read once by the caller)
  const r = range.getBoundingClientRect();
  return inside(r, { top, bottom: window.innerHeight, left: 0, right: window.innerWidth })
    && !hiddenBy(range, main, true);
}

function scrollSideways(range, main) {
  // a table wider than its box (it scrolls sideways) scrolled to the mark's column, when the
  // mark is out of its sight to the left or right
  for (let at = range.startContainer.parentElement; at && at !== main; at = up(at)) {
    if (!scrolls(at, true)) continue;
    const r = range.getBoundingClientRect();
    const b = at.getBoundingClientRect();
    if (r.left < b.left || r.right > b.right) at.scrollLeft += r.left - b.left - 24;
    return;
  }
}

function bringIntoSight(range, main) {
  // the mark's own box scrolled to it (a third down; a wide table sideways too), then the page:
  // the mark three fifths down what is not covered, so the headings and text just above it are
  // in sight too
  scrollSideways(range, main);
  const box = scrollBox(range.startContainer.parentElement, main);
  if (box) scrollBoxTo(box, range.getBoundingClientRect());
  const page = scroller(box ? up(box) : range.startContainer.parentElement);
  const top = pinnedBottom();
  const at = top + (window.innerHeight - top) * 0.6;
  if (page) page.scrollTop += range.getBoundingClientRect().top - at;
}

function openBoxesAtMarks(ranges, main) {
  // a box of text that scrolls on its own (a node's text, a trace's text) opens at a mark, once:
  // none of its marks wholly in sight, it scrolls to the first below what it shows (a box a view
  // has scrolled to its selected part keeps that part), else to its first; the page is not
  // moved, and a box seen once is left to the reader
  const byBox = new Map();
  for (const range of ranges) {
    const box = scrollBox(range.startContainer.parentElement, main);
    if (!box || state.boxes.has(box)) continue;
    if (!byBox.has(box)) byBox.set(box, []);
    byBox.get(box).push(range.getBoundingClientRect());
  }
  for (const [box, rects] of byBox) {
    state.boxes.add(box);
    const b = box.getBoundingClientRect();
    if (rects.some((r) => inside(r, { ...b.toJSON(), left: -1e9, right: 1e9 }))) continue;
    scrollBoxTo(box, rects.find((x) => x.top >= b.bottom) || rects[0]);
  }
}

function land(main, reach) {
  // the view opens at the hit: while it draws, and until the reader scrolls or clicks, a page
  // with no mark in sight is brought to its first mark. "Next mark" counts from the mark in
  // sight (before any press), so its first press moves on to the one after
  if (state.moved || Date.now() > state.landBy || !reach.length) return;
  const top = pinnedBottom();
  const seen = reach.findIndex((range) => inSight(range, main, top));
  if (seen < 0) {
    bringIntoSight(reach[0], main);
    state.at = 0;
  } else {
    state.at = seen;
  }
}

function mark(phrase, cs, colour) {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return;
  const ranges = [];
  for (const root of roots(main)) {
    if (root !== main) styled(root, colour);
    ranges.push(...rangesIn(root, phrase, cs));
  }
  CSS.highlights.set(NAME, new Highlight(...ranges));
  state.ranges = ranges;
  openBoxesAtMarks(ranges, main);
  const reach = reachable(main); // once a pass: it reads the layout of each mark's boxes
  land(main, reach);
  document.documentElement.dataset.rteMarks = String(ranges.length); // for the journeys
  if (state.label) state.label(reach.length);
}

function nextButton(parentElement) {
  // "Next mark": brings the marks into sight one after the other, in the page's order, the
  // current one in a stronger colour (those cut off in a cell or a closed tab are skipped)
  let btn = parentElement.querySelector("button");
  if (!btn) {
    btn = document.createElement("button");
    btn.type = "button";
    btn.className = "rte-next-mark";
    parentElement.appendChild(btn);
  }
  const main = () => document.querySelector('[data-testid="stMain"]');
  const label = (n = reachable(main()).length) => {
    btn.textContent = n ? `Next mark (${state.at >= 0 ? Math.min(state.at, n - 1) + 1 : 0} of ${n}) ↓` : "No mark yet";
    btn.disabled = !n;
  };
  state.label = label;
  btn.onclick = () => {
    const root = main();
    const ranges = reachable(root);
    if (!ranges.length) return;
    state.at = (state.at + 1) % ranges.length;
    const range = ranges[state.at];
    const current = new Highlight(range);
    current.priority = 1;
    CSS.highlights.set(CURRENT, current);
    bringIntoSight(range, root);
    label(ranges.length);
  };
  label();
}

function named(phrase) {
  // whether the page's URL still names the phrase (the marks cleared, another view opened)
  return new URLSearchParams(window.location.search).get("hl") === phrase;
}

function stop() {
  if (state.observer) state.observer.disconnect();
  if (state.timer) clearInterval(state.timer);
  state.observer = null;
  state.timer = null;
  CSS.highlights.delete(NAME);
  CSS.highlights.delete(CURRENT);
  state.ranges = [];
  delete document.documentElement.dataset.rteMarks;
}

export default function (component) {
  const d = (component && component.data) || {};
  if (!window.CSS || !CSS.highlights || typeof Highlight !== "function") return;
  if (d.button) {
    nextButton(component.parentElement);
    return;
  }
  const phrase = typeof d.phrase === "string" ? d.phrase : "";
  const colour = /^#[0-9a-f]{6}$/i.test(d.colour || "") ? d.colour : "#ffe58f";
  const key = `${phrase}\u0000${!!d.cs}`;
  if (key === state.key) return;
  stop();
  state.key = key;
  state.boxes = new WeakSet();
  state.at = -1; // no mark counted yet: landing or the first press sets it
  state.landBy = Date.now() + LAND_MS;
  state.moved = false;
  if (!window.__rteMarksMoved) {
    // the reader moved the page (or clicked): landing on a mark stops for good
    window.__rteMarksMoved = true;
    const moved = () => { state.moved = true; };
    for (const type of ["wheel", "touchmove", "keydown", "pointerdown"]) {
      window.addEventListener(type, moved, { capture: true, passive: true });
    }
  }
  if (!phrase) return;
  styled(document, colour);
  let pending = false;
  const again = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      if (!named(phrase)) {
        // the marks were cleared, or another view opened without them: this script is only
        // drawn while a link names a phrase, so it stops itself here
        stop();
        state.key = "";
        return;
      }
      mark(phrase, !!d.cs, colour);
    });
  };
  const main = document.querySelector('[data-testid="stMain"]');
  if (main) {
    state.observer = new MutationObserver(again);
    state.observer.observe(main, { childList: true, subtree: true, characterData: true });
  }
  const since = Date.now();
  state.timer = setInterval(() => {
    // a look again while components fill in; after that, only whether the URL still names it
    if (Date.now() - since <= RESCAN_FOR_MS) again();
    else if (!named(phrase)) again();
  }, RESCAN_MS);
  again();
}
