// Leaving a view by a sidebar link, Streamlit first clears the view's whole query (an entry of
// the same path with no query) and then adds the new view's path: Back then landed on the bare
// view, its question, tab and filters gone. So a change of this kind is held a moment: if
// another path follows, it is undone and Back returns to the view as it was; if not, it is
// made. While held, the address already shows it (a rerun sent meanwhile, e.g. a search typed
// right after opening a view's first tab, reads the query from the address: the old one would
// reopen the tab just left).
(function () {
  var push = history.pushState;
  var held = null;
  function drop() {
    if (held) clearTimeout(held.timer);
    held = null;
  }
  function undo() {
    // the entry as it was before the held change (then the change, if kept, is pushed anew)
    var h = held;
    drop();
    if (h) history.replaceState(h.state, "", h.from);
    return h;
  }
  function flush() {
    // the address as it is now (a replaceState made while the change was held, e.g. a bound
    // control's value, is kept), pushed as the new entry after the old one
    var now = { state: history.state, href: location.href };
    var h = undo();
    if (h) push.call(history, now.state, "", now.href);
  }
  function holding(state, title, url) {
    var to = new URL(url == null ? location.href : String(url), location.href);
    var samePath = to.pathname === location.pathname;
    if (samePath && to.search === "" && location.search !== "") {
      undo(); // the same change asked again: one entry
      var before = { state: history.state, from: location.href };
      history.replaceState(state, title, url);
      held = { args: arguments, state: before.state, from: before.from, timer: setTimeout(flush, 1000) };
      return undefined;
    }
    if (samePath) flush();
    else undo();
    return push.apply(history, arguments);
  }
  history.pushState = holding;
  addEventListener("popstate", drop);
})();


// A change of the address that nobody asked for, such as the first run of a view writing the
// question it opened on (`?qid=0`), replaces the page's history entry instead of adding one.
// Added, Back would lead to the same view without it, whose first run writes it again: the
// reader would press Back twice to leave. The first key or pointer press ends this; from then
// on every change is the reader's own and adds an entry as before. Another view's address (a
// new path) always adds one.
(function () {
  var push = history.pushState;
  function quiet(state, title, url) {
    var to = url == null ? location.href : new URL(String(url), location.href).href;
    if (new URL(to).pathname !== location.pathname) return push.apply(history, arguments);
    return history.replaceState(state, title, url);
  }
  function done() {
    if (history.pushState === quiet) history.pushState = push;
    removeEventListener("pointerdown", done, true);
    removeEventListener("keydown", done, true);
  }
  history.pushState = quiet;
  addEventListener("pointerdown", done, true);
  addEventListener("keydown", done, true);
})();
