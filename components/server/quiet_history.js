// Leaving a view by a sidebar link, Streamlit first clears the view's whole query (an entry of
// the same path with no query) and then adds the new view's path: Back then landed on the bare
// view, its question, tab and filters gone. So a change of this kind is held a moment: if
// another path follows, it is dropped and Back returns to the view as it was; if not, it is made.
(function () {
  var push = history.pushState;
  var held = null;
  function drop() {
    if (held) clearTimeout(held.timer);
    held = null;
  }
  function flush() {
    var h = held;
    drop();
    if (h) push.apply(history, h.args);
  }
  function holding(state, title, url) {
    var to = new URL(url == null ? location.href : String(url), location.href);
    var samePath = to.pathname === location.pathname;
    if (samePath && to.search === "" && location.search !== "") {
      drop(); // the same change asked again: one entry
      held = { args: arguments, timer: setTimeout(flush, 1000) };
      return undefined;
    }
    if (samePath) flush();
    else drop();
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
